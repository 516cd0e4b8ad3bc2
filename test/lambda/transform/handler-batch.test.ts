/**
 * The batch logic behind `handler.ts` with a scripted transform, so each test decides exactly which record is
 * data, control or poison. The real KinesisWriter and S3DeadLetterStore run against aws-sdk-client-mock
 * (there is no AWS here; the integration test runs the same code against moto).
 */
import { KinesisClient, PutRecordsCommand, type PutRecordsCommandInput } from '@aws-sdk/client-kinesis';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { S3DeadLetterStore } from '../../../lambda/transform/dead-letter';
import { type DeadLetterObject } from '../../../lambda/transform/dead-letter-object';
import { processKinesisBatch } from '../../../lambda/transform/kinesis-batch';
import type { BatchLogger } from '../../../lambda/transform/ports';
import { KinesisWriter } from '../../../lambda/transform/kinesis-writer';
import { deaggregate } from '../../../core/transform/kpl-aggregation';
import type { RecordOutcome, SerializedDocument } from '../../../core/transform/types';

const RAW_ARN = 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-raw';
const EVENTS_ARN = 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events';
const kinesis = mockClient(KinesisClient);
const s3 = mockClient(S3Client);

/** A record's data is a script: `data:a,b` (documents a and b), `control`, or `poison:<reason>`. */
function scriptedTransform(data: string): RecordOutcome {
  const text = Buffer.from(data, 'base64').toString('utf8');
  if (text === 'control') return { kind: 'control' };
  if (text.startsWith('poison:')) return { kind: 'poison', reason: text.slice('poison:'.length) };
  if (text.startsWith('throw')) throw new Error('core bug');
  const names = text.slice('data:'.length).split(',');
  return {
    kind: 'data',
    documents: names.map((name): SerializedDocument => {
      const json = JSON.stringify({ message: name });
      return { json, bytes: Buffer.byteLength(json), partitionKey: 'g/s', truncated: name.endsWith('!') };
    }),
  };
}

function record(index: number, script: string): KinesisStreamRecord {
  const sequenceNumber = `4959033827149025660855969253836157109592157598913658${String(index).padStart(4, '0')}`;
  return {
    eventSource: 'aws:kinesis',
    eventVersion: '1.0',
    eventID: `shardId-000000000003:${sequenceNumber}`,
    eventName: 'aws:kinesis:record',
    invokeIdentityArn: 'arn:aws:iam::123456789012:role/kfek-transform',
    awsRegion: 'eu-west-1',
    eventSourceARN: RAW_ARN,
    kinesis: {
      kinesisSchemaVersion: '1.0',
      partitionKey: `pk-${index}`,
      sequenceNumber,
      data: Buffer.from(script).toString('base64'),
      approximateArrivalTimestamp: 1_795_000_000.123 + index,
    },
  };
}

function event(...scripts: string[]): KinesisStreamEvent {
  return { Records: scripts.map((s, i) => record(i, s)) };
}

const logger: BatchLogger & { warnings: unknown[][]; errors: unknown[][] } = {
  warnings: [],
  errors: [],
  warn(...args: unknown[]) {
    this.warnings.push(args);
  },
  error(...args: unknown[]) {
    this.errors.push(args);
  },
};

/**
 * Kinesis that acknowledges everything except entries holding a document `refuse` names, and remembers what it
 * stored (entries may be aggregated records: every document in one is stored or refused together).
 */
function kinesisStoring(refuse: (message: string) => string | undefined = () => undefined): string[] {
  const stored: string[] = [];
  kinesis.on(PutRecordsCommand).callsFake((input: PutRecordsCommandInput) => {
    const records = input.Records!.map((r) => {
      const messages = deaggregate(r.Data!).records.map(
        (d) => (JSON.parse(Buffer.from(d).toString('utf8')) as { message: string }).message,
      );
      const errorCode = messages.map(refuse).find((code) => code !== undefined);
      if (errorCode) return { ErrorCode: errorCode, ErrorMessage: 'injected' };
      stored.push(...messages);
      return { SequenceNumber: '1', ShardId: 'shardId-000000000000' };
    });
    return Promise.resolve({
      FailedRecordCount: records.filter((r) => 'ErrorCode' in r).length,
      Records: records,
    });
  });
  return stored;
}

/** One record per document unless `aggregate`: most tests here pin the resume point per document. */
function deps(clock?: { now: number }, aggregate = false) {
  return {
    transform: scriptedTransform,
    writer: new KinesisWriter({
      client: new KinesisClient({ region: 'eu-west-1' }),
      streamArn: EVENTS_ARN,
      aggregate,
      random: () => 0.5,
      sleep: (ms: number) => {
        if (clock) clock.now += ms;
        return Promise.resolve();
      },
    }),
    deadLetters: new S3DeadLetterStore({
      client: new S3Client({ region: 'eu-west-1' }),
      bucket: 'kfek-dead-letter',
      prefix: 'dead-letter/transform/',
      now: () => new Date('2026-11-23T09:30:00.000Z'),
    }),
    logger,
  };
}

beforeEach(() => {
  kinesis.reset();
  s3.reset();
  s3.on(PutObjectCommand).resolves({});
  logger.warnings.length = 0;
  logger.errors.length = 0;
});

test('a mix of data, control and poison: every document written, poison stored, nothing reported', async () => {
  // GIVEN
  const stored = kinesisStoring();
  const input = event('data:a,b', 'control', 'poison:not gzip', 'data:c!,d');
  // WHEN
  const outcome = await processKinesisBatch(input, () => 60_000, deps());
  // THEN
  expect(outcome.response).toEqual({ batchItemFailures: [] });
  expect(stored).toEqual(['a', 'b', 'c!', 'd']);
  expect(outcome.counters).toEqual({
    RecordsIn: 4,
    EventsOut: 4,
    RecordsOut: 4,
    ControlMessages: 1,
    PoisonRecords: 1,
    DeadLetteredRecords: 1,
    TruncatedDocuments: 1,
    RetriedEntries: 0,
    Throttles: 0,
    PartialBatchResponses: 0,
    OverflowDocuments: 0,
    MaskedValues: 0,
    DroppedEvents: 0,
    JoinedLines: 0,
  });
  // Documents of several records share one PutRecords call.
  expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(1);
});

test('stores the poison record raw, with its reason and source metadata, under a dated deterministic key', async () => {
  // GIVEN
  kinesisStoring();
  const input = event('data:a', 'poison:unknown messageType "FOO"');
  // WHEN
  await processKinesisBatch(input, () => 60_000, deps());
  // THEN
  const puts = s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
  expect(puts).toHaveLength(1);
  const raw = input.Records[1];
  expect(puts[0].Bucket).toBe('kfek-dead-letter');
  expect(puts[0].ContentType).toBe('application/json');
  // Arrival 1_795_000_001.123 s = 2026-11-18T11:06:41.123Z: the key is dated by arrival, not by processing time.
  expect(puts[0].Key).toBe(
    `dead-letter/transform/year=2026/month=11/day=18/hour=11/kfek-raw/shardId-000000000003/${raw.kinesis.sequenceNumber}.json`,
  );
  const body = JSON.parse(puts[0].Body as string) as DeadLetterObject;
  expect(body).toEqual({
    version: 1,
    reason: 'unknown messageType "FOO"',
    receivedAt: '2026-11-23T09:30:00.000Z',
    source: {
      eventId: raw.eventID,
      sequenceNumber: raw.kinesis.sequenceNumber,
      shardId: 'shardId-000000000003',
      partitionKey: 'pk-1',
      streamArn: RAW_ARN,
      approximateArrivalTimestamp: raw.kinesis.approximateArrivalTimestamp,
      approximateArrival: '2026-11-18T11:06:41.123Z',
      awsRegion: 'eu-west-1',
    },
    data: raw.kinesis.data,
  });
});

test('reports the earliest record with an unwritten document when the budget runs out', async () => {
  // GIVEN: record 2's second document is throttled forever; records 3 and 4 are written.
  const stored = kinesisStoring((m) => (m === 'e' ? 'ProvisionedThroughputExceededException' : undefined));
  const clock = { now: 0 };
  const input = event('data:a,b', 'control', 'data:d,e,f', 'data:g', 'poison:bad');
  // WHEN
  const outcome = await processKinesisBatch(input, () => 3_000 - clock.now, deps(clock));
  // THEN
  expect(outcome.response).toEqual({
    batchItemFailures: [{ itemIdentifier: input.Records[2].kinesis.sequenceNumber }],
  });
  // Everything before record 2 is written; record 2 is not complete.
  expect(stored).toEqual(expect.arrayContaining(['a', 'b', 'd', 'f', 'g']));
  expect(stored).not.toContain('e');
  expect(outcome.counters.PartialBatchResponses).toBe(1);
  expect(outcome.counters.Throttles).toBeGreaterThan(1);
  expect(outcome.counters.EventsOut).toBe(5);
  expect(
    logger.warnings.some(([message]) => String(message).includes('retry from the reported record')),
  ).toBe(true);
});

test('aggregated: a refused record holds back every document in it, so the resume point is its earliest owner', async () => {
  // GIVEN: one partition key, so records 0 and 2 share one aggregated record; a document of record 2 is
  // throttled forever.
  const stored = kinesisStoring((m) => (m === 'e' ? 'ProvisionedThroughputExceededException' : undefined));
  const clock = { now: 0 };
  const input = event('data:a,b', 'control', 'data:d,e,f');
  // WHEN
  const outcome = await processKinesisBatch(input, () => 3_000 - clock.now, deps(clock, true));
  // THEN: record 0's documents went out in the refused record, so record 0 is where Lambda must resume.
  expect(outcome.response).toEqual({
    batchItemFailures: [{ itemIdentifier: input.Records[0].kinesis.sequenceNumber }],
  });
  expect(stored).toEqual([]);
  expect(outcome.counters).toMatchObject({ EventsOut: 0, RecordsOut: 0, PartialBatchResponses: 1 });
  expect(outcome.counters.RetriedEntries).toBe(outcome.counters.Throttles);
});

test('aggregated: documents of several records share one record per partition key', async () => {
  // GIVEN
  const stored = kinesisStoring();
  const input = event('data:a,b', 'control', 'data:c,d', 'poison:bad');
  // WHEN
  const outcome = await processKinesisBatch(input, () => 60_000, deps(undefined, true));
  // THEN
  expect(outcome.response).toEqual({ batchItemFailures: [] });
  expect(stored).toEqual(['a', 'b', 'c', 'd']);
  expect(outcome.counters).toMatchObject({ EventsOut: 4, RecordsOut: 1 });
  const entries = kinesis.commandCalls(PutRecordsCommand)[0].args[0].input.Records!;
  expect(entries).toHaveLength(1);
  expect(deaggregate(entries[0].Data!).aggregated).toBe(true);
});

test('reports the first record when nothing could be written', async () => {
  // GIVEN
  kinesis.on(PutRecordsCommand).rejects(
    Object.assign(new Error('Rate exceeded'), {
      name: 'ProvisionedThroughputExceededException',
      $fault: 'client',
      $metadata: { httpStatusCode: 400 },
    }),
  );
  const clock = { now: 0 };
  const input = event('control', 'poison:x', 'data:a', 'data:b');
  // WHEN
  const outcome = await processKinesisBatch(input, () => 2_000 - clock.now, deps(clock));
  // THEN: records 0 (control) and 1 (stored poison) are handled; record 2 is the resume point.
  expect(outcome.response.batchItemFailures).toEqual([
    { itemIdentifier: input.Records[2].kinesis.sequenceNumber },
  ]);
  expect(outcome.counters.DeadLetteredRecords).toBe(1);
});

test('a poison record whose dead-letter object cannot be stored is the resume point; later documents wait', async () => {
  // GIVEN
  s3.on(PutObjectCommand).rejects(
    Object.assign(new Error('Access Denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }),
  );
  const stored = kinesisStoring();
  const input = event('data:a', 'poison:bad', 'data:b');
  // WHEN
  const outcome = await processKinesisBatch(input, () => 60_000, deps());
  // THEN
  expect(outcome.response.batchItemFailures).toEqual([
    { itemIdentifier: input.Records[1].kinesis.sequenceNumber },
  ]);
  expect(stored).toEqual(['a']);
  expect(outcome.counters).toMatchObject({ PoisonRecords: 1, DeadLetteredRecords: 0, EventsOut: 1 });
  expect(logger.errors).toHaveLength(1);
});

test('a non-retryable Kinesis error still yields the exact resume point', async () => {
  // GIVEN: the first call (500 entries) succeeds, the stream then disappears.
  let calls = 0;
  kinesis.on(PutRecordsCommand).callsFake((i: PutRecordsCommandInput) => {
    calls += 1;
    if (calls > 1) {
      return Promise.reject(
        Object.assign(new Error('Stream not found'), {
          name: 'ResourceNotFoundException',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
        }),
      );
    }
    return Promise.resolve({
      FailedRecordCount: 0,
      Records: i.Records!.map(() => ({ SequenceNumber: '1', ShardId: 'shardId-000000000000' })),
    });
  });
  // Record 0 has 300 documents, record 1 has 300: the first call ends inside record 1.
  const many = (prefix: string) => `data:${Array.from({ length: 300 }, (_, i) => `${prefix}${i}`).join(',')}`;
  const input = event(many('x'), many('y'), 'data:z');
  // WHEN
  const outcome = await processKinesisBatch(input, () => 60_000, deps());
  // THEN
  expect(outcome.response.batchItemFailures).toEqual([
    { itemIdentifier: input.Records[1].kinesis.sequenceNumber },
  ]);
  expect(outcome.counters.EventsOut).toBe(500);
  expect(String(logger.errors[0][1] && (logger.errors[0][1] as { error: string }).error)).toContain(
    'ResourceNotFoundException',
  );
});

test('a transform that throws makes the record poison (stored, counted), never an exception', async () => {
  kinesisStoring();
  const input = event('throw', 'data:a');
  const outcome = await processKinesisBatch(input, () => 60_000, deps());
  expect(outcome.response.batchItemFailures).toEqual([]);
  const body = JSON.parse(
    s3.commandCalls(PutObjectCommand)[0].args[0].input.Body as string,
  ) as DeadLetterObject;
  expect(body.reason).toBe('transform failed unexpectedly: Error: core bug');
});

test('a record without data is poison, and a malformed event is an empty batch', async () => {
  kinesisStoring();
  const broken = event('data:a');
  (broken.Records[0].kinesis as { data?: string }).data = undefined;
  const outcome = await processKinesisBatch(broken, () => 60_000, deps());
  expect(outcome.counters).toMatchObject({ RecordsIn: 1, PoisonRecords: 1, DeadLetteredRecords: 1 });
  expect(outcome.response.batchItemFailures).toEqual([]);

  const empty = await processKinesisBatch({} as KinesisStreamEvent, () => 60_000, deps());
  expect(empty.response).toEqual({ batchItemFailures: [] });
  expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(0);
});

test('a document too large for one Kinesis record dead-letters its record instead of blocking the shard', async () => {
  // GIVEN: a (buggy) core output above 1 MiB.
  const stored = kinesisStoring();
  const big: SerializedDocument = {
    json: 'x'.repeat(1024 * 1024),
    bytes: 1024 * 1024,
    partitionKey: 'g/s',
    truncated: false,
  };
  const transform = (data: string): RecordOutcome =>
    Buffer.from(data, 'base64').toString() === 'big'
      ? { kind: 'data', documents: [big] }
      : scriptedTransform(data);
  // WHEN
  const outcome = await processKinesisBatch(event('big', 'data:a'), () => 60_000, { ...deps(), transform });
  // THEN
  expect(outcome.response.batchItemFailures).toEqual([]);
  expect(stored).toEqual(['a']);
  expect(outcome.counters.DeadLetteredRecords).toBe(1);
});

describe('chunks', () => {
  test('writes chunk by chunk and stops transforming at the first chunk that cannot be completed', async () => {
    // GIVEN: chunks close after 3 documents; record 3's document "g" is refused forever.
    const stored = kinesisStoring((m) => (m === 'g' ? 'InternalFailure' : undefined));
    const clock = { now: 0 };
    const transformed: string[] = [];
    const base = deps(clock);
    const transform = (data: string): RecordOutcome => {
      transformed.push(Buffer.from(data, 'base64').toString('utf8'));
      return scriptedTransform(data);
    };
    const input = event('data:a,b', 'data:c,d', 'data:e,f', 'data:g,h', 'poison:late', 'data:i');
    // WHEN
    const outcome = await processKinesisBatch(input, () => 2_000 - clock.now, {
      ...base,
      transform,
      chunkDocuments: 3,
    });
    // THEN: chunk 1 = records 0-1, chunk 2 = records 2-3 (fails at record 3); records 4-5 never touched.
    expect(outcome.response.batchItemFailures).toEqual([
      { itemIdentifier: input.Records[3].kinesis.sequenceNumber },
    ]);
    expect(transformed).toEqual(['data:a,b', 'data:c,d', 'data:e,f', 'data:g,h']);
    expect(stored).toEqual(expect.arrayContaining(['a', 'b', 'c', 'd', 'e', 'f', 'h']));
    expect(s3.commandCalls(PutObjectCommand)).toHaveLength(0);
    // One call per chunk, plus the retries of "g" within the budget.
    const firstTwo = kinesis.commandCalls(PutRecordsCommand).slice(0, 2);
    expect(firstTwo.map((c) => c.args[0].input.Records!.length)).toEqual([4, 4]);
    expect(outcome.counters).toMatchObject({ RecordsIn: 6, PoisonRecords: 0, PartialBatchResponses: 1 });
  });

  test('a record larger than a chunk is still handled whole, and all chunks complete', async () => {
    const stored = kinesisStoring();
    const input = event('data:a,b,c,d,e', 'control', 'data:f', 'poison:p', 'data:g');
    const outcome = await processKinesisBatch(input, () => 60_000, { ...deps(), chunkDocuments: 2 });
    expect(outcome.response.batchItemFailures).toEqual([]);
    expect(stored).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(2);
    expect(outcome.counters).toMatchObject({
      EventsOut: 7,
      ControlMessages: 1,
      PoisonRecords: 1,
      DeadLetteredRecords: 1,
    });
  });

  test('does not transform another chunk once the budget is spent; the next record is the resume point', async () => {
    // GIVEN: the first chunk's write uses up the whole budget.
    let left = 60_000;
    const transformed: number[] = [];
    const base = deps();
    kinesisStoring();
    const input = event('data:a', 'data:b', 'control');
    // WHEN
    const outcome = await processKinesisBatch(input, () => left, {
      ...base,
      chunkDocuments: 1,
      transform: (data) => {
        transformed.push(transformed.length);
        return scriptedTransform(data);
      },
      writer: {
        write: async (docs, options) => {
          const result = await base.writer.write(docs, options);
          left = 0;
          return result;
        },
      },
    });
    // THEN
    expect(transformed).toHaveLength(1);
    expect(outcome.response.batchItemFailures).toEqual([
      { itemIdentifier: input.Records[1].kinesis.sequenceNumber },
    ]);
  });
});
