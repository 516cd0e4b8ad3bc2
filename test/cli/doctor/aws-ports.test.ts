/**
 * `kfek doctor`'s gathering against a real moto server (.venv), with the synthesized sandbox profile.
 *
 * moto 5.2.5 answers STS GetCallerIdentity, CloudFormation (CreateStack from a template, DescribeStacks, GetTemplate,
 * ListStacks, ListStackResources), SSM GetParameter, CloudWatch Logs (DescribeLogGroups, DescribeResourcePolicies,
 * PutSubscriptionFilter, DescribeSubscriptionFilters) and OpenSearch DescribeDomain. Checked by hand, it does NOT
 * implement, so these go through aws-sdk-client-mock here:
 * - Lambda GetAccountSettings (404),
 * - OpenSearch DescribeInstanceTypeLimits and ListInstanceTypeDetails (404),
 * - CloudWatch Logs DescribeAccountPolicies (500, NotImplementedError),
 * - CloudFormation DescribeStackResources by PhysicalResourceId alone ("Stack with id None does not exist"; the
 *   port lists the app's stacks' resources instead, which moto does answer).
 * The mapping check talks to a fake authinfo endpoint (test/helpers/fake-authinfo.ts): the local OpenSearch node
 * has no security plugin.
 */
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import {
  CloudWatchLogsClient,
  DescribeAccountPoliciesCommand,
  PutSubscriptionFilterCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { GetAccountSettingsCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { DescribeInstanceTypeLimitsCommand, OpenSearchClient } from '@aws-sdk/client-opensearch';
import { PutParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { mockClient } from 'aws-sdk-client-mock';
import { accountPorts } from '../../../cli/doctor/aws-ports';
import { runChecks } from '../../../cli/doctor/checks';
import type { Finding } from '../../../cli/doctor/model';
import { type DoctorPorts, gatherFacts } from '../../../cli/doctor/facts';
import { type ProfilePlan, readPlan } from '../../../cli/doctor/plan';
import { run } from '../../../cli/main';
import { getCallerIdentity } from '../../../cli/proxy';
import { startMoto, type MotoServer } from '../../../scripts/moto-server';
import { buildTestApp } from '../../helpers/app';
import { startFakeAuthInfo, type FakeAuthInfo } from '../../helpers/fake-authinfo';

jest.setTimeout(60_000);

const REGION = 'eu-west-1';
const CREDENTIALS = { accessKeyId: 'AKIDDOCTOR', secretAccessKey: 'doctor-secret' };

let moto: MotoServer;
let plan: ProfilePlan;
let authinfo: FakeAuthInfo;
let cfn: CloudFormationClient;
let ssm: SSMClient;
let logs: CloudWatchLogsClient;
let opensearch: OpenSearchClient;

/** Clients for the APIs moto lacks, answered by aws-sdk-client-mock. */
const lambdaClient = new LambdaClient({ region: REGION, credentials: CREDENTIALS });
const lambdaMock = mockClient(lambdaClient);
const instanceLimitsClient = new OpenSearchClient({ region: REGION, credentials: CREDENTIALS });
const instanceLimitsMock = mockClient(instanceLimitsClient);
const accountPoliciesClient = new CloudWatchLogsClient({ region: REGION, credentials: CREDENTIALS });
const accountPoliciesMock = mockClient(accountPoliciesClient);

const check = (findings: readonly Finding[], id: string): Finding | undefined =>
  findings.find((f) => f.check === id);

function ports(): DoctorPorts {
  return {
    region: () => Promise.resolve(REGION),
    callerArn: (region) => getCallerIdentity({ region, credentials: CREDENTIALS, endpoint: moto.endpoint }),
    plan: () => Promise.resolve(plan),
    ...accountPorts(
      {
        cloudformation: cfn,
        ssm,
        lambda: lambdaClient,
        opensearch,
        logs,
        instanceLimits: instanceLimitsClient,
        accountPolicies: accountPoliciesClient,
      },
      CREDENTIALS,
    ),
  };
}

async function createStack(name: string, template: Record<string, unknown>): Promise<void> {
  await cfn.send(new CreateStackCommand({ StackName: name, TemplateBody: JSON.stringify(template) }));
}

/** What `cdk bootstrap` leaves behind that the doctor reads: the stack's output and the SSM parameter. */
async function bootstrap(version: number): Promise<void> {
  await createStack('CDKToolkit', {
    Resources: { Bucket: { Type: 'AWS::S3::Bucket' } },
    Outputs: { BootstrapVersion: { Value: String(version) } },
  });
  await ssm.send(
    new PutParameterCommand({
      Name: '/cdk-bootstrap/hnb659fds/version',
      Value: String(version),
      Type: 'String',
      Overwrite: true,
    }),
  );
}

/** The four sandbox stacks, reduced to what the doctor reads: the raw stream export, DashboardsUrl, the log group. */
async function deploySandbox(): Promise<string> {
  const rawExport = plan.subscriptions[0].destinationExport ?? '';
  await createStack(plan.stackNames.Search, {
    Resources: { Raw: { Type: 'AWS::Kinesis::Stream', Properties: { ShardCount: 1 } } },
    Outputs: {
      RawArn: { Value: { 'Fn::GetAtt': ['Raw', 'Arn'] }, Export: { Name: rawExport } },
      DashboardsUrl: { Value: `${authinfo.url}/_dashboards` },
    },
  });
  await createStack(plan.stackNames.Sources, {
    Resources: { App: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: '/kfek/sandbox/app' } } },
  });
  for (const id of ['Pipeline', 'Monitoring']) {
    await createStack(plan.stackNames[id], { Resources: { Topic: { Type: 'AWS::SNS::Topic' } } });
  }
  const facts = await gatherFacts(ports(), { profile: 'sandbox', skipSynth: false });
  const search =
    facts.stacks?.ok === true
      ? facts.stacks.value.find((s) => s.stackName === plan.stackNames.Search)
      : undefined;
  return search?.exports[rawExport] ?? '';
}

beforeAll(async () => {
  moto = await startMoto();
  const config = {
    region: REGION,
    endpoint: moto.endpoint,
    credentials: CREDENTIALS,
    requestHandler: new NodeHttpHandler(),
  };
  cfn = new CloudFormationClient(config);
  ssm = new SSMClient(config);
  logs = new CloudWatchLogsClient(config);
  opensearch = new OpenSearchClient(config);
  // The real sandbox profile, synthesized in-process (bundling skipped) into a real cloud assembly.
  const { app } = buildTestApp({ profile: 'sandbox' });
  plan = readPlan(app.synth().directory, 'sandbox');
  authinfo = await startFakeAuthInfo({
    body: {
      user_name: 'arn:aws:iam::123456789012:user/moto',
      backend_roles: ['arn:aws:iam::123456789012:user/moto'],
      roles: ['all_access', 'own_index'],
    },
  });
});

afterAll(async () => {
  for (const c of [cfn, ssm, logs, opensearch]) c?.destroy();
  await authinfo?.stop();
  await moto?.stop();
});

beforeEach(async () => {
  await moto.reset();
  lambdaMock.reset();
  instanceLimitsMock.reset();
  accountPoliciesMock.reset();
  lambdaMock
    .on(GetAccountSettingsCommand)
    .resolves({ AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 } });
  instanceLimitsMock.on(DescribeInstanceTypeLimitsCommand).resolves({
    LimitsByRole: {
      data: {
        InstanceLimits: { InstanceCountLimits: { MinimumInstanceCount: 1, MaximumInstanceCount: 10 } },
        StorageTypes: [
          {
            StorageTypeName: 'ebs',
            StorageSubTypeName: 'gp3',
            StorageTypeLimits: [
              { LimitName: 'MinimumVolumeSize', LimitValues: ['10'] },
              { LimitName: 'MaximumVolumeSize', LimitValues: ['100'] },
            ],
          },
        ],
      },
    },
  });
  accountPoliciesMock.on(DescribeAccountPoliciesCommand).resolves({ accountPolicies: [] });
});

describe('kfek doctor against moto', () => {
  test('fails when the account is not bootstrapped in the region, with the bootstrap command', async () => {
    // GIVEN an empty account
    // WHEN
    const findings = runChecks(await gatherFacts(ports(), { profile: 'sandbox', skipSynth: false }));
    // THEN
    expect(check(findings, 'credentials')).toMatchObject({
      status: 'ok',
      finding: expect.stringContaining(
        'OpenSearch will see the backend role arn:aws:sts::123456789012:user/moto',
      ),
    });
    expect(check(findings, 'bootstrap')).toMatchObject({
      status: 'fail',
      fix: 'npx cdk bootstrap aws://123456789012/eu-west-1',
    });
    expect(check(findings, 'stacks')).toMatchObject({
      status: 'ok',
      finding: expect.stringContaining('not deployed yet'),
    });
    expect(check(findings, 'opensearch-mapping')?.status).toBe('skip');
  });

  test('passes every pre-deploy check in a bootstrapped account with room for the profile', async () => {
    // GIVEN
    await bootstrap(30);
    // WHEN
    const findings = runChecks(await gatherFacts(ports(), { profile: 'sandbox', skipSynth: false }));
    // THEN
    expect(findings.filter((f) => f.status !== 'ok' && f.status !== 'skip')).toEqual([]);
    expect(instanceLimitsMock.commandCalls(DescribeInstanceTypeLimitsCommand)[0].args[0].input).toEqual({
      InstanceType: 't3.small.search',
      EngineVersion: 'OpenSearch_2.19',
    });
  });

  test("fails when another profile's stack already holds a log group name this profile wants", async () => {
    // GIVEN
    await bootstrap(30);
    await createStack('kfek-other-sources', {
      Resources: { App: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: '/kfek/sandbox/app' } } },
    });
    // WHEN
    const findings = runChecks(await gatherFacts(ports(), { profile: 'sandbox', skipSynth: false }));
    // THEN
    expect(check(findings, 'clashes')).toMatchObject({
      status: 'fail',
      finding: expect.stringContaining(
        'log group /kfek/sandbox/app (wanted by kfek-sandbox-sources) exists, owned by stack kfek-other-sources',
      ),
    });
  });

  test("fails when another profile's account-level subscription policy exists and this one enables its own", async () => {
    // GIVEN a profile with the account-level policy on, synthesized for real, and another policy in the account
    const { app } = buildTestApp({ overrides: { sources: { accountPolicy: { enabled: true } } } });
    const withPolicy = readPlan(app.synth().directory, 'test');
    expect(withPolicy.namedResources).toContainEqual({
      kind: 'logs-account-policy',
      name: 'kfek-test-subscription',
      stackName: 'kfek-test-sources',
    });
    await bootstrap(30);
    accountPoliciesMock
      .on(DescribeAccountPoliciesCommand, { policyType: 'SUBSCRIPTION_FILTER_POLICY' })
      .resolves({
        accountPolicies: [
          { policyName: 'kfek-sandbox-subscription', policyType: 'SUBSCRIPTION_FILTER_POLICY' },
        ],
      });
    // WHEN
    const findings = runChecks(
      await gatherFacts(
        { ...ports(), plan: () => Promise.resolve(withPolicy) },
        { profile: 'test', skipSynth: false },
      ),
    );
    // THEN
    expect(check(findings, 'clashes')).toMatchObject({
      status: 'fail',
      finding: expect.stringContaining(
        'account-level subscription policy kfek-sandbox-subscription exists (outside CloudFormation) and kfek-test-sources wants one too',
      ),
      fix: expect.stringContaining('one profile per account and region'),
    });
  });

  test("fails when the Lambda concurrency quota is a new account's and the profile does not fit", async () => {
    // GIVEN
    await bootstrap(30);
    lambdaMock
      .on(GetAccountSettingsCommand)
      .resolves({ AccountLimit: { ConcurrentExecutions: 10, UnreservedConcurrentExecutions: 0 } });
    // WHEN
    const findings = runChecks(await gatherFacts(ports(), { profile: 'sandbox', skipSynth: false }));
    // THEN
    expect(check(findings, 'lambda-concurrency')?.status).toBe('fail');
  });

  test('after a deploy: stacks complete, the log group subscribed to the raw stream, the caller mapped', async () => {
    // GIVEN
    await bootstrap(30);
    const rawArn = await deploySandbox();
    await logs.send(
      new PutSubscriptionFilterCommand({
        logGroupName: '/kfek/sandbox/app',
        filterName: 'to-raw',
        filterPattern: '',
        destinationArn: rawArn,
        roleArn: 'arn:aws:iam::123456789012:role/delivery',
      }),
    );
    // WHEN
    const findings = runChecks(await gatherFacts(ports(), { profile: 'sandbox', skipSynth: false }));
    // THEN
    expect(rawArn).toMatch(/^arn:aws:kinesis:eu-west-1:123456789012:stream\//);
    // The change checks compare the stand-in stacks (read back with moto's GetTemplate) with the synthesized ones,
    // which differ: the stand-in's log group under another logical id is a name clash on the next deploy.
    expect(findings.filter((f) => f.status !== 'ok' && !f.check.startsWith('change'))).toEqual([]);
    expect(check(findings, 'change-names')).toMatchObject({
      status: 'fail',
      finding: expect.stringContaining(
        `while ${plan.stackNames.Sources}/App still holds that name (CloudFormation creates new resources before it deletes the old ones)`,
      ),
    });
    expect(check(findings, 'opensearch-mapping')?.finding).toContain('all_access');
    expect(authinfo.authorizations.at(-1)).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDDOCTOR\/\d{8}\/eu-west-1\/es\/aws4_request/,
    );
  });

  test('fails when a deployed log group is not subscribed to the raw stream', async () => {
    // GIVEN the stacks, but no subscription filter on the log group
    await bootstrap(30);
    await deploySandbox();
    // WHEN
    const findings = runChecks(await gatherFacts(ports(), { profile: 'sandbox', skipSynth: false }));
    // THEN
    expect(check(findings, 'subscriptions')).toMatchObject({
      status: 'fail',
      finding: expect.stringContaining('/kfek/sandbox/app sends to nothing'),
    });
  });

  test('`kfek doctor --cdk-out DIR --json` prints every finding and exits 1 when a check failed', async () => {
    // GIVEN an assembly on disk, an empty account, and only an endpoint override in the command's environment
    const dir = buildTestApp({ profile: 'sandbox' }).app.synth().directory;
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    // The SDK's credential chain reads the process environment; moto accepts any keys.
    process.env.AWS_ACCESS_KEY_ID = CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = CREDENTIALS.secretAccessKey;
    let stdout = '';
    try {
      // WHEN
      const code = await run(['doctor', '--cdk-out', dir, '--region', REGION, '--json'], {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: () => true },
        env: { AWS_ENDPOINT_URL: moto.endpoint },
      });
      // THEN
      const report = JSON.parse(stdout) as { region: string; findings: Finding[] };
      expect(code).toBe(1);
      expect(report.region).toBe(REGION);
      expect(check(report.findings, 'bootstrap')?.status).toBe('fail');
      // moto has no Lambda GetAccountSettings: the command says which call failed and goes on.
      expect(check(report.findings, 'lambda-concurrency')).toMatchObject({
        status: 'warn',
        finding: expect.stringMatching(/^Lambda GetAccountSettings: /),
      });
      expect(check(report.findings, 'stacks')?.finding).toContain('not deployed yet');
    } finally {
      for (const [key, value] of [
        ['AWS_ACCESS_KEY_ID', saved.id],
        ['AWS_SECRET_ACCESS_KEY', saved.secret],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
