/**
 * Routes on the OpenSearch side (issue 24): what the builders make per route, and the applier against
 * FakeOpenSearch (ISM, security and Dashboards, which the plain local node lacks): per route a template, a
 * retention policy, a reader role and an index pattern, the writer extended, applied idempotently, and a removed
 * route's objects kept and reported. routes.integ.test.ts sends documents through the pipeline on a real node.
 */
import { buildSavedObjects } from '../../../core/opensearch/dashboards';
import { OpenSearchSpecError } from '../../../core/opensearch/errors';
import type { HttpResponse, OpenSearchHttpClient } from '../../../core/opensearch/http';
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

/**
 * The fake's client, answering `GET /_index_template/<prefix>*` (which the fake takes for one template's name)
 * from its stored templates, as OpenSearch does: the matching ones, or 404 when none match.
 */
function withTemplateListing(fake: FakeOpenSearch): OpenSearchHttpClient {
  const client = fake.client();
  return {
    baseUrl: client.baseUrl,
    request: async (request): Promise<HttpResponse> => {
      const m = /^\/_index_template\/([^/*]+)\*$/.exec(request.path);
      if (request.method !== 'GET' || m === null) return client.request(request);
      const matching = [...fake.templates].filter(([name]) => name.startsWith(m[1]));
      const body =
        matching.length === 0
          ? { error: { type: 'resource_not_found_exception' }, status: 404 }
          : { index_templates: matching.map(([name, t]) => ({ name, index_template: t })) };
      return { status: matching.length === 0 ? 404 : 200, body, text: JSON.stringify(body) };
    },
  };
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
    expect(payments.priority).toBe(base.priority);
  });

  test("a route's ISM policy deletes its own indices after its own retention", () => {
    const { policy } = buildIsmPolicy(spec, spec.routes[1]);
    expect(policy.ism_template).toEqual([{ index_patterns: ['team-search-*'], priority: 100 }]);
    expect(JSON.stringify(policy.states)).toContain('"min_index_age":"7d"');
    expect(buildIsmPolicy(spec).policy.ism_template).toEqual([{ index_patterns: ['logs-*'], priority: 100 }]);
  });

  test('the pipeline maps each route name to its stem, and only those', () => {
    const [route] = buildIngestPipeline(spec).processors as Array<{ script: { params: unknown } }>;
    expect(route.script.params).toEqual({
      prefix: 'logs',
      routes: { payments: 'payments', search: 'team-search' },
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
    [[{ ...PAYMENTS, name: 'Pay' }], /routes\[0\]\.name must be lowercase/],
    [[{ ...PAYMENTS, name: 'default' }], /not "default"/],
    [[PAYMENTS, { ...SEARCH, name: 'payments' }], /routes\[1\]\.name "payments" is listed twice/],
    [[{ ...PAYMENTS, indexStem: 'Pay' }], /routes\[0\]\.indexStem "Pay" is no index stem: it has uppercase/],
    [[{ ...PAYMENTS, indexStem: 'logs-pay' }], /routes\[0\]\.indexStem "logs-pay" overlaps "logs"/],
    [
      [PAYMENTS, { ...SEARCH, indexStem: 'payments-search' }],
      /routes\[1\]\.indexStem "payments-search" overlaps "payments"/,
    ],
    [[{ ...PAYMENTS, retentionDays: 0 }], /routes\[0\]\.retentionDays must be an integer from 1/],
    [
      [{ ...PAYMENTS, readerBackendRoles: [''] }],
      /routes\[0\]\.readerBackendRoles must hold non-empty strings/,
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
    const report = await provisionOpenSearch(withTemplateListing(fake), spec, {
      dashboards: fake.dashboardsClient(),
    });

    // THEN
    expect(report.steps.map((s) => `${s.step}: ${s.status}`)).toEqual([
      'index template kfek-payments: created',
      'index template kfek-team-search: created',
      'ingest pipeline kfek-logs-document-id: created',
      'index template kfek-logs: created',
      'ISM policy kfek-logs-retention: created',
      'ISM attach existing logs-*: updated',
      'ISM policy kfek-payments-retention: created',
      'ISM attach existing payments-*: updated',
      'ISM policy kfek-team-search-retention: created',
      'ISM attach existing team-search-*: unchanged',
      'security role kfek_writer: created',
      'role mapping kfek_writer: created',
      'security role kfek_reader: created',
      'role mapping kfek_reader: created',
      'security role kfek_payments_reader: created',
      'role mapping kfek_payments_reader: created',
      'security role kfek_search_reader: created',
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
    const indexPatterns = (role: string): unknown =>
      (
        fake.roles.get(role) as { index_permissions: Array<{ index_patterns: string[] }> }
      ).index_permissions.map((p) => p.index_patterns);
    expect(indexPatterns('kfek_writer')).toEqual([['logs-*', 'payments-*', 'team-search-*'], ['*']]);
    expect(indexPatterns('kfek_reader')).toEqual([['logs-*']]);
    expect(indexPatterns('kfek_payments_reader')).toEqual([['payments-*']]);
    expect(indexPatterns('kfek_search_reader')).toEqual([['team-search-*']]);
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
    const fake = new FakeOpenSearch(ALL);
    const client = withTemplateListing(fake);
    await provisionOpenSearch(client, spec, { dashboards: fake.dashboardsClient() });
    const before = fake.requests.length;

    // WHEN
    const report = await provisionOpenSearch(client, spec, { dashboards: fake.dashboardsClient() });

    // THEN
    expect(report.steps.filter((s) => s.status !== 'unchanged').map((s) => s.step)).toEqual([
      'dashboards saved objects',
    ]);
    const writes = fake.requests
      .slice(before)
      .filter((r) => r.request.method === 'PUT')
      .map((r) => r.request.path);
    // Roles too are read and compared first (a PUT of the same role still bumps the security config's version).
    expect(writes).toEqual([]);
  });

  test("a removed route's objects are kept and reported as orphaned; the writer and the pipeline drop it", async () => {
    // GIVEN both routes applied
    const fake = new FakeOpenSearch(ALL);
    const client = withTemplateListing(fake);
    await provisionOpenSearch(client, spec);

    // WHEN the search route is removed from the config
    const without = resolveOpenSearchSpec({ ...input, routes: [PAYMENTS] });
    const report = await provisionOpenSearch(client, without);

    // THEN its template, policy and reader role stay, and the report names them
    expect(report.steps.filter((s) => s.status === 'orphaned')).toEqual([
      {
        step: 'route search (index template kfek-team-search)',
        status: 'orphaned',
        detail:
          'no longer in the config: indices team-search-*, template kfek-team-search, ISM policy ' +
          'kfek-team-search-retention and role kfek_search_reader are kept; new documents marked "search" go to logs-*',
      },
    ]);
    expect(fake.templates.has('kfek-team-search')).toBe(true);
    expect(fake.policies.has('kfek-team-search-retention')).toBe(true);
    expect(fake.roles.has('kfek_search_reader')).toBe(true);
    // AND Firehose can no longer write its indices, and the pipeline no longer sends anything there
    const writer = fake.roles.get('kfek_writer') as {
      index_permissions: Array<{ index_patterns: string[] }>;
    };
    expect(writer.index_permissions[0].index_patterns).toEqual(['logs-*', 'payments-*']);
    expect(JSON.stringify(fake.pipelines.get('kfek-logs-document-id'))).not.toContain('team-search');
  });

  test('a route whose stem changed leaves its old template orphaned, under the same route name', async () => {
    // GIVEN
    const fake = new FakeOpenSearch({ ism: true });
    const client = withTemplateListing(fake);
    await provisionOpenSearch(client, spec);

    // WHEN
    const moved = resolveOpenSearchSpec({
      ...input,
      routes: [PAYMENTS, { ...SEARCH, indexStem: 'search-v2' }],
    });
    const report = await provisionOpenSearch(client, moved);

    // THEN
    expect(report.steps).toContainEqual({ step: 'index template kfek-search-v2', status: 'created' });
    expect(report.steps.filter((s) => s.status === 'orphaned').map((s) => s.step)).toEqual([
      'route search (index template kfek-team-search)',
    ]);
  });

  test('without routes, the default template is never reported as orphaned', async () => {
    const fake = new FakeOpenSearch();
    const client = withTemplateListing(fake);
    const plain = resolveOpenSearchSpec({ indexPrefix: 'logs' });
    await provisionOpenSearch(client, plain);
    const report = await provisionOpenSearch(client, plain);
    expect(report.steps.filter((s) => s.status === 'orphaned')).toEqual([]);
  });
});
