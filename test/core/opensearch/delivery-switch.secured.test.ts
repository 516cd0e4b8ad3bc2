/**
 * A switch of `delivery.mode` inside OpenSearch (issue 41), on the secured node with the real security plugin: the
 * provisioner's spec of each mode applied in turn, as the switch's deploys apply it, and after each step who may write
 * the log indices and what a second copy of an event does.
 *
 * The indexer's side runs the SHIPPED delivery code (lambda/indexer/deliver.ts `deliverBatch`: the plan of each
 * document from core/delivery, `_bulk` bodies cut by bytes, retries, refused documents kept), with its bulk port
 * authenticated as the indexer's backend role instead of SigV4 (the only part that differs from Lambda; the signing
 * is tested in test/lambda/indexer/serverless.integ.test.ts). Firehose's side is Firehose's own request (a bulk with
 * no id into the arrival's index; the index template's default pipeline does the rest): Firehose is AWS's service.
 * What this proves: the writer mapping never takes access from the delivery that still runs on a switch back, a copy
 * written by the other delivery overwrites by id (no event stored twice), a refused document is kept with its reason
 * under the writer role, and the default pipeline does not run on the direct path.
 */
import { indexNameFor } from '../../../core/contracts/index-naming';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import {
  resolveOpenSearchSpec,
  type OpenSearchSpec,
  type OpenSearchSpecInput,
} from '../../../core/opensearch/spec';
import type { DeliveryResult } from '../../../lambda/indexer/deliver';
import { FakeOpenSearch } from '../../helpers/fake-opensearch-service';
import { deliveryTargetOf, indexerOnNode } from '../../helpers/indexer-on-node';
import { withFakeIsm, type NodeWithIsm } from '../../helpers/ism-on-node';
import { useSecuredOpenSearchNode } from '../../helpers/secured-opensearch';

const FIREHOSE = 'arn:aws:iam::123456789012:role/kfek-test-delivery';
const INDEXER = 'arn:aws:iam::123456789012:role/kfek-test-indexer';
const ARRIVAL = Date.now();
const INDEX = indexNameFor('logs', 'OneDay', new Date(ARRIVAL));
const BASE = { indexPrefix: 'logs', indexTemplate: { replicas: 0 }, retention: { deleteAfterDays: 14 } };
/** What the Pipeline stack gives the provisioner with Firehose delivering: the indexer's fixed name mapped too. */
const FIREHOSE_MODE: OpenSearchSpecInput = {
  ...BASE,
  access: { firehoseRoleArn: FIREHOSE, writerBackendRoles: [INDEXER] },
};
/** With the indexer delivering: its role is the writer. */
const DIRECT_MODE: OpenSearchSpecInput = { ...BASE, access: { firehoseRoleArn: INDEXER } };
const GROUP = '/kfek/switch';
const STREAM = 's1';
/** An event as the transform writes it to the events stream (with its raw record's arrival). */
const documentFor = (id: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  '@timestamp': new Date(ARRIVAL).toISOString(),
  message: `event ${id}`,
  cloudwatch: { id: String(id), logGroup: GROUP, logStream: STREAM, owner: '123456789012' },
  kfek: { arrival: ARRIVAL },
  ...extra,
});

interface BulkItem {
  readonly status: number;
  readonly result?: string;
}

describe('switching delivery.mode on the secured node, through the shipped indexer', () => {
  const os = useSecuredOpenSearchNode({
    users: [
      { name: 'firehose', backendRoles: [FIREHOSE] },
      { name: 'indexer', backendRoles: [INDEXER] },
    ],
  });
  let domain: NodeWithIsm;
  let previous: OpenSearchSpec | undefined;
  const dashboards = new FakeOpenSearch({ dashboards: true });

  async function deploy(input: OpenSearchSpecInput): Promise<void> {
    const spec = resolveOpenSearchSpec(input);
    await provisionOpenSearch(domain.client, spec, {
      dashboards: dashboards.dashboardsClient(),
      now: Date.now,
      ...(previous === undefined ? {} : { previous }),
    });
    previous = spec;
  }

  /** Firehose's bulk: no id, into the arrival's index; the index template's default pipeline sets id and routing. */
  async function viaFirehose(ids: readonly number[]): Promise<string[]> {
    const response = await os.client('firehose').request({
      method: 'POST',
      path: '/_bulk?refresh=true',
      body: ids
        .map((id) => `${JSON.stringify({ index: { _index: INDEX } })}\n${JSON.stringify(documentFor(id))}\n`)
        .join(''),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    if (response.status !== 200) return [`refused ${response.status}`];
    const items = (response.body as { items: Array<Record<string, BulkItem>> }).items;
    return items.map((i) => Object.values(i)[0]).map((i) => i.result ?? `refused ${i.status}`);
  }

  /** One batch of events-stream records through the indexer's delivery, as the indexer's role. */
  const indexer = indexerOnNode(
    () => os.client('indexer'),
    deliveryTargetOf(resolveOpenSearchSpec(DIRECT_MODE)),
  );
  const viaIndexer = (documents: ReadonlyArray<Record<string, unknown>>): Promise<DeliveryResult> =>
    indexer.deliver(documents, ARRIVAL);
  const events = (ids: readonly number[]): Array<Record<string, unknown>> => ids.map((id) => documentFor(id));

  async function count(): Promise<number> {
    await os.client('admin').request({ method: 'POST', path: `/${INDEX}/_refresh` });
    const response = await os.client('admin').request({ method: 'GET', path: `/${INDEX}/_count` });
    return (response.body as { count: number }).count;
  }

  /** Documents the node's ingest pipelines have processed, all pipelines together. */
  async function pipelineRuns(): Promise<number> {
    const response = await os.client('admin').request({ method: 'GET', path: '/_nodes/stats/ingest' });
    const nodes = (response.body as { nodes: Record<string, { ingest: { total: { count: number } } }> })
      .nodes;
    return Object.values(nodes).reduce((sum, n) => sum + n.ingest.total.count, 0);
  }

  beforeAll(() => {
    domain = withFakeIsm(os.client('admin'), Date.now);
  });

  test('1. Firehose delivers; the indexer, mapped by its fixed name, may write too', async () => {
    await deploy(FIREHOSE_MODE);
    expect(await viaFirehose([1, 2, 3])).toEqual(['created', 'created', 'created']);
    const result = await viaIndexer(events([4]));
    expect(result.failures).toEqual([]);
    expect(result.counts.IndexedDocuments).toBe(1);
    expect(await count()).toBe(4);
  });

  test('2. switched to direct: the indexer re-reads what Firehose delivered and overwrites it by id', async () => {
    await deploy(DIRECT_MODE);
    // The re-read from the events stream's oldest record: every event again, one more new one.
    const result = await viaIndexer(events([1, 2, 3, 4, 5]));
    expect(result).toMatchObject({ failures: [], overwritten: 4, indices: [INDEX] });
    expect(result.counts).toMatchObject({ IndexedDocuments: 5, RefusedDocuments: 0 });
    expect(await count()).toBe(5);
    // Firehose's role left the writer mapping: its last retries until CloudFormation deletes it are refused (and
    // kept under the failed-documents prefix; the indexer has indexed them).
    expect((await viaFirehose([6])).every((r) => r.startsWith('refused 403'))).toBe(true);
  });

  test('3. switched back to Firehose: the indexer keeps its access until its mapping is deleted, no copy twice', async () => {
    await deploy(FIREHOSE_MODE);
    const result = await viaIndexer(events([5, 6]));
    expect(result).toMatchObject({ failures: [], overwritten: 1 });
    expect(await viaFirehose([6, 7])).toEqual(['updated', 'created']);
    expect(await count()).toBe(7);
  });

  test('the default pipeline does not run on the direct path; it runs once per document on the Firehose path', async () => {
    // GIVEN
    const before = await pipelineRuns();
    // WHEN three events go through the indexer
    expect((await viaIndexer(events([8, 9, 10]))).counts.IndexedDocuments).toBe(3);
    // THEN the node ran no pipeline for them, and did for Firehose's two
    expect(await pipelineRuns()).toBe(before);
    expect(await viaFirehose([11, 12])).toEqual(['created', 'created']);
    expect(await pipelineRuns()).toBe(before + 2);
  });

  test('a document the node refuses under the writer role is kept with its reason; the others of its bulk are indexed', async () => {
    // GIVEN a mapping conflict (`kfek` is an object in every index) between two good events
    const batch = [documentFor(20), documentFor(21, { kfek: 'forged' }), documentFor(22)];
    // WHEN
    const result = await viaIndexer(batch);
    // THEN the batch is acknowledged: two indexed, one kept in Firehose's layout with OpenSearch's reason
    expect(result.failures).toEqual([]);
    expect(result.counts).toMatchObject({ IndexedDocuments: 2, RefusedDocuments: 1 });
    const [key, body] = [...indexer.kept].at(-1) ?? ['', ''];
    expect(key).toMatch(/^failed-documents\/AmazonOpenSearchService-failed\/\d{4}\/\d{2}\/\d{2}\/\d{2}\//);
    const record = JSON.parse(body.trim()) as { errorCode: string; errorMessage: string; rawData: string };
    expect(record.errorCode).toBe('400');
    expect(record.errorMessage).toMatch(/object mapping for \[kfek\]/);
    expect(Buffer.from(record.rawData, 'base64').toString()).toContain('forged');
  });
});
