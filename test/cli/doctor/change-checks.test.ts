/**
 * The doctor's change checks as pure functions of hand-built facts and small templates: which stacks a run in one
 * account and region plans, and the finding and fix for each kind of trouble.
 */
import type { CfnResource, CfnTemplate } from '../../../core/change-plan';
import { checkChange } from '../../../cli/doctor/change';
import type { DeployedTemplate, DoctorFacts, Finding } from '../../../cli/doctor/model';
import type { ProfilePlan } from '../../../cli/doctor/plan';
import { type PlannedStack, plannedStacks, stackScope } from '../../../core/change-plan/deploy-order';

const ACCOUNT = '123456789012';

const stack = (id: string, template: CfnTemplate, more: Partial<PlannedStack> = {}): PlannedStack => ({
  id,
  stackName: `kfek-sandbox-${id.toLowerCase()}`,
  account: undefined,
  region: undefined,
  dependsOn: [],
  template,
  ...more,
});

/** A plan with only what the change checks read. */
const planOf = (stacks: PlannedStack[]): ProfilePlan => ({
  profile: 'sandbox',
  stackNames: Object.fromEntries(stacks.map((s) => [s.id, s.stackName])),
  requiredBootstrapVersion: 6,
  bootstrapParameter: undefined,
  domain: undefined,
  consumers: [],
  reservedConcurrency: 0,
  namedResources: [],
  subscriptions: [],
  stacks,
});

const factsWith = (deployed: DeployedTemplate[]): DoctorFacts => ({
  profile: 'sandbox',
  region: { ok: true, value: 'eu-west-1' },
  identity: { ok: true, value: `arn:aws:iam::${ACCOUNT}:user/ops` },
  deployedTemplates: { ok: true, value: deployed },
});

const deployed = (s: PlannedStack, template: CfnTemplate): DeployedTemplate => ({
  stackName: s.stackName,
  status: 'UPDATE_COMPLETE',
  template,
});

const resources = (r: Record<string, CfnResource>): CfnTemplate => ({ Resources: r });
const logGroup = (name: string, policy?: string): CfnResource => ({
  Type: 'AWS::Logs::LogGroup',
  Properties: { LogGroupName: name },
  ...(policy !== undefined ? { DeletionPolicy: policy } : {}),
});
const domain = (version: string): CfnResource => ({
  Type: 'AWS::OpenSearchService::Domain',
  Properties: { DomainName: 'kfek-sandbox', EngineVersion: version },
});

/** Plans one stack going from `before` to `after`. */
function change(before: CfnTemplate, after: CfnTemplate): readonly Finding[] {
  const s = stack('Search', after);
  return checkChange(factsWith([deployed(s, before)]), planOf([s]));
}

describe('doctor: which stacks a run plans', () => {
  test('dependencies first, whatever the manifest order', () => {
    // GIVEN
    const body = resources({});
    const artifact = (id: string, dependencies: string[]) => ({
      id,
      stackName: id.toLowerCase(),
      body,
      environment: 'aws://unknown-account/unknown-region',
      dependencies,
    });
    // WHEN
    const order = plannedStacks([
      artifact('Monitoring', ['Pipeline', 'Monitoring.assets']),
      artifact('Pipeline', ['Search']),
      artifact('Search', []),
    ]);
    // THEN
    expect(order.map((s) => [s.id, s.dependsOn])).toEqual([
      ['Search', []],
      ['Pipeline', ['search']],
      ['Monitoring', ['pipeline']],
    ]);
    expect(order[0]).toMatchObject({ account: undefined, region: undefined });
  });

  test("the stacks of another region, and the environment-agnostic ones of an app that pins its account, are other runs' business", () => {
    // GIVEN stacks as the multi profile has them
    const body = resources({});
    const central = { account: ACCOUNT, region: 'eu-west-1' };
    const stacks = [
      stack('Search', body, central),
      stack('DestinationUsEast1', body, { account: ACCOUNT, region: 'us-east-1' }),
      stack('SourceEuWest1', body, { region: 'eu-west-1' }),
    ];
    // WHEN
    const scope = stackScope(stacks, ACCOUNT, 'eu-west-1');
    const findings = checkChange(factsWith([]), planOf(stacks));
    // THEN
    expect(scope.inScope.map((s) => s.id)).toEqual(['Search']);
    expect(findings[0].finding).toContain(
      'not checked here: kfek-sandbox-destinationuseast1 (region us-east-1: run the doctor with --region us-east-1), ' +
        'kfek-sandbox-sourceeuwest1 (deployed by other accounts)',
    );
  });

  test('an app that pins no account plans every stack in the caller account', () => {
    // GIVEN / WHEN
    const scope = stackScope([stack('Search', resources({}))], ACCOUNT, 'eu-west-1');
    // THEN
    expect(scope).toEqual({ inScope: [expect.objectContaining({ id: 'Search' })], leftOut: [] });
  });
});

describe('doctor change checks', () => {
  test('skips without a synthesized profile', () => {
    // GIVEN / WHEN / THEN
    expect(checkChange(factsWith([]), undefined)).toEqual([
      {
        check: 'change',
        status: 'skip',
        finding: 'not checked: needs credentials and a synthesized profile',
      },
    ]);
  });

  test('fails when the OpenSearch engine version changes without an in-place upgrade, with the setting to keep', () => {
    // GIVEN / WHEN
    const findings = change(
      resources({ Domain: domain('OpenSearch_2.17') }),
      resources({ Domain: domain('OpenSearch_2.19') }),
    );
    // THEN
    expect(findings[1]).toEqual({
      check: 'change-replace',
      status: 'fail',
      finding: expect.stringContaining('CloudFormation refuses, because the resource keeps its custom name'),
      fix: expect.stringMatching(
        /^to avoid it, keep openSearch.engineVersion at the deployed version, or upgrade in place, which needs UpdatePolicy.EnableVersionUpgrade.*; to replace it on purpose, give it a new name as well; to keep its data through a replacement, take a manual snapshot/,
      ),
    });
  });

  test('fails when a log group with data is removed, and only mentions a retained one', () => {
    // GIVEN
    const before = resources({ Gone: logGroup('/a'), Kept: logGroup('/b', 'Retain') });
    // WHEN
    const findings = change(before, resources({}));
    // THEN
    expect(findings).toEqual([
      {
        check: 'change',
        status: 'ok',
        finding:
          'kfek-sandbox-search: update (0 modified, 0 added, 2 removed); kfek-sandbox-search/Kept (AWS::Logs::LogGroup) is removed: kept in the account, unmanaged (DeletionPolicy Retain)',
      },
      {
        check: 'change-delete',
        status: 'fail',
        finding: expect.stringContaining(
          'kfek-sandbox-search/Gone (AWS::Logs::LogGroup) is removed and deleted',
        ),
        fix: expect.stringContaining('aws logs create-export-task'),
      },
    ]);
  });

  test('a stateless replacement is information, not a failure', () => {
    // GIVEN an alarm renamed
    const alarm = (name: string): CfnResource => ({
      Type: 'AWS::CloudWatch::Alarm',
      Properties: { AlarmName: name },
    });
    // WHEN
    const findings = change(resources({ A: alarm('a') }), resources({ A: alarm('b') }));
    // THEN
    expect(findings).toEqual([
      expect.objectContaining({
        status: 'ok',
        finding: expect.stringContaining('A (AWS::CloudWatch::Alarm) is replaced'),
      }),
    ]);
  });

  test('fails when a named log group moves to a new logical id, with the fix', () => {
    // GIVEN / WHEN
    const findings = change(
      resources({ Old: logGroup('/kfek/app') }),
      resources({ New: logGroup('/kfek/app') }),
    );
    // THEN
    expect(findings.find((f) => f.check === 'change-names')).toEqual({
      check: 'change-names',
      status: 'fail',
      finding: expect.stringContaining('"/kfek/app already exists"'),
      fix: 'keep the construct id of kfek-sandbox-search/Old (a new id is a new resource), or deploy once without the resource and once with it',
    });
  });

  test('fails when the producer swaps an export its importer swaps too: only keeping the old export one more deploy works', () => {
    // GIVEN Search swaps export a for b while Pipeline swaps its import the same way
    const exporting = (name: string): CfnTemplate => ({
      Resources: {},
      Outputs: { O: { Value: 'v', Export: { Name: name } } },
    });
    const importing = (name: string): CfnTemplate => ({
      Resources: {},
      Outputs: { I: { Value: { 'Fn::ImportValue': name } } },
    });
    const search = stack('Search', exporting('b'));
    const pipeline = stack('Pipeline', importing('b'), { dependsOn: [search.stackName] });
    // WHEN
    const findings = checkChange(
      factsWith([deployed(search, exporting('a')), deployed(pipeline, importing('a'))]),
      planOf([search, pipeline]),
    );
    // THEN
    expect(findings.filter((f) => f.status === 'fail').map((f) => f.fix)).toEqual([
      'keep the export for one more deploy (CDK: `this.exportValue(...)` in Search) and remove it once nothing ' +
        'imports it: Pipeline cannot go first, since its new template imports exports no deployed stack has yet',
      'deploy Search with the new export first; to get there, keep the export for one more deploy (CDK: ' +
        '`this.exportValue(...)` in Search) and remove it once nothing imports it; then deploy Pipeline',
    ]);
  });

  test('warns when a resource type is missing from the schema table', () => {
    // GIVEN / WHEN
    const findings = change(resources({}), resources({ X: { Type: 'AWS::Made::Up' } }));
    // THEN
    expect(findings).toEqual([
      expect.objectContaining({
        status: 'warn',
        finding: expect.stringContaining('replacements of AWS::Made::Up not predicted'),
        fix: expect.stringContaining('scripts/create-only-properties.ts'),
      }),
    ]);
  });
});
