/**
 * The Kinesis handler against a REAL Kinesis/S3/CloudWatch Logs API (moto server on 127.0.0.1), with a
 * fault-injecting proxy between the handler's clients and moto. Nothing is mocked in-process: the handler
 * module is loaded as deployed, configured only through its environment.
 *
 * moto cannot invoke Lambda (that needs Docker), so the test plays the event source mapping: it reads the raw
 * stream with GetRecords and builds the Lambda event from what Kinesis returned.
 */
import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  CreateLogStreamCommand,
  PutLogEventsCommand,
  PutSubscriptionFilterCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import {
  CreateStreamCommand,
  KinesisClient,
  PutRecordCommand,
  type _Record as KinesisRecord,
} from '@aws-sdk/client-kinesis';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type {
  Context,
  KinesisStreamBatchResponse,
  KinesisStreamEvent,
  KinesisStreamRecord,
} from 'aws-lambda';
import type { DeadLetterObject } from '../../../lambda/transform/dead-letter-object';
import type { LogDocument } from '../../../core/transform/types';
import { encodeEnvelope, makeEnvelope, makeLogEvents } from '../../helpers/cloudwatch';
import { startFaultProxy, type FaultProxy } from '../../helpers/fault-proxy';
import { motoClientConfig, readStreamRecords, transformHandlerEnv } from '../../helpers/kinesis-stream';
import { lambdaContextWithBudget } from '../../helpers/lambda-context';
import { referenceDeaggregate } from '../../helpers/kpl-reference';
import { startMoto, type MotoServer } from '../../../scripts/moto-server';

type Handler = (event: KinesisStreamEvent, context: Context) => Promise<KinesisStreamBatchResponse>;

const REGION = 'us-east-1';
const ACCOUNT = '123456789012'; // moto's default account
const RAW_STREAM = 'kfek-raw';
const EVENTS_STREAM = 'kfek-events';
const RAW_ARN = `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/${RAW_STREAM}`;
const EVENTS_ARN = `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/${EVENTS_STREAM}`;
const BUCKET = 'kfek-dead-letter';

jest.setTimeout(30_000);

let moto: MotoServer;
let proxy: FaultProxy;
let handler: Handler;
let kinesis: KinesisClient;
let s3: S3Client;
let logs: CloudWatchLogsClient;
const savedEnv = { ...process.env };

function readStream(streamName: string): Promise<Array<KinesisRecord & { shardId: string }>> {
  return readStreamRecords(kinesis, streamName);
}

/** What an event source mapping would hand the function for these Kinesis records. */
function toLambdaEvent(records: ReadonlyArray<KinesisRecord & { shardId: string }>): KinesisStreamEvent {
  return {
    Records: records.map((r): KinesisStreamRecord => ({
      kinesis: {
        kinesisSchemaVersion: '1.0',
        partitionKey: r.PartitionKey!,
        sequenceNumber: r.SequenceNumber!,
        data: Buffer.from(r.Data!).toString('base64'),
        approximateArrivalTimestamp: r.ApproximateArrivalTimestamp!.getTime() / 1000,
      },
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: `${r.shardId}:${r.SequenceNumber}`,
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: `arn:aws:iam::${ACCOUNT}:role/kfek-transform`,
      awsRegion: REGION,
      eventSourceARN: RAW_ARN,
    })),
  };
}

/**
 * Documents in the events stream whose message carries `tag`. The handler writes KPL aggregated records by
 * default: each record is read back with the reference de-aggregator (`aws-kinesis-agg`, MD5 checked).
 */
async function documentsTagged(tag: string): Promise<LogDocument[]> {
  return (await readStream(EVENTS_STREAM))
    .flatMap((r) => referenceDeaggregate(r.Data!, r.PartitionKey!))
    .map((u) => JSON.parse(u.data.toString('utf8')) as LogDocument)
    .filter((d) => d.message.includes(tag));
}

/** Puts envelopes on the raw stream and returns them as the event source mapping would deliver them. */
async function rawBatch(datas: readonly Buffer[]): Promise<KinesisStreamEvent> {
  const sequenceNumbers = new Set<string>();
  for (const [i, data] of datas.entries()) {
    const { SequenceNumber } = await kinesis.send(
      new PutRecordCommand({ StreamARN: RAW_ARN, Data: data, PartitionKey: `pk-${i}` }),
    );
    sequenceNumbers.add(SequenceNumber!);
  }
  const records = (await readStream(RAW_STREAM)).filter((r) => sequenceNumbers.has(r.SequenceNumber!));
  expect(records).toHaveLength(datas.length);
  return toLambdaEvent(records);
}

/** A gzip envelope of `events` messages `<tag> r<record> e<i>`, with unique event ids. */
/**
 * One record's envelope, from a log stream of its own: the handler aggregates per log stream, so each record's
 * documents travel in their own events-stream record and the resume point can fall between records.
 */
function taggedEnvelope(tag: string, record: number, events: number): Buffer {
  const logEvents = makeLogEvents(events, (i) => `${tag} r${record} e${i}`).map((e, i) => ({
    ...e,
    id: `${tag.length}${record}0${i}${Date.now()}`.padEnd(56, '0'),
  }));
  return Buffer.from(
    encodeEnvelope(makeEnvelope({ logEvents, logStream: `${tag}-stream-${record}` })),
    'base64',
  );
}

beforeAll(async () => {
  moto = await startMoto();
  try {
    proxy = await startFaultProxy(moto.endpoint);
    const direct = motoClientConfig(moto.endpoint, REGION);
    kinesis = new KinesisClient(direct);
    s3 = new S3Client({ ...direct, forcePathStyle: true });
    logs = new CloudWatchLogsClient(direct);
    await kinesis.send(new CreateStreamCommand({ StreamName: RAW_STREAM, ShardCount: 1 }));
    await kinesis.send(new CreateStreamCommand({ StreamName: EVENTS_STREAM, ShardCount: 2 }));
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));

    // The handler's clients go through the fault proxy, configured only by environment, as when deployed.
    Object.assign(process.env, {
      ...transformHandlerEnv({
        endpoint: proxy.url,
        region: REGION,
        eventsStreamArn: EVENTS_ARN,
        deadLetterBucket: BUCKET,
      }),
    });
    ({ handler } = (await import('../../../lambda/transform/handler')) as { handler: Handler });
  } catch (error) {
    await proxy?.close();
    await moto.stop();
    throw error;
  }
});

afterAll(async () => {
  process.env = savedEnv;
  kinesis?.destroy();
  s3?.destroy();
  logs?.destroy();
  await proxy?.close();
  await moto?.stop();
});

beforeEach(() => proxy.clear());

test('transforms real envelopes (one via a CloudWatch Logs subscription), writes N documents, stores poison in S3', async () => {
  // GIVEN: a real subscription filter delivering to the raw stream, and hand-made records beside it.
  const tag = 'happy';
  await logs.send(new CreateLogGroupCommand({ logGroupName: '/aws/lambda/orders' }));
  await logs.send(new CreateLogStreamCommand({ logGroupName: '/aws/lambda/orders', logStreamName: 'web-1' }));
  await logs.send(
    new PutSubscriptionFilterCommand({
      logGroupName: '/aws/lambda/orders',
      filterName: 'kfek',
      filterPattern: '',
      destinationArn: RAW_ARN,
      roleArn: `arn:aws:iam::${ACCOUNT}:role/cwl-to-kinesis`,
    }),
  );
  const now = Date.now();
  await logs.send(
    new PutLogEventsCommand({
      logGroupName: '/aws/lambda/orders',
      logStreamName: 'web-1',
      logEvents: [
        {
          timestamp: now,
          message: JSON.stringify({ level: 'INFO', message: `${tag} order placed`, orderId: 7 }),
        },
        { timestamp: now + 1, message: `${tag} plain text line\n` },
      ],
    }),
  );
  const fromSubscription = await readStream(RAW_STREAM);
  expect(fromSubscription).toHaveLength(1); // moto delivers one gzip DATA_MESSAGE per PutLogEvents
  const poison = Buffer.from('this is not gzip, base64 JSON or an envelope');
  const control = Buffer.from(
    encodeEnvelope(makeEnvelope({ messageType: 'CONTROL_MESSAGE', logGroup: '', logStream: '' })),
    'base64',
  );
  const own = await rawBatch([taggedEnvelope(tag, 1, 3), poison, control, taggedEnvelope(tag, 3, 2)]);
  const event: KinesisStreamEvent = { Records: [...toLambdaEvent(fromSubscription).Records, ...own.Records] };

  // WHEN
  const response = await handler(event, lambdaContextWithBudget(20_000));

  // THEN
  expect(response).toEqual({ batchItemFailures: [] });
  const docs = await documentsTagged(tag);
  expect(docs).toHaveLength(2 + 3 + 2);
  const subscribed = docs.filter((d) => d.cloudwatch.logGroup === '/aws/lambda/orders');
  expect(subscribed).toHaveLength(2);
  expect(subscribed.find((d) => d.message === `${tag} order placed`)).toMatchObject({
    orderId: 7,
    level: 'INFO',
    '@timestamp': new Date(now).toISOString(),
    cloudwatch: { logStream: 'web-1', owner: ACCOUNT, id: expect.any(String) },
  });
  expect(subscribed.map((d) => d.message)).toContain(`${tag} plain text line`);
  expect(new Set(docs.map((d) => d.cloudwatch.id)).size).toBe(docs.length);

  const listed = await s3.send(
    new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'dead-letter/transform/' }),
  );
  expect(listed.Contents).toHaveLength(1);
  const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: listed.Contents![0].Key }));
  const body = JSON.parse(await object.Body!.transformToString()) as DeadLetterObject;
  expect(Buffer.from(body.data, 'base64')).toEqual(poison);
  expect(body.source).toMatchObject({
    sequenceNumber: own.Records[1].kinesis.sequenceNumber,
    shardId: 'shardId-000000000000',
    streamArn: RAW_ARN,
  });
  expect(listed.Contents![0].Key).toContain(
    `/kfek-raw/shardId-000000000000/${body.source.sequenceNumber}.json`,
  );
});

test('survives per-entry failures, whole-call throttling, 500s and an outage without losing or duplicating', async () => {
  // GIVEN: 600 events in 3 records (two PutRecords calls' worth) and every kind of fault.
  const tag = 'faults';
  const event = await rawBatch([
    taggedEnvelope(tag, 0, 250),
    taggedEnvelope(tag, 1, 250),
    taggedEnvelope(tag, 2, 100),
  ]);
  proxy.failEntries((data) => data.includes(' e7"') || data.includes(' e42"'), { times: 8 });
  proxy.failEntries((data) => data.includes(' e9"'), { errorCode: 'InternalFailure', times: 3 });
  proxy.throttleCalls(2);
  proxy.failCalls(2, 500);

  // WHEN
  const response = await handler(event, lambdaContextWithBudget(20_000));

  // THEN
  expect(response).toEqual({ batchItemFailures: [] });
  expect(proxy.stats).toMatchObject({ failedEntries: 11, throttledCalls: 2, serverErrors: 2 });
  const docs = await documentsTagged(tag);
  // Failed entries were never forwarded, so every event is in the stream exactly once.
  expect(docs).toHaveLength(600);
  expect(new Set(docs.map((d) => d.message)).size).toBe(600);

  // AND an outage shorter than the budget is ridden out: three connection resets in a row (counted in requests,
  // not milliseconds, so the outcome does not depend on how fast the machine is).
  const tag2 = 'outage';
  const second = await rawBatch([taggedEnvelope(tag2, 0, 5)]);
  proxy.resetNext(3);
  const dropped = proxy.stats.droppedConnections;
  const response2 = await handler(second, lambdaContextWithBudget(15_000));
  expect(response2).toEqual({ batchItemFailures: [] });
  expect(proxy.stats.droppedConnections - dropped).toBe(3);
  expect(await documentsTagged(tag2)).toHaveLength(5);
});

test('when the budget runs out, names the earliest unfinished record exactly; the retry completes the batch', async () => {
  // GIVEN: five records of three events; one event of record 2 is refused until the faults are cleared.
  const tag = 'budget';
  const event = await rawBatch([0, 1, 2, 3, 4].map((r) => taggedEnvelope(tag, r, 3)));
  proxy.failEntries((data) => data.includes(`${tag} r2 e1"`));

  // WHEN: 4 s left, 1 s of it kept back as the safety margin (3 s is ample for the first call to succeed even on
  // a loaded machine; the refused entry then uses up the rest).
  const response = await handler(event, lambdaContextWithBudget(4_000));

  // THEN
  const resume = event.Records[2].kinesis.sequenceNumber;
  expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: resume }] });
  const firstRound = await documentsTagged(tag);
  const messages = new Set(firstRound.map((d) => d.message));
  for (const r of [0, 1]) for (let i = 0; i < 3; i++) expect(messages).toContain(`${tag} r${r} e${i}`);
  expect(messages).not.toContain(`${tag} r2 e1`);

  // WHEN Lambda retries from the reported record, with Kinesis healthy again
  proxy.clear();
  const retry: KinesisStreamEvent = { Records: event.Records.slice(2) };
  expect(await handler(retry, lambdaContextWithBudget(10_000))).toEqual({ batchItemFailures: [] });

  // THEN every event is in the stream; duplicates (at least once) only come from the retried records and are
  // findable by cloudwatch.id.
  const all = await documentsTagged(tag);
  expect(new Set(all.map((d) => d.message))).toEqual(
    new Set([0, 1, 2, 3, 4].flatMap((r) => [0, 1, 2].map((i) => `${tag} r${r} e${i}`))),
  );
  const counts = new Map<string, number>();
  for (const d of all) counts.set(d.cloudwatch.id, (counts.get(d.cloudwatch.id) ?? 0) + 1);
  const duplicated = all.filter((d) => counts.get(d.cloudwatch.id)! > 1).map((d) => d.message);
  expect(duplicated.filter((m) => / r[01] /.test(m))).toEqual([]);
  // Record 3 was written in the first round and again on the retry: the documented at-least-once duplicate.
  expect(duplicated).toContain(`${tag} r3 e0`);
});

test.each(['reset', 'blackhole'] as const)(
  'an outage (%s) longer than the budget: the first record is reported in time, then the retry writes all',
  async (mode) => {
    // GIVEN: Kinesis unreachable for longer than the invocation has.
    const tag = `down-${mode}`;
    const event = await rawBatch([taggedEnvelope(tag, 0, 2), taggedEnvelope(tag, 1, 2)]);
    proxy.goDown(10_000, mode);
    const ctx = lambdaContextWithBudget(2_500);

    // WHEN
    const response = await handler(event, ctx);

    // THEN: answered before the function would time out (1 s margin kept back), naming the first record.
    expect(ctx.getRemainingTimeInMillis()).toBeGreaterThan(500);
    expect(response).toEqual({
      batchItemFailures: [{ itemIdentifier: event.Records[0].kinesis.sequenceNumber }],
    });
    expect(proxy.stats.droppedConnections).toBeGreaterThan(0);

    // WHEN the outage is over and Lambda retries the batch
    proxy.clear();
    expect(await handler(event, lambdaContextWithBudget(10_000))).toEqual({ batchItemFailures: [] });
    // THEN: all four events; a call cut off mid-flight may have landed too, which at-least-once allows.
    const docs = await documentsTagged(tag);
    expect(new Set(docs.map((d) => d.message)).size).toBe(4);
  },
);
