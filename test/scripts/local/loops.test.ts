/**
 * The two local stand-ins on their own, against a real moto server: the Lambda event-source loop (batches,
 * partial batch responses, retries, on-failure records, the event and context it builds) and the Firehose
 * delivery loop (per-item retries, failed-document records, index naming by arrival time).
 *
 * The delivery tests talk to a scripted fake of the OpenSearch HTTP port instead of a node: a real node cannot be
 * made to answer 429 or 503 for chosen bulk items on demand. The end-to-end file runs the same loop against a
 * real node.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import type { HttpRequest, HttpResponse, OpenSearchHttpClient } from '../../../core/opensearch/http';
import { DeliveryLoop } from '../../../scripts/local/delivery-loop';
import { EventSourceLoop } from '../../../scripts/local/event-source-loop';
import { EventSourceError } from '../../../scripts/local/errors';
import { readFailedDocuments } from '../../../scripts/local/failed-documents';
import { SearchHttp } from '../../../scripts/local/search-http';
import { sleep } from '../../../scripts/local/shard-reader';
import { createStream, putStrings } from '../../helpers/kinesis-stream';
import { referenceAggregate } from '../../helpers/kpl-reference';
import { useLocalMoto } from '../../helpers/local-moto';

const REGION = 'eu-west-1';
const moto = useLocalMoto(REGION);
let workDir: string;
let streamCounter = 0;

beforeAll(() => {
  workDir = mkdtempSync(path.join(tmpdir(), 'kfek-loops-'));
});

afterAll(() => {
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
});

/** A one-shard stream holding `count` records `record-0` ... `record-<count-1>`. */
async function streamWith(count: number): Promise<string> {
  streamCounter += 1;
  const arn = await createStream(moto.clients().kinesis, `loops-${streamCounter}`);
  if (count > 0)
    await putRecords(
      arn,
      Array.from({ length: count }, (_, i) => `record-${i}`),
    );
  return arn;
}

function putRecords(streamArn: string, data: readonly string[]): Promise<void> {
  return putStrings(moto.clients().kinesis, streamArn, data);
}

/** Waits until `predicate` holds, polling; fails the test after `timeoutInMillis`. */
async function eventually(predicate: () => boolean, timeoutInMillis = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutInMillis;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

function dataOf(event: KinesisStreamEvent): string[] {
  return event.Records.map((r) => Buffer.from(r.kinesis.data, 'base64').toString('utf8'));
}

describe('event-source loop (Lambda event source mapping stand-in)', () => {
  test('builds a Kinesis event and a Lambda context as Lambda does, in batches of the configured size', async () => {
    // GIVEN
    const streamArn = await streamWith(7);
    const calls: Array<{ event: KinesisStreamEvent; context: Context; remaining: number }> = [];
    const loop = new EventSourceLoop({
      kinesis: moto.clients().kinesis,
      streamArn,
      batchSize: 3,
      region: REGION,
      accountId: '123456789012',
      timeoutInMillis: 5000,
      functionName: 'kfek-test-transform',
      onFailureDir: path.join(workDir, 'unused'),
      pollIntervalInMillis: 20,
      handler: (event, context) => {
        calls.push({ event, context, remaining: context.getRemainingTimeInMillis() });
        return Promise.resolve({ batchItemFailures: [] });
      },
    });
    // WHEN
    await loop.start();
    await eventually(() => calls.flatMap((c) => dataOf(c.event)).length === 7);
    await loop.stop();
    // THEN
    expect(calls.map((c) => c.event.Records.length)).toEqual([3, 3, 1]);
    expect(calls.flatMap((c) => dataOf(c.event))).toEqual(Array.from({ length: 7 }, (_, i) => `record-${i}`));
    const record = calls[0].event.Records[0];
    expect(record).toEqual({
      kinesis: {
        kinesisSchemaVersion: '1.0',
        partitionKey: 'pk',
        sequenceNumber: expect.any(String),
        data: Buffer.from('record-0').toString('base64'),
        approximateArrivalTimestamp: expect.any(Number),
      },
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: `shardId-000000000000:${record.kinesis.sequenceNumber}`,
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: expect.stringMatching(/^arn:aws:iam::123456789012:role\//),
      awsRegion: REGION,
      eventSourceARN: streamArn,
    });
    // Seconds since the epoch, as Lambda sends it.
    expect(Math.abs(record.kinesis.approximateArrivalTimestamp - Date.now() / 1000)).toBeLessThan(60);
    const { context, remaining } = calls[0];
    expect(context.functionName).toBe('kfek-test-transform');
    expect(context.invokedFunctionArn).toBe(
      'arn:aws:lambda:eu-west-1:123456789012:function:kfek-test-transform',
    );
    expect(remaining).toBeGreaterThan(4000);
    expect(remaining).toBeLessThanOrEqual(5000);
    expect(new Set(calls.map((c) => c.context.awsRequestId)).size).toBe(3);
    expect(loop.snapshot()).toEqual(
      expect.objectContaining({
        invocations: 3,
        recordsDelivered: 7,
        partialBatchResponses: 0,
        recordsRetried: 0,
      }),
    );
  });

  test('a partial batch response makes it re-read from the reported record, never before it', async () => {
    // GIVEN a handler that fails record-4 on its first delivery
    const streamArn = await streamWith(6);
    const batches: string[][] = [];
    let failedOnce = false;
    const loop = new EventSourceLoop({
      kinesis: moto.clients().kinesis,
      streamArn,
      batchSize: 10,
      region: REGION,
      accountId: '123456789012',
      onFailureDir: path.join(workDir, 'unused'),
      pollIntervalInMillis: 20,
      retryDelayInMillis: 10,
      handler: (event): Promise<KinesisStreamBatchResponse> => {
        batches.push(dataOf(event));
        const target = event.Records.find(
          (r) => Buffer.from(r.kinesis.data, 'base64').toString() === 'record-4',
        );
        if (target !== undefined && !failedOnce) {
          failedOnce = true;
          return Promise.resolve({ batchItemFailures: [{ itemIdentifier: target.kinesis.sequenceNumber }] });
        }
        return Promise.resolve({ batchItemFailures: [] });
      },
    });
    // WHEN
    await loop.start();
    await eventually(() => batches.length === 2);
    await sleep(300);
    await loop.stop();
    // THEN the second batch starts exactly at record-4
    expect(batches).toEqual([
      ['record-0', 'record-1', 'record-2', 'record-3', 'record-4', 'record-5'],
      ['record-4', 'record-5'],
    ]);
    expect(loop.snapshot()).toEqual(
      expect.objectContaining({ partialBatchResponses: 1, recordsRetried: 2, recordsSentToOnFailure: 0 }),
    );
  });

  test('an item identifier that is not in the batch fails the whole batch, as Lambda treats it', async () => {
    // GIVEN
    const streamArn = await streamWith(3);
    const batches: string[][] = [];
    const loop = new EventSourceLoop({
      kinesis: moto.clients().kinesis,
      streamArn,
      batchSize: 10,
      region: REGION,
      accountId: '123456789012',
      onFailureDir: path.join(workDir, 'unused'),
      pollIntervalInMillis: 20,
      retryDelayInMillis: 10,
      handler: (event) => {
        batches.push(dataOf(event));
        return Promise.resolve({
          batchItemFailures: batches.length === 1 ? [{ itemIdentifier: 'not-a-sequence-number' }] : [],
        });
      },
    });
    // WHEN
    await loop.start();
    await eventually(() => batches.length === 2);
    await loop.stop();
    // THEN
    expect(batches[1]).toEqual(['record-0', 'record-1', 'record-2']);
  });

  test('fails when the function keeps throwing: retries, then an on-failure record, then moves on', async () => {
    // GIVEN a handler that throws for the first two records' batch and accepts later ones
    const streamArn = await streamWith(2);
    const onFailureDir = path.join(workDir, `on-failure-${streamCounter}`);
    const batches: string[][] = [];
    const loop = new EventSourceLoop({
      kinesis: moto.clients().kinesis,
      streamArn,
      batchSize: 10,
      retryAttempts: 2,
      region: REGION,
      accountId: '123456789012',
      onFailureDir,
      pollIntervalInMillis: 20,
      retryDelayInMillis: 10,
      handler: (event) => {
        const data = dataOf(event);
        batches.push(data);
        if (data.includes('record-0')) return Promise.reject(new Error('boom'));
        return Promise.resolve({ batchItemFailures: [] });
      },
    });
    // WHEN
    await loop.start();
    await eventually(() => batches.length === 3);
    await putRecords(streamArn, ['later']);
    await eventually(() => batches.length === 4);
    await loop.stop();
    // THEN one try plus two retries, then the next record
    expect(batches).toEqual([
      ['record-0', 'record-1'],
      ['record-0', 'record-1'],
      ['record-0', 'record-1'],
      ['later'],
    ]);
    const files = readdirSync(onFailureDir);
    expect(files).toHaveLength(1);
    const invocationRecord = JSON.parse(readFileSync(path.join(onFailureDir, files[0]), 'utf8')) as {
      requestContext: { condition: string; approximateInvokeCount: number };
      responseContext: { functionError?: string };
      KinesisBatchInfo: { batchSize: number; streamArn: string; startSequenceNumber: string };
      payload: KinesisStreamEvent;
    };
    expect(invocationRecord.requestContext).toEqual(
      expect.objectContaining({ condition: 'RetryAttemptsExhausted', approximateInvokeCount: 3 }),
    );
    expect(invocationRecord.responseContext.functionError).toBe('Unhandled');
    expect(invocationRecord.KinesisBatchInfo).toEqual(expect.objectContaining({ batchSize: 2, streamArn }));
    // As with Lambda's S3 destination, the discarded records' data is kept, so nothing is lost.
    expect(dataOf(invocationRecord.payload)).toEqual(['record-0', 'record-1']);
    expect(invocationRecord.payload.Records[0].kinesis.sequenceNumber).toBe(
      invocationRecord.KinesisBatchInfo.startSequenceNumber,
    );
    expect(loop.snapshot()).toEqual(
      expect.objectContaining({ functionErrors: 3, recordsSentToOnFailure: 2 }),
    );
  });
  test('fails when the on-failure record cannot be written: the loop stops with an EventSourceError', async () => {
    // GIVEN an on-failure "folder" that is a file, and a handler that always throws
    const streamArn = await streamWith(1);
    const notADir = path.join(workDir, `not-a-dir-${streamCounter}`);
    writeFileSync(notADir, 'a file');
    const loop = new EventSourceLoop({
      kinesis: moto.clients().kinesis,
      streamArn,
      batchSize: 10,
      retryAttempts: 0,
      region: REGION,
      accountId: '123456789012',
      onFailureDir: notADir,
      pollIntervalInMillis: 20,
      retryDelayInMillis: 10,
      handler: () => Promise.reject(new Error('boom')),
    });
    // WHEN
    await loop.start();
    await eventually(() => loop.failure() !== undefined);
    // THEN
    expect(loop.failure()).toBeInstanceOf(EventSourceError);
    expect(loop.failure()?.message).toMatch(/^could not write the on-failure record /);
    await expect(loop.stop()).rejects.toBeInstanceOf(EventSourceError);
    expect(loop.snapshot().recordsSentToOnFailure).toBe(0);
  });
});

/** A scripted `_bulk` endpoint: each call answers with the next entry (an HTTP status, or item statuses). */
class ScriptedBulk implements OpenSearchHttpClient {
  readonly baseUrl = 'http://scripted.invalid';
  readonly calls: string[][] = [];
  /** The action line of every document of every call. */
  readonly actions: unknown[] = [];
  constructor(private readonly script: Array<number | ((ids: readonly string[]) => number[])>) {}

  request(request: HttpRequest): Promise<HttpResponse> {
    const lines = String(request.body).trim().split('\n');
    const ids = lines
      .filter((_, i) => i % 2 === 0)
      .map((l) => (JSON.parse(l) as { index: { _id: string } }).index._id);
    this.calls.push(lines.filter((_, i) => i % 2 === 1));
    this.actions.push(...lines.filter((_, i) => i % 2 === 0).map((l) => JSON.parse(l) as unknown));
    const next = this.script.length > 1 ? this.script.shift() : this.script[0];
    if (typeof next === 'number') {
      return Promise.resolve({ status: next, body: { error: 'scripted' }, text: '{"error":"scripted"}' });
    }
    const statuses = (next as (ids: readonly string[]) => number[])(ids);
    const body = {
      errors: statuses.some((s) => s >= 300),
      items: statuses.map((status, i) => ({
        index: {
          _id: ids[i],
          status,
          ...(status >= 300
            ? { error: { type: status === 400 ? 'mapper_parsing_exception' : 'rejected' } }
            : {}),
        },
      })),
    };
    return Promise.resolve({ status: 200, body, text: JSON.stringify(body) });
  }
}

describe('delivery loop (Firehose stand-in)', () => {
  function deliveryFor(
    streamArn: string,
    bulk: ScriptedBulk,
    retryDurationInMillis: number,
    failedDocumentsDir: string,
    arrivals: Date[] = [],
  ): DeliveryLoop {
    return new DeliveryLoop({
      kinesis: moto.clients().kinesis,
      streamArn,
      search: new SearchHttp(bulk),
      indexFor: (arrival) => {
        arrivals.push(arrival);
        return 'logs-test';
      },
      failedDocumentsDir,
      bufferIntervalInMillis: 50,
      retryDurationInMillis,
      retryBaseDelayInMillis: 5,
      pollIntervalInMillis: 20,
    });
  }

  test('retries 429 items, keeps 400 items as failed documents in Firehose format, indexes the rest', async () => {
    // GIVEN three documents: the first throttled once, the second rejected for good
    const before = Date.now();
    const streamArn = await streamWith(0);
    await putRecords(streamArn, ['{"n":0}', '{"n":1}', '{"n":2}']);
    const bulk = new ScriptedBulk([() => [429, 400, 201], () => [201]]);
    const arrivals: Date[] = [];
    const failedDir = path.join(workDir, 'failed-mixed');
    const loop = deliveryFor(streamArn, bulk, 10_000, failedDir, arrivals);
    // WHEN
    await loop.start();
    await eventually(() => loop.snapshot().documentsIndexed + loop.snapshot().documentsFailed === 3);
    await loop.stop();
    // THEN
    expect(bulk.calls).toEqual([['{"n":0}', '{"n":1}', '{"n":2}'], ['{"n":0}']]);
    expect(loop.snapshot()).toEqual(
      expect.objectContaining({
        documentsIndexed: 2,
        documentsFailed: 1,
        documentRetries: 1,
        indices: ['logs-test'],
      }),
    );
    const failed = await readFailedDocuments(failedDir);
    expect(failed).toEqual([
      {
        attemptsMade: 1,
        arrivalTimestamp: expect.any(Number),
        errorCode: '400',
        errorMessage: expect.stringContaining('mapper_parsing_exception'),
        attemptEndingTimestamp: expect.any(Number),
        rawData: Buffer.from('{"n":1}').toString('base64'),
        subsequenceNumber: 0,
        esDocumentId: expect.stringMatching(/^0-\d+$/),
        esIndexName: 'logs-test',
        esTypeName: '',
      },
    ]);
    // The index is chosen by the record's arrival time, as Firehose does.
    for (const arrival of arrivals) {
      expect(arrival.getTime()).toBeGreaterThanOrEqual(before - 1000);
      expect(arrival.getTime()).toBeLessThanOrEqual(Date.now());
    }
  });

  test('cuts a due buffer into bulks of at most bulkSizeInBytes, at most maxConcurrentBulks at once, and keeps reading meanwhile', async () => {
    // GIVEN four 7-byte documents, bulks of at most 14 bytes (two documents), two in flight, and an OpenSearch
    // that holds every bulk until the test releases it
    const streamArn = await streamWith(0);
    await putRecords(streamArn, ['{"n":0}', '{"n":1}', '{"n":2}', '{"n":3}']);
    const held: Array<() => void> = [];
    const sizes: number[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const gated: OpenSearchHttpClient = {
      baseUrl: 'http://gated.invalid',
      request: async (request: HttpRequest): Promise<HttpResponse> => {
        const docs = String(request.body).trim().split('\n').length / 2;
        sizes.push(docs);
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise<void>((release) => held.push(release));
        inFlight -= 1;
        const body = {
          errors: false,
          items: Array.from({ length: docs }, () => ({ index: { status: 201 } })),
        };
        return { status: 200, body, text: JSON.stringify(body) };
      },
    };
    const loop = new DeliveryLoop({
      kinesis: moto.clients().kinesis,
      streamArn,
      search: new SearchHttp(gated),
      indexFor: () => 'logs-test',
      failedDocumentsDir: path.join(workDir, 'failed-concurrent'),
      bufferIntervalInMillis: 20,
      bulkSizeInBytes: 14,
      maxConcurrentBulks: 2,
      pollIntervalInMillis: 20,
    });
    // WHEN two bulks are held
    await loop.start();
    await eventually(() => held.length === 2);
    // THEN records written meanwhile are still read
    await putRecords(streamArn, ['{"n":4}', '{"n":5}', '{"n":6}']);
    await eventually(() => loop.snapshot().recordsRead === 7);
    expect(loop.isCaughtUp()).toBe(false);
    // WHEN every bulk is answered as it comes
    while (loop.snapshot().documentsIndexed < 7) {
      held.splice(0).forEach((release) => release());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await eventually(() => loop.isCaughtUp());
    await loop.stop();
    // THEN no bulk held more than two documents and never more than two were in flight
    expect(maxInFlight).toBe(2);
    expect(Math.max(...sizes)).toBe(2);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(7);
  });

  test('sends no _id in the bulk action, as Firehose does with NO_DOCUMENT_ID', async () => {
    // GIVEN the same document twice (a record the transform wrote again)
    const streamArn = await streamWith(0);
    await putRecords(streamArn, ['{"n":7}', '{"n":7}']);
    const bulk = new ScriptedBulk([() => [201, 201]]);
    const loop = deliveryFor(streamArn, bulk, 10_000, path.join(workDir, 'failed-no-id'));
    // WHEN
    await loop.start();
    await eventually(() => loop.snapshot().documentsIndexed === 2);
    await loop.stop();
    // THEN the index's default pipeline, not the delivery, decides the id (so both copies get the same one)
    expect(bulk.actions).toEqual([{ index: { _index: 'logs-test' } }, { index: { _index: 'logs-test' } }]);
  });

  test('de-aggregates KPL records as Firehose does: plain records whole, a bad MD5 record whole (then rejected)', async () => {
    // GIVEN: an aggregated record (written by the reference library), a plain record, and an aggregated record
    // whose MD5 is wrong, which a KCL-style reader treats as one plain record.
    const streamArn = await streamWith(0);
    const aggregated = referenceAggregate(
      ['{"u":0}', '{"u":"ü"}', '{"u":2}'].map((d) => ({ partitionKey: 'pk', data: Buffer.from(d) })),
    );
    const corrupt = Buffer.from(aggregated);
    corrupt[corrupt.length - 1] ^= 0xff;
    await moto.clients().kinesis.send(
      new PutRecordsCommand({
        StreamARN: streamArn,
        Records: [aggregated, Buffer.from('{"plain":1}'), corrupt].map((Data) => ({
          Data,
          PartitionKey: 'pk',
        })),
      }),
    );
    const bulk = new ScriptedBulk([(batch) => batch.map(() => 201)]);
    const failedDir = path.join(workDir, 'failed-deaggregation');
    const loop = deliveryFor(streamArn, bulk, 10_000, failedDir);
    // WHEN
    await loop.start();
    try {
      await eventually(() => loop.snapshot().documentsIndexed + loop.snapshot().documentsFailed >= 5, 5_000);
    } finally {
      await loop.stop();
    }
    // THEN
    expect(bulk.calls.flat()).toEqual(['{"u":0}', '{"u":"ü"}', '{"u":2}', '{"plain":1}']);
    expect(loop.snapshot()).toMatchObject({ recordsRead: 3, documentsIndexed: 4, documentsFailed: 1 });
    const failed = await readFailedDocuments(failedDir);
    expect(failed).toEqual([
      expect.objectContaining({
        errorCode: '400',
        rawData: corrupt.toString('base64'),
        subsequenceNumber: 0,
      }),
    ]);
  });

  test('a whole-request 503 is retried; past the retry duration the documents are kept as failed', async () => {
    // GIVEN two streams: one whose first bulk answers 503 once, one whose bulks always answer 503
    const recovering = await streamWith(0);
    await putRecords(recovering, ['{"a":1}']);
    const recoveringBulk = new ScriptedBulk([503, () => [201]]);
    const loopA = deliveryFor(recovering, recoveringBulk, 10_000, path.join(workDir, 'failed-recovering'));
    const failingDir = path.join(workDir, 'failed-down');
    const down = await streamWith(0);
    await putRecords(down, ['{"b":1}']);
    const downBulk = new ScriptedBulk([503]);
    const loopB = deliveryFor(down, downBulk, 300, failingDir);
    // WHEN
    await Promise.all([loopA.start(), loopB.start()]);
    await eventually(() => loopA.snapshot().documentsIndexed === 1 && loopB.snapshot().documentsFailed === 1);
    await Promise.all([loopA.stop(), loopB.stop()]);
    // THEN
    expect(recoveringBulk.calls).toHaveLength(2);
    const failed = await readFailedDocuments(failingDir);
    expect(failed).toHaveLength(1);
    expect(failed[0].errorCode).toBe('503');
    expect(failed[0].attemptsMade).toBe(downBulk.calls.length);
    expect(failed[0].attemptsMade).toBeGreaterThan(1);
  });
});
