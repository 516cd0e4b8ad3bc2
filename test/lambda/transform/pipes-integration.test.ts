/**
 * The Pipes enrichment against a REAL Kinesis/S3 API (moto server on 127.0.0.1), loaded as deployed and configured
 * only through its environment (issue 14, defects 2 and 3).
 *
 * moto has no EventBridge Pipes, so the test plays the pipe: it hands the enrichment a batch in the flat record
 * shape Pipes delivers, and writes each returned item to the events stream the way a pipe with a Kinesis target
 * does (one PutRecord per item, the partition key read from `$.kfek.partitionKey`, the item's JSON as data).
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { CreateStreamCommand, KinesisClient, PutRecordCommand } from '@aws-sdk/client-kinesis';
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import type { DeadLetterObject } from '../../../lambda/transform/dead-letter-object';
import type { PipesItem, PipesKinesisRecord } from '../../../lambda/transform/pipes';
import { MAX_KINESIS_RECORD_BYTES } from '../../../core/contracts/aws-limits';
import type { LogDocument } from '../../../core/transform/types';
import { encodeEnvelope, makeEnvelope, makeKinesisEvent, makeLogEvents } from '../../helpers/cloudwatch';
import { TransformServiceName } from '../../../core/contracts/transform-env';
import { motoClientConfig, readStreamRecords, transformHandlerEnv } from '../../helpers/kinesis-stream';
import { referenceDeaggregate } from '../../helpers/kpl-reference';
import { startMoto, type MotoServer } from '../../../scripts/moto-server';

type Handler = (event: unknown, context: Context) => Promise<PipesItem[]>;

const REGION = 'us-east-1';
const ACCOUNT = '123456789012'; // moto's default account
const EVENTS_STREAM = 'kfek-pipes-events';
const EVENTS_ARN = `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/${EVENTS_STREAM}`;
const RAW_ARN = `arn:aws:kinesis:${REGION}:${ACCOUNT}:stream/kfek-raw`;
const BUCKET = 'kfek-pipes-dead-letter';

jest.setTimeout(60_000);

let moto: MotoServer;
let handler: Handler;
let kinesis: KinesisClient;
let s3: S3Client;
const savedEnv = { ...process.env };

const context = {
  functionName: 'kfek-pipes-enrichment',
  awsRequestId: 'it-pipes',
  getRemainingTimeInMillis: () => 30_000,
} as unknown as Context;

let sequence = 0;
/** Flat Pipes records for these record datas (base64), with coordinates like the documented example. */
function pipesBatch(datas: readonly string[]): PipesKinesisRecord[] {
  return datas.map((data) => {
    sequence += 1;
    const sequenceNumber = String(
      49590338271490256608559692538361571095921575989136588898n + BigInt(sequence),
    );
    return {
      kinesisSchemaVersion: '1.0',
      partitionKey: `pk-${sequence}`,
      sequenceNumber,
      data,
      approximateArrivalTimestamp: 1795424400 + sequence,
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: `shardId-000000000000:${sequenceNumber}`,
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: `arn:aws:iam::${ACCOUNT}:role/kfek-pipe`,
      awsRegion: REGION,
      eventSourceARN: RAW_ARN,
    };
  });
}

/** What a pipe with a Kinesis target does with the answer: one record per item, key from `$.kfek.partitionKey`. */
async function deliverAsPipe(items: readonly PipesItem[]): Promise<void> {
  for (const item of items) {
    await kinesis.send(
      new PutRecordCommand({
        StreamARN: EVENTS_ARN,
        PartitionKey: item.kfek.partitionKey,
        Data: Buffer.from(JSON.stringify(item), 'utf8'),
      }),
    );
  }
}

/** Every document on the events stream (de-aggregated: the enrichment's own writes may be KPL records). */
async function eventsStreamDocuments(): Promise<Array<LogDocument & { readonly partitionKey: string }>> {
  return (await readStreamRecords(kinesis, EVENTS_STREAM)).flatMap((r) =>
    referenceDeaggregate(r.Data!, r.PartitionKey!).map((u) => ({
      ...(JSON.parse(u.data.toString('utf8')) as LogDocument),
      partitionKey: u.partitionKey,
    })),
  );
}

beforeAll(async () => {
  moto = await startMoto();
  try {
    const direct = motoClientConfig(moto.endpoint, REGION);
    kinesis = new KinesisClient(direct);
    s3 = new S3Client({ ...direct, forcePathStyle: true });
    await kinesis.send(new CreateStreamCommand({ StreamName: EVENTS_STREAM, ShardCount: 2 }));
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    Object.assign(process.env, {
      ...transformHandlerEnv({
        endpoint: moto.endpoint,
        region: REGION,
        eventsStreamArn: EVENTS_ARN,
        deadLetterBucket: BUCKET,
        serviceName: TransformServiceName.pipes,
        aggregation: false,
      }),
    });
    ({ handler } = (await import('../../../lambda/transform/pipes')) as { handler: Handler });
  } catch (error) {
    await moto.stop();
    throw error;
  }
});

afterAll(async () => {
  process.env = savedEnv;
  kinesis?.destroy();
  s3?.destroy();
  await moto?.stop();
});

test('keeps a poison record whole in the dead-letter bucket and names the object in its error document', async () => {
  // GIVEN: the record: 10,000 events with incompressible messages and one bad timestamp, so its base64 is
  // longer than the 262,144 characters an error document previews.
  const events = makeLogEvents(10_000, () => randomBytes(16).toString('hex'));
  const bad = { ...makeEnvelope({ logEvents: events }), logEvents: [...events, { id: '1', message: 'x' }] };
  const data = gzipSync(Buffer.from(JSON.stringify(bad), 'utf8')).toString('base64');
  expect(data.length).toBeGreaterThan(262_144);
  const [record] = pipesBatch([data]);
  // WHEN
  const items = await handler([record], context);
  // THEN
  expect(items).toHaveLength(1);
  const error = items[0].kfek.error;
  expect(error?.reason).toMatch(/timestamp/);
  expect(error?.deadLetter).toEqual({ bucket: BUCKET, key: expect.stringContaining(record.sequenceNumber) });
  const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: error!.deadLetter!.key }));
  const stored = JSON.parse(await object.Body!.transformToString()) as DeadLetterObject;
  expect(stored.data).toBe(data);
  expect(stored.source).toMatchObject({ sequenceNumber: record.sequenceNumber, streamArn: RAW_ARN });
});

test('writes an answer of more than 500 documents to the events stream itself and answers with none', async () => {
  // GIVEN: one envelope of 1,200 events, more than a Kinesis target takes per pipe invocation.
  const tag = `overflow-${Date.now()}`;
  const logEvents = makeLogEvents(1_200, (i) => `${tag} ${i}`);
  const batch = pipesBatch([encodeEnvelope(makeEnvelope({ logEvents, logStream: tag }))]);
  // WHEN
  const items = await handler(batch, context);
  // THEN: nothing for the pipe to drop, and every document on the events stream, in order, with the shared key.
  expect(items).toEqual([]);
  const written = (await eventsStreamDocuments()).filter((d) => d.message.startsWith(tag));
  expect(written.map((d) => d.message)).toEqual(logEvents.map((e) => e.message));
  expect(new Set(written.map((d) => d.partitionKey)).size).toBe(1);
  expect(written.every((d) => d.partitionKey === d.kfek?.partitionKey)).toBe(true);
});

test('every item fits one Kinesis record with its partition key, which Kinesis accepts', async () => {
  // GIVEN: the case: a 1 MB event from a stream with a 52-character name, and a poison record (whose
  // error document has no log stream).
  const logStream = 's'.repeat(52);
  const big = makeEnvelope({ logStream, logGroup: '/aws/lambda/big' }, [{ message: 'x'.repeat(1_048_500) }]);
  const batch = pipesBatch([encodeEnvelope(big), Buffer.from('not an envelope').toString('base64')]);
  // WHEN
  const items = await handler(batch, context);
  // THEN
  expect(items).toHaveLength(2);
  for (const item of items) {
    const key = item.kfek.partitionKey;
    expect(key.length).toBeGreaterThanOrEqual(1);
    expect(key.length).toBeLessThanOrEqual(256);
    expect(
      Buffer.byteLength(JSON.stringify(item), 'utf8') + Buffer.byteLength(key, 'utf8'),
    ).toBeLessThanOrEqual(MAX_KINESIS_RECORD_BYTES);
  }
  expect(items[0].kfek.truncated).toBe(true);
  await expect(deliverAsPipe(items)).resolves.toBeUndefined();
});

describe('a transport switch: the reader being removed calls the function until CloudFormation cleans it up', () => {
  test('lambda -> pipes: an event source mapping event gets the mapping handler answer, every document written', async () => {
    // GIVEN: the function's code is the Pipes enrichment; the old event source mapping still calls it.
    const logGroup = '/kfek/switch/lambda-to-pipes';
    const data = encodeEnvelope(makeEnvelope({ logGroup, logEvents: makeLogEvents(3) }));
    const before = (await eventsStreamDocuments()).filter((d) => d.cloudwatch.logGroup === logGroup).length;
    // WHEN
    const answer = await handler(makeKinesisEvent([data], { streamArn: RAW_ARN }), context);
    // THEN: no poison item for the whole event: the mapping's answer, and the documents on the events stream.
    expect(answer).toEqual({ batchItemFailures: [] });
    const after = (await eventsStreamDocuments()).filter((d) => d.cloudwatch.logGroup === logGroup);
    expect(after.length - before).toBe(3);
  });

  test('pipes -> lambda: a pipe batch gets the enrichment answer, not a mapping failure', async () => {
    // GIVEN: the function's code is the mapping handler; the old pipe still calls it with its flat records.
    const { handler: mappingHandler } = (await import('../../../lambda/transform/handler')) as unknown as {
      handler: Handler;
    };
    const logGroup = '/kfek/switch/pipes-to-lambda';
    const [record] = pipesBatch([encodeEnvelope(makeEnvelope({ logGroup, logEvents: makeLogEvents(4) }))]);
    // WHEN
    const items = await mappingHandler([record], context);
    // THEN: the pipe gets one item per event to deliver, as from the enrichment itself.
    expect(items).toHaveLength(4);
    expect(items.every((i) => i.cloudwatch.logGroup === logGroup && i.kfek.error === undefined)).toBe(true);
  });
});
