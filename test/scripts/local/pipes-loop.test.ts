/**
 * The pipe stand-in (scripts/local/pipes-loop.ts) on its own against a real moto server: the records it hands the
 * enrichment, the target's PutRecords with the partition key read from each item, the empty answer, retries with
 * bisection, the dead-letter queue (a real SQS queue in moto) and the maximum record age. The enrichment here is a
 * test function, so each test decides exactly what it answers; test/e2e/faults/pipes-transport.test.ts runs the
 * real one.
 */
import { GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-kinesis';
import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { parseDiscardedBatch } from '../../../core/kept/parse';
import type { PipesKinesisRecord } from '../../../lambda/transform/pipes-batch';
import { PipeError } from '../../../scripts/local/errors';
import { createDeadLetterQueue, type PipeDeadLetterMessage } from '../../../scripts/local/pipes-dead-letter';
import { type PipesEnrichment, PipesLoop, type PipesLoopProps } from '../../../scripts/local/pipes-loop';
import { sleep } from '../../../scripts/local/shard-reader';
import { localSqsClient } from '../../../scripts/local/sqs-client';
import { createStream, putStrings } from '../../helpers/kinesis-stream';
import { useLocalMoto } from '../../helpers/local-moto';

const REGION = 'eu-west-1';
const ACCOUNT = '123456789012';
const moto = useLocalMoto(REGION);
let sqs: SQSClient;
let counter = 0;

beforeAll(() => {
  sqs = localSqsClient(moto.endpoint(), REGION);
});

afterAll(() => {
  sqs?.destroy();
});

async function newStream(): Promise<string> {
  counter += 1;
  return createStream(moto.clients().kinesis, `pipes-${counter}`);
}

function putRecords(streamArn: string, data: readonly string[]): Promise<void> {
  return putStrings(moto.clients().kinesis, streamArn, data);
}

/** Every record of a one-shard stream: data and partition key. */
async function readAll(streamArn: string): Promise<Array<{ data: string; key: string }>> {
  const it = await moto.clients().kinesis.send(
    new GetShardIteratorCommand({
      StreamARN: streamArn,
      ShardId: 'shardId-000000000000',
      ShardIteratorType: 'TRIM_HORIZON',
    }),
  );
  const out = await moto
    .clients()
    .kinesis.send(
      new GetRecordsCommand({ StreamARN: streamArn, ShardIterator: it.ShardIterator, Limit: 10_000 }),
    );
  return (out.Records ?? []).map((r) => ({
    data: Buffer.from(r.Data ?? new Uint8Array()).toString('utf8'),
    key: r.PartitionKey ?? '',
  }));
}

async function dlqMessages(
  queueUrl: string,
): Promise<Array<{ body: string; message: PipeDeadLetterMessage }>> {
  const out = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
  );
  return (out.Messages ?? []).map((m) => ({
    body: m.Body ?? '',
    message: JSON.parse(m.Body ?? '{}') as PipeDeadLetterMessage,
  }));
}

async function eventually(predicate: () => boolean, timeoutInMillis = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutInMillis;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}

function dataOf(records: readonly PipesKinesisRecord[]): string[] {
  return records.map((r) => Buffer.from(r.data, 'base64').toString('utf8'));
}

/** An item as the real enrichment answers: a document with its partition key under `kfek`. */
function item(data: string): { message: string; kfek: { partitionKey: string } } {
  return { message: data, kfek: { partitionKey: `key-${data}` } };
}

interface Rig {
  readonly loop: PipesLoop;
  readonly source: string;
  readonly target: string;
  readonly queueUrl: string;
  readonly calls: string[][];
}

/** A pipe from a fresh source stream (holding `records`) to a fresh target stream, with a fresh queue. */
async function rig(
  records: readonly string[],
  answer: (data: string[]) => unknown,
  overrides: Partial<PipesLoopProps> = {},
): Promise<Rig> {
  const source = await newStream();
  const target = await newStream();
  const queue = await createDeadLetterQueue(sqs, `pipes-dlq-${counter}`);
  if (records.length > 0) await putRecords(source, records);
  const calls: string[][] = [];
  const enrichment: PipesEnrichment = (event) => {
    const data = dataOf(event);
    calls.push(data);
    return Promise.resolve(answer(data));
  };
  const loop = new PipesLoop({
    kinesis: moto.clients().kinesis,
    streamArn: source,
    enrichment,
    function: {
      functionName: 'kfek-test-enrichment',
      memorySizeInMb: 512,
      timeoutInMillis: 5000,
      region: REGION,
      accountId: ACCOUNT,
    },
    targetStreamArn: target,
    sqs,
    deadLetterQueueUrl: queue.url,
    pipeArn: `arn:aws:pipes:${REGION}:${ACCOUNT}:pipe/kfek-test-pipe`,
    batchSize: 10,
    retryAttempts: 3,
    pollIntervalInMillis: 20,
    retryDelayInMillis: 10,
    ...overrides,
  });
  return { loop, source, target, queueUrl: queue.url, calls };
}

const records = (n: number): string[] => Array.from({ length: n }, (_, i) => `record-${i}`);

describe('pipe stand-in (EventBridge Pipes, Kinesis source and target)', () => {
  test("hands the enrichment Pipes' flat Kinesis records and writes each answer item to the target under its key", async () => {
    // GIVEN
    const seen: PipesKinesisRecord[][] = [];
    const r = await rig(records(3), (data) => data.map(item), {
      enrichment: (event) => {
        seen.push(event);
        return Promise.resolve(dataOf(event).map(item));
      },
    });
    // WHEN
    await r.loop.start();
    await eventually(() => r.loop.snapshot().targetRecords === 3);
    await r.loop.stop();
    // THEN the records are flat (no `kinesis` wrapper), as eb-pipes-kinesis shows them
    const first = seen[0][0];
    expect(first).toEqual({
      kinesisSchemaVersion: '1.0',
      partitionKey: 'pk',
      sequenceNumber: expect.any(String),
      data: Buffer.from('record-0').toString('base64'),
      approximateArrivalTimestamp: expect.any(Number),
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: `shardId-000000000000:${first.sequenceNumber}`,
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: expect.stringMatching(/^arn:aws:iam::123456789012:role\//),
      awsRegion: REGION,
      eventSourceARN: r.source,
    });
    expect(Math.abs(first.approximateArrivalTimestamp! - Date.now() / 1000)).toBeLessThan(60);
    // ... and the target wrote each item as its JSON, partition key from $.kfek.partitionKey, in order
    expect(await readAll(r.target)).toEqual(
      records(3).map((d) => ({ data: JSON.stringify(item(d)), key: `key-${d}` })),
    );
    expect(r.loop.snapshot()).toEqual(
      expect.objectContaining({ invocations: 1, targetPuts: 1, targetRecords: 3, deadLetterMessages: 0 }),
    );
  });

  test('an empty answer skips the target', async () => {
    // GIVEN an enrichment that wrote its answer itself
    const r = await rig(records(4), () => []);
    // WHEN
    await r.loop.start();
    await eventually(() => r.loop.snapshot().emptyAnswers === 1);
    await r.loop.stop();
    // THEN
    expect(await readAll(r.target)).toEqual([]);
    expect(r.loop.snapshot()).toEqual(
      expect.objectContaining({ targetPuts: 0, targetFailures: 0, deadLetterMessages: 0 }),
    );
  });

  test('fails a batch whose enrichment throws: retried in halves, the record that still fails dead-lettered', async () => {
    // GIVEN an enrichment that throws whenever its batch holds record-3, 3 retries
    const r = await rig(records(8), (data) => {
      if (data.includes('record-3')) throw new Error('cannot enrich record-3');
      return data.map(item);
    });
    // WHEN
    await r.loop.start();
    await eventually(
      () => r.loop.snapshot().deadLetterMessages === 1 && r.loop.snapshot().targetRecords === 7,
    );
    await r.loop.stop();
    // THEN 8 fails, 0-3 fails, 0-1 passes, 2-3 fails, 2 passes, 3 fails a fourth time: dead-lettered; 4-7 pass
    expect(r.calls).toEqual([
      records(8),
      records(4),
      ['record-0', 'record-1'],
      ['record-2', 'record-3'],
      ['record-2'],
      ['record-3'],
      ['record-4', 'record-5', 'record-6', 'record-7'],
    ]);
    expect((await readAll(r.target)).map((x) => JSON.parse(x.data) as { message: string })).toEqual(
      records(8)
        .filter((d) => d !== 'record-3')
        .map(item),
    );
    const [dlq] = await dlqMessages(r.queueUrl);
    expect(dlq.message.requestContext).toEqual(
      expect.objectContaining({ condition: 'RetryAttemptsExhausted', approximateInvokeCount: 4 }),
    );
    expect(dlq.message.responseContext.functionError).toBe('Unhandled');
    expect(dlq.message.KinesisBatchInfo).toEqual(
      expect.objectContaining({ shardId: 'shardId-000000000000', batchSize: 1, streamArn: r.source }),
    );
    expect(dlq.message.KinesisBatchInfo.startSequenceNumber).toBe(
      dlq.message.KinesisBatchInfo.endSequenceNumber,
    );
    expect(dlq.message.kfekReason).toMatch(/cannot enrich record-3/);
    // ... in the shape `kfek replay` reads: a range to re-read from the raw stream
    const kept = parseDiscardedBatch(
      Buffer.from(dlq.body),
      { location: `sqs://${r.queueUrl}/m`, handle: 'm', sizeBytes: dlq.body.length },
      'pipes-dlq',
    );
    expect(kept.content).toEqual({
      type: 'range',
      range: expect.objectContaining({ shardId: 'shardId-000000000000', batchSize: 1, streamArn: r.source }),
    });
    expect(r.loop.snapshot()).toEqual(
      expect.objectContaining({ functionErrors: 4, bisections: 3, recordsSentToOnFailure: 1 }),
    );
  });

  test('fails a batch when the target put fails: retried, then its metadata dead-lettered', async () => {
    // GIVEN a target stream that does not exist (every PutRecords fails), 1 retry
    const r = await rig(records(2), (data) => data.map(item), {
      targetStreamArn: `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/no-such-stream`,
      retryAttempts: 1,
    });
    // WHEN
    await r.loop.start();
    await eventually(() => r.loop.snapshot().recordsSentToOnFailure === 2);
    await r.loop.stop();
    // THEN both halves failed their retry and went to the queue; no function error was reported
    const messages = await dlqMessages(r.queueUrl);
    expect(messages.map((m) => m.message.KinesisBatchInfo.batchSize)).toEqual([1, 1]);
    for (const { message } of messages) {
      expect(message.responseContext.functionError).toBeUndefined();
      expect(message.kfekReason).toMatch(/target error: PutRecords to the target .* failed/);
    }
    expect(r.loop.snapshot()).toEqual(expect.objectContaining({ functionErrors: 0, targetFailures: 3 }));
  });

  test('fails a batch whose answer item has no partition key at the path', async () => {
    // GIVEN items without kfek.partitionKey, no retries
    const r = await rig(records(1), (data) => data.map((message) => ({ message })), { retryAttempts: 0 });
    // WHEN
    await r.loop.start();
    await eventually(() => r.loop.snapshot().deadLetterMessages === 1);
    await r.loop.stop();
    // THEN nothing reached the target; the reason names the path
    expect(await readAll(r.target)).toEqual([]);
    const [dlq] = await dlqMessages(r.queueUrl);
    expect(dlq.message.kfekReason).toMatch(/no usable partition key at \$\.kfek\.partitionKey/);
  });

  test('fails a batch whose answer has more items than a Kinesis target takes (500)', async () => {
    // GIVEN an answer of 501 items
    const r = await rig(records(1), () => Array.from({ length: 501 }, (_, i) => item(`x-${i}`)), {
      retryAttempts: 0,
    });
    // WHEN
    await r.loop.start();
    await eventually(() => r.loop.snapshot().deadLetterMessages === 1);
    await r.loop.stop();
    // THEN
    expect(await readAll(r.target)).toEqual([]);
    const [dlq] = await dlqMessages(r.queueUrl);
    expect(dlq.message.kfekReason).toMatch(/501 items; a Kinesis target takes at most 500/);
  });

  test('dead-letters records older than the maximum record age without invoking the enrichment', async () => {
    // GIVEN a clock two hours ahead and a one-hour maximum record age
    const r = await rig(records(2), (data) => data.map(item), {
      maxRecordAgeInMillis: 3_600_000,
      now: () => Date.now() + 7_200_000,
    });
    // WHEN
    await r.loop.start();
    await eventually(() => r.loop.snapshot().recordsExpired === 2);
    await r.loop.stop();
    // THEN
    expect(r.calls).toEqual([]);
    const [dlq] = await dlqMessages(r.queueUrl);
    expect(dlq.message.requestContext.condition).toBe('RecordAgeExceeded');
    expect(dlq.message.KinesisBatchInfo.batchSize).toBe(2);
  });

  test('gathers a batch for the batching window', async () => {
    // GIVEN a 1.5 s window and records arriving in two writes 300 ms apart
    const r = await rig([], (data) => data.map(item), { maxBatchingWindowInMillis: 1500 });
    await r.loop.start();
    // WHEN
    await putRecords(r.source, ['a', 'b']);
    await sleep(300);
    await putRecords(r.source, ['c']);
    await eventually(() => r.loop.snapshot().targetRecords === 3);
    await r.loop.stop();
    // THEN one invocation had all three
    expect(r.calls).toEqual([['a', 'b', 'c']]);
  });

  test('fails when the dead-letter queue cannot be written: the loop stops with the error', async () => {
    // GIVEN a queue URL that does not exist and an enrichment that always throws
    const r = await rig(
      records(1),
      () => {
        throw new Error('always');
      },
      { deadLetterQueueUrl: `${moto.endpoint()}/${ACCOUNT}/no-such-queue`, retryAttempts: 0 },
    );
    // WHEN
    await r.loop.start();
    await eventually(() => r.loop.failure() !== undefined);
    // THEN
    await expect(r.loop.stop()).rejects.toThrow(PipeError);
    expect(r.loop.failure()?.message).toMatch(/could not send the dead-letter message of 1 record/);
  });
});
