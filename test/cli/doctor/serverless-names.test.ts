/**
 * `kfek doctor` on a serverless profile looks up whether the collection's and its policies' names are held in the
 * account (cli/doctor/serverless-names.ts; its client, core/opensearch/serverless-control.ts), against a real moto
 * server (.venv): moto 5.2 answers OpenSearch Serverless's BatchGetCollection, CreateCollection, CreateSecurityPolicy
 * and GetSecurityPolicy, and CloudFormation's ListStacks/ListStackResources. It has no access policies (no GetAccessPolicy), so the data access policy's lookup
 * goes through a hand-written fake of that one call, as aws-ports.test.ts does for the calls moto lacks.
 *
 * Each held name is judged by CloudFormation's record of who made it, and compared with what the deploy would create
 * on what matters (a collection's type, a policy's rules), never by its name or description.
 */
import { createServer, type AddressInfo } from 'node:net';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { runChecks } from '../../../cli/doctor/checks';
import type { DoctorFacts, Finding, HeldName } from '../../../cli/doctor/model';
import { type ProfilePlan, readPlan } from '../../../cli/doctor/plan';
import { checkServerlessNames, serverlessNamesPort } from '../../../cli/doctor/serverless-names';
import { AossCallError, aossControlPlane, type AossCall } from '../../../core/opensearch/serverless-control';
import { serverlessNamesOf } from '../../../core/opensearch/serverless-held';
import { appStackPrefix } from '../../../cli/doctor/facts';
import { run } from '../../../cli/main';
import { startMoto, type MotoServer } from '../../../scripts/moto-server';
import SANDBOX_SERVERLESS from '../../fixtures/sandbox-serverless.profile.json';
import { buildTestApp } from '../../helpers/app';

jest.setTimeout(60_000);

const REGION = 'eu-west-1';
const CREDENTIALS = { accessKeyId: 'AKIDDOCTOR', secretAccessKey: 'doctor-secret' };

let moto: MotoServer;
let plan: ProfilePlan;
let aoss: AossCall;
let cloudformation: CloudFormationClient;

/** GetAccessPolicy as the account would answer it: the policy named, or ResourceNotFoundException. */
function accessPolicies(held: Readonly<Record<string, unknown>>): AossCall {
  return (operation, input) => {
    const name = String(input.name);
    if (operation !== 'GetAccessPolicy') return Promise.reject(new Error(`unexpected ${operation}`));
    return name in held
      ? Promise.resolve({ accessPolicyDetail: { name, type: 'data', policy: held[name] } })
      : Promise.reject(new AossCallError(operation, 'ResourceNotFoundException', `${name} not found`));
  };
}

function factsWith(serverlessNames: readonly HeldName[]): DoctorFacts {
  return {
    profile: 'test',
    region: { ok: true, value: REGION },
    identity: { ok: true, value: 'arn:aws:sts::123456789012:assumed-role/Admin/jane' },
    plan: { ok: true, value: plan },
    serverlessNames: { ok: true, value: serverlessNames },
  };
}

const namesChecks = (findings: readonly Finding[]): Finding[] =>
  findings.filter((f) => f.check === 'collection-names');

const policyDocument = (type: string): unknown =>
  plan.collection?.policies.find((p) => p.type === type)?.document;

/** An encryption policy `name` covering kfek-test with a customer key (moto needs a KmsARN to create a collection). */
async function customerKeyEncryption(name: string): Promise<void> {
  await aoss('CreateSecurityPolicy', {
    name,
    type: 'encryption',
    policy: JSON.stringify({
      Rules: [{ ResourceType: 'collection', Resource: ['collection/kfek-test'] }],
      AWSOwnedKey: false,
      KmsARN: 'arn:aws:kms:eu-west-1:123456789012:key/abc',
    }),
  });
}

async function lookUp(held: Readonly<Record<string, unknown>> = {}): Promise<readonly HeldName[]> {
  const collection = plan.collection;
  if (collection === undefined) throw new Error('the profile plans no collection');
  const port = serverlessNamesPort({ aoss, accessPolicies: accessPolicies(held), cloudformation });
  return port(serverlessNamesOf(collection), appStackPrefix(plan));
}

beforeAll(async () => {
  const { app } = buildTestApp({ overrides: SANDBOX_SERVERLESS });
  plan = readPlan(app.synth().directory, 'test');
  moto = await startMoto();
  aoss = aossControlPlane({ region: REGION, credentials: CREDENTIALS, endpoint: moto.endpoint });
  cloudformation = new CloudFormationClient({
    region: REGION,
    credentials: CREDENTIALS,
    endpoint: moto.endpoint,
  });
});
afterAll(async () => {
  cloudformation?.destroy();
  await moto?.stop();
});
beforeEach(() => moto.reset());

describe('kfek doctor: are the collection and policy names held in the account?', () => {
  test('passes when no collection or policy holds kfek’s names', async () => {
    // WHEN
    const held = await lookUp();
    const findings = namesChecks(runChecks(factsWith(held)));
    // THEN
    expect(held.map((n) => [n.kind, n.name, n.held, n.error])).toEqual([
      ['collection', 'kfek-test', undefined, undefined],
      ['encryption', 'kfek-test-enc', undefined, undefined],
      ['network', 'kfek-test-net', undefined, undefined],
      ['data', 'kfek-test-acc', undefined, undefined],
    ]);
    expect(findings).toEqual([expect.objectContaining({ status: 'ok' })]);
  });

  test("fails when someone else's collection holds the name: another type, so not kfek's", async () => {
    // GIVEN a TIMESERIES collection named as kfek's, covered by an encryption policy of another name
    await customerKeyEncryption('someone-enc');
    await aoss('CreateCollection', { name: 'kfek-test', type: 'TIMESERIES', description: 'kfek-test' });
    // WHEN
    const findings = namesChecks(runChecks(factsWith(await lookUp())));
    // THEN
    expect(findings).toEqual([
      expect.objectContaining({
        status: 'fail',
        finding: expect.stringMatching(
          /^fails to create: OpenSearch Serverless collection kfek-test \(wanted by kfek-test-search\) exists, outside CloudFormation; its type is TIMESERIES, kfek's is SEARCH: it is not kfek's$/,
        ) as unknown,
        fix: expect.stringContaining('another name') as unknown,
      }),
    ]);
  });

  test('fails when a retained copy of kfek’s network policy holds the name, saying it matches and how to adopt it', async () => {
    // GIVEN a network policy with kfek's name and exactly kfek's rules, which no stack owns
    await aoss('CreateSecurityPolicy', {
      name: 'kfek-test-net',
      type: 'network',
      policy: JSON.stringify(policyDocument('network')),
    });
    // WHEN
    const findings = namesChecks(runChecks(factsWith(await lookUp())));
    // THEN
    expect(findings).toEqual([
      expect.objectContaining({
        status: 'fail',
        finding: expect.stringMatching(
          /network policy kfek-test-net .* exists, outside CloudFormation; it is what kfek would create$/,
        ) as unknown,
        fix: expect.stringContaining('cdk import') as unknown,
      }),
    ]);
  });

  test('fails when a policy holds the name with other rules, and judges the data access policy by its rules, not its principals', async () => {
    // GIVEN an encryption policy of kfek's name with a customer key, and a data access policy of kfek's name whose
    // rules are kfek's but whose principals are the account's real roles (the template names them by token)
    await customerKeyEncryption('kfek-test-enc');
    const planned = policyDocument('data') as { Rules: unknown; Principal: string[] }[];
    const retained = planned.map((s) => ({ ...s, Principal: ['arn:aws:iam::123456789012:role/Real'] }));
    // WHEN
    const findings = namesChecks(runChecks(factsWith(await lookUp({ 'kfek-test-acc': retained }))));
    // THEN
    expect(findings.map((f) => [f.status, f.finding.replace(/ \(wanted by [^)]*\)/, '')])).toEqual([
      [
        'fail',
        "fails to create: encryption policy kfek-test-enc exists, outside CloudFormation; its rules are not the ones kfek renders for it: it is not kfek's",
      ],
      [
        'fail',
        'fails to create: data access policy kfek-test-acc exists, outside CloudFormation; it is what kfek would create',
      ],
    ]);
  });

  test("passes when the names are this profile's own Search stack's (an update), and fails when another stack's", () => {
    // GIVEN
    const search = plan.stackNames.Search;
    const held = (ownerStack: string): HeldName[] => [
      {
        kind: 'collection',
        name: 'kfek-test',
        held: { physicalId: 'abc123', content: { type: 'SEARCH' }, ownerStack },
      },
    ];
    // WHEN
    const own = checkServerlessNames(factsWith(held(search)), plan);
    const other = checkServerlessNames(factsWith(held('kfek-prod-search')), plan);
    // THEN
    expect(own).toEqual([expect.objectContaining({ status: 'ok' })]);
    expect(other).toEqual([
      expect.objectContaining({
        status: 'fail',
        finding: expect.stringContaining(
          'owned by stack kfek-prod-search; it is what kfek would create',
        ) as unknown,
        fix: expect.stringContaining('destroy that profile first') as unknown,
      }),
    ]);
  });

  test('warns, naming the permission, when a lookup is refused, and still judges the other names', async () => {
    // GIVEN
    const refusing: AossCall = (operation) =>
      Promise.reject(new AossCallError(operation, 'AccessDeniedException', 'not authorized'));
    const port = serverlessNamesPort({ aoss, accessPolicies: refusing, cloudformation });
    const collection = plan.collection;
    if (collection === undefined) throw new Error('the profile plans no collection');
    // WHEN
    const held = await port(serverlessNamesOf(collection), appStackPrefix(plan));
    const findings = namesChecks(runChecks(factsWith(held)));
    // THEN
    expect(findings).toEqual([
      expect.objectContaining({
        status: 'warn',
        finding: expect.stringMatching(
          /^could not look up data access policy kfek-test-acc: .*GetAccessPolicy answered AccessDeniedException/,
        ) as unknown,
        fix: expect.stringContaining('aoss:GetAccessPolicy') as unknown,
      }),
    ]);
  });

  test('warns for every name, saying where and why, when the control plane does not answer', async () => {
    // GIVEN an endpoint nothing listens on (a port just freed)
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as AddressInfo;
        server.close(() => resolve(free));
      });
    });
    const unreachable = aossControlPlane({
      region: REGION,
      credentials: CREDENTIALS,
      endpoint: `http://127.0.0.1:${port}`,
    });
    const collection = plan.collection;
    if (collection === undefined) throw new Error('the profile plans no collection');
    // WHEN
    const held = await serverlessNamesPort({ aoss: unreachable, cloudformation })(
      serverlessNamesOf(collection),
      appStackPrefix(plan),
    );
    // THEN
    const findings = checkServerlessNames(factsWith(held), plan);
    expect(findings.map((f) => f.status)).toEqual(['warn', 'warn', 'warn', 'warn']);
    expect(findings[0].finding).toMatch(
      /^could not look up OpenSearch Serverless collection kfek-test: OpenSearch Serverless BatchGetCollection answered nothing: http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/,
    );
  });

  test('`kfek doctor --json` on a serverless assembly asks the account through its own ports and reports the names', async () => {
    // GIVEN the assembly on disk, a foreign collection of kfek's name, and only the endpoint in the command's
    // environment (the SDK's credential chain reads the process's; moto takes any keys)
    const dir = buildTestApp({ overrides: SANDBOX_SERVERLESS }).app.synth().directory;
    await customerKeyEncryption('someone-enc');
    await aoss('CreateCollection', { name: 'kfek-test', type: 'VECTORSEARCH' });
    const before = { ...process.env };
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    });
    let stdout = '';
    // WHEN
    const code = await run(['doctor', '--profile', 'test', '--cdk-out', dir, '--region', REGION, '--json'], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: () => true },
      env: { AWS_ENDPOINT_URL: moto.endpoint },
    }).finally(() => {
      process.env = before;
    });
    // THEN the held collection fails the run; moto's missing GetAccessPolicy is a warning, not a lost check
    const names = namesChecks((JSON.parse(stdout) as { findings: Finding[] }).findings);
    expect(code).toBe(1);
    expect(names).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          status: 'fail',
          finding: expect.stringContaining("its type is VECTORSEARCH, kfek's is SEARCH") as unknown,
        }),
      ]),
    );
    expect(names.map((f) => f.status).sort()).toEqual(['fail', 'warn']);
    expect(names.find((f) => f.status === 'warn')?.finding).toMatch(
      /^could not look up data access policy kfek-test-acc: OpenSearch Serverless GetAccessPolicy answered HTTP \d+/,
    );
  });
});
