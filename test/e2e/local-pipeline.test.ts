/**
 * End-to-end: the whole pipeline on one machine, with real components only.
 *
 * moto (CloudWatch Logs, Kinesis, S3) and a real OpenSearch node are started here and stopped in afterAll, even
 * when a test fails. The resources come from core/config.ts (`resolveConfig`, an `e2e` profile over the defaults),
 * the transform is lambda/transform/handler.ts called by the local event-source loop exactly as Lambda calls it,
 * and the local Firehose stand-in indexes into OpenSearch provisioned by core/opensearch. The transform's
 * PutRecords go through the fault-injecting proxy (test/helpers/fault-proxy.ts), which passes everything through
 * until a test arms a fault. Nothing is mocked.
 *
 * The tests run in file order and share the pipeline; each writes to its own log streams (named after a run id)
 * and asserts only on those.
 */
import { gzipSync } from 'node:zlib';
import { PutRecordCommand } from '@aws-sdk/client-kinesis';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { resolveConfig } from '../../core/config';
import { documentIdFor } from '../../core/opensearch';
import type { DeadLetterObject } from '../../lambda/transform/dead-letter-object';
import { readFailedDocuments } from '../../scripts/local/failed-documents';
import { type LocalPipeline, localFolders } from '../../scripts/local/pipeline';
import type { SearchHttp } from '../../scripts/local/search-http';
import type { OutgoingLogEvent, SentLogEvent } from '../../scripts/local/sender';
import type { LocalPipelineSpec } from '../../scripts/local/spec';
import { countDocuments } from '../../scripts/local/summary';
import { warmUpIndexName, warmUpSearch } from '../../scripts/local/warm-up';
import type { FaultProxy } from '../helpers/fault-proxy';
import { LocalStackRunner } from '../helpers/local-stack';
import { OPENSEARCH_START_TIMEOUT_MILLIS } from '../helpers/opensearch';

/** The e2e profile: several log groups and shards, a short function timeout so an outage exhausts a budget. */
const E2E_CONTEXT = {
  kfek: {
    profiles: {
      e2e: {
        sources: {
          logGroups: [
            { name: '/kfek/e2e/orders', create: true },
            { name: '/aws/lambda/kfek-e2e-function', create: true },
            { name: '/kfek/e2e/java', create: true },
          ],
        },
        streams: { raw: { shardCount: 2 }, events: { shardCount: 2 } },
        // 3 s: a 6 s Kinesis outage outlasts one invocation's budget, so the handler must answer with a
        // partial batch response and the event source must resume from the reported record.
        transform: { timeoutSeconds: 3, batchSize: 10, retryAttempts: 20, maxBatchingWindowSeconds: 0 },
        delivery: { retryDurationSeconds: 5 },
        openSearch: { indexTemplate: { replicas: 0 } },
        // One team's route (issue 24): its documents go to their own indices, with its static fields.
        routes: [
          {
            name: 'orders',
            match: { logGroup: '/kfek/e2e/orders' },
            indexStem: 'e2e-orders',
            staticFields: { team: 'orders' },
          },
        ],
      },
    },
  },
};

const SETTLE_TIMEOUT_MILLIS = 60_000;

const stack = new LocalStackRunner();
let proxy: FaultProxy | undefined;
let pipeline: LocalPipeline | undefined;
let workDir: string;
let search: SearchHttp;
let spec: LocalPipelineSpec;

beforeAll(async () => {
  ({ proxy, pipeline, workDir, search, spec } = await stack.start(resolveConfig(E2E_CONTEXT, 'e2e'), {
    workDirPrefix: 'kfek-e2e-',
  }));
}, OPENSEARCH_START_TIMEOUT_MILLIS);

// Every step runs even when an earlier one fails, so no process outlives the file.
afterAll(() => stack.stop(), 60_000);

function running(): LocalPipeline {
  if (pipeline === undefined) throw new Error('the pipeline did not start (see beforeAll)');
  return pipeline;
}

let runCounter = 0;
/** A run id unique in this file; the log streams of a test carry it. */
function newRunId(label: string): string {
  runCounter += 1;
  return `e2e-${label}-${runCounter}-${Date.now()}`;
}

/** The documents of some log streams, keyed by `<logStream>|<@timestamp>`; duplicates are counted. */
async function documentsOf(
  logStreams: readonly string[],
): Promise<Map<string, Array<Record<string, unknown>>>> {
  await search.json('POST', `/${spec.delivery.searchPattern}/_refresh`);
  const answer = await search.json<{
    hits: { hits: Array<{ _index: string; _source: Record<string, unknown> }> };
  }>('POST', `/${spec.delivery.searchPattern}/_search`, {
    size: 10_000,
    query: { terms: { 'cloudwatch.logStream': [...logStreams] } },
  });
  const byKey = new Map<string, Array<Record<string, unknown>>>();
  for (const hit of answer.hits.hits) {
    const cw = hit._source.cloudwatch as { logStream: string };
    const key = `${cw.logStream}|${String(hit._source['@timestamp'])}`;
    byKey.set(key, [...(byKey.get(key) ?? []), { ...hit._source, _index: hit._index }]);
  }
  return byKey;
}

function keyOf(event: OutgoingLogEvent): string {
  return `${event.logStreamName}|${new Date(event.timestamp).toISOString()}`;
}

const REQUEST_ID = '06e46194-f277-454e-88d3-1dd7e3860eaa';

/** Realistic lines of three kinds of source, `perStream` events in each of two streams per log group. */
function mixedEvents(runId: string, perStream: number): OutgoingLogEvent[] {
  const base = Date.now() - 40 * 60_000;
  const events: OutgoingLogEvent[] = [];
  for (const stream of [0, 1]) {
    for (let i = 0; i < perStream; i += 1) {
      // Distinct timestamps per stream (1 s apart): the tests find each event by stream and time.
      const timestamp = base + i * 1000 + stream;
      const level = i % 7 === 0 ? 'ERROR' : 'INFO';
      events.push({
        logGroupName: '/kfek/e2e/orders',
        logStreamName: `${runId}/orders/${stream}`,
        timestamp,
        message: JSON.stringify({
          level,
          message: `order ${i} ${level === 'ERROR' ? 'failed' : 'placed'}`,
          service: 'orders',
          orderId: `o-${stream}-${i}`,
          cart: { items: i % 5, currency: 'EUR' },
        }),
      });
      const lambdaLines = [
        `START RequestId: ${REQUEST_ID} Version: $LATEST\n`,
        `${new Date(timestamp).toISOString()}\t${REQUEST_ID}\tERROR\tInvoke error ${i}\n`,
        `REPORT RequestId: ${REQUEST_ID}\tDuration: 9.14 ms\tBilled Duration: 10 ms\tMemory Size: 128 MB\t` +
          `Max Memory Used: 67 MB\tInit Duration: 211.23 ms\t\n`,
      ];
      events.push({
        logGroupName: '/aws/lambda/kfek-e2e-function',
        logStreamName: `${runId}/function/${stream}`,
        timestamp,
        message: lambdaLines[i % lambdaLines.length],
      });
      events.push({
        logGroupName: '/kfek/e2e/java',
        logStreamName: `${runId}/java/${stream}`,
        timestamp,
        message: `2022-12-24 08:24:38,929 DEBUG [main] com.example.OrderService - java line ${i}`,
      });
    }
  }
  return events;
}

function streamsOf(events: readonly OutgoingLogEvent[]): string[] {
  return [...new Set(events.map((e) => e.logStreamName))];
}

describe('the local pipeline, end to end', () => {
  test('N events across several log groups and streams arrive as exactly N documents with correct fields', async () => {
    // GIVEN
    const runId = newRunId('fields');
    const events = mixedEvents(runId, 40);
    const before = running().delivery.snapshot();
    // WHEN
    const sent = await running().send(events);
    await running().waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    // THEN
    expect(sent).toHaveLength(240);
    // The transform wrote aggregated records (the default) and the Firehose stand-in de-aggregated them.
    const after = running().delivery.snapshot();
    expect(after.userRecords - before.userRecords).toBe(240);
    expect(after.recordsRead - before.recordsRead).toBeLessThan(240 / 2);
    expect(await countDocuments(search, spec.delivery.searchPattern, streamsOf(events))).toBe(240);
    const docs = await documentsOf(streamsOf(events));
    expect(docs.size).toBe(240);
    for (const event of events) {
      const found = docs.get(keyOf(event)) ?? [];
      expect(found).toHaveLength(1);
      const doc = found[0];
      expect(doc['@timestamp']).toBe(new Date(event.timestamp).toISOString());
      expect(doc.cloudwatch).toEqual(
        expect.objectContaining({
          logGroup: event.logGroupName,
          logStream: event.logStreamName,
          owner: '123456789012',
          id: expect.stringMatching(/^\d+$/),
        }),
      );
      expect(typeof doc.message).toBe('string');
    }
    const firstOrder = docs.get(keyOf(events[0]))?.[0] ?? {};
    // The orders route's documents are in its own indices, with its team; the rest in the default ones.
    expect(firstOrder).toEqual(
      expect.objectContaining({
        _index: expect.stringMatching(/^e2e-orders-\d{4}-\d{2}-\d{2}$/),
        team: 'orders',
        kfek: { route: 'orders' },
        level: 'ERROR',
        message: 'order 0 failed',
        service: 'orders',
        orderId: 'o-0-0',
        cart: { items: 0, currency: 'EUR' },
      }),
    );
    const report = events.find((e) => e.message.startsWith('REPORT'));
    expect(docs.get(keyOf(report as OutgoingLogEvent))?.[0]?.lambda).toEqual(
      expect.objectContaining({
        requestId: REQUEST_ID,
        durationMs: 9.14,
        billedDurationMs: 10,
        memorySizeMb: 128,
        maxMemoryUsedMb: 67,
        initDurationMs: 211.23,
      }),
    );
    const nodeLine = events.find((e) => e.message.includes('\tERROR\tInvoke error'));
    expect(docs.get(keyOf(nodeLine as OutgoingLogEvent))?.[0]).toEqual(
      expect.objectContaining({ level: 'ERROR', lambda: expect.objectContaining({ requestId: REQUEST_ID }) }),
    );
    const javaLine = events.find((e) => e.logGroupName === '/kfek/e2e/java');
    expect(docs.get(keyOf(javaLine as OutgoingLogEvent))?.[0]?._index).toMatch(/^logs-\d{4}-\d{2}-\d{2}$/);
    expect(docs.get(keyOf(javaLine as OutgoingLogEvent))?.[0]).toEqual(
      expect.objectContaining({
        level: 'DEBUG',
        thread: 'main',
        logger: 'com.example.OrderService',
        message: 'java line 0',
      }),
    );
  });

  test('Kinesis faults (failed entries, throttling, 5xx, an outage) lose no event', async () => {
    // GIVEN
    const faults = proxy as FaultProxy;
    const runId = newRunId('faults');
    const events = mixedEvents(runId, 30);
    const before = running().eventSource.snapshot();
    faults.clear();
    // Every entry that carries this run's documents fails on its first attempt (an aggregated record holds many
    // documents, so a run makes only a few entries: a sample of them could be empty), up to 60 entries, plus
    // whole-call faults.
    const failedOnce = new Set<string>();
    faults.failEntries(
      (data) => {
        if (!data.includes(runId) || failedOnce.has(data)) return false;
        failedOnce.add(data);
        return true;
      },
      { times: 60 },
    );
    faults.throttleCalls(3);
    faults.failCalls(3, 503);
    // WHEN
    const firstHalf = await running().send(events.slice(0, 90));
    // A 6 s outage from the transform's next call on (so an invocation is surely running through it, however busy
    // the machine): longer than one invocation's budget (3 s timeout), shorter than the retries allow.
    faults.goDown(6000, 'reset', 'next-request');
    const secondHalf = await running().send(events.slice(90));
    await running().waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    // THEN every event is searchable exactly once: delivery is at least once (a resumed batch writes documents
    // again), and the index's default pipeline gives each copy the same id, so a copy overwrites.
    const sent: SentLogEvent[] = [...firstHalf, ...secondHalf];
    const docs = await documentsOf(streamsOf(events));
    const missing = sent.filter((e) => !docs.has(keyOf(e)));
    expect(missing).toEqual([]);
    const duplicated = sent.filter((e) => (docs.get(keyOf(e)) ?? []).length > 1);
    expect(duplicated).toEqual([]);
    expect(await countDocuments(search, spec.delivery.searchPattern, streamsOf(events))).toBe(sent.length);
    const after = running().eventSource.snapshot();
    expect(after.recordsSentToOnFailure - before.recordsSentToOnFailure).toBe(0);
    // ... and every kind of fault really happened, and the handler's partial batch response was honoured.
    expect(faults.stats.failedEntries).toBeGreaterThan(0);
    expect(faults.stats.throttledCalls).toBe(3);
    expect(faults.stats.serverErrors).toBe(3);
    expect(faults.stats.droppedConnections).toBeGreaterThan(0);
    expect(after.partialBatchResponses - before.partialBatchResponses).toBeGreaterThan(0);
    expect(after.recordsRetried - before.recordsRetried).toBeGreaterThan(0);
    faults.clear();
  });

  test('a raw record delivered twice (a retried batch) ends as one document per event, with the pipeline id', async () => {
    // GIVEN one subscription record of 25 events, put on the raw stream twice, as a Lambda retry of a batch
    // whose output was already written hands the transform the same record again
    const runId = newRunId('retried');
    const logStream = `${runId}/orders/0`;
    const base = Date.now() - 60_000;
    const logEvents = Array.from({ length: 25 }, (_, i) => ({
      id: `3949497178691966292696773724416595592113198132217996${String(i).padStart(4, '0')}`,
      timestamp: base + i,
      message: JSON.stringify({ level: 'INFO', message: `retried ${i}` }),
    }));
    const envelope = {
      messageType: 'DATA_MESSAGE',
      owner: '123456789012',
      logGroup: '/kfek/e2e/orders',
      logStream,
      subscriptionFilters: ['kfek-to-raw-stream'],
      logEvents,
    };
    const data = gzipSync(Buffer.from(JSON.stringify(envelope)));
    const indexedBefore = running().delivery.snapshot().documentsIndexed;
    // WHEN
    for (let copy = 0; copy < 2; copy += 1) {
      await running().clients.kinesis.send(
        new PutRecordCommand({
          StreamARN: running().resources.rawStreamArn,
          Data: data,
          PartitionKey: runId,
        }),
      );
    }
    await running().waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    // THEN both copies were indexed, and they collapsed into one document per event
    expect(running().delivery.snapshot().documentsIndexed - indexedBefore).toBe(50);
    expect(await countDocuments(search, spec.delivery.searchPattern, [logStream])).toBe(25);
    const answer = await search.json<{
      hits: { hits: Array<{ _id: string; _source: { cloudwatch: { id: string } } }> };
    }>('POST', `/${spec.delivery.searchPattern}/_search`, {
      size: 100,
      query: { term: { 'cloudwatch.logStream': logStream } },
    });
    expect(answer.hits.hits.map((h) => h._id).sort()).toEqual(
      logEvents.map((e) => documentIdFor('/kfek/e2e/orders', logStream, e.id)).sort(),
    );
  });

  test('mapping conflicts lose no document: each is indexed or kept in the failed-documents folder', async () => {
    // GIVEN two apps logging the same two fields with opposite types: `first` is a string in app A (indexed
    // first) and an object in app B; `second` is an object in app B (indexed first) and a string in app A.
    const runId = newRunId('conflict');
    const first = `customer_${runCounter}`;
    const second = `account_${runCounter}`;
    const base = Date.now() - 5 * 60_000;
    const app = (
      name: string,
      offset: number,
      fields: (i: number) => Record<string, unknown>,
    ): OutgoingLogEvent[] =>
      Array.from({ length: 10 }, (_, i) => ({
        // Both in the default route's indices (the orders route has its own), so the types meet in one index.
        logGroupName: name === 'a' ? '/aws/lambda/kfek-e2e-function' : '/kfek/e2e/java',
        logStreamName: `${runId}/${name}-${offset}`,
        timestamp: base + offset + i,
        message: JSON.stringify({ level: 'INFO', message: `${name}-${offset} ${i}`, ...fields(i) }),
      }));
    const aFirst = app('a', 0, (i) => ({ [first]: `alice-${i}` }));
    const bFirst = app('b', 100, (i) => ({ [second]: { id: i, tier: 'gold' } }));
    const bLater = app('b', 200, (i) => ({ [first]: { id: i, name: 'bob' } }));
    const aLater = app('a', 300, (i) => ({ [second]: `acct-${i}` }));
    const failedBefore = running().delivery.snapshot().documentsFailed;
    // WHEN the first-seen types are indexed, then the conflicting ones
    await running().send([...aFirst, ...bFirst]);
    await running().waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    await running().send([...bLater, ...aLater]);
    await running().waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    // THEN
    const all = [...aFirst, ...bFirst, ...bLater, ...aLater];
    const docs = await documentsOf(streamsOf(all));
    // The first-seen types are indexed.
    for (const event of [...aFirst, ...bFirst]) expect(docs.get(keyOf(event))).toHaveLength(1);
    // An object where the template made a keyword is indexed too: the shipped template sets
    // `index.mapping.ignore_malformed`, so OpenSearch keeps the object in _source and leaves the field unindexed.
    for (const [i, event] of bLater.entries()) {
      expect(docs.get(keyOf(event))?.[0]?.[first]).toEqual({ id: i, name: 'bob' });
    }
    // A concrete value where an object is mapped is rejected (400 mapper_parsing_exception) and lands in the
    // failed-documents folder in Firehose's format, with the record data as read from the events stream.
    for (const event of aLater) expect(docs.has(keyOf(event))).toBe(false);
    const failed = (await readFailedDocuments(localFolders(workDir).failedDocuments)).filter((r) =>
      Buffer.from(r.rawData, 'base64').toString('utf8').includes(`${runId}/a-300`),
    );
    expect(failed).toHaveLength(10);
    for (const record of failed) {
      expect(record.errorCode).toBe('400');
      expect(record.errorMessage).toContain('mapper_parsing_exception');
      expect(record.esIndexName).toMatch(/^logs-\d{4}-\d{2}-\d{2}$/);
      expect(record.attemptsMade).toBe(1);
    }
    const messages = failed.map(
      (r) => (JSON.parse(Buffer.from(r.rawData, 'base64').toString('utf8')) as { message: string }).message,
    );
    expect(messages.sort()).toEqual(aLater.map((_, i) => `a-300 ${i}`).sort());
    expect(running().delivery.snapshot().documentsFailed - failedBefore).toBe(10);
  });

  test('poison records put straight onto the raw stream end up in the dead-letter bucket with their reason', async () => {
    // GIVEN three records no subscription would write: not gzip, gzip of not-JSON, JSON that is not an envelope
    const clients = running().clients;
    const poison = [
      Buffer.from('this is not a CloudWatch Logs envelope'),
      gzipSync(Buffer.from('{"broken json')),
      gzipSync(Buffer.from(JSON.stringify({ hello: 'world' }))),
    ];
    const keysBefore = new Set(await running().deadLetterKeys());
    // WHEN
    const sequenceNumbers: string[] = [];
    for (const [i, data] of poison.entries()) {
      const out = await clients.kinesis.send(
        new PutRecordCommand({
          StreamARN: running().resources.rawStreamArn,
          Data: data,
          PartitionKey: `poison-${i}`,
        }),
      );
      sequenceNumbers.push(out.SequenceNumber as string);
    }
    await running().waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    // THEN one dead-letter object per poison record, with the reason and the data as received
    const newKeys = (await running().deadLetterKeys()).filter((k) => !keysBefore.has(k));
    expect(newKeys).toHaveLength(3);
    const objects = await Promise.all(
      newKeys.map(async (key) => {
        const out = await clients.s3.send(new GetObjectCommand({ Bucket: spec.deadLetterBucket, Key: key }));
        return JSON.parse(
          await (out.Body as { transformToString(): Promise<string> }).transformToString(),
        ) as DeadLetterObject;
      }),
    );
    const byData = new Map(objects.map((o) => [o.data, o]));
    for (const [i, data] of poison.entries()) {
      const object = byData.get(data.toString('base64'));
      expect(object).toBeDefined();
      expect(object?.reason).toEqual(expect.any(String));
      expect(object?.reason.length).toBeGreaterThan(0);
      expect(object?.source.partitionKey).toBe(`poison-${i}`);
      expect(object?.source.streamArn).toBe(running().resources.rawStreamArn);
    }
    expect(new Set(objects.map((o) => o.source.sequenceNumber))).toEqual(new Set(sequenceNumbers));
  });

  test('the warm-up of npm start indexes through the template and pipeline and leaves no index behind', async () => {
    // GIVEN the provisioned node (template with its default pipeline)
    // WHEN npm start's warm-up runs on it
    const report = await warmUpSearch(search, spec.delivery.indexPattern, '/kfek/e2e/orders', {
      documents: 3_000,
      documentsPerBulk: 1_000,
    });
    // THEN every document was accepted (a pipeline failure would reject them) and the index is gone again
    expect(report).toEqual(
      expect.objectContaining({
        index: warmUpIndexName(spec.delivery.indexPattern),
        documents: 3_000,
        rejected: 0,
      }),
    );
    await expect(search.json('GET', `/${report.index}`)).rejects.toMatchObject({ statusCode: 404 });
  });
});
