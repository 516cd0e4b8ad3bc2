/**
 * Issue 41, "byte-identical documents": the held-out-style corpus (test/helpers/delivery-corpus.ts) delivered once
 * as Firehose delivers it (`_bulk` into the index of the record's arrival, no id, the shipped ingest pipeline as the
 * index's default pipeline) and once as kfek's own indexer does (core/delivery: `_index`, `_id` and `routing` in
 * each action, `pipeline=_none`), into the REAL node with the shipped templates, and every stored document compared
 * one by one: `_index`, `_id`, `_routing` and `_source`. Sources are compared as JSON values in one canonical form:
 * through the pipeline OpenSearch writes the source back from a Java map (key order by hash, numbers in Java's
 * form: `1e2` becomes `100.0`), while the direct path stores the transform's text as it is; the values are the
 * same. Documents without an event id (Pipes error documents) get an id OpenSearch makes up on both paths, so they
 * are compared by index and source. Refusals are compared by their reason.
 */
import { canonicalJson } from '../../../core/canonical-json';
import { indexNameFor } from '../../../core/contracts/index-naming';
import { bulkBodies, DIRECT_BULK_PATH } from '../../../core/delivery/bulk-body';
import {
  type DeliveryTarget,
  type IndexedDocumentPlan,
  planDocument,
} from '../../../core/delivery/document-plan';
import { nestedStems } from '../../../core/opensearch/families';
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { profileRouteTable } from '../../../core/opensearch/route-table';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import {
  BIG_INTEGER_DOCUMENT,
  CORPUS_ROUTES,
  type CorpusDocument,
  deliveryCorpus,
} from '../../helpers/delivery-corpus';
import { useOpenSearchNode } from '../../helpers/opensearch';

const spec = resolveOpenSearchSpec({
  indexPrefix: 'logs',
  indexTemplate: { replicas: 0 },
  routes: CORPUS_ROUTES.map((r) => ({ name: r.name, indexStem: r.indexStem ?? r.name, retentionDays: 7 })),
});
const target: DeliveryTarget = {
  prefix: 'logs',
  rotation: 'OneDay',
  shards: spec.indexTemplate.shards,
  table: profileRouteTable(spec.routes),
  nested: nestedStems(
    'logs',
    spec.routes.map((r) => r.indexStem),
  ),
};

interface Stored {
  readonly index: string;
  readonly id: string;
  readonly routing: string | undefined;
  readonly source: string;
}

/** What one delivery did: every document stored, and the item outcome of each corpus document, in order. */
interface Delivery {
  readonly stored: Stored[];
  readonly outcomes: Array<{ readonly status: number; readonly error?: string }>;
}

/** Documents the node's ingest pipelines have processed, all pipelines together (`_nodes/stats/ingest`). */
async function pipelineRuns(client: OpenSearchHttpClient): Promise<number> {
  const response = await client.request({ method: 'GET', path: '/_nodes/stats/ingest' });
  const nodes = (response.body as { nodes: Record<string, { ingest: { total: { count: number } } }> }).nodes;
  return Object.values(nodes).reduce((sum, n) => sum + n.ingest.total.count, 0);
}

interface BulkAnswer {
  readonly items: Array<Record<string, { status: number; error?: unknown }>>;
}

async function post(client: OpenSearchHttpClient, path: string, body: string): Promise<BulkAnswer> {
  const response = await client.request({
    method: 'POST',
    path,
    body,
    headers: { 'content-type': 'application/x-ndjson' },
  });
  expect(response.status).toBe(200);
  return response.body as BulkAnswer;
}

const outcome = (item: Record<string, { status: number; error?: unknown }>): Delivery['outcomes'][number] => {
  const answer = Object.values(item)[0];
  return answer.error === undefined
    ? { status: answer.status }
    : { status: answer.status, error: JSON.stringify(answer.error) };
};

/** Every document of kfek's indices, then the indices deleted, so the next delivery starts from the same node. */
async function storedAndCleared(client: OpenSearchHttpClient): Promise<Stored[]> {
  await client.request({ method: 'POST', path: '/_refresh' });
  const response = await client.request({
    method: 'POST',
    path: '/logs*,payments*,team-search*/_search',
    body: { size: 10_000, query: { match_all: {} } },
  });
  expect(response.status).toBe(200);
  const hits = (response.body as { hits: { hits: Array<Record<string, unknown>> } }).hits.hits;
  const deleted = await client.request({ method: 'DELETE', path: '/logs*,payments*,team-search*' });
  expect(deleted.status).toBe(200);
  return hits.map((h) => ({
    index: h._index as string,
    id: h._id as string,
    routing: h._routing as string | undefined,
    source: canonicalJson(h._source),
  }));
}

/** As Firehose delivers (NO_DOCUMENT_ID): the index of the record's arrival, the default pipeline does the rest. */
async function throughPipeline(
  client: OpenSearchHttpClient,
  corpus: readonly CorpusDocument[],
): Promise<Delivery> {
  const body = corpus
    .map(
      (d) =>
        `${JSON.stringify({ index: { _index: indexNameFor('logs', 'OneDay', new Date(d.recordArrival)) } })}\n${d.text}\n`,
    )
    .join('');
  const answer = await post(client, '/_bulk?refresh=true', body);
  return { outcomes: answer.items.map(outcome), stored: await storedAndCleared(client) };
}

/** As kfek's indexer delivers: planned here, refusals never sent, bodies cut by bytes, `pipeline=_none`. */
async function direct(client: OpenSearchHttpClient, corpus: readonly CorpusDocument[]): Promise<Delivery> {
  const plans = corpus.map((d) => planDocument(target, d.text, d.recordArrival));
  const outcomes: Delivery['outcomes'] = plans.map((p) =>
    p.kind === 'refuse' ? { status: p.status, error: JSON.stringify(p.error) } : { status: 0 },
  );
  const indexed = plans.flatMap((p, i) => (p.kind === 'index' ? [{ plan: p, i }] : []));
  // Small bodies, so the corpus takes several requests, as a real batch does.
  for (const body of bulkBodies(indexed, (d): IndexedDocumentPlan => d.plan, 16 * 1024)) {
    const answer = await post(client, `${DIRECT_BULK_PATH}&refresh=true`, body.body);
    answer.items.forEach((item, k) => (outcomes[body.items[k].i] = outcome(item)));
  }
  return { outcomes, stored: await storedAndCleared(client) };
}

describe('both deliveries store the same documents under the same ids in the same indices (real node)', () => {
  const os = useOpenSearchNode();
  const corpus = deliveryCorpus();
  let firehose: Delivery;
  let ours: Delivery;
  let runs: { readonly firehose: number; readonly direct: number };

  beforeAll(async () => {
    await provisionOpenSearch(os.client(), spec);
    const start = await pipelineRuns(os.client());
    firehose = await throughPipeline(os.client(), corpus);
    const between = await pipelineRuns(os.client());
    ours = await direct(os.client(), corpus);
    runs = { firehose: between - start, direct: (await pipelineRuns(os.client())) - between };
  }, 120_000);

  test('the corpus is what it claims: routes, arrivals, refusals and documents without an id', () => {
    const indices = new Set(firehose.stored.map((s) => s.index));
    expect([...indices].sort()).toEqual(
      expect.arrayContaining([
        'logs-2026-11-25',
        'logs-2026-11-24',
        'payments-2026-11-17',
        'team-search-2026-11-25',
        'logs-audit-2026-11-25',
      ]),
    );
    expect(firehose.outcomes.filter((o) => o.status >= 300).length).toBeGreaterThanOrEqual(4);
    expect(corpus.length).toBeGreaterThan(150);
  });

  test('each document has the same outcome: stored (201) or refused for the same reason', () => {
    const big = corpus.findIndex((d) => d.text === BIG_INTEGER_DOCUMENT);
    const statuses = (d: Delivery): number[] => d.outcomes.map((o, i) => (i === big ? -1 : o.status));
    expect(statuses(ours)).toEqual(statuses(firehose));
    const refusals = firehose.outcomes.flatMap((theirs, i) =>
      theirs.error === undefined || i === big ? [] : [i],
    );
    expect(refusals.length).toBeGreaterThanOrEqual(2);
    // kfek's refusals: the pipeline wraps the script's exception, the reason text is the same. The node's own (a
    // mapping conflict): the same error.
    const reasonOf = (i: number): string =>
      (JSON.parse(ours.outcomes[i].error ?? '{}') as { reason?: string }).reason ?? '';
    const kfeks = refusals.filter((i) => reasonOf(i).startsWith('kfek: '));
    expect(kfeks.length).toBeGreaterThanOrEqual(2);
    for (const i of kfeks)
      expect(firehose.outcomes[i].error).toContain(JSON.stringify(reasonOf(i)).slice(1, -1));
    const nodes = refusals.filter((i) => !kfeks.includes(i));
    expect(nodes.map((i) => ours.outcomes[i])).toEqual(nodes.map((i) => firehose.outcomes[i]));
  });

  test('documents with an event id: the same _index, _id, _routing and _source, one by one', () => {
    const bigId = ours.stored.find((s) => s.source.includes('"big integer"'))?.id;
    const byId = (d: Delivery): Map<string, Stored> =>
      new Map(d.stored.filter((s) => s.id.length === 16 && s.id !== bigId).map((s) => [s.id, s]));
    const theirs = byId(firehose);
    const mine = byId(ours);
    expect(theirs.size).toBeGreaterThan(100);
    expect([...mine.keys()].sort()).toEqual([...theirs.keys()].sort());
    for (const [id, stored] of theirs) expect(mine.get(id)).toEqual(stored);
  });

  test('documents without an event id: the same index and source, OpenSearch-made ids, a routing of the id length', () => {
    const rest = (d: Delivery): string[] =>
      d.stored
        .filter((s) => s.id.length !== 16)
        .map((s) => `${s.index} ${s.routing?.length} ${s.source}`)
        .sort();
    expect(rest(ours)).toEqual(rest(firehose));
    expect(rest(ours).length).toBeGreaterThanOrEqual(2);
  });

  test('an integer beyond 64 bits: refused by the ingest pipeline (failed documents), stored by the direct path', () => {
    const big = corpus.findIndex((d) => d.text === BIG_INTEGER_DOCUMENT);
    expect(firehose.outcomes[big]).toEqual({
      status: 400,
      error: expect.stringContaining('BigInteger') as string,
    });
    expect(ours.outcomes[big]).toEqual({ status: 201 });
  });

  test('no ingest pipeline runs on the direct path (the node counts none), one per document on the Firehose path', () => {
    expect(runs).toEqual({ firehose: corpus.length, direct: 0 });
  });
});
