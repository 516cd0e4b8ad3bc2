/**
 * Issue 41, item 4: a document marked with a route that has since left the profile (team A's `orders` on `a-orders`,
 * now team C's on `c-orders`; team A's indices kept) lands in the same index on both deliveries. The provisioner
 * writes the pairs it keeps into the ingest pipeline from the domain's state; the indexer reads them back from the
 * pipeline (lambda/indexer/routes.ts). On the REAL node: provisioned twice as a deploy would, then the same kind of
 * document sent as Firehose sends it (the default pipeline) and as the indexer sends it (planned, `pipeline=_none`).
 */
import { SYSTEM_CLOCK } from '../../../core/clock';
import { canonicalJson } from '../../../core/canonical-json';
import { indexNameFor } from '../../../core/contracts/index-naming';
import { bulkBodies, DIRECT_BULK_PATH } from '../../../core/delivery/bulk-body';
import { type DeliveryTarget, planDocument } from '../../../core/delivery/document-plan';
import { nestedStems } from '../../../core/opensearch/families';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { profileRouteTable } from '../../../core/opensearch/route-table';
import type { OpenSearchSpecInput } from '../../../core/opensearch/spec';
import type { PipelinePort } from '../../../lambda/indexer/ports';
import { RouteSource } from '../../../lambda/indexer/routes';
import { useOpenSearchNode } from '../../helpers/opensearch';
import { markedOrder, ordersMove } from '../../helpers/route-move';

const base: OpenSearchSpecInput = {
  indexPrefix: 'logs',
  indexTemplate: { replicas: 0 },
  keepRetiredHours: 24,
};
const { teamA, teamC } = ordersMove(base);
/** The indexer's target as the Pipeline stack gives it for team C's profile (env.ts): the profile's routes only. */
const profileTarget: DeliveryTarget = {
  prefix: 'logs',
  rotation: 'OneDay',
  shards: teamC.indexTemplate.shards,
  table: profileRouteTable(teamC.routes),
  nested: nestedStems(
    'logs',
    teamC.routes.map((r) => r.indexStem),
  ),
};
const ARRIVAL = Date.now();

/** A transform document team A's transform marked for `a-orders` (in flight at the deploy, or replayed). */
const markedForTeamA = (id: string): string => markedOrder(id, 'a-orders', ARRIVAL);

interface Stored {
  readonly index: string;
  readonly id: string;
  readonly routing: unknown;
  readonly source: string;
}

describe('a document marked with a retired route kfek keeps (real node)', () => {
  const os = useOpenSearchNode();
  type Item = { index: { _index: string; _id: string; result: string } };
  const send = async (path: string, body: string): Promise<Item[]> => {
    const response = await os.client().request({
      method: 'POST',
      path,
      body,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(response.status).toBe(200);
    expect((response.body as { errors: boolean }).errors).toBe(false);
    return (response.body as { items: Item[] }).items;
  };
  const firehose = (text: string): Promise<Item[]> =>
    send(
      '/_bulk?refresh=true',
      `${JSON.stringify({ index: { _index: indexNameFor('logs', 'OneDay', new Date(ARRIVAL)) } })}\n${text}\n`,
    );
  const storedAs = async (id: string): Promise<Stored> => {
    const response = await os.client().request({
      method: 'POST',
      path: '/logs*,a-orders*,c-orders*/_search',
      body: { query: { term: { 'cloudwatch.id': id } } },
    });
    const hits = (response.body as { hits: { hits: Array<Record<string, unknown>> } }).hits.hits;
    expect(hits).toHaveLength(1);
    const hit = hits[0];
    return {
      index: hit._index as string,
      id: hit._id as string,
      routing: hit._routing,
      source: canonicalJson(hit._source),
    };
  };
  const port: PipelinePort = {
    get: async (name) => {
      const response = await os.client().request({ method: 'GET', path: `/_ingest/pipeline/${name}` });
      return { status: response.status, text: response.text };
    },
  };
  const warnings: string[] = [];

  beforeAll(async () => {
    // GIVEN team A's orders route with history (one document through the pipeline made its index)
    await provisionOpenSearch(os.client(), teamA);
    await firehose(markedForTeamA('history'));
    // AND a deploy that gave the route name to team C: team A's stem retired, its indices kept
    await provisionOpenSearch(os.client(), teamC, { previous: teamA });
  }, 120_000);

  test('lands in team A index on both paths: the indexer overwrites the Firehose copy of the same event', async () => {
    // WHEN an event goes through the Firehose path, and the same event again through the indexer's
    await firehose(markedForTeamA('e1'));
    const viaFirehose = await storedAs('e1');
    const routes = new RouteSource({
      base: profileTarget,
      source: { kind: 'pipeline', name: teamC.names.ingestPipeline, port },
      clock: SYSTEM_CLOCK,
      log: { warn: (message) => warnings.push(message) },
    });
    const plan = planDocument(await routes.target(), markedForTeamA('e1'), ARRIVAL);
    if (plan.kind !== 'index') throw new Error(`planned ${JSON.stringify(plan)}`);
    const [item] = await send(
      `${DIRECT_BULK_PATH}&refresh=true`,
      bulkBodies([plan], (p) => p, 1 << 20)[0].body,
    );

    // THEN both are in team A's index: the direct copy replaced the Firehose one (same index and id), stored alike
    expect(warnings).toEqual([]);
    expect(viaFirehose.index).toBe(indexNameFor('a-orders', 'OneDay', new Date(ARRIVAL)));
    expect(item.index).toMatchObject({ _index: viaFirehose.index, _id: viaFirehose.id, result: 'updated' });
    expect(await storedAs('e1')).toEqual(viaFirehose);
  });

  test("the profile's routes alone would have sent it to the default index (what the indexer did before)", () => {
    const plan = planDocument(profileTarget, markedForTeamA('profile-only'), ARRIVAL);
    expect(plan.kind === 'index' && plan.index).toBe(indexNameFor('logs', 'OneDay', new Date(ARRIVAL)));
  });

  test("fails soft when the pipeline cannot be read: the profile's routes, and a warning naming the fix", async () => {
    // GIVEN a role the domain refuses the pipeline to
    const refusing: PipelinePort = { get: () => Promise.resolve({ status: 403, text: '{"message":"no"}' }) };
    const routes = new RouteSource({
      base: profileTarget,
      source: { kind: 'pipeline', name: teamC.names.ingestPipeline, port: refusing },
      clock: SYSTEM_CLOCK,
      log: { warn: (message) => warnings.push(message) },
    });
    // WHEN
    const target = await routes.target();
    // THEN
    expect(target).toBe(profileTarget);
    expect(warnings.join('\n')).toMatch(/HTTP 403.*es:ESHttpGet on <domain ARN>\/_ingest\/pipeline\//s);
  });
});
