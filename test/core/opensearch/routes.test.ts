/**
 * Routes on the OpenSearch side (issue 24): what the builders make per route, and the applier against
 * FakeOpenSearch (ISM, security and Dashboards, which the plain local node lacks): per route a template, a
 * retention policy, a reader role and an index pattern, the writer extended, applied idempotently, and a removed
 * route's objects kept and reported. routes.integ.test.ts sends documents through the pipeline on a real node.
 */
import { buildSavedObjects } from '../../../core/opensearch/dashboards';
import { OpenSearchSpecError } from '../../../core/opensearch/errors';
import { buildIndexTemplate } from '../../../core/opensearch/index-template';
import { buildIngestPipeline } from '../../../core/opensearch/ingest-pipeline';
import { buildIsmPolicy } from '../../../core/opensearch/ism-policy';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec, type OpenSearchSpecInput } from '../../../core/opensearch/spec';
import { FakeOpenSearch } from '../../helpers/fake-opensearch-service';

const PAYMENTS = {
  name: 'payments',
  indexStem: 'payments',
  retentionDays: 30,
  readerBackendRoles: ['pay-team'],
};
const SEARCH = {
  name: 'search',
  indexStem: 'team-search',
  retentionDays: 7,
  readerBackendRoles: ['search-team'],
};
const input: OpenSearchSpecInput = {
  indexPrefix: 'logs',
  retention: { deleteAfterDays: 14 },
  access: {
    firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose',
    readerBackendRoles: ['log-readers'],
  },
  routes: [PAYMENTS, SEARCH],
};
const spec = resolveOpenSearchSpec(input);
const ALL = { ism: true, security: true, dashboards: true } as const;

/** The index patterns of each index permission of a role the fake holds. */
function indexPatterns(fake: FakeOpenSearch, role: string): string[][] {
  const stored = fake.roles.get(role) as { index_permissions: Array<{ index_patterns: string[] }> };
  return stored.index_permissions.map((p) => p.index_patterns);
}

describe('the builders, per route', () => {
  test("a route's template has the default's mappings and settings, on its own indices, named by its route", () => {
    // WHEN
    const base = buildIndexTemplate(spec) as Record<string, Record<string, unknown>>;
    const payments = buildIndexTemplate(spec, spec.routes[0]) as Record<string, Record<string, unknown>>;
    // THEN
    expect(payments.index_patterns).toEqual(['payments-*']);
    expect(payments.template).toEqual(base.template);
    expect(payments._meta).toMatchObject({ managed_by: 'kfek', kfek_route: 'payments' });
    expect(base._meta).not.toHaveProperty('kfek_route');
    // A longer stem takes a higher priority (core/opensearch/families.ts), so overlapping stems never tie.
    expect([base.priority, payments.priority]).toEqual([204, 208]);
  });

  test("a route's ISM policy deletes its own indices after its own retention", () => {
    const { policy } = buildIsmPolicy(spec, spec.routes[1]);
    expect(policy.ism_template).toEqual([{ index_patterns: ['team-search-*'], priority: 111 }]);
    expect(JSON.stringify(policy.states)).toContain('"min_index_age":"7d"');
    expect(buildIsmPolicy(spec).policy.ism_template).toEqual([{ index_patterns: ['logs-*'], priority: 104 }]);
  });

  test('the pipeline maps each route name to its stem, and only those', () => {
    const [route] = buildIngestPipeline(spec).processors as Array<{ script: { params: unknown } }>;
    expect(route.script.params).toEqual({
      prefix: 'logs',
      routes: { payments: 'payments', search: 'team-search' },
      // A document marked with its stem too (issue 39) goes to that stem only if its name points there.
      marks: { payments: ['payments'], search: ['team-search'] },
    });
  });

  test('one Dashboards index pattern per route, after the starter objects', () => {
    const objects = buildSavedObjects(spec);
    expect(objects.slice(-2)).toEqual([
      expect.objectContaining({
        id: 'kfek-payments-index-pattern',
        attributes: expect.objectContaining({ title: 'payments-*' }),
      }),
      expect.objectContaining({
        id: 'kfek-team-search-index-pattern',
        attributes: expect.objectContaining({ title: 'team-search-*' }),
      }),
    ]);
  });

  test.each([
    [[{ ...PAYMENTS, name: 'Pay' }], /routes\[0\]\.name is "Pay"; expected a short id of lowercase letters/],
    [
      [{ ...PAYMENTS, name: 'default' }],
      /routes\[0\]\.name is "default", the name of the route of events no route matches/,
    ],
    [[PAYMENTS, { ...SEARCH, name: 'payments' }], /routes\[1\] name "payments" is used twice/],
    [[{ ...PAYMENTS, indexStem: 'Pay' }], /routes\[0\]\.indexStem is "Pay": it has uppercase/],
    [
      [{ ...PAYMENTS, indexStem: 'logs' }],
      /routes\[0\]\.indexStem "logs" and indexPrefix \(the default route\) "logs" cannot both be stems: they are equal/,
    ],
    [
      [{ ...PAYMENTS, indexStem: 'logs-2026' }],
      /routes\[0\]\.indexStem "logs-2026" and indexPrefix \(the default route\) "logs" cannot both be stems: "logs-2026" continues "logs-" with a digit/,
    ],
    [
      [PAYMENTS, { ...SEARCH, indexStem: 'payments' }],
      /routes\[1\]\.indexStem "payments" and routes\[0\]\.indexStem \("payments"\) "payments" cannot both be stems: they are equal/,
    ],
    [
      [{ ...PAYMENTS, retentionDays: 0 }],
      /routes\[0\]\.retentionDays is 0; expected an integer from 1 to 36500/,
    ],
    [
      [{ ...PAYMENTS, readerBackendRoles: [''] }],
      /routes\[0\]\.readerBackendRoles\[0\] is ""; expected an IAM role ARN or a group name/,
    ],
  ])('fails when the routes are %j', (routes, message) => {
    expect(() => resolveOpenSearchSpec({ ...input, routes })).toThrow(OpenSearchSpecError);
    expect(() => resolveOpenSearchSpec({ ...input, routes })).toThrow(message);
  });
});

describe('provisionOpenSearch with routes, on a domain with every plugin', () => {
  test("creates every route's template, policy, reader role and index pattern, and extends the writer", async () => {
    // GIVEN
    const fake = new FakeOpenSearch({ ...ALL, indices: ['logs-2026-11-24', 'payments-2026-11-24'] });

    // WHEN
    const report = await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });

    // THEN
    expect(report.steps.map((s) => `${s.step}: ${s.status}`)).toEqual([
      'index template kfek-payments: created',
      'index template kfek-team-search: created',
      'ingest pipeline kfek-logs-document-id: created',
      'index template kfek-logs: created',
      'ISM policy kfek-logs-retention: created',
      'ISM policy kfek-payments-retention: created',
      'ISM policy kfek-team-search-retention: created',
      'ISM logs-*: updated',
      'ISM payments-*: updated',
      'index settings logs-*: updated',
      'index settings payments-*: updated',
      'security role kfek_writer: created',
      'security role kfek_reader: created',
      'security role kfek_payments_reader: created',
      'security role kfek_search_reader: created',
      'role mapping kfek_writer: created',
      'role mapping kfek_reader: created',
      'role mapping kfek_payments_reader: created',
      'role mapping kfek_search_reader: created',
      'role mapping opensearch_dashboards_user: created',
      'security audit logging (on): updated',
      'dashboards saved objects: updated',
    ]);
    expect(fake.managedIndices).toEqual(
      new Map([
        ['logs-2026-11-24', 'kfek-logs-retention'],
        ['payments-2026-11-24', 'kfek-payments-retention'],
      ]),
    );
    expect(indexPatterns(fake, 'kfek_writer')).toEqual([['logs-*', 'payments-*', 'team-search-*'], ['*']]);
    expect(indexPatterns(fake, 'kfek_reader')).toEqual([['logs-*']]);
    expect(indexPatterns(fake, 'kfek_payments_reader')).toEqual([['payments-*']]);
    expect(indexPatterns(fake, 'kfek_search_reader')).toEqual([['team-search-*']]);
    expect(fake.mappings.get('kfek_payments_reader')?.backend_roles).toEqual(['pay-team']);
    expect(fake.mappings.get('opensearch_dashboards_user')?.backend_roles).toEqual([
      'log-readers',
      'pay-team',
      'search-team',
    ]);
    expect(fake.savedObjects.has('index-pattern/kfek-team-search-index-pattern')).toBe(true);
  });

  test('a second run changes nothing: no PUT at all (the Dashboards objects are imported again, as always)', async () => {
    // GIVEN
    const fake = new FakeOpenSearch({ ...ALL, indices: ['logs-2026-11-24', 'payments-2026-11-24'] });
    await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });
    const before = fake.requests.length;

    // WHEN
    const report = await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });

    // THEN
    expect(report.steps.filter((s) => s.status !== 'unchanged').map((s) => s.step)).toEqual([
      'dashboards saved objects',
    ]);
    const writes = fake.requests
      .slice(before)
      .filter((r) => r.request.method !== 'GET' && r.target === 'opensearch')
      .map((r) => r.request.path);
    // Roles too are read and compared first (a PUT of the same role still bumps the security config's version).
    expect(writes).toEqual([]);
  });

  test('a removed route keeps its indices readable by its readers and retained by its policy, and says so', async () => {
    // GIVEN both routes applied, the search route with an index
    const fake = new FakeOpenSearch({ ...ALL, indices: ['team-search-2026-11-24'] });
    await provisionOpenSearch(fake.client(), spec);

    // WHEN the search route is removed from the config
    const without = resolveOpenSearchSpec({ ...input, routes: [PAYMENTS] });
    const report = await provisionOpenSearch(fake.client(), without, { previous: spec });

    // THEN its template and policy stay, and the report names them
    expect(report.steps.filter((s) => s.impact === 'kept').map((s) => `${s.step}: ${s.status}`)).toEqual([
      'indices team-search-*: kept',
      // Updated once, with the date its stem left the profile and who reads it.
      'index template kfek-team-search: updated',
      'ISM policy kfek-team-search-retention: kept',
    ]);
    expect(fake.managedIndices.get('team-search-2026-11-24')).toBe('kfek-team-search-retention');
    // AND its readers read it through the stem's own role (issue 39), not through the route name's
    expect(indexPatterns(fake, 'kfek_stem_team-search_reader')).toEqual([['team-search-*']]);
    expect(fake.mappings.get('kfek_stem_team-search_reader')?.backend_roles).toEqual(['search-team']);
    expect(fake.roles.has('kfek_search_reader')).toBe(false);
    expect(fake.mappings.get('opensearch_dashboards_user')?.backend_roles).toContain('search-team');
    // AND documents still marked "search" (an older transform, a replay) go to its indices, not the default ones
    const table = (
      fake.pipelines.get('kfek-logs-document-id') as { processors: Array<{ script: { params: unknown } }> }
    ).processors[0].script.params;
    expect(table).toEqual({
      prefix: 'logs',
      routes: { payments: 'payments', search: 'team-search' },
      marks: { payments: ['payments'], search: ['team-search'] },
    });
    expect(indexPatterns(fake, 'kfek_writer')[0]).toEqual(['logs-*', 'payments-*', 'team-search-*']);
  });

  test('a removed route with no index left is removed whole: template, policy, role, mapping and its name', async () => {
    // GIVEN
    const fake = new FakeOpenSearch(ALL);
    await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });

    // WHEN
    const without = resolveOpenSearchSpec({ ...input, routes: [PAYMENTS] });
    const report = await provisionOpenSearch(fake.client(), without, {
      previous: spec,
      dashboards: fake.dashboardsClient(),
    });

    // THEN
    expect(report.steps.filter((s) => s.status === 'deleted').map((s) => s.step)).toEqual([
      'indices team-search-*',
      'security role kfek_search_reader',
      'index template kfek-team-search',
      'ISM policy kfek-team-search-retention',
      'dashboards saved objects index-pattern/kfek-team-search-index-pattern',
    ]);
    expect(fake.templates.has('kfek-team-search')).toBe(false);
    expect(fake.policies.has('kfek-team-search-retention')).toBe(false);
    expect(fake.roles.has('kfek_search_reader')).toBe(false);
    expect(fake.mappings.has('kfek_search_reader')).toBe(false);
    expect(fake.mappings.get('opensearch_dashboards_user')?.backend_roles).toEqual([
      'log-readers',
      'pay-team',
    ]);
    expect(JSON.stringify(fake.pipelines.get('kfek-logs-document-id'))).not.toContain('team-search');
    expect(indexPatterns(fake, 'kfek_writer')[0]).toEqual(['logs-*', 'payments-*']);
  });

  test("a route's new stem gets its own objects; the old stem's indices stay with the readers they had", async () => {
    // GIVEN
    const fake = new FakeOpenSearch({ ...ALL, indices: ['team-search-2026-11-24'] });
    await provisionOpenSearch(fake.client(), spec);

    // WHEN
    const moved = resolveOpenSearchSpec({
      ...input,
      routes: [PAYMENTS, { ...SEARCH, indexStem: 'search-v2' }],
    });
    const report = await provisionOpenSearch(fake.client(), moved, { previous: spec });

    // THEN
    expect(report.steps).toContainEqual(
      expect.objectContaining({ step: 'index template kfek-search-v2', status: 'created' }),
    );
    expect(report.steps.filter((s) => s.impact === 'kept').map((s) => s.step)).toEqual([
      'indices team-search-*',
      'index template kfek-team-search',
      'ingest pipeline kfek-logs-document-id',
      'ISM policy kfek-team-search-retention',
    ]);
    // The route's reader reads its new stem only; the old stem is read through its own role, by whom read it.
    expect(indexPatterns(fake, 'kfek_search_reader')).toEqual([['search-v2-*']]);
    expect(indexPatterns(fake, 'kfek_stem_team-search_reader')).toEqual([['team-search-*']]);
    expect(fake.mappings.get('kfek_stem_team-search_reader')?.backend_roles).toEqual(['search-team']);
    const table = (
      fake.pipelines.get('kfek-logs-document-id') as { processors: Array<{ script: { params: unknown } }> }
    ).processors[0].script.params;
    // A document marked search with the old stem still goes there. One marked search alone goes to the new stem:
    // this spec keeps nothing in flight (keepRetiredHours 0); route-history.test.ts has the case where it does.
    expect(table).toEqual({
      prefix: 'logs',
      routes: { payments: 'payments', search: 'search-v2' },
      marks: { payments: ['payments'], search: ['search-v2', 'team-search'] },
    });
  });

  test('without routes, nothing is kept or deleted', async () => {
    const fake = new FakeOpenSearch(ALL);
    const plain = resolveOpenSearchSpec({ indexPrefix: 'logs' });
    await provisionOpenSearch(fake.client(), plain);
    const report = await provisionOpenSearch(fake.client(), plain, { previous: plain });
    expect(report.steps.filter((s) => s.status === 'kept' || s.status === 'deleted')).toEqual([]);
  });
});
