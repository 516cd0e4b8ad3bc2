/**
 * Issue 22, item 2, against a REAL OpenSearch 3.6 node with the shipped index template and ingest pipeline: an app's
 * top-level keys named like OpenSearch metadata reach the node only under `kfek.collisions`. Before the fix, measured
 * here: `_id`, `_index` and `_routing` vanished from the stored document (the pipeline reads them as the request's;
 * `_routing` also routed it until the pipeline set every document's routing), `_if_seq_no` made every delivery a
 * conditional write refused with 409, `_primary_term` got the event refused (400), `_doc_count: 5` made one event
 * count as five in every aggregation, and `_source`, `_seq_no`, `_ignored`, ... were kept in `_source` but never
 * indexed. Each document is sent twice, as Firehose sends it
 * (`_bulk`, `index` with the daily index only), as an at-least-once redelivery would.
 */
import { documentIdFor, routingFor } from '../../../core/opensearch/ingest-pipeline';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { DocumentSerializer } from '../../../core/transform/document';
import { bulkIndexTexts, useOpenSearchNode } from '../../helpers/opensearch';

// One node: replicas would leave every index yellow.
const spec = resolveOpenSearchSpec({ indexPrefix: 'logs', indexTemplate: { replicas: 0 } });
const INDEX = 'logs-2026-11-23';
const SOURCE = { logGroup: '/aws/lambda/orders', logStream: 's1', owner: '123456789012' };

/** Every name of the issue, each with a value of the type OpenSearch would read it as. */
const NAMES: ReadonlyArray<[string, unknown]> = [
  ['_id', 'app-id'],
  ['_index', 'other-index'],
  ['_routing', 'r1'],
  ['_version', 7],
  ['_version_type', 'external'],
  ['_if_seq_no', 5],
  ['_if_primary_term', 1],
  ['_source', { a: 1 }],
  ['_seq_no', 3],
  ['_primary_term', 2],
  ['_type', '_doc'],
  ['_field_names', 'f'],
  ['_ignored', 'i'],
  ['_nested_path', 'n'],
  ['_data_stream_timestamp', 'd'],
  ['_doc_count', 5],
  ['_tier', 'hot'],
  ['_size', 10],
  ['_parent', 'p'],
  ['_uid', 'u'],
];

interface BulkItem {
  readonly index: {
    readonly status: number;
    readonly _index: string;
    readonly _id: string;
    readonly error?: unknown;
  };
}

describe('OpenSearch metadata names in app fields against a real local node (issue 22, item 2)', () => {
  const os = useOpenSearchNode();
  const serializer = new DocumentSerializer(SOURCE);
  // One event per name, with its own event id (so its own document id).
  const events = NAMES.map(([name, value], i) => ({
    id: `e-${i}`,
    timestamp: 1795424400000 + i,
    message: JSON.stringify({ message: `event ${name}`, seq: i, [name]: value }),
  }));
  let deliveries: BulkItem[][] = [];

  beforeAll(async () => {
    await provisionOpenSearch(os.client(), spec);
    // WHEN the transform's documents are delivered twice, as an at-least-once redelivery would
    const texts = events.map((event) => serializer.json(event));
    deliveries = [];
    for (let delivery = 0; delivery < 2; delivery++) {
      const bulk = await bulkIndexTexts(os.client(), INDEX, texts);
      deliveries.push((bulk.body as { items: BulkItem[] }).items);
    }
  });

  test.each(NAMES.map(([name, value], i) => [name, value, i] as const))(
    '%s: indexed and overwritten in the daily index under kfek\u2019s id and routing, the value under kfek.collisions',
    async (name, value, i) => {
      const id = documentIdFor(SOURCE.logGroup, SOURCE.logStream, `e-${i}`);
      // THEN the first delivery creates the document and the second overwrites it, both in the daily index under
      // the pipeline's id: no conditional write, no refusal, no other index
      expect(deliveries.map((items) => items[i].index)).toMatchObject([
        { status: 201, _index: INDEX, _id: id },
        { status: 200, _index: INDEX, _id: id },
      ]);
      expect(deliveries.map((items) => items[i].index.error)).toEqual([undefined, undefined]);
      // AND the stored document is found by that id under kfek's routing (the pipeline routes every document by the start of its
      // id, core/opensearch/ingest-pipeline.ts), not the app's, and keeps the app's value where it was moved
      const stored = await os
        .client()
        .request({ method: 'GET', path: `/${INDEX}/_doc/${id}?routing=${routingFor(id)}` });
      expect(stored.status).toBe(200);
      const body = stored.body as { _routing?: string; _source: Record<string, unknown> };
      expect(body._routing).toBe(routingFor(id));
      expect(Object.keys(body._source).filter((key) => key.startsWith('_'))).toEqual([]);
      expect(body._source.kfek).toEqual({ collisions: { [name]: value } });
      expect(body._source.seq).toBe(i);
    },
  );

  test('each event is stored once, counts once in aggregations, and is searchable under kfek.collisions', async () => {
    const client = os.client();
    const search = await client.request({
      method: 'POST',
      path: `/${INDEX}/_search`,
      body: { size: 0, track_total_hits: true, aggs: { seq: { terms: { field: 'seq', size: 100 } } } },
    });
    const result = search.body as {
      hits: { total: { value: number } };
      aggregations: { seq: { buckets: Array<{ key: number; doc_count: number }> } };
    };
    expect(result.hits.total.value).toBe(NAMES.length);
    // `_doc_count: 5` at the top level made its event count as five in every bucket it fell in.
    expect(result.aggregations.seq.buckets.map((bucket) => bucket.doc_count)).toEqual(NAMES.map(() => 1));
    expect((await client.request({ method: 'HEAD', path: '/other-index' })).status).toBe(404);
    const routing = await client.request({
      method: 'POST',
      path: `/${INDEX}/_search`,
      body: {
        query: { query_string: { query: 'kfek.collisions._routing:r1 OR kfek.collisions._if_seq_no:5' } },
      },
    });
    expect((routing.body as { hits: { total: { value: number } } }).hits.total.value).toBe(2);
  });
});
