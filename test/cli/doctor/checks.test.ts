/**
 * The doctor's checks as pure functions of hand-built facts: each rule, its finding and its fix.
 */
import { checkMapping, checkStacks, checkSubscriptions } from '../../../cli/doctor/after-deploy';
import {
  checkBootstrap,
  checkClashes,
  checkCredentials,
  checkInstanceTypes,
  checkLambdaConcurrency,
  checkRegion,
  checkSynth,
  runChecks,
} from '../../../cli/doctor/checks';
import { type DoctorPorts, gatherFacts } from '../../../cli/doctor/facts';
import type { DeployedStack, DoctorFacts } from '../../../cli/doctor/model';
import type { ProfilePlan } from '../../../cli/doctor/plan';
import { exitCodeOf, formatFindings } from '../../../cli/doctor/report';

const RAW_EXPORT = 'kfek-sandbox-search:ExportsOutputFnGetAttRawStreamArn';
const RAW_ARN = 'arn:aws:kinesis:eu-west-1:123456789012:stream/raw';

const plan = (overrides: Partial<ProfilePlan> = {}): ProfilePlan => ({
  profile: 'sandbox',
  stackNames: {
    Search: 'kfek-sandbox-search',
    Pipeline: 'kfek-sandbox-pipeline',
    Sources: 'kfek-sandbox-sources',
    Monitoring: 'kfek-sandbox-monitoring',
  },
  requiredBootstrapVersion: 6,
  bootstrapParameter: '/cdk-bootstrap/hnb659fds/version',
  domain: {
    name: 'kfek-sandbox',
    engineVersion: 'OpenSearch_2.19',
    instanceType: 't3.small.search',
    instanceCount: 1,
    volumeSizeGb: 10,
    volumeType: 'gp3',
    masterCount: 0,
  },
  consumers: [{ logicalId: 'Esm', parallelizationFactor: 1, shardCount: 1 }],
  reservedConcurrency: 0,
  namedResources: [{ kind: 'log-group', name: '/kfek/sandbox/app', stackName: 'kfek-sandbox-sources' }],
  subscriptions: [{ logGroupName: '/kfek/sandbox/app', destinationExport: RAW_EXPORT }],
  stacks: [],
  ...overrides,
});

const facts = (overrides: Partial<DoctorFacts> = {}): DoctorFacts => ({
  profile: 'sandbox',
  region: { ok: true, value: 'eu-west-1' },
  identity: { ok: true, value: 'arn:aws:sts::123456789012:assumed-role/Admin/jane' },
  ...overrides,
});

describe('doctor checks', () => {
  test('credentials name the role OpenSearch will see for an assumed-role session', () => {
    // GIVEN / WHEN
    const finding = checkCredentials(facts());
    // THEN
    expect(finding).toMatchObject({ status: 'ok' });
    expect(finding.finding).toContain('backend role arn:aws:iam::123456789012:role/Admin');
  });

  test('fails when STS rejects the credentials', () => {
    // GIVEN / WHEN
    const finding = checkCredentials(facts({ identity: { ok: false, error: 'ExpiredToken' } }));
    // THEN
    expect(finding).toMatchObject({ status: 'fail', fix: expect.stringContaining('aws sso login') });
  });

  test('fails when no region is set, and skips everything that needs one', () => {
    // GIVEN
    const f: DoctorFacts = { profile: 'sandbox', region: { ok: false, error: 'No AWS region set' } };
    // WHEN
    const findings = runChecks(f);
    // THEN
    expect(checkRegion(f)).toMatchObject({ status: 'fail', fix: expect.stringContaining('AWS_REGION') });
    expect(findings.filter((x) => x.status === 'skip').map((x) => x.check)).toEqual(
      expect.arrayContaining(['credentials', 'bootstrap', 'clashes', 'opensearch-mapping']),
    );
    // Skipped for the missing region, not for a --skip-synth nobody gave.
    expect(findings.find((x) => x.check === 'synth')).toEqual({
      check: 'synth',
      status: 'skip',
      finding: 'not checked: needs a region',
    });
    expect(exitCodeOf(findings)).toBe(1);
  });

  test('the synth check names --skip-synth only when the region is known and the plan was left out', () => {
    const f: DoctorFacts = { profile: 'sandbox', region: { ok: true, value: 'eu-west-1' } };
    expect(runChecks(f).find((x) => x.check === 'synth')?.finding).toBe('not checked (--skip-synth)');
  });

  test('the synth check says which delivery the profile deploys (config delivery.mode)', () => {
    // GIVEN a Pipeline stack with the indexer function (what delivery.mode direct synthesizes)
    const indexer = {
      Type: 'AWS::Lambda::Function',
      Properties: { Environment: { Variables: { POWERTOOLS_SERVICE_NAME: 'indexer' } } },
    };
    const pipeline = {
      id: 'Pipeline',
      stackName: 'kfek-sandbox-pipeline',
      account: undefined,
      region: undefined,
      dependsOn: [],
      template: { Resources: { Indexer: indexer } },
    };
    // WHEN
    const finding = checkSynth(facts({ plan: { ok: true, value: plan({ stacks: [pipeline] }) } }));
    // THEN
    expect(finding.finding).toMatch(/^profile sandbox synthesizes: .*; delivery direct \(kfek's indexer\)$/);
  });

  describe('bootstrap', () => {
    test('fails when the CDKToolkit stack is missing, with the bootstrap command for this account and region', () => {
      // GIVEN
      const f = facts({
        bootstrap: {
          ok: true,
          value: { stackStatus: undefined, stackVersion: undefined, parameterVersion: undefined },
        },
      });
      // WHEN
      const finding = checkBootstrap(f, plan());
      // THEN
      expect(finding).toMatchObject({
        status: 'fail',
        fix: 'npx cdk bootstrap aws://123456789012/eu-west-1',
      });
    });

    test('fails when the bootstrap version is older than the templates require', () => {
      // GIVEN
      const f = facts({
        bootstrap: {
          ok: true,
          value: { stackStatus: 'CREATE_COMPLETE', stackVersion: 5, parameterVersion: 5 },
        },
      });
      // WHEN
      const finding = checkBootstrap(f, plan({ requiredBootstrapVersion: 6 }));
      // THEN
      expect(finding.status).toBe('fail');
      expect(finding.finding).toMatch(/version 5 .*require 6/);
    });

    test('fails when the version parameter the templates read is gone', () => {
      // GIVEN
      const f = facts({
        bootstrap: {
          ok: true,
          value: { stackStatus: 'CREATE_COMPLETE', stackVersion: 30, parameterVersion: undefined },
        },
      });
      // WHEN / THEN
      expect(checkBootstrap(f, plan()).status).toBe('fail');
    });

    test('passes with a recent enough bootstrap', () => {
      // GIVEN
      const f = facts({
        bootstrap: {
          ok: true,
          value: { stackStatus: 'UPDATE_COMPLETE', stackVersion: 30, parameterVersion: 30 },
        },
      });
      // WHEN / THEN
      expect(checkBootstrap(f, plan()).status).toBe('ok');
    });
  });

  describe('lambda concurrency', () => {
    const limits = (concurrent: number, unreserved: number): Partial<DoctorFacts> => ({
      lambda: {
        ok: true,
        value: { concurrentExecutions: concurrent, unreservedConcurrentExecutions: unreserved },
      },
    });

    test('fails when shards x parallelization factor exceed the unreserved concurrency', () => {
      // GIVEN: production-like: on-demand stream (4 shards at first) x factor 2 = 8, in an account with 5 left
      const p = plan({ consumers: [{ logicalId: 'Esm', parallelizationFactor: 2, shardCount: undefined }] });
      // WHEN
      const finding = checkLambdaConcurrency(facts(limits(10, 5)), p);
      // THEN
      expect(finding).toMatchObject({ status: 'fail', fix: expect.stringContaining('L-B99A9384') });
      expect(finding.finding).toContain('need 8 concurrent executions');
    });

    test("warns on a new account's limit of 10 even when the profile fits", () => {
      // GIVEN / WHEN
      const finding = checkLambdaConcurrency(facts(limits(10, 10)), plan());
      // THEN
      expect(finding).toMatchObject({ status: 'warn', fix: expect.stringContaining('1000') });
    });

    test('fails when reservations would leave fewer than 10 unreserved', () => {
      // GIVEN / WHEN
      const finding = checkLambdaConcurrency(facts(limits(50, 50)), plan({ reservedConcurrency: 45 }));
      // THEN
      expect(finding.status).toBe('fail');
    });

    test('passes with room to spare', () => {
      expect(checkLambdaConcurrency(facts(limits(1000, 1000)), plan()).status).toBe('ok');
    });
  });

  describe('OpenSearch instance type', () => {
    test('fails when the type is not offered for the engine version in the region', () => {
      // GIVEN
      const f = facts({
        instances: {
          ok: true,
          value: [
            { role: 'data', instanceType: 't3.small.search', unavailable: 'InvalidTypeException: nope' },
          ],
        },
      });
      // WHEN
      const finding = checkInstanceTypes(f, plan());
      // THEN
      expect(finding).toMatchObject({ status: 'fail', fix: expect.stringContaining('dataNodeInstanceType') });
      expect(finding.finding).toContain('not offered for OpenSearch_2.19 in eu-west-1');
    });

    test('fails when the node count or the volume is outside the limits of the type', () => {
      // GIVEN
      const f = facts({
        instances: {
          ok: true,
          value: [
            {
              role: 'data',
              instanceType: 't3.small.search',
              maximumCount: 10,
              minimumVolumeGb: 20,
              maximumVolumeGb: 100,
            },
          ],
        },
      });
      // WHEN
      const finding = checkInstanceTypes(f, plan());
      // THEN
      expect(finding.status).toBe('fail');
      expect(finding.finding).toContain('10 GiB volume is below the 20 GiB minimum');
    });
  });

  describe('clashes', () => {
    test("fails when another profile's stack owns a name this profile wants", () => {
      // GIVEN
      const f = facts({
        existing: {
          ok: true,
          value: [
            {
              kind: 'logs-resource-policy',
              name: 'SearchLogsResourcePolicy1B1BFC54',
              stackName: 'kfek-sandbox-pipes-search',
              ownerStack: 'kfek-sandbox-search',
            },
          ],
        },
      });
      // WHEN
      const finding = checkClashes(f);
      // THEN
      expect(finding.status).toBe('fail');
      expect(finding.finding).toContain('owned by stack kfek-sandbox-search');
    });

    test('fails when a retained resource outside any stack holds the name', () => {
      // GIVEN
      const f = facts({
        existing: {
          ok: true,
          value: [
            {
              kind: 'opensearch-domain',
              name: 'kfek-production',
              stackName: 'kfek-production-search',
              ownerStack: undefined,
            },
          ],
        },
      });
      // WHEN / THEN
      expect(checkClashes(f).finding).toContain('outside CloudFormation');
    });

    test("passes when the name belongs to this profile's own stack (a redeploy)", () => {
      // GIVEN
      const f = facts({
        existing: {
          ok: true,
          value: [
            {
              kind: 'log-group',
              name: '/kfek/sandbox/app',
              stackName: 'kfek-sandbox-sources',
              ownerStack: 'kfek-sandbox-sources',
            },
          ],
        },
      });
      // WHEN / THEN
      expect(checkClashes(f).status).toBe('ok');
    });
  });

  describe('after a deploy', () => {
    const deployed = (status = 'CREATE_COMPLETE'): DoctorFacts['stacks'] => ({
      ok: true,
      value: Object.values(plan().stackNames).map((stackName): DeployedStack => ({
        stackName,
        status,
        exports: Object.fromEntries(stackName === 'kfek-sandbox-search' ? [[RAW_EXPORT, RAW_ARN]] : []),
        outputs: {},
      })),
    });

    test('says "not deployed yet" before the first deploy', () => {
      expect(checkStacks(facts({ stacks: { ok: true, value: [] } }), plan())).toMatchObject({
        status: 'ok',
        finding: expect.stringContaining('not deployed yet'),
      });
    });

    test('fails when a stack rolled back', () => {
      // GIVEN / WHEN
      const finding = checkStacks(facts({ stacks: deployed('ROLLBACK_COMPLETE') }), plan());
      // THEN
      expect(finding).toMatchObject({ status: 'fail', fix: expect.stringContaining('deleted') });
    });

    test('fails when a log group sends elsewhere than the raw stream', () => {
      // GIVEN
      const f = facts({
        stacks: deployed(),
        subscriptions: {
          ok: true,
          value: [
            {
              logGroupName: '/kfek/sandbox/app',
              destinationArns: ['arn:aws:kinesis:eu-west-1:123456789012:stream/other'],
            },
          ],
        },
      });
      // WHEN
      const finding = checkSubscriptions(f, plan());
      // THEN
      expect(finding.status).toBe('fail');
      expect(finding.finding).toContain(`not the raw stream ${RAW_ARN}`);
    });

    test('passes when every configured log group is subscribed to the raw stream', () => {
      // GIVEN
      const f = facts({
        stacks: deployed(),
        subscriptions: {
          ok: true,
          value: [{ logGroupName: '/kfek/sandbox/app', destinationArns: [RAW_ARN] }],
        },
      });
      // WHEN / THEN
      expect(checkSubscriptions(f, plan()).status).toBe('ok');
    });

    test('fails when the caller is mapped to no OpenSearch role, naming the role ARN to map', () => {
      // GIVEN
      const f = facts({
        authInfo: {
          ok: true,
          value: { backendRoles: ['arn:aws:iam::123456789012:role/Admin'], roles: ['own_index'] },
        },
      });
      // WHEN
      const finding = checkMapping(f);
      // THEN
      expect(finding).toMatchObject({
        status: 'fail',
        fix: expect.stringContaining('arn:aws:iam::123456789012:role/Admin in openSearch.access'),
      });
    });
  });

  test('the report lists each finding with its fix, and the exit code is 0 with only warnings', () => {
    // GIVEN
    const findings = [
      { check: 'region', status: 'ok' as const, finding: 'region eu-west-1' },
      { check: 'lambda-concurrency', status: 'warn' as const, finding: 'limit 10', fix: 'request more' },
    ];
    // WHEN
    const text = formatFindings('sandbox', findings);
    // THEN
    expect(text).toContain('WARN  lambda-concurrency  limit 10');
    expect(text).toMatch(/\n\s+fix: request more\n/);
    expect(exitCodeOf(findings)).toBe(0);
  });
});

describe('gatherFacts announces synthesis only when it happens', () => {
  test('fails when no region is found: no synthesis starts, so none is announced', async () => {
    // GIVEN ports whose region lookup fails (no other port may be asked)
    const asked: string[] = [];
    const ports = new Proxy({} as DoctorPorts, {
      get: (_target, name: string) =>
        name === 'region'
          ? () => Promise.reject(new Error('No AWS region set'))
          : () => {
              asked.push(name);
              return Promise.reject(new Error(`${name} must not be asked`));
            },
    });
    const announced: string[] = [];
    // WHEN
    const facts = await gatherFacts(ports, {
      profile: 'sandbox',
      skipSynth: false,
      onSynth: () => announced.push('synth'),
    });
    // THEN
    expect(facts.region.ok).toBe(false);
    expect(announced).toEqual([]);
    expect(asked).toEqual([]);
  });
});
