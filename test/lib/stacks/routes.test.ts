/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.hasResourceProperties", "*.hasWarning", "*.hasNoWarning"] }] -- Template assertions throw on mismatch. */
/**
 * A profile with routes (issue 24), synthesized: the transform gets the routes in its environment, the provisioner
 * gets each route's OpenSearch side, and what the provisioner will apply from that spec (roles, templates,
 * policies, pipeline) gives each team its own indices and nobody else's. The shipped `teams` profile is the case.
 */
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { serializeRoutes, TransformEnvVar } from '../../../core/contracts/transform-env';
import { buildIngestPipeline } from '../../../core/opensearch/ingest-pipeline';
import { buildSecurityRoles } from '../../../core/opensearch/security';
import {
  indexFamilies,
  resolveOpenSearchSpec,
  type OpenSearchSpecInput,
} from '../../../core/opensearch/spec';
import { buildTestApp, CDK_JSON_CONTEXT } from '../../helpers/app';

/** A property CloudFormation joins (`Fn::Join` of strings and references), with every reference as `REF`. */
function joined(value: unknown): string {
  if (typeof value === 'string') return value;
  const [separator, parts] = (value as { 'Fn::Join': [string, unknown[]] })['Fn::Join'];
  return parts.map((p) => (typeof p === 'string' ? p : 'REF')).join(separator);
}

const TEAMS = (CDK_JSON_CONTEXT.kfek as { profiles: Record<string, Record<string, unknown>> }).profiles.teams;

describe('PipelineStack of a profile with routes (teams)', () => {
  const { stacks, config } = buildTestApp({ profile: 'teams' });
  const template = Template.fromStack(stacks.pipeline);
  const provisioner = Object.values(template.findResources('Custom::KfekOpenSearchProvisioning'))[0];
  const spec = resolveOpenSearchSpec(JSON.parse(joined(provisioner.Properties.Spec)) as OpenSearchSpecInput);

  test('the profile has the two routes the docs walk through', () => {
    expect(config.routes.map((r) => [r.name, r.indexStem, r.retentionDays])).toEqual([
      ['payments', 'payments', 30],
      ['search', 'search', 7],
    ]);
  });

  test('the transform gets every route, as the contract serializes them', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ [TransformEnvVar.Routes]: serializeRoutes(config.routes) }),
      },
    });
  });

  test("the provisioner's spec has each route's stem, retention and readers", () => {
    expect(
      spec.routes.map((r) => [r.route, r.indexPattern, r.retention.deleteAfterDays, r.readerBackendRoles]),
    ).toEqual([
      ['payments', 'payments-*', 30, ['payments-readers']],
      ['search', 'search-*', 7, ['search-readers']],
    ]);
    expect(indexFamilies(spec).map((f) => [f.names.indexTemplate, f.names.ismPolicy])).toEqual([
      ['kfek-logs', 'kfek-logs-retention'],
      ['kfek-payments', 'kfek-payments-retention'],
      ['kfek-search', 'kfek-search-retention'],
    ]);
  });

  test("Firehose's role may write every route's indices; each reader reads its own route's indices only", () => {
    // WHEN the provisioner's own builders turn the spec into roles
    const roles = new Map(buildSecurityRoles(spec).map((r) => [r.name, r]));
    // THEN
    expect(roles.get('kfek_writer')?.role?.index_permissions).toEqual([
      expect.objectContaining({ index_patterns: ['logs-*', 'payments-*', 'search-*'] }),
      // Statistics and settings of every index only (Firehose's destination checks).
      { index_patterns: ['*'], allowed_actions: ['indices:monitor/stats', 'indices:monitor/settings/get'] },
    ]);
    const readable = (name: string): unknown =>
      roles.get(name)?.role?.index_permissions.map((p) => [p.index_patterns, p.allowed_actions]);
    expect(readable('kfek_reader')).toEqual([[['logs-*'], ['read']]]);
    expect(readable('kfek_payments_reader')).toEqual([[['payments-*'], ['read']]]);
    expect(readable('kfek_search_reader')).toEqual([[['search-*'], ['read']]]);
    expect(roles.get('kfek_payments_reader')?.mapping?.backend_roles).toEqual(['payments-readers']);
    expect(roles.get('kfek_search_reader')?.mapping?.backend_roles).toEqual(['search-readers']);
    expect(roles.get('opensearch_dashboards_user')?.mapping?.backend_roles).toEqual([
      'payments-readers',
      'search-readers',
    ]);
  });

  test('the ingest pipeline knows exactly the routes of the config', () => {
    const [route] = buildIngestPipeline(spec).processors as Array<{ script: { params: unknown } }>;
    expect(route.script.params).toEqual({
      prefix: 'logs',
      routes: { payments: 'payments', search: 'search' },
      marks: { payments: ['payments'], search: ['search'] },
    });
  });

  test('routes that do not overlap give no warning', () => {
    const annotations = Annotations.fromStack(stacks.pipeline);
    annotations.hasNoWarning('*', Match.stringLikeRegexp('shadows route'));
  });
});

describe('PipelineStack of routes that overlap', () => {
  test('warns at synth which route shadows which', () => {
    // GIVEN a pattern route before a prefix route that also covers what the pattern matches
    const routes = [
      { name: 'team-a', match: { logGroupPattern: '/kfek/teams/*-a' }, indexStem: 'team-a' },
      { name: 'team-b', match: { logGroupPrefix: '/kfek/teams/' }, indexStem: 'team-b' },
    ];
    // WHEN
    const { stacks } = buildTestApp({ overrides: { ...TEAMS, routes } });
    // THEN
    const annotations = Annotations.fromStack(stacks.pipeline);
    annotations.hasWarning(
      '*',
      Match.stringLikeRegexp('route "team-a" \\(routes\\[0\\].*shadows route "team-b" \\(routes\\[1\\]'),
    );
  });
});
