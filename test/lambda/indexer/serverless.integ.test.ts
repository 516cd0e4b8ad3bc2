/**
 * The shipped indexer's delivery code (lambda/indexer: env, signed `_bulk` port, deliverBatch) writing to an
 * OpenSearch Serverless collection, here the conformance stand-in (scripts/serverless) in front of the real node
 * (issue 42, docs/serverless.md): signed for `aoss` as the writer the data access policy names, no `routing` in any
 * action. A corpus of the transform's real output, delivered twice as Lambda's retries would, is found once per
 * document, under its id, in its route's index.
 */
import { serializeRoutes } from '../../../core/contracts/transform-env';
import { IndexerEnvVar } from '../../../core/contracts/indexer-env';
import { planDocument, type IndexedDocumentPlan } from '../../../core/delivery/document-plan';
import { createHttpClient, type OpenSearchHttpClient } from '../../../core/opensearch/http';
import { collectionAccessPolicy } from '../../../core/opensearch/serverless-access';
import { signedBulkPort } from '../../../lambda/indexer/adapters';
import { deliverBatch, type DeliveryPorts, type DeliveryResult } from '../../../lambda/indexer/deliver';
import { readIndexerEnv } from '../../../lambda/indexer/env';
import type { IndexerRecord } from '../../../lambda/indexer/ports';
import { type RunningStandin, startServerlessStandin } from '../../../scripts/serverless/standin';
import { CORPUS_ROUTES, deliveryCorpus, RECORD_ARRIVAL } from '../../helpers/delivery-corpus';
import { useOpenSearchNode } from '../../helpers/opensearch';
import { STANDIN_REGION, standinIdentity } from '../../helpers/serverless-standin';

jest.setTimeout(180_000);

const REGION = STANDIN_REGION;
const identity = standinIdentity;
const WRITER = identity('writer');
const ADMIN = identity('admin');

/** kfek's families for the corpus routes: the default prefix (with the nested `logs-audit`) and each route's stem. */
const POLICY = collectionAccessPolicy({
  collection: 'kfek-standin',
  writers: [WRITER.principal],
  admins: [ADMIN.principal],
  families: ['logs-*', 'payments-*', 'team-search-*'].map((indexPattern) => ({ indexPattern, readers: [] })),
});

/** The indexer's environment as the Pipeline stack writes it for a collection (signing service `aoss`). */
function collectionEnv(endpoint: string, signingService: string): Record<string, string> {
  return {
    [IndexerEnvVar.Endpoint]: endpoint,
    [IndexerEnvVar.FailedDocumentsBucket]: 'failed-bucket',
    [IndexerEnvVar.FailedDocumentsPrefix]: 'failed-documents/',
    [IndexerEnvVar.IndexPrefix]: 'logs',
    [IndexerEnvVar.IndexRotation]: 'OneDay',
    [IndexerEnvVar.IndexShards]: '1',
    [IndexerEnvVar.Routes]: serializeRoutes(CORPUS_ROUTES),
    [IndexerEnvVar.SigningService]: signingService,
    AWS_REGION: REGION,
  };
}

/** The events-stream texts of the documents kept in failed-documents objects (their `rawData`), sorted. */
function keptTexts(objects: Map<string, string>): string[] {
  return [...objects.values()]
    .flatMap((body) => body.split('\n').filter((line) => line.trim() !== ''))
    .map((line) => Buffer.from((JSON.parse(line) as { rawData: string }).rawData, 'base64').toString('utf8'))
    .sort();
}

describe('the indexer delivering to a Serverless collection (stand-in on the real node)', () => {
  const node = useOpenSearchNode();
  let standin: RunningStandin;
  let admin: OpenSearchHttpClient;

  beforeAll(async () => {
    standin = await startServerlessStandin({
      upstream: node.node().url,
      region: REGION,
      identities: [WRITER, ADMIN],
      accessPolicy: POLICY,
    });
    admin = createHttpClient({
      baseUrl: standin.url,
      maxAttempts: 1,
      auth: { kind: 'sigv4', region: REGION, service: 'aoss', credentials: ADMIN },
    });
  });
  afterAll(async () => {
    await standin?.close();
  });

  const corpus = deliveryCorpus();
  const records: IndexerRecord[] = corpus.map((d, i) => ({
    sequenceNumber: String(1000 + i),
    data: Buffer.from(d.text),
    arrival: d.recordArrival,
  }));

  /** One invocation of the shipped delivery code with the environment's settings, signed as the writer. */
  async function deliver(
    signingService: string,
    overrides: { readonly routing?: boolean } = {},
  ): Promise<{ result: DeliveryResult; kept: Map<string, string> }> {
    const env = { ...readIndexerEnv(collectionEnv(standin.url, signingService)), ...overrides };
    const kept = new Map<string, string>();
    const ports: DeliveryPorts = {
      bulk: signedBulkPort({
        endpoint: env.endpoint,
        region: env.region,
        service: env.signingService,
        credentials: () => Promise.resolve(WRITER),
      }),
      store: { put: (key, body) => Promise.resolve(void kept.set(key, body)) },
      clock: { now: () => Date.now(), sleep: (ms) => new Promise((r) => setTimeout(r, ms)) },
      random: Math.random,
      objectName: () => `o${kept.size}`,
      log: { warn: () => undefined },
    };
    const result = await deliverBatch(records, env, ports, Date.now() + 60_000);
    return { result, kept };
  }

  test('every document of a twice-delivered corpus is stored once, under its id, in its route index', async () => {
    // GIVEN the plans the indexer makes (index and id per document), computed without the stand-in
    const env = readIndexerEnv(collectionEnv(standin.url, 'aoss'));
    const planOf = new Map(corpus.map((d) => [d.text, planDocument(env.target, d.text, RECORD_ARRIVAL)]));
    // WHEN the batch is delivered, then delivered again (a Lambda retry, a re-read)
    const first = await deliver('aoss');
    const second = await deliver('aoss');
    // Serverless has no _refresh (the stand-in refuses it): the test refreshes the node behind it.
    await fetch(`${node.node().url}/_refresh`, { method: 'POST' });
    // THEN the same documents were kept both times: those kfek refuses itself (request metadata in the source) and
    // those the node's dynamic mappings refuse (no index template is applied to a collection yet, docs/serverless.md)
    const keptFirst = keptTexts(first.kept);
    expect(keptTexts(second.kept)).toEqual(keptFirst);
    expect([...planOf.values()].filter((p) => p.kind === 'refuse').length).toBeGreaterThan(0);
    expect(keptFirst.length).toBeLessThan(corpus.length / 10);
    // AND the collection refused no request (no routing, signed for aoss); the second delivery overwrote by id
    expect([first.result.failures, second.result.failures]).toEqual([[], []]);
    expect(standin.refusals).toEqual([]);
    const kept = new Set(keptFirst);
    const plans = corpus
      .filter((d) => !kept.has(d.text))
      .map((d) => planOf.get(d.text))
      .filter((p): p is IndexedDocumentPlan => p?.kind === 'index');
    const withId = plans.filter((p) => p.id !== undefined);
    expect(withId.length).toBeGreaterThan(50);
    expect(second.result.overwritten).toBe(withId.length);
    // AND each id is found once in each index its documents name (the corpus re-reads some events on other days,
    // whose daily indices differ), and nowhere else
    const expected = new Map<string, Set<string>>();
    for (const p of withId)
      expected.set(p.id as string, (expected.get(p.id as string) ?? new Set()).add(p.index));
    const found = await admin.request({
      method: 'POST',
      path: '/logs-*,payments-*,team-search-*/_search',
      body: { size: 10_000, _source: false, query: { ids: { values: [...expected.keys()] } } },
    });
    const hits = (found.body as { hits: { hits: { _index: string; _id: string }[] } }).hits.hits;
    const where = new Map<string, string[]>();
    for (const hit of hits) where.set(hit._id, [...(where.get(hit._id) ?? []), hit._index].sort());
    expect(where).toEqual(new Map([...expected].map(([id, indices]) => [id, [...indices].sort()])));
    // AND the documents without an id (stored under one the collection makes up) are there once per delivery
    const idless = plans.filter((p) => p.id === undefined);
    const stored = [...expected.values()].reduce((n, indices) => n + indices.size, 0);
    const count = await admin.request({ method: 'GET', path: '/logs-*,payments-*,team-search-*/_count' });
    expect((count.body as { count: number }).count).toBe(stored + 2 * idless.length);
  });

  test('fails when the indexer signs for es: the collection refuses every request and nothing is indexed', async () => {
    // GIVEN the stand-in's refusals so far
    const before = standin.refusals.length;
    // WHEN
    const { result } = await deliver('es');
    // THEN every record is given back to Lambda and the stand-in says why
    expect(result.counts.IndexedDocuments).toBe(0);
    expect(result.failures.length).toBeGreaterThan(0);
    expect(standin.refusals.slice(before)[0]?.reason).toMatch(/signed for "es"; a collection takes "aoss"/);
  });

  test('fails when the bulk actions carry routing: the collection refuses them and they are kept, not indexed', async () => {
    // GIVEN the stand-in's refusals so far
    const before = standin.refusals.length;
    // WHEN the shipped delivery code sends what it sends a domain (routing in every action)
    const { result, kept } = await deliver('aoss', { routing: true });
    // THEN nothing is indexed, and the stand-in names routing as the reason
    expect(result.counts.IndexedDocuments).toBe(0);
    expect(result.failures.length + kept.size).toBeGreaterThan(0);
    expect(standin.refusals.slice(before)[0]?.reason).toMatch(/routing/);
  });
});
