/**
 * A route's history stays its own (issue 39), on the secured 2.19.4 node (real roles, mappings, templates, pipeline,
 * searches as each user; ISM stood in, test/helpers/ism-on-node.ts): the route name `orders` moves from team A's
 * stem to team C's while team A's indices are kept. Team C's readers cannot read team A's history, team A's readers
 * still can, a document team A's transform marked `orders` never lands in team C's indices, and when team A's last
 * index is gone its readers leave `opensearch_dashboards_user`. The planner's side is in route-history.test.ts.
 */
import { provisionOpenSearch, type ProvisionReport } from '../../../core/opensearch/provision';
import {
  resolveOpenSearchSpec,
  type OpenSearchSpec,
  type OpenSearchSpecInput,
} from '../../../core/opensearch/spec';
import { withFakeIsm, type NodeWithIsm } from '../../helpers/ism-on-node';
import { useSecuredOpenSearchNode } from '../../helpers/secured-opensearch';

const FIREHOSE = 'arn:aws:iam::123456789012:role/kfek-firehose';
const BASE: OpenSearchSpecInput = {
  indexPrefix: 'logs',
  indexTemplate: { replicas: 0 },
  retention: { deleteAfterDays: 14 },
  access: { firehoseRoleArn: FIREHOSE, readerBackendRoles: ['log-readers'] },
  keepRetiredHours: 24,
};
const TEAM_A: OpenSearchSpecInput = {
  ...BASE,
  routes: [{ name: 'orders', indexStem: 'a-orders', retentionDays: 30, readerBackendRoles: ['team-a'] }],
};
const TEAM_C: OpenSearchSpecInput = {
  ...BASE,
  routes: [{ name: 'orders', indexStem: 'c-orders', retentionDays: 30, readerBackendRoles: ['team-c'] }],
};

let eventId = 0;
/** A document as the transform writes it, marked with route (and stem, as the transform of issue 39 does). */
function marked(message: string, route: string, stem?: string): Record<string, unknown> {
  return {
    '@timestamp': '2026-11-20T09:00:00.000Z',
    message,
    cloudwatch: { id: String(++eventId), logGroup: '/kfek/orders', logStream: 's1', owner: '123456789012' },
    kfek: { route, ...(stem === undefined ? {} : { stem }) },
  };
}

describe('the route name orders moved to another team stem, on the secured 2.19.4 node', () => {
  const os = useSecuredOpenSearchNode({
    users: [
      { name: 'firehose', backendRoles: [FIREHOSE] },
      { name: 'a-reader', backendRoles: ['team-a'] },
      { name: 'c-reader', backendRoles: ['team-c'] },
    ],
  });
  let offsetMillis = 0;
  const now = (): number => Date.now() + offsetMillis;
  let domain: NodeWithIsm;
  let previous: OpenSearchSpec | undefined;

  async function deploy(input: OpenSearchSpecInput): Promise<ProvisionReport> {
    const spec = resolveOpenSearchSpec(input);
    const report = await provisionOpenSearch(domain.client, spec, { now, ...(previous ? { previous } : {}) });
    previous = spec;
    return report;
  }

  /** Firehose's bulk into the default index of the day; where each document landed, or its refusal's reason. */
  async function deliver(docs: readonly Record<string, unknown>[]): Promise<string[]> {
    const body = docs.map((d) => `{"index":{"_index":"logs-2026-11-20"}}\n${JSON.stringify(d)}\n`).join('');
    const response = await os.client('firehose').request({
      method: 'POST',
      path: '/_bulk?refresh=true',
      body,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(response.status).toBe(200);
    const items = (
      response.body as { items: Array<{ index: { _index: string; status: number; error?: unknown } }> }
    ).items;
    return items.map(({ index }) =>
      index.status < 300 ? index._index : `refused: ${JSON.stringify(index.error)}`,
    );
  }

  /** The messages `user` finds in `pattern` (403: none readable). */
  async function readable(user: string, pattern: string): Promise<string[] | 403> {
    const response = await os.client(user).request({
      method: 'POST',
      path: `/${pattern}/_search?ignore_unavailable=true`,
      body: { size: 100, query: { match_all: {} } },
    });
    if (response.status === 403) return 403;
    expect(response.status).toBe(200);
    const hits = (response.body as { hits: { hits: Array<{ _source: { message: string } }> } }).hits.hits;
    return hits.map((h) => h._source.message).sort();
  }

  beforeAll(() => {
    domain = withFakeIsm(os.client('admin'), now);
  });

  test("team C's readers never read team A's history; team A's still do; A's marked documents stay A's", async () => {
    // GIVEN team A's orders route with history
    await deploy(TEAM_A);
    expect(await deliver([marked('a before', 'orders', 'a-orders')])).toEqual(['a-orders-2026-11-20']);

    // WHEN orders moves to team C's stem, team A's indices kept
    await deploy(TEAM_C);
    const landed = await deliver([
      marked('a in flight', 'orders', 'a-orders'),
      marked('c new', 'orders', 'c-orders'),
      marked('a old transform', 'orders'),
      marked('forged stem', 'orders', 'logs'),
    ]);

    // THEN each document lands with the team whose transform marked it, or is refused with the reason
    expect(landed.slice(0, 2)).toEqual(['a-orders-2026-11-20', 'c-orders-2026-11-20']);
    expect(landed[2]).toMatch(/^refused: .*marked with route orders and no stem/);
    expect(landed[3]).toBe('logs-2026-11-20');
    // AND team C reads its own stem only; team A keeps its history and nothing of team C's
    expect(await readable('c-reader', 'c-orders-*')).toEqual(['c new']);
    expect(await readable('c-reader', 'a-orders-*')).toBe(403);
    expect(await readable('a-reader', 'a-orders-*')).toEqual(['a before', 'a in flight']);
    expect(await readable('a-reader', 'c-orders-*')).toBe(403);
  }, 120_000);

  test("when team A's last index is gone, its stem role and its Dashboards membership go too", async () => {
    // GIVEN team A's indices deleted by their retention, after nothing marked for them can still arrive
    const deleted = await os.client('admin').request({ method: 'DELETE', path: '/a-orders-2026-11-20' });
    expect(deleted.status).toBe(200);
    offsetMillis = 3 * 86_400_000;

    // WHEN
    const report = await deploy(TEAM_C);

    // THEN
    expect(report.steps.filter((s) => s.impact === 'drift')).toEqual([]);
    const roles = await os.client('admin').request({ method: 'GET', path: '/_plugins/_security/api/roles' });
    expect(
      Object.keys(roles.body as object)
        .filter((r) => r.startsWith('kfek_'))
        .sort(),
    ).toEqual(['kfek_orders_reader', 'kfek_reader', 'kfek_writer']);
    const mapping = await os.client('admin').request({
      method: 'GET',
      path: '/_plugins/_security/api/rolesmapping/opensearch_dashboards_user',
    });
    const members = (mapping.body as Record<string, { backend_roles: string[] }>).opensearch_dashboards_user;
    expect(members.backend_roles).not.toContain('team-a');
    expect(members.backend_roles).toEqual(expect.arrayContaining(['log-readers', 'team-c']));
  }, 120_000);
});
