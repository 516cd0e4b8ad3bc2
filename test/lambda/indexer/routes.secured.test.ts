/**
 * Issue 41, item 4 on the secured 2.19.4 node (real security plugin, ISM stood in, test/helpers/ism-on-node.ts): the
 * indexer's role, mapped to kfek's writer role exactly as the provisioner provisions it, reads the route table from
 * kfek's ingest pipeline (lambda/indexer/routes.ts), so a document marked with a route that has since left the
 * profile lands in its team's index through the direct path: the shipped delivery code (deliverBatch) with the
 * environment the Pipeline stack writes (core/contracts/indexer-env.ts `indexerEnvironment`, read by env.ts).
 *
 * The counter-proof: a writer role the same but for `cluster:admin/ingest/pipeline/get` is refused the pipeline, the
 * profile's routes apply, and the same document lands in the default index with `kfek.unknownRoute`. So the
 * permission in core/opensearch/security.ts is what makes the difference. The IAM half (`es:ESHttpGet` on exactly
 * the pipeline's path) is in test/lib/stacks/direct-delivery.test.ts and the permission matrix.
 */
import { SYSTEM_CLOCK } from '../../../core/clock';
import { indexNameFor } from '../../../core/contracts/index-naming';
import { indexerEnvironment } from '../../../core/contracts/indexer-env';
import { serializeRoutes } from '../../../core/contracts/transform-env';
import { DIRECT_BULK_PATH } from '../../../core/delivery/bulk-body';
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { name as one, requestPath } from '../../../core/opensearch/request-path';
import { buildWriterRole } from '../../../core/opensearch/security';
import {
  resolveOpenSearchSpec,
  type OpenSearchSpec,
  type OpenSearchSpecInput,
} from '../../../core/opensearch/spec';
import { deliverBatch, type DeliveryResult } from '../../../lambda/indexer/deliver';
import { readIndexerEnv } from '../../../lambda/indexer/env';
import type { IndexerRecord, PipelinePort } from '../../../lambda/indexer/ports';
import { RouteSource } from '../../../lambda/indexer/routes';
import { withFakeIsm, type NodeWithIsm } from '../../helpers/ism-on-node';
import { useSecuredOpenSearchNode } from '../../helpers/secured-opensearch';

jest.setTimeout(180_000);

const INDEXER = 'arn:aws:iam::123456789012:role/kfek-test-indexer';
/** Backend role of a writer without the pipeline permission (what kfek's writer role was before it). */
const OLD_WRITER = 'writer-without-pipeline-get';
const PIPELINE_GET = 'cluster:admin/ingest/pipeline/get';
const BASE: OpenSearchSpecInput = {
  indexPrefix: 'logs',
  indexTemplate: { replicas: 0 },
  retention: { deleteAfterDays: 14 },
  // With the indexer delivering, its role is the writer (lib/stacks/pipeline-provisioner.ts).
  access: { firehoseRoleArn: INDEXER },
  keepRetiredHours: 24,
};
const TEAM_A = { ...BASE, routes: [{ name: 'orders', indexStem: 'a-orders', retentionDays: 30 }] };
const TEAM_C = { ...BASE, routes: [{ name: 'orders', indexStem: 'c-orders', retentionDays: 30 }] };
const ARRIVAL = Date.now();
const DAY = (stem: string): string => indexNameFor(stem, 'OneDay', new Date(ARRIVAL));

/** A setup step that must have worked (jest's expect belongs in tests). */
function must(ok: boolean, what: string): void {
  if (!ok) throw new Error(`setup failed: ${what}`);
}

let sequence = 0;
/** One events-stream record: a document the transform marked with route `orders` for `stem`. */
function marked(id: string, stem: string): IndexerRecord {
  const document = {
    '@timestamp': new Date(ARRIVAL).toISOString(),
    message: `order ${id}`,
    cloudwatch: { id, logGroup: '/team/orders', logStream: 's1', owner: '123456789012' },
    kfek: { route: 'orders', stem, arrival: ARRIVAL },
  };
  return {
    sequenceNumber: String(++sequence),
    data: Buffer.from(JSON.stringify(document)),
    arrival: ARRIVAL,
  };
}

describe("a retired route's document through the direct path, on the secured 2.19.4 node", () => {
  const os = useSecuredOpenSearchNode({
    users: [
      { name: 'indexer', backendRoles: [INDEXER] },
      { name: 'old-writer', backendRoles: [OLD_WRITER] },
    ],
  });
  let domain: NodeWithIsm;
  let teamC: OpenSearchSpec;
  const warnings: string[] = [];

  /** The indexer's settings as the Pipeline stack writes them for `spec`'s profile, read as the function reads them. */
  const indexerEnv = (spec: OpenSearchSpec): ReturnType<typeof readIndexerEnv> =>
    readIndexerEnv(
      indexerEnvironment({
        endpoint: os.node().url,
        failedDocumentsBucket: 'failed-bucket',
        failedDocumentsPrefix: 'failed-documents/',
        indexPrefix: spec.indexPrefix,
        indexRotation: 'OneDay',
        indexShards: spec.indexTemplate.shards,
        routes: serializeRoutes(
          spec.routes.map((r) => ({
            name: r.route,
            match: { logGroupPrefix: '/team' },
            staticFields: {},
            processing: { drop: [] },
            indexStem: r.indexStem,
          })),
        ),
        ingestPipeline: spec.names.ingestPipeline,
      }),
    );

  /** The indexer's pipeline read as `user` (the adapter's request, with the user's basic auth instead of SigV4). */
  const pipelinePort = (client: OpenSearchHttpClient): PipelinePort => ({
    get: async (name) => {
      const path = requestPath(['_ingest', 'pipeline', one('ingest pipeline', name)]);
      const response = await client.request({ method: 'GET', path });
      return { status: response.status, text: response.text };
    },
  });

  /**
   * One invocation of the shipped delivery code as `user` with `spec`'s environment, its route table read from the
   * pipeline as `user`.
   */
  async function deliverAs(
    user: string,
    spec: OpenSearchSpec,
    records: readonly IndexerRecord[],
  ): Promise<DeliveryResult> {
    const client = os.client(user);
    const env = indexerEnv(spec);
    const routes = new RouteSource({
      base: env.target,
      ...(env.ingestPipeline === undefined
        ? {}
        : { source: { kind: 'pipeline', name: env.ingestPipeline, port: pipelinePort(client) } as const }),
      clock: SYSTEM_CLOCK,
      log: { warn: (message) => warnings.push(message) },
    });
    const kept: string[] = [];
    return deliverBatch(
      records,
      { ...env, target: await routes.target() },
      {
        bulk: {
          bulk: async (body) => {
            const response = await client.request({
              method: 'POST',
              path: `${DIRECT_BULK_PATH}&refresh=true`,
              body,
              headers: { 'content-type': 'application/x-ndjson' },
            });
            return { status: response.status, text: response.text };
          },
        },
        store: { put: (_key, body) => Promise.resolve(void kept.push(body)) },
        clock: SYSTEM_CLOCK,
        random: () => 0,
        objectName: () => `kept-${kept.length}`,
        log: { warn: (message) => warnings.push(message) },
      },
      Date.now() + 60_000,
    );
  }

  /** Where the document with event id `id` is stored, with its `kfek.unknownRoute` if any. */
  async function storedAs(id: string): Promise<{ index: string; unknownRoute: unknown }> {
    const response = await os.client('admin').request({
      method: 'POST',
      path: '/logs*,a-orders*,c-orders*/_search',
      body: { query: { term: { 'cloudwatch.id': id } } },
    });
    const hits = (
      response.body as { hits: { hits: Array<{ _index: string; _source: Record<string, unknown> }> } }
    ).hits.hits;
    expect(hits).toHaveLength(1);
    const kfek = hits[0]._source.kfek as { unknownRoute?: unknown } | undefined;
    return { index: hits[0]._index, unknownRoute: kfek?.unknownRoute };
  }

  beforeAll(async () => {
    domain = withFakeIsm(os.client('admin'), () => Date.now());
    // GIVEN team A's orders route with history, written by the indexer as provisioned
    const teamA = resolveOpenSearchSpec(TEAM_A);
    await provisionOpenSearch(domain.client, teamA, { now: Date.now });
    const history = await deliverAs('indexer', teamA, [marked('history', 'a-orders')]);
    must(history.counts.IndexedDocuments === 1, `team A's history indexed: ${JSON.stringify(history)}`);
    // AND a deploy that gave the route name to team C: team A's stem retired, its indices kept
    teamC = resolveOpenSearchSpec(TEAM_C);
    await provisionOpenSearch(domain.client, teamC, { now: Date.now, previous: teamA });
    // AND a writer role like kfek's but without the pipeline permission, for the counter-proof
    const writer = buildWriterRole(teamC);
    const roles = os.client('admin');
    const put = await roles.request({
      method: 'PUT',
      path: `/_plugins/_security/api/roles/${OLD_WRITER}`,
      body: { ...writer, cluster_permissions: writer.cluster_permissions.filter((p) => p !== PIPELINE_GET) },
    });
    must(put.status < 300, `PUT role ${OLD_WRITER}: ${put.text}`);
    const mapped = await roles.request({
      method: 'PUT',
      path: `/_plugins/_security/api/rolesmapping/${OLD_WRITER}`,
      body: { backend_roles: [OLD_WRITER] },
    });
    must(mapped.status < 300, `PUT mapping ${OLD_WRITER}: ${mapped.text}`);
  });

  beforeEach(() => {
    warnings.length = 0;
  });

  test("the writer role may read kfek's pipeline: the document lands in its team's index, beside team C's", async () => {
    // WHEN the indexer delivers one document team A's transform marked, and one team C's marked
    const result = await deliverAs('indexer', teamC, [marked('a-1', 'a-orders'), marked('c-1', 'c-orders')]);

    // THEN both are indexed, each in its own team's index, and nothing was refused or warned about
    expect(warnings).toEqual([]);
    expect(result).toMatchObject({ failures: [], counts: { IndexedDocuments: 2, RefusedDocuments: 0 } });
    expect(await storedAs('history')).toEqual({ index: DAY('a-orders'), unknownRoute: undefined });
    expect(await storedAs('a-1')).toEqual({ index: DAY('a-orders'), unknownRoute: undefined });
    expect(await storedAs('c-1')).toEqual({ index: DAY('c-orders'), unknownRoute: undefined });
  });

  test('fails when the writer role lacks cluster:admin/ingest/pipeline/get: refused, so the default index', async () => {
    // GIVEN the pipeline read as the writer without the permission
    const refused = await pipelinePort(os.client('old-writer')).get(teamC.names.ingestPipeline, 5_000);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain(PIPELINE_GET);

    // WHEN that writer delivers the same kind of document
    const result = await deliverAs('old-writer', teamC, [marked('a-2', 'a-orders')]);

    // THEN the indexer warns, naming the grant, and the profile's routes put it in the default index, kept
    expect(result).toMatchObject({ failures: [], counts: { IndexedDocuments: 1 } });
    expect(warnings.join('\n')).toMatch(/HTTP 403.*Allow es:ESHttpGet on <domain ARN>\/_ingest\/pipeline\//s);
    expect(await storedAs('a-2')).toEqual({ index: DAY('logs'), unknownRoute: 'orders' });
  });
});
