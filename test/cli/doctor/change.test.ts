/**
 * `kfek doctor` on a change to a deployed profile: the deployed templates (CloudFormation DescribeStacks and
 * GetTemplate) against the synthesized sandbox profile, planned with core/change-plan.
 *
 * CloudFormation is answered by aws-sdk-client-mock with constructed DescribeStacks / GetTemplate responses rather
 * than by moto: to hold a deployed kfek template, moto's CloudFormation would have to create the stacks' resources
 * (an OpenSearch domain, Firehose to OpenSearch, a Lambda function with a CDK asset, custom resources), which it
 * cannot; a mock is the honest way to put a real deployed template behind GetTemplate.
 */
import {
  CloudFormationClient,
  DescribeStacksCommand,
  GetTemplateCommand,
  type StackStatus,
} from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import type { CfnTemplate } from '../../../core/change-plan';
import { deployedTemplatesPort, stacksPort } from '../../../cli/doctor/aws-ports';
import { runChecks } from '../../../cli/doctor/checks';
import { type DoctorPorts, gatherFacts } from '../../../cli/doctor/facts';
import type { Finding } from '../../../cli/doctor/model';
import { type ProfilePlan, readPlan } from '../../../cli/doctor/plan';
import { exitCodeOf } from '../../../cli/doctor/report';
import { buildTestApp } from '../../helpers/app';

const REGION = 'eu-west-1';
const cfn = new CloudFormationClient({
  region: REGION,
  credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
});
const cfnMock = mockClient(cfn);

let plan: ProfilePlan;

beforeAll(() => {
  // The real sandbox profile, synthesized in-process (bundling skipped).
  plan = readPlan(buildTestApp({ profile: 'sandbox' }).app.synth().directory, 'sandbox');
});

beforeEach(() => {
  cfnMock.reset();
  // Any stack not deployed below: CloudFormation's answer for a missing stack.
  cfnMock
    .on(DescribeStacksCommand)
    .rejects(Object.assign(new Error('Stack with id x does not exist'), { name: 'ValidationError' }));
});

/** Puts `template` behind DescribeStacks and GetTemplate (stage Original) for `stackName`. */
function deploy(stackName: string, template: CfnTemplate, status: StackStatus = 'UPDATE_COMPLETE'): void {
  cfnMock.on(DescribeStacksCommand, { StackName: stackName }).resolves({
    Stacks: [{ StackName: stackName, StackStatus: status, CreationTime: new Date(0) }],
  });
  cfnMock
    .on(GetTemplateCommand, { StackName: stackName, TemplateStage: 'Original' })
    .resolves({ TemplateBody: JSON.stringify(template), StagesAvailable: ['Original', 'Processed'] });
}

const templateOf = (id: string): CfnTemplate => {
  const stack = plan.stacks.find((s) => s.id === id);
  if (stack === undefined) throw new Error(`no stack ${id} in the sandbox assembly`);
  return structuredClone(stack.template);
};
const stackName = (id: string): string => plan.stackNames[id];

/** Every port the change checks do not need answers as a bootstrapped, empty account would. */
function ports(): DoctorPorts {
  return {
    region: () => Promise.resolve(REGION),
    callerArn: () => Promise.resolve('arn:aws:iam::123456789012:user/ops'),
    plan: () => Promise.resolve(plan),
    bootstrap: () =>
      Promise.resolve({ stackStatus: 'UPDATE_COMPLETE', stackVersion: 30, parameterVersion: 30 }),
    lambdaLimits: () => Promise.resolve({ concurrentExecutions: 1000, unreservedConcurrentExecutions: 1000 }),
    instanceFit: (role, instanceType) => Promise.resolve({ role, instanceType }),
    existing: () => Promise.resolve([]),
    stacks: stacksPort(cfn),
    deployedTemplates: deployedTemplatesPort(cfn),
    subscriptionDestinations: () => Promise.resolve([]),
    authInfo: () => Promise.reject(new Error('not asked in these tests')),
    domainState: () => Promise.reject(new Error('not asked in these tests')),
    iteratorAge: () => Promise.reject(new Error('not asked in these tests')),
  };
}

async function changeFindings(): Promise<Finding[]> {
  const findings = runChecks(await gatherFacts(ports(), { profile: 'sandbox', skipSynth: false }));
  return findings.filter((f) => f.check.startsWith('change'));
}

describe('kfek doctor: what the new config does to the deployed stacks', () => {
  test('nothing deployed: every stack is created, dependencies first', async () => {
    // GIVEN an account without the profile's stacks
    // WHEN
    const findings = await changeFindings();
    // THEN
    expect(findings).toEqual([
      {
        check: 'change',
        status: 'ok',
        finding: `not deployed here yet: cdk deploy creates ${plan.stacks.map((s) => s.stackName).join(', ')}`,
      },
    ]);
    expect(plan.stacks[0].stackName).toBe(stackName('Search'));
  });

  test('no change: the deployed templates are the synthesized ones', async () => {
    // GIVEN
    for (const s of plan.stacks) deploy(s.stackName, s.template);
    // WHEN
    const findings = await changeFindings();
    // THEN
    expect(findings).toEqual([
      {
        check: 'change',
        status: 'ok',
        finding: expect.stringMatching(/^no change: the deployed templates of /),
      },
    ]);
    expect(cfnMock.commandCalls(GetTemplateCommand)).toHaveLength(plan.stacks.length);
  });

  test('fails when the new Search template drops an export that the deployed Pipeline stack still imports', async () => {
    // GIVEN the deployed version: Search exported one more value, and Pipeline imported it
    const exportName = `${stackName('Search')}:ExportsOutputRefOldStream`;
    const search = templateOf('Search');
    const pipeline = templateOf('Pipeline');
    deploy(stackName('Search'), {
      ...search,
      Outputs: { ...search.Outputs, OldStream: { Value: 'old', Export: { Name: exportName } } },
    });
    deploy(stackName('Pipeline'), {
      ...pipeline,
      Outputs: { ...pipeline.Outputs, UsesOldStream: { Value: { 'Fn::ImportValue': exportName } } },
    });
    for (const id of ['Sources', 'Monitoring']) deploy(stackName(id), templateOf(id));
    // WHEN
    const findings = await changeFindings();
    // THEN
    expect(findings).toEqual([
      {
        check: 'change',
        status: 'ok',
        finding: expect.stringContaining(`${stackName('Search')}: update (0 modified, 0 added, 0 removed)`),
      },
      {
        check: 'change-exports',
        status: 'fail',
        finding: expect.stringContaining(
          `Cannot delete export ${exportName} as it is in use by ${stackName('Pipeline')}`,
        ),
        fix: expect.stringContaining(
          'deploy the importing stack first, whose new template no longer imports it: ' +
            '`npx cdk deploy -c profile=sandbox --exclusively Pipeline`',
        ),
      },
    ]);
    expect(exitCodeOf(findings)).toBe(1);
  });

  test('fails when the deployed raw stream has another name: it is replaced, its records are lost, and the stacks that import its ARN refuse', async () => {
    // GIVEN the deployed raw stream (found through the subscription's export, not by logical id) had another name
    const search = templateOf('Search');
    const exported = Object.values(search.Outputs ?? {}).find(
      (o) => o.Export?.Name === plan.subscriptions[0].destinationExport,
    );
    const rawId = (exported?.Value as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const raw = search.Resources?.[rawId];
    deploy(stackName('Search'), {
      ...search,
      Resources: {
        ...search.Resources,
        [rawId]: {
          ...raw,
          Type: 'AWS::Kinesis::Stream',
          Properties: { ...raw?.Properties, Name: 'raw-before' },
        },
      },
    });
    for (const id of ['Pipeline', 'Sources', 'Monitoring']) deploy(stackName(id), templateOf(id));
    // WHEN
    const findings = await changeFindings();
    // THEN
    expect(findings).toContainEqual({
      check: 'change-replace',
      status: 'fail',
      finding: expect.stringMatching(
        new RegExp(
          `^${stackName('Search')}/${rawId} \\(AWS::Kinesis::Stream\\) is replaced: create-only property /properties/Name changed.*Data at risk: The records on the stream`,
        ),
      ),
      fix: expect.stringContaining('npx kfek replay --profile sandbox'),
    });
    expect(findings).toContainEqual(
      expect.objectContaining({
        check: 'change-exports',
        status: 'fail',
        finding: expect.stringContaining(`would replace ${rawId} and so change the value of export`),
      }),
    );
  });

  test('a stack whose first create failed (ROLLBACK_COMPLETE) is created again', async () => {
    // GIVEN
    deploy(stackName('Search'), { Resources: {} }, 'ROLLBACK_COMPLETE');
    // WHEN
    const findings = await changeFindings();
    // THEN
    expect(findings).toEqual([
      expect.objectContaining({ status: 'ok', finding: expect.stringMatching(/^not deployed here yet/) }),
    ]);
  });

  test('warns, naming the call, when the deployed templates cannot be read', async () => {
    // GIVEN
    deploy(stackName('Search'), templateOf('Search'));
    cfnMock.on(GetTemplateCommand).rejects(
      Object.assign(new Error('not authorized to perform: cloudformation:GetTemplate'), {
        name: 'AccessDenied',
      }),
    );
    // WHEN
    const findings = await changeFindings();
    // THEN
    expect(findings).toEqual([
      {
        check: 'change',
        status: 'warn',
        finding: 'CloudFormation GetTemplate: not authorized to perform: cloudformation:GetTemplate',
        fix: 'allow cloudformation:GetTemplate and DescribeStacks',
      },
    ]);
  });
});

describe('the GetTemplate port', () => {
  test('lists only the stacks that exist, with their status and parsed template', async () => {
    // GIVEN
    deploy('kfek-x-search', { Resources: { A: { Type: 'AWS::SNS::Topic' } } }, 'UPDATE_ROLLBACK_COMPLETE');
    // WHEN
    const found = await deployedTemplatesPort(cfn)(['kfek-x-search', 'kfek-x-pipeline']);
    // THEN
    expect(found).toEqual([
      {
        stackName: 'kfek-x-search',
        status: 'UPDATE_ROLLBACK_COMPLETE',
        template: { Resources: { A: { Type: 'AWS::SNS::Topic' } } },
      },
    ]);
  });

  test('fails when a deployed template is YAML', async () => {
    // GIVEN
    cfnMock.on(DescribeStacksCommand, { StackName: 's' }).resolves({
      Stacks: [{ StackName: 's', StackStatus: 'CREATE_COMPLETE', CreationTime: new Date(0) }],
    });
    cfnMock
      .on(GetTemplateCommand)
      .resolves({ TemplateBody: 'Resources:\n  A:\n    Type: AWS::SNS::Topic\n' });
    // WHEN / THEN
    await expect(deployedTemplatesPort(cfn)(['s'])).rejects.toThrow(/deployed template of s is not JSON/);
  });
});
