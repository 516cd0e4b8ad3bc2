/**
 * The EventBridge Pipes enrichment over the same fixtures as the Kinesis handler, in the flat record shape
 * Pipes delivers (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-kinesis.html).
 *
 * `processPipesBatch` gets in-memory ports here (a capturing writer and dead-letter store: the rules are what is
 * tested); pipes-integration.test.ts runs the deployed handler against moto's Kinesis and S3.
 */
import type { Context } from 'aws-lambda';
import type { DeadLetterSource } from '../../../lambda/transform/dead-letter-object';
import { KinesisWriteRejectedError } from '../../../lambda/transform/kinesis-writer-errors';
import { WRITE_CHUNK_DOCUMENTS, type WriteResult } from '../../../lambda/transform/ports';
import {
  PIPES_MAX_ANSWER_BYTES,
  PipesDeadLetterError,
  PipesOverflowWriteError,
  type PipesBatchDeps,
  type PipesKinesisRecord,
} from '../../../lambda/transform/pipes-batch';
import { partitionKeyFor } from '../../../core/transform/serialize';
import { toErrorDocument, transformRecord } from '../../../core/transform/transform';
import type { SerializedDocument } from '../../../core/transform/types';
import {
  DEFAULT_LOG_GROUP,
  DEFAULT_LOG_STREAM,
  encodeEnvelope,
  makeEnvelope,
  makeKinesisEvent,
  makeLogEvents,
} from '../../helpers/cloudwatch';
import { completeWrite } from '../../helpers/write-results';

type PipesModule = typeof import('../../../lambda/transform/pipes');
let pipes: PipesModule;
const savedEnv = { ...process.env };

/** The Lambda event source mapping records of the shared factory, flattened the way Pipes sends them. */
function pipesRecords(datas: string[]): PipesKinesisRecord[] {
  return makeKinesisEvent(datas).Records.map(({ kinesis, ...rest }) => ({ ...kinesis, ...rest }));
}

const context = {
  awsRequestId: 'req-1',
  functionName: 'kfek-pipes-enrichment',
  getRemainingTimeInMillis: () => 30_000,
} as unknown as Context;

/** In-memory ports: what was written to the events stream and what was dead-lettered. */
function fakes(overrides: Partial<PipesBatchDeps> = {}): {
  deps: PipesBatchDeps;
  written: SerializedDocument[];
  deadLettered: Array<{ source: DeadLetterSource; data: string; reason: string }>;
} {
  const written: SerializedDocument[] = [];
  const deadLettered: Array<{ source: DeadLetterSource; data: string; reason: string }> = [];
  const deps: PipesBatchDeps = {
    transform: transformRecord,
    errorDocument: toErrorDocument,
    writer: {
      write: (docs) => {
        written.push(...docs);
        return Promise.resolve(completeWrite(docs));
      },
    },
    deadLetters: {
      put: (source, data, reason) => {
        deadLettered.push({ source, data, reason });
        return Promise.resolve(`dead-letter/transform/${source.sequenceNumber}.json`);
      },
    },
    deadLetterBucket: 'kfek-bucket',
    logger: { warn: () => undefined, error: () => undefined },
    remainingMs: () => 30_000,
    now: () => new Date('2026-11-23T09:00:00.000Z'),
    ...overrides,
  };
  return { deps, written, deadLettered };
}

beforeAll(async () => {
  Object.assign(process.env, {
    POWERTOOLS_DEV: 'true',
    POWERTOOLS_METRICS_DISABLED: 'false',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    // Read at module scope; these tests never reach the stream or the bucket through the handler.
    EVENTS_STREAM_ARN: 'arn:aws:kinesis:us-east-1:123456789012:stream/kfek-events',
    DEAD_LETTER_BUCKET: 'kfek-bucket',
    AWS_REGION: 'us-east-1',
  });
  pipes = await import('../../../lambda/transform/pipes');
});

afterAll(() => {
  process.env = savedEnv;
});

let consoleLog: jest.SpyInstance;
beforeEach(() => {
  consoleLog = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  jest.spyOn(console, 'error').mockImplementation(() => undefined);
  jest.spyOn(console, 'warn').mockImplementation(() => undefined);
  jest.spyOn(console, 'info').mockImplementation(() => undefined);
});
afterEach(() => jest.restoreAllMocks());

test('reads the record shape of the AWS documentation example (flat, data at the top level)', async () => {
  // GIVEN: the documented example batch, with its data replaced by a real subscription envelope.
  const data = encodeEnvelope(makeEnvelope({ logEvents: makeLogEvents(2) }));
  const documented = [
    {
      kinesisSchemaVersion: '1.0',
      partitionKey: '1',
      sequenceNumber: '49590338271490256608559692538361571095921575989136588898',
      data,
      approximateArrivalTimestamp: 1545084650.987,
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: 'shardId-000000000006:49590338271490256608559692538361571095921575989136588898',
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: 'arn:aws:iam::123456789012:role/lambda-role',
      awsRegion: 'us-east-2',
      eventSourceARN: 'arn:aws:kinesis:us-east-2:123456789012:stream/lambda-stream',
    },
  ];
  // WHEN
  const documents = await pipes.handler(documented, context);
  // THEN
  expect(documents.map((d) => d.cloudwatch.id)).toEqual(makeLogEvents(2).map((e) => e.id));
  // The shared factory's records, flattened, have the same keys as the documented example.
  expect(Object.keys(pipesRecords([data])[0]).sort()).toEqual(Object.keys(documented[0]).sort());
});

test('returns the flat array of documents in order: events, nothing for control, an error document for poison', async () => {
  // GIVEN
  const first = makeLogEvents(3, (i) => JSON.stringify({ level: 'WARN', message: `disk ${i}`, disk: i }));
  const second = makeLogEvents(2).map((e, i) => ({ ...e, id: `7${i}`.padStart(56, '7') }));
  const poisonData = Buffer.from('{"not":"an envelope"').toString('base64');
  const input = pipesRecords([
    encodeEnvelope(makeEnvelope({ logEvents: first })),
    encodeEnvelope(makeEnvelope({ messageType: 'CONTROL_MESSAGE', logGroup: '', logStream: '' })),
    poisonData,
    encodeEnvelope(makeEnvelope({ logEvents: second, logGroup: '/aws/ecs/web' }), { gzip: false }),
  ]);
  const { deps, written, deadLettered } = fakes();
  // WHEN
  const { items, counters } = await pipes.processPipesBatch(input, deps);
  // THEN
  expect(items).toHaveLength(6);
  expect(items.slice(0, 3).map((d) => d.cloudwatch.id)).toEqual(first.map((e) => e.id));
  expect(items[0]).toMatchObject({ message: 'disk 0', disk: 0, level: 'WARN' });
  expect(items[3].kfek.error).toEqual({
    reason: expect.any(String),
    data: poisonData,
    deadLetter: { bucket: 'kfek-bucket', key: `dead-letter/transform/${input[2].sequenceNumber}.json` },
  });
  expect(items[3].kfek.error?.reason).not.toBe('');
  expect(items[3]['@timestamp']).toBe('2026-11-23T09:00:00.000Z');
  expect(items.slice(4).map((d) => d.cloudwatch)).toEqual(
    second.map((e): unknown => expect.objectContaining({ id: e.id, logGroup: '/aws/ecs/web' })),
  );
  // Plain objects, not strings: Pipes forwards each array item to the target as its own event.
  expect(items.every((d) => typeof d === 'object')).toBe(true);
  // The poison record is kept whole, with where it came from; nothing went to the stream directly.
  expect(deadLettered).toEqual([
    {
      source: expect.objectContaining({
        sequenceNumber: input[2].sequenceNumber,
        partitionKey: input[2].partitionKey,
      }),
      data: poisonData,
      reason: items[3].kfek.error?.reason,
    },
  ]);
  expect(written).toEqual([]);
  expect(counters).toMatchObject({
    RecordsIn: 4,
    EventsOut: 6,
    ControlMessages: 1,
    PoisonRecords: 1,
    DeadLetteredRecords: 1,
    OverflowDocuments: 0,
    MaskedValues: 0,
    DroppedEvents: 0,
    JoinedLines: 0,
  });
});

test('every item carries the partition key the Kinesis handler uses for its document', async () => {
  // GIVEN
  const input = pipesRecords([
    encodeEnvelope(makeEnvelope({ logEvents: makeLogEvents(2) })),
    Buffer.from('poison').toString('base64'),
  ]);
  // WHEN
  const { items } = await pipes.processPipesBatch(input, fakes().deps);
  // THEN: one rule, a 43-character hash, for events (group and stream) and error documents (source key).
  expect(items.map((d) => d.kfek.partitionKey)).toEqual([
    partitionKeyFor(DEFAULT_LOG_GROUP, DEFAULT_LOG_STREAM),
    partitionKeyFor(DEFAULT_LOG_GROUP, DEFAULT_LOG_STREAM),
    partitionKeyFor('', input[1].partitionKey),
  ]);
  expect(items.every((d) => d.kfek.partitionKey.length === 43)).toBe(true);
});

test('publishes its counters as one EMF line', async () => {
  // GIVEN
  const input = pipesRecords([encodeEnvelope(makeEnvelope({ logEvents: makeLogEvents(3) }))]);
  // WHEN
  await pipes.handler(input, context);
  // THEN
  const emf = consoleLog.mock.calls
    .map(([line]: [unknown]) => line)
    .filter((line): line is string => typeof line === 'string' && line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  expect(emf).toHaveLength(1);
  expect(emf[0]).toMatchObject({ RecordsIn: 1, EventsOut: 3, OverflowDocuments: 0 });
});

test('produces the same documents as the Kinesis path for the same records', async () => {
  // The shared core is the contract: same input, same documents, whichever entry point.
  const envelope = makeEnvelope({ logEvents: makeLogEvents(5, (i) => `plain text ${i}\n`) });
  const { items } = await pipes.processPipesBatch(pipesRecords([encodeEnvelope(envelope)]), fakes().deps);
  expect(items.map((d) => d.message)).toEqual([0, 1, 2, 3, 4].map((i) => `plain text ${i}`));
});

test.each([
  ['null', null],
  ['a string', 'hello'],
  ['a record without data', [{ sequenceNumber: '1', partitionKey: 'p' }]],
  ['a record with numeric data', [{ data: 42 }]],
  ['an array with null', [null]],
])('never throws for %s: it dead-letters it and returns an error document', async (_label, input) => {
  const { deps, deadLettered } = fakes();
  const { items } = await pipes.processPipesBatch(input, deps);
  expect(items).toHaveLength(1);
  expect(items[0].kfek.error?.reason).toEqual(expect.any(String));
  expect(items[0].kfek.partitionKey).toHaveLength(43);
  expect(deadLettered).toHaveLength(1);
  expect(deadLettered[0].source.sequenceNumber).not.toBe('');
});

test('an empty batch yields no documents', async () => {
  await expect(pipes.handler([], context)).resolves.toEqual([]);
});

test('writes more than 500 documents itself, in order, and answers with none (counted)', async () => {
  // GIVEN: one envelope with 501 events.
  const logEvents = makeLogEvents(501);
  const input = pipesRecords([encodeEnvelope(makeEnvelope({ logEvents }))]);
  const { deps, written } = fakes();
  // WHEN
  const { items, counters } = await pipes.processPipesBatch(input, deps);
  // THEN
  expect(items).toEqual([]);
  const docs = written.map((d) => JSON.parse(d.json) as { message: string; kfek: { partitionKey: string } });
  expect(docs.map((d) => d.message)).toEqual(logEvents.map((e) => e.message));
  expect(written.every((d, i) => d.partitionKey === docs[i].kfek.partitionKey)).toBe(true);
  expect(counters).toMatchObject({ EventsOut: 501, RecordsOut: 501, OverflowDocuments: 501 });
});

test('writes an answer larger than the response limit itself, even under 500 documents', async () => {
  // GIVEN: 10 events of 600 KB: 10 items, but about 6 MB of JSON.
  const input = pipesRecords([
    encodeEnvelope(
      makeEnvelope(
        {},
        Array.from({ length: 10 }, () => ({ message: 'm'.repeat(600_000) })),
      ),
    ),
  ]);
  const { deps, written } = fakes();
  // WHEN
  const { items, counters } = await pipes.processPipesBatch(input, deps);
  // THEN
  expect(10 * 600_000).toBeGreaterThan(PIPES_MAX_ANSWER_BYTES);
  expect(items).toEqual([]);
  expect(written).toHaveLength(10);
  expect(counters.OverflowDocuments).toBe(10);
});

test('fails the batch when a poison record cannot be stored (Pipes retries it)', async () => {
  const { deps } = fakes({
    deadLetters: { put: () => Promise.reject(new Error('AccessDenied')) },
  });
  await expect(
    pipes.processPipesBatch(pipesRecords([Buffer.from('x').toString('base64')]), deps),
  ).rejects.toBeInstanceOf(PipesDeadLetterError);
});

test.each([
  [
    'the writer runs out of budget',
    (): Promise<WriteResult> =>
      Promise.resolve({
        ...completeWrite([]),
        complete: false,
        writtenCount: 3,
        stoppedBecause: 'budget' as const,
      }),
  ],
  [
    'the writer is refused',
    (): Promise<WriteResult> =>
      Promise.reject(
        new KinesisWriteRejectedError('AccessDenied', { ...completeWrite([]), complete: false }),
      ),
  ],
])('fails the batch when an overflow cannot be written: %s', async (_label, write) => {
  const { deps } = fakes({ writer: { write } });
  const input = pipesRecords([encodeEnvelope(makeEnvelope({ logEvents: makeLogEvents(501) }))]);
  await expect(pipes.processPipesBatch(input, deps)).rejects.toBeInstanceOf(PipesOverflowWriteError);
});

test('writes an overflow in chunks as records are transformed, so memory holds one chunk, not the batch', async () => {
  // GIVEN: three records of 3,000 events; the answer overflows after the first.
  const envelopes = [0, 1, 2].map((r) =>
    encodeEnvelope(makeEnvelope({ logEvents: makeLogEvents(3_000, (i) => `r${r} e${i}`) })),
  );
  const calls: number[] = [];
  const { deps, written } = fakes();
  const write = deps.writer.write.bind(deps.writer);
  // WHEN
  const { items, counters } = await pipes.processPipesBatch(pipesRecords(envelopes), {
    ...deps,
    writer: {
      write: (docs, options) => {
        calls.push(docs.length);
        return write(docs, options);
      },
    },
  });
  // THEN: a chunk is written once it reaches WRITE_CHUNK_DOCUMENTS (at a record boundary), the rest at the end.
  expect(WRITE_CHUNK_DOCUMENTS).toBe(5_000);
  expect(calls).toEqual([6_000, 3_000]);
  expect(items).toEqual([]);
  expect(written.map((d) => (JSON.parse(d.json) as { message: string }).message)).toEqual(
    [0, 1, 2].flatMap((r) => Array.from({ length: 3_000 }, (_, i) => `r${r} e${i}`)),
  );
  expect(counters).toMatchObject({ EventsOut: 9_000, OverflowDocuments: 9_000 });
});
