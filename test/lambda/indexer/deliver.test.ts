/**
 * The indexer's batch logic against fakes of its ports (lambda/indexer/ports.ts): a scripted `_bulk`, an in-memory
 * store, a fake clock. The same faults run on the real node and moto in test/e2e/faults/direct-delivery.test.ts.
 */
import type { Clock } from '../../../core/clock';
import { parseFailedDocuments } from '../../../core/kept/parse';
import { profileRouteTable } from '../../../core/opensearch/route-table';
import { deliverBatch, type DeliveryPorts, type DeliverySettings } from '../../../lambda/indexer/deliver';
import type { BulkResponse, IndexerRecord } from '../../../lambda/indexer/ports';
import { encodeAggregatedRecord } from '../../../core/transform/kpl-aggregation';

const AT = Date.parse('2026-11-25T09:30:00.000Z');
const settings: DeliverySettings = {
  target: { prefix: 'logs', rotation: 'OneDay', shards: 1, table: profileRouteTable([]) },
  bulkMaxBytes: 1024 * 1024,
  concurrency: 2,
  failedDocumentsPrefix: 'failed/',
};

const doc = (id: string, extra = ''): string =>
  `{"message":"${id}"${extra},"cloudwatch":{"id":"${id}","logGroup":"/g","logStream":"s"}}`;

function record(sequenceNumber: string, ...docs: string[]): IndexerRecord {
  const data =
    docs.length === 1
      ? Buffer.from(docs[0])
      : encodeAggregatedRecord(
          'pk',
          docs.map((json) => ({ json, bytes: Buffer.byteLength(json) })),
          docs.map((_, i) => i),
        );
  return { sequenceNumber, data, arrival: AT };
}

type Answer = number | 'connection' | ((messages: string[]) => BulkResponse);

/** A `_bulk` that answers each call from `script` (item statuses per document, by message), then 201s. */
function harness(script: Answer[] = []) {
  const calls: string[][] = [];
  const objects = new Map<string, string>();
  let now = AT;
  let storeFails = false;
  const clock: Clock = {
    now: () => now,
    sleep: (ms) => {
      now += ms;
      return Promise.resolve();
    },
  };
  const ports: DeliveryPorts = {
    clock,
    random: () => 0.5,
    objectName: () => `o${objects.size}`,
    log: { warn: () => undefined },
    bulk: {
      bulk(body: string): Promise<BulkResponse> {
        const messages = body
          .trim()
          .split('\n')
          .filter((_, i) => i % 2 === 1)
          .map((l) => (JSON.parse(l) as { message: string }).message);
        calls.push(messages);
        now += 10;
        const next = script.shift() ?? 201;
        if (next === 'connection') return Promise.reject(new Error('connect ECONNREFUSED'));
        if (typeof next === 'function') return Promise.resolve(next(messages));
        if (next !== 201) return Promise.resolve({ status: next, text: '{"error":"whole request"}' });
        return Promise.resolve(itemAnswer(messages, () => 201));
      },
    },
    store: {
      put(key: string, body: string): Promise<void> {
        if (storeFails) return Promise.reject(new Error('AccessDenied'));
        objects.set(key, body);
        return Promise.resolve();
      },
    },
  };
  return {
    calls,
    objects,
    ports,
    failStore: () => (storeFails = true),
    run: (records: IndexerRecord[], budget = 60_000) => deliverBatch(records, settings, ports, AT + budget),
  };
}

function itemAnswer(messages: string[], status: (m: string) => number): BulkResponse {
  const items = messages.map((m) => {
    const s = status(m);
    return {
      index:
        s < 300
          ? { status: s }
          : {
              status: s,
              error: {
                type: s === 429 ? 'es_rejected_execution_exception' : 'mapper_parsing_exception',
                reason: `no ${m}`,
              },
            },
    };
  });
  return { status: 200, text: JSON.stringify({ errors: true, items }) };
}

describe('deliverBatch', () => {
  test('mixed bulk: good documents indexed, a refused one kept with its reason, a throttled one sent again', async () => {
    // GIVEN a batch whose first answer refuses b for good and throttles c
    const h = harness([(m) => itemAnswer(m, (x) => (x === 'b' ? 400 : x === 'c' ? 429 : 201))]);
    // WHEN
    const result = await h.run([record('1', doc('a'), doc('b')), record('2', doc('c'))]);
    // THEN every record is acknowledged: a and c indexed, b kept in Firehose's layout
    expect(result.failures).toEqual([]);
    expect(h.calls).toEqual([['a', 'b', 'c'], ['c']]);
    expect(result.counts).toEqual({
      DocumentsIn: 3,
      IndexedDocuments: 2,
      RefusedDocuments: 1,
      RetriedRequests: 1,
      DeliveryErrors: 0,
    });
    const [[key, body]] = [...h.objects];
    expect(key).toBe('failed/AmazonOpenSearchService-failed/2026/11/25/09/o0');
    const kept = parseFailedDocuments(Buffer.from(body), {
      location: key,
      handle: key,
      sizeBytes: body.length,
    });
    expect(kept.problems).toEqual([]);
    expect(kept.items).toEqual([
      expect.objectContaining({ kind: 'failed-document', reason: expect.stringContaining('no b') as string }),
    ]);
    const line = JSON.parse(body.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({
      errorCode: '400',
      subsequenceNumber: 1,
      esIndexName: 'logs-2026-11-25',
      arrivalTimestamp: AT,
    });
    expect(Buffer.from(line.rawData as string, 'base64').toString()).toBe(doc('b'));
  });

  test('a document refused before sending (_if_seq_no) is kept and never fails the others', async () => {
    const h = harness();
    const result = await h.run([record('1', doc('a', ',"_if_seq_no":"x"'), doc('b'))]);
    expect(result.failures).toEqual([]);
    expect(h.calls).toEqual([['b']]);
    expect(result.counts.RefusedDocuments).toBe(1);
  });

  test('connection errors and whole-request 429 and 503 are retried with backoff until answered', async () => {
    const h = harness(['connection', 429, 503]);
    const result = await h.run([record('1', doc('a')), record('2', doc('b'))]);
    expect(result.failures).toEqual([]);
    expect(h.calls).toHaveLength(4);
    expect(result.counts).toMatchObject({ IndexedDocuments: 2, RetriedRequests: 6 });
  });

  test('fails when the node throttles for longer than the invocation has: unfinished records reported in batch order', async () => {
    // GIVEN b is throttled on every attempt
    const h = harness(
      Array.from({ length: 1000 }, () => (m: string[]) => itemAnswer(m, (x) => (x === 'b' ? 429 : 201))),
    );
    // WHEN the invocation has 5 s
    const result = await h.run([record('1', doc('a')), record('2', doc('b')), record('3', doc('c'))], 5_000);
    // THEN record 2 is given back, and its document was tried with backoff until the deadline, never after
    expect(result.failures).toEqual(['2']);
    expect(result.counts).toMatchObject({ IndexedDocuments: 2, DeliveryErrors: 1 });
    expect(h.ports.clock.now()).toBeLessThanOrEqual(AT + 5_000);
    expect(h.calls.length).toBeGreaterThan(3);
  });

  test('a body over the node\u2019s content length (413) is sent again in halves; one document alone over it is kept', async () => {
    const big = 'x'.repeat(3000);
    const h = harness([
      413,
      (m) => (m.length > 1 ? { status: 413, text: 'too large' } : itemAnswer(m, () => 201)),
      (m) => (m.some((x) => x.length > 100) ? { status: 413, text: 'too large' } : itemAnswer(m, () => 201)),
    ]);
    const result = await h.run([record('1', doc('a'), doc(big)), record('2', doc('c'))]);
    expect(result.failures).toEqual([]);
    expect(result.counts).toMatchObject({ IndexedDocuments: 2, RefusedDocuments: 1 });
    expect(JSON.parse([...h.objects.values()][0]).errorCode).toBe('413');
  });

  test('fails when a refused document cannot be kept: its record is given back, not acknowledged', async () => {
    const h = harness([(m) => itemAnswer(m, (x) => (x === 'b' ? 400 : 201))]);
    h.failStore();
    const result = await h.run([record('1', doc('a')), record('2', doc('b')), record('3', doc('c'))]);
    expect(result.failures).toEqual(['2']);
    expect(result.counts).toMatchObject({ IndexedDocuments: 2, RefusedDocuments: 0, DeliveryErrors: 1 });
  });

  test('fails when the role is not allowed (403): no document is kept, every record is given back', async () => {
    const h = harness([403]);
    const result = await h.run([record('1', doc('a')), record('2', doc('b'))]);
    expect(result.failures).toEqual(['1', '2']);
    expect(h.objects.size).toBe(0);
  });

  test('an aggregated record counts each of its documents; a record is acked only when all of them are', async () => {
    const h = harness(
      Array.from({ length: 1000 }, () => (m: string[]) => itemAnswer(m, (x) => (x === 'y' ? 503 : 201))),
    );
    const result = await h.run([record('1', doc('x'), doc('y'), doc('z')), record('2', doc('w'))], 2_000);
    expect(result.counts.DocumentsIn).toBe(4);
    expect(result.failures).toEqual(['1']);
  });
});
