/**
 * `handler.ts` end to end with the real transform core: real gzip envelopes in, PutRecords and PutObject out.
 * Kinesis and S3 are aws-sdk-client-mock doubles here (no AWS account); `test/lambda/transform/handler-integration.test.ts` runs the same
 * handler against a real moto server.
 */
import { KinesisClient, PutRecordsCommand, type PutRecordsCommandInput } from '@aws-sdk/client-kinesis';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import type { DeadLetterObject } from '../../../lambda/transform/dead-letter-object';
import { deaggregate } from '../../../core/transform/kpl-aggregation';
import type { LogDocument } from '../../../core/transform/types';
import { encodeEnvelope, makeEnvelope, makeKinesisEvent, makeLogEvents } from '../../helpers/cloudwatch';
import { lambdaContext, lambdaContextWithBudget } from '../../helpers/lambda-context';

type Handler = (event: KinesisStreamEvent, context: Context) => Promise<KinesisStreamBatchResponse>;

const EVENTS_ARN = 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events';
const kinesis = mockClient(KinesisClient);
const s3 = mockClient(S3Client);
const savedEnv = { ...process.env };
let handler: Handler;
let consoleLog: jest.SpyInstance;

/** The documents one PutRecords entry holds (the handler aggregates by default), parsed. */
function documentsOf(data: Uint8Array): LogDocument[] {
  return deaggregate(data).records.map((d) => JSON.parse(Buffer.from(d).toString('utf8')) as LogDocument);
}

/** Documents of every entry Kinesis was asked to store, in call and entry order. */
function sentDocuments(): LogDocument[] {
  return kinesis
    .commandCalls(PutRecordsCommand)
    .flatMap((c) => c.args[0].input.Records!.flatMap((r) => documentsOf(r.Data!)));
}

/** EMF lines Powertools printed, merged into one name -> value map. */
function emittedMetrics(): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  for (const [line] of consoleLog.mock.calls as Array<[unknown]>) {
    if (typeof line !== 'string' || !line.includes('"_aws"')) continue;
    Object.assign(merged, JSON.parse(line));
  }
  return merged;
}

beforeAll(async () => {
  process.env.EVENTS_STREAM_ARN = EVENTS_ARN;
  process.env.DEAD_LETTER_BUCKET = 'kfek-dead-letter';
  process.env.AWS_REGION = 'eu-west-1';
  // POWERTOOLS_DEV makes Powertools print through the global console (so the test can read the EMF lines);
  // it also disables metrics unless POWERTOOLS_METRICS_DISABLED says otherwise.
  process.env.POWERTOOLS_DEV = 'true';
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  ({ handler } = (await import('../../../lambda/transform/handler')) as { handler: Handler });
});

afterAll(() => {
  process.env = savedEnv;
});

beforeEach(() => {
  kinesis.reset();
  s3.reset();
  s3.on(PutObjectCommand).resolves({});
  consoleLog = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  for (const level of ['info', 'warn', 'error', 'debug'] as const) {
    jest.spyOn(console, level).mockImplementation(() => undefined);
  }
});

afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
});

function acknowledgeAll(refuse: (doc: LogDocument) => boolean = () => false): void {
  kinesis.on(PutRecordsCommand).callsFake((input: PutRecordsCommandInput) => {
    const records = input.Records!.map((r) => {
      // Every document is shown to `refuse` (no short-circuit): a record is refused if any of its documents is.
      const refused = documentsOf(r.Data!).map(refuse);
      return refused.includes(true)
        ? { ErrorCode: 'ProvisionedThroughputExceededException', ErrorMessage: 'Rate exceeded' }
        : { SequenceNumber: '1', ShardId: 'shardId-000000000000' };
    });
    return Promise.resolve({
      FailedRecordCount: records.filter((r) => 'ErrorCode' in r).length,
      Records: records,
    });
  });
}

test('writes one document per log event, skips control messages, dead-letters poison, and counts it all', async () => {
  // GIVEN: two data envelopes (one gzip, one plain JSON), a control message, and two kinds of poison.
  const appEvents = makeLogEvents(3, (i) =>
    JSON.stringify({ level: 'INFO', message: `order ${i} shipped`, orderId: i }),
  );
  const event = makeKinesisEvent([
    encodeEnvelope(makeEnvelope({ logEvents: appEvents })),
    encodeEnvelope(
      makeEnvelope({
        messageType: 'CONTROL_MESSAGE',
        logGroup: '',
        logStream: '',
        logEvents: makeLogEvents(1),
      }),
    ),
    Buffer.from('definitely not gzip').toString('base64'),
    encodeEnvelope(makeEnvelope({ logGroup: '/aws/lambda/other', logEvents: makeLogEvents(2) }), {
      gzip: false,
    }),
    encodeEnvelope('{"messageType":"DATA_MESSAGE","logEvents":"not an array"}'),
  ]);
  acknowledgeAll();
  // WHEN
  const response = await handler(
    event,
    lambdaContext(() => 60_000),
  );
  // THEN
  expect(response).toEqual({ batchItemFailures: [] });
  const docs = sentDocuments();
  expect(docs).toHaveLength(5);
  expect(docs.map((d) => d.cloudwatch.id)).toEqual([
    ...appEvents.map((e) => e.id),
    ...makeLogEvents(2).map((e) => e.id),
  ]);
  expect(docs[0]).toMatchObject({
    message: 'order 0 shipped',
    orderId: 0,
    cloudwatch: { owner: '123456789012' },
  });
  expect(docs[3].cloudwatch.logGroup).toBe('/aws/lambda/other');
  const keys = new Set(
    kinesis
      .commandCalls(PutRecordsCommand)
      .flatMap((c) => c.args[0].input.Records!.map((r) => r.PartitionKey)),
  );
  expect(keys.size).toBe(2); // one per log group/stream, never a constant
  expect(kinesis.commandCalls(PutRecordsCommand)[0].args[0].input.StreamARN).toBe(EVENTS_ARN);

  const puts = s3.commandCalls(PutObjectCommand).map((c) => c.args[0].input);
  expect(puts).toHaveLength(2);
  const bodies = puts.map((p) => JSON.parse(p.Body as string) as DeadLetterObject);
  expect(bodies.map((b) => b.source.sequenceNumber).sort()).toEqual(
    [event.Records[2].kinesis.sequenceNumber, event.Records[4].kinesis.sequenceNumber].sort(),
  );
  for (const body of bodies) {
    const raw = event.Records.find((r) => r.kinesis.sequenceNumber === body.source.sequenceNumber)!;
    expect(body.data).toBe(raw.kinesis.data);
    expect(body.reason).not.toBe('');
    expect(body.source).toMatchObject({
      eventId: raw.eventID,
      streamArn: raw.eventSourceARN,
      shardId: 'shardId-000000000000',
    });
  }
  expect(
    puts.every((p) => p.Bucket === 'kfek-dead-letter' && p.Key!.startsWith('dead-letter/transform/year=')),
  ).toBe(true);

  const emf = emittedMetrics();
  expect(emf).toMatchObject({
    RecordsIn: 5,
    EventsOut: 5,
    // One aggregated record per log stream: 3 documents, then 2.
    RecordsOut: 2,
    DocumentsPerRecord: 2.5,
    ControlMessages: 1,
    PoisonRecords: 2,
    DeadLetteredRecords: 2,
    TruncatedDocuments: 0,
    RetriedEntries: 0,
    Throttles: 0,
    service: 'transform',
  });
  expect(JSON.stringify(emf._aws)).toContain('"Namespace":"kfek"');
});

test('names the earliest record with unwritten events when the budget runs out; earlier records are written', async () => {
  // GIVEN: four data records from four log streams (so four aggregated records); one event of record 2 is
  // throttled forever. 1.6 s left = 0.6 s of budget, on jest's fake clock: the writer's backoff sleeps and the
  // remaining time both run on it, so the test takes no real time and cannot race the machine's load.
  const records = [0, 1, 2, 3].map((r) =>
    makeLogEvents(4).map((e, i) => ({
      ...e,
      id: `${r}${i}`.padStart(56, '9'),
      message: `record ${r} event ${i}`,
    })),
  );
  const event = makeKinesisEvent(
    records.map((logEvents, r) => encodeEnvelope(makeEnvelope({ logEvents, logStream: `stream-${r}` }))),
  );
  acknowledgeAll((doc) => doc.message === 'record 2 event 3');
  jest.useFakeTimers({ now: Date.parse('2026-11-23T09:00:00Z'), doNotFake: ['nextTick', 'queueMicrotask'] });
  const deadline = Date.now() + 1_600;
  // WHEN the handler runs until the fake clock passes the deadline
  const responding = handler(event, lambdaContextWithBudget(1_600));
  await jest.advanceTimersByTimeAsync(1_600);
  const response = await responding;
  // THEN
  expect(response).toEqual({
    batchItemFailures: [{ itemIdentifier: event.Records[2].kinesis.sequenceNumber }],
  });
  const acknowledged = new Set(
    sentDocuments()
      .filter((d) => d.message !== 'record 2 event 3')
      .map((d) => d.message),
  );
  for (const r of [0, 1])
    for (let i = 0; i < 4; i++) expect(acknowledged).toContain(`record ${r} event ${i}`);
  expect(Date.now()).toBeLessThanOrEqual(deadline);
  expect(emittedMetrics()).toMatchObject({ PartialBatchResponses: 1 });
  expect(Number(emittedMetrics().Throttles)).toBeGreaterThan(0);
});

test('retries throttled entries and writes the whole batch when there is time', async () => {
  // GIVEN: every entry is throttled twice before it is accepted; the 20 events of one log stream share one
  // aggregated record, so that one record is what is retried.
  const seen = new Map<string, number>();
  acknowledgeAll((doc) => {
    const n = seen.get(doc.cloudwatch.id) ?? 0;
    seen.set(doc.cloudwatch.id, n + 1);
    return n < 2;
  });
  const event = makeKinesisEvent([encodeEnvelope(makeEnvelope({ logEvents: makeLogEvents(20) }))]);
  // WHEN
  const response = await handler(
    event,
    lambdaContext(() => 30_000),
  );
  // THEN
  expect(response.batchItemFailures).toEqual([]);
  expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(3);
  expect(emittedMetrics()).toMatchObject({ EventsOut: 20, RecordsOut: 1, RetriedEntries: 2, Throttles: 2 });
});

test('an empty or malformed event is answered without throwing', async () => {
  await expect(
    handler(
      { Records: [] },
      lambdaContext(() => 10_000),
    ),
  ).resolves.toEqual({ batchItemFailures: [] });
  await expect(
    handler(
      {} as KinesisStreamEvent,
      lambdaContext(() => 10_000),
    ),
  ).resolves.toEqual({ batchItemFailures: [] });
  expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(0);
});
