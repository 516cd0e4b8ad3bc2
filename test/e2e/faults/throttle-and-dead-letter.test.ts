/**
 * Fault tests, end to end, with a short Firehose retry duration (15 s: a first bulk on a loaded machine can take seconds): a whole-request 429 from `_bulk` (retried,
 * then kept as failed documents with the reason once the retry duration is spent), the node hung past the retry
 * duration, and a failing S3 dead-letter write (the poison record is not checkpointed past; nothing is lost).
 * One moto and one node for the file; the Firehose stand-in reaches the node through test/helpers/search-fault-proxy.
 */
import { PutRecordCommand } from '@aws-sdk/client-kinesis';
import { DeleteBucketCommand } from '@aws-sdk/client-s3';
import { createLocalResources } from '../../../scripts/local/resources';
import { startSearchFaultProxy, type SearchFaultProxy } from '../../helpers/search-fault-proxy';
import {
  envelope,
  type FaultSuite,
  NODE_START_TIMEOUT_MILLIS,
  runEvents,
  SETTLE_TIMEOUT_MILLIS,
  startFaultSuite,
  streamsOf,
  waitUntil,
} from './fault-suite';

// Each test waits out a 15 s retry duration at most twice, plus settling.
jest.setTimeout(2 * SETTLE_TIMEOUT_MILLIS);

let suite: FaultSuite | undefined;
let proxy: SearchFaultProxy | undefined;

beforeAll(async () => {
  suite = await startFaultSuite({
    retryDurationSeconds: 15,
    bulkTimeoutInMillis: 5000,
    deliveryUrl: async (nodeUrl) => {
      proxy = await startSearchFaultProxy(nodeUrl);
      return proxy.url;
    },
  });
}, NODE_START_TIMEOUT_MILLIS + 60_000);

afterAll(async () => {
  const results = await Promise.allSettled([suite?.stop()]);
  results.push(...(await Promise.allSettled([proxy?.close()])));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}, 60_000);

function running(): FaultSuite {
  if (suite === undefined) throw new Error('the fault suite did not start (see beforeAll)');
  return suite;
}

function faults(): SearchFaultProxy {
  if (proxy === undefined) throw new Error('the search fault proxy did not start (see beforeAll)');
  return proxy;
}

describe('whole-request 429 and a failing dead-letter write', () => {
  test('a whole-request 429 from _bulk is retried within the retry duration: every event searchable once', async () => {
    // GIVEN the next three bulks answered 429 as a whole
    faults().clear();
    faults().rejectBulk(3);
    const runId = `throttled-${Date.now()}`;
    const events = runEvents(runId, 60);
    const before = running().pipeline.delivery.snapshot();
    // WHEN
    await running().pipeline.send(events);
    await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    // THEN
    expect(faults().stats.rejectedBulkCalls).toBe(3);
    expect(await running().count(streamsOf(events))).toBe(events.length);
    const after = running().pipeline.delivery.snapshot();
    expect(after.documentRetries - before.documentRetries).toBeGreaterThan(0);
    expect(after.documentsFailed - before.documentsFailed).toBe(0);
  });

  test('a 429 that outlasts the retry duration: every event is kept as a failed document with reason 429', async () => {
    // GIVEN every bulk answered 429 (far more than 15 s of retries can use)
    faults().clear();
    faults().rejectBulk(1_000_000);
    const runId = `throttled-for-good-${Date.now()}`;
    const events = runEvents(runId, 40);
    try {
      // WHEN
      await running().pipeline.send(events);
      await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    } finally {
      faults().clear();
    }
    // THEN none is searchable, each is in the failed-documents folder with Firehose's fields and the reason
    expect(await running().count(streamsOf(events))).toBe(0);
    const failed = await running().failedDocuments(runId);
    expect(failed).toHaveLength(events.length);
    for (const record of failed) {
      expect(record.errorCode).toBe('429');
      expect(record.errorMessage).toContain('rejected_execution_exception');
      expect(record.attemptsMade).toBeGreaterThan(1);
    }
    const messages = failed.map(
      (r) => (JSON.parse(Buffer.from(r.rawData, 'base64').toString('utf8')) as { message: string }).message,
    );
    expect(messages.sort()).toEqual(
      events.map((e) => (JSON.parse(e.message) as { message: string }).message).sort(),
    );
  });

  test('the node hung past the retry duration: every event is searchable or kept as failed with a reason', async () => {
    // GIVEN
    const runId = `hung-for-good-${Date.now()}`;
    const events = runEvents(runId, 40);
    const group = -running().node().pid;
    const failedBefore = running().pipeline.delivery.snapshot().documentsFailed;
    // WHEN the node hangs (SIGSTOP) until the stand-in has spent its 15 s retry duration and kept documents as failed
    // (a condition, not a fixed time: on a busy machine the run reaches the stand-in later)
    process.kill(group, 'SIGSTOP');
    try {
      await running().pipeline.send(events);
      await waitUntil(
        'the stand-in gave up on the hung node',
        () => running().pipeline.delivery.snapshot().documentsFailed > failedBefore,
      );
    } finally {
      process.kill(group, 'SIGCONT');
    }
    await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    // THEN nothing is lost: a bulk the node took while hung may be indexed AND kept (Firehose does the same:
    // at least once), so the union covers every event
    await running().count(streamsOf(events)); // refreshes
    const answer = await running().search.json<{ hits: { hits: Array<{ _source: { i: number } }> } }>(
      'POST',
      `/${running().spec.delivery.indexPattern}/_search`,
      { size: 1000, query: { terms: { 'cloudwatch.logStream': streamsOf(events) } } },
    );
    const failed = await running().failedDocuments(runId);
    expect(failed.length).toBeGreaterThan(0);
    for (const record of failed) expect(record.errorCode).toBe('OS.ConnectionFailed');
    const accounted = new Set([
      ...answer.hits.hits.map((h) => h._source.i),
      ...failed.map(
        (r) => (JSON.parse(Buffer.from(r.rawData, 'base64').toString('utf8')) as { i: number }).i,
      ),
    ]);
    expect([...accounted].sort((a, b) => a - b)).toEqual(events.map((_, i) => i));
  });

  test('a poison record while the dead-letter bucket cannot be written is retried, not checkpointed past, then kept', async () => {
    // GIVEN the dead-letter bucket gone (every PutObject fails: NoSuchBucket)
    const { clients, resources, eventSource } = running().pipeline;
    await clients.s3.send(new DeleteBucketCommand({ Bucket: resources.deadLetterBucket }));
    const runId = `dead-letter-down-${Date.now()}`;
    const poison = Buffer.from(`not an envelope ${runId}`);
    const before = eventSource.snapshot();
    // WHEN good, poison, good records go to one shard, in that order
    for (const data of [envelope(`${runId}/a`, 10), poison, envelope(`${runId}/b`, 10)]) {
      await clients.kinesis.send(
        new PutRecordCommand({ StreamARN: resources.rawStreamArn, Data: data, PartitionKey: runId }),
      );
    }
    // ... the batch is retried from the poison record several times while the bucket is missing
    await waitUntil(
      'the event source retried from the poison record three times',
      () => eventSource.snapshot().partialBatchResponses - before.partialBatchResponses >= 3,
    );
    expect(eventSource.snapshot().recordsSentToOnFailure).toBe(before.recordsSentToOnFailure);
    // ... and the bucket comes back
    await createLocalResources(clients, running().spec);
    await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    // THEN the poison record is in the dead-letter bucket with its reason, every good event is searchable once,
    // nothing went to the on-failure destination
    const objects = await running().deadLetters();
    const mine = objects.filter((o) => o.data === poison.toString('base64'));
    expect(mine).toHaveLength(1);
    expect(mine[0].reason.length).toBeGreaterThan(0);
    expect(await running().count([`${runId}/a`, `${runId}/b`])).toBe(20);
    expect(eventSource.snapshot().recordsSentToOnFailure).toBe(before.recordsSentToOnFailure);
  });
});
