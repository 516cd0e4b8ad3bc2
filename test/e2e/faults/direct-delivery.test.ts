/**
 * Fault tests of kfek's own indexer (issue 41, direct delivery), end to end on the REAL node and moto: the shipped
 * lambda/indexer handler under the event-source mapping's stand-in reads moto's events stream and writes to the
 * node through a fault proxy (test/helpers/search-fault-proxy.ts); refused documents go to moto's S3 in Firehose's
 * layout. The node killed mid-run, the node hung mid-run, a 429 storm, and a mixed bulk (a mapping conflict, a
 * document over the index's field limit, good documents) lose nothing and store nothing twice. Every wait is on a
 * condition.
 */
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { parseFailedDocuments } from '../../../core/kept/parse';
import { LOCAL_FAILED_DOCUMENTS_PREFIX } from '../../../scripts/local/direct-delivery';
import { type SearchFaultProxy, startSearchFaultProxy } from '../../helpers/search-fault-proxy';
import {
  type FaultSuite,
  NODE_START_TIMEOUT_MILLIS,
  runEvents,
  SETTLE_TIMEOUT_MILLIS,
  started,
  startFaultSuite,
  streamsOf,
  waitUntil,
} from './fault-suite';

let suite: FaultSuite | undefined;
let proxy: SearchFaultProxy | undefined;

beforeAll(async () => {
  suite = await startFaultSuite({
    retryDurationSeconds: 900,
    bulkTimeoutInMillis: 2000,
    delivery: 'direct',
    deliveryUrl: async (nodeUrl) => {
      proxy = await startSearchFaultProxy(nodeUrl);
      return proxy.url;
    },
  });
}, NODE_START_TIMEOUT_MILLIS + 60_000);

afterAll(async () => {
  await suite?.stop();
  await proxy?.close();
}, 60_000);

const running = (): FaultSuite => started(suite);

/** Every failed-documents object the indexer wrote to moto's S3, parsed as `kfek replay` parses them. */
async function keptDocuments(): Promise<Array<{ key: string; reason: string; data: string }>> {
  const { s3 } = running().pipeline.clients;
  const bucket = running().pipeline.resources.deadLetterBucket;
  const listed = await s3.send(
    new ListObjectsV2Command({ Bucket: bucket, Prefix: LOCAL_FAILED_DOCUMENTS_PREFIX }),
  );
  const kept: Array<{ key: string; reason: string; data: string }> = [];
  for (const { Key: key } of listed.Contents ?? []) {
    if (key === undefined) continue;
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const body = await (out.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray();
    const parsed = parseFailedDocuments(body, { location: key, handle: key, sizeBytes: body.length });
    expect(parsed.problems).toEqual([]);
    for (const item of parsed.items) {
      const records = item.content.type === 'records' ? item.content.records : [];
      for (const r of records) kept.push({ key, reason: item.reason, data: Buffer.from(r.data).toString() });
    }
  }
  return kept;
}

describe('direct delivery faults on the real node', () => {
  test(
    'the node killed mid-run and restarted: every event is searchable once, none kept as failed',
    async () => {
      // GIVEN a run half indexed before the node dies
      const runId = `direct-killed-${Date.now()}`;
      const events = runEvents(runId, 120);
      await running().pipeline.send(events.slice(0, 60));
      await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
      const retriesBefore = running().pipeline.delivery.snapshot().documentRetries;
      // WHEN the node is SIGKILLed, the rest is sent, the indexer gives its records back, and the node comes back
      await running().killNode();
      await running().pipeline.send(events.slice(60));
      await waitUntil(
        'the indexer retried against the dead node (was the fault armed?)',
        () => running().pipeline.delivery.snapshot().documentRetries > retriesBefore,
      );
      await running().restartNode();
      await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
      // THEN
      expect((await keptDocuments()).filter((k) => k.data.includes(runId))).toEqual([]);
      expect(await running().duplicates(streamsOf(events))).toEqual([]);
      expect(await running().count(streamsOf(events))).toBe(events.length);
    },
    NODE_START_TIMEOUT_MILLIS + 2 * SETTLE_TIMEOUT_MILLIS,
  );

  test(
    'the node hung (accepts, never answers) mid-run: the batch given back after its time and read again, every event searchable once',
    async () => {
      // GIVEN
      const runId = `direct-hung-${Date.now()}`;
      const events = runEvents(runId, 80);
      const handedBefore = running().pipeline.delivery.snapshot().userRecords;
      // WHEN the node's processes are stopped while a run is delivered, until the indexer has been handed a document
      // twice (a bulk that timed out, its records given back and read again), then continued
      const group = -running().node().pid;
      process.kill(group, 'SIGSTOP');
      try {
        await running().pipeline.send(events);
        await waitUntil(
          'the indexer was handed more documents than were sent (was the fault armed?)',
          () => running().pipeline.delivery.snapshot().userRecords > handedBefore + events.length,
        );
      } finally {
        process.kill(group, 'SIGCONT');
      }
      await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
      // THEN a bulk the node took while hung and finished later, and its retry, are one document per event (each
      // sent with its own id): none lost, none twice, none kept as refused
      expect((await keptDocuments()).filter((k) => k.data.includes(runId))).toEqual([]);
      expect(await running().duplicates(streamsOf(events))).toEqual([]);
      expect(await running().count(streamsOf(events))).toBe(events.length);
    },
    2 * SETTLE_TIMEOUT_MILLIS,
  );

  test(
    'a 429 storm (every bulk rejected for a while): retried with backoff, every event searchable once',
    async () => {
      // GIVEN the proxy answers the next 8 bulks with a whole-request 429
      const runId = `direct-429-${Date.now()}`;
      const events = runEvents(runId, 200);
      const retriesBefore = running().pipeline.delivery.snapshot().documentRetries;
      (proxy as SearchFaultProxy).rejectBulk(8);
      // WHEN
      await running().pipeline.send(events);
      await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
      // THEN every rejected bulk was sent again, and nothing was lost or stored twice
      expect((proxy as SearchFaultProxy).stats.rejectedBulkCalls).toBeGreaterThanOrEqual(8);
      expect(running().pipeline.delivery.snapshot().documentRetries).toBeGreaterThan(retriesBefore);
      expect(await running().duplicates(streamsOf(events))).toEqual([]);
      expect(await running().count(streamsOf(events))).toBe(events.length);
    },
    2 * SETTLE_TIMEOUT_MILLIS,
  );

  test(
    'a mixed bulk (a mapping conflict, a document over the field limit, good ones): the refused kept with the reason, the rest indexed',
    async () => {
      // GIVEN documents put straight on the events stream, as the transform (or a replay) writes them
      const runId = `direct-mixed-${Date.now()}`;
      const cw = (i: number): Record<string, string> => ({
        id: `${runId}-${i}`,
        logGroup: '/kfek/faults/app',
        logStream: runId,
      });
      const wide: Record<string, unknown> = { message: `${runId} wide`, cloudwatch: cw(2) };
      for (let f = 0; f < 3000; f++) wide[`f${f}`] = f;
      const docs = [
        { message: `${runId} good 0`, cloudwatch: cw(0) },
        // `kfek` is an object in every index (a wrong-typed leaf would be ignored: ignore_malformed).
        { message: `${runId} conflict`, kfek: 'forged', cloudwatch: cw(1) },
        wide,
        { message: `${runId} good 3`, cloudwatch: cw(3) },
      ];
      const settledBefore = running().pipeline.delivery.snapshot();
      // WHEN
      await running().pipeline.clients.kinesis.send(
        new PutRecordsCommand({
          StreamARN: running().pipeline.resources.eventsStreamArn,
          Records: docs.map((d, i) => ({ Data: Buffer.from(JSON.stringify(d)), PartitionKey: String(i) })),
        }),
      );
      await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
      // THEN the good ones are searchable, the two refused are kept with OpenSearch's reasons, none given up on
      expect(await running().count([runId])).toBe(2);
      const kept = (await keptDocuments()).filter((k) => k.data.includes(runId));
      expect(kept.map((k) => (JSON.parse(k.data) as { message: string }).message).sort()).toEqual([
        `${runId} conflict`,
        `${runId} wide`,
      ]);
      expect(kept.map((k) => k.reason).join(' ')).toMatch(/object mapping for \[kfek\]/);
      expect(kept.map((k) => k.reason).join(' ')).toMatch(/total fields/);
      expect(kept.every((k) => k.key.includes('/AmazonOpenSearchService-failed/'))).toBe(true);
      const after = running().pipeline.delivery.snapshot();
      expect(after.documentsFailed - settledBefore.documentsFailed).toBe(2);
      expect(running().pipeline.eventSource.snapshot().recordsSentToOnFailure).toBe(0);
    },
    2 * SETTLE_TIMEOUT_MILLIS,
  );
});
