import {
  KinesisClient,
  PutRecordsCommand,
  type PutRecordsCommandInput,
  type PutRecordsResultEntry,
} from '@aws-sdk/client-kinesis';
import { mockClient } from 'aws-sdk-client-mock';
import {
  classifyCallError,
  KinesisWriter,
  KinesisWriterError,
  OversizedDocumentError,
  type KinesisWriterProps,
} from '../../../lambda/transform/kinesis-writer';
import { KinesisWriteRejectedError } from '../../../lambda/transform/kinesis-writer-errors';
import { MAX_KINESIS_RECORD_BYTES, MAX_PUT_RECORDS_BYTES } from '../../../core/contracts/aws-limits';
import type { SerializedDocument } from '../../../core/transform/types';

const STREAM_ARN = 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events';
const kinesis = mockClient(KinesisClient);

function doc(json: string, partitionKey = 'group/stream'): SerializedDocument {
  return { json, bytes: Buffer.byteLength(json, 'utf8'), partitionKey, truncated: false };
}

function docs(n: number, partitionKey = 'group/stream'): SerializedDocument[] {
  return Array.from({ length: n }, (_, i) => doc(JSON.stringify({ i }), partitionKey));
}

/** A virtual clock: sleeping advances it, so budget tests run instantly and deterministically. */
class FakeClock {
  now = 0;
  readonly sleeps: number[] = [];
  constructor(private readonly budgetMs: number) {}
  readonly sleep = (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.now += ms;
    return Promise.resolve();
  };
  readonly remainingMs = (): number => this.budgetMs - this.now;
}

/** One record per document: these tests pin the packing and retry rules (writer-aggregation.test.ts: aggregated). */
function writer(clock: FakeClock, props: Partial<KinesisWriterProps> = {}): KinesisWriter {
  return new KinesisWriter({
    client: new KinesisClient({ region: 'eu-west-1' }),
    streamArn: STREAM_ARN,
    aggregate: false,
    sleep: clock.sleep,
    random: () => 0.5,
    ...props,
  });
}

/** The Data of every entry in every PutRecords call, decoded. */
function sentCalls(): string[][] {
  return kinesis
    .commandCalls(PutRecordsCommand)
    .map((call) => call.args[0].input.Records!.map((r) => Buffer.from(r.Data!).toString('utf8')));
}

function ok(n: number): PutRecordsResultEntry[] {
  return Array.from({ length: n }, (_, i) => ({
    SequenceNumber: String(i),
    ShardId: 'shardId-000000000000',
  }));
}

function serviceError(name: string, httpStatusCode: number, fault: 'client' | 'server'): Error {
  return Object.assign(new Error(`${name} from the mock`), {
    name,
    $fault: fault,
    $metadata: { httpStatusCode },
  });
}

/**
 * Simulates Kinesis: every entry whose data is in `written` succeeded; `decide` picks per-entry failures.
 * Returns the set of data Kinesis acknowledged, so tests can assert that nothing is lost.
 */
function simulate(decide: (data: string, callNo: number) => string | undefined): Set<string> {
  const acknowledged = new Set<string>();
  let callNo = 0;
  kinesis.on(PutRecordsCommand).callsFake((input: PutRecordsCommandInput) => {
    callNo += 1;
    const records = input.Records!.map((r) => {
      const data = Buffer.from(r.Data!).toString('utf8');
      const errorCode = decide(data, callNo);
      if (errorCode) return { ErrorCode: errorCode, ErrorMessage: 'injected' };
      acknowledged.add(data);
      return { SequenceNumber: String(callNo), ShardId: 'shardId-000000000000' };
    });
    return Promise.resolve({
      FailedRecordCount: records.filter((r) => 'ErrorCode' in r).length,
      Records: records,
    });
  });
  return acknowledged;
}

beforeEach(() => {
  kinesis.reset();
});

describe('packing', () => {
  test('splits 1,201 small documents into calls of 500, 500 and 201, in order, by StreamARN', async () => {
    // GIVEN
    const input = docs(1201);
    kinesis
      .on(PutRecordsCommand)
      .callsFake((i: PutRecordsCommandInput) =>
        Promise.resolve({ FailedRecordCount: 0, Records: ok(i.Records!.length) }),
      );
    // WHEN
    const result = await writer(new FakeClock(60_000)).write(input, { remainingMs: () => 60_000 });
    // THEN
    expect(sentCalls().map((c) => c.length)).toEqual([500, 500, 201]);
    expect(sentCalls().flat()).toEqual(input.map((d) => d.json));
    const inputs = kinesis.commandCalls(PutRecordsCommand).map((c) => c.args[0].input);
    expect(inputs.every((i) => i.StreamARN === STREAM_ARN && i.StreamName === undefined)).toBe(true);
    expect(result).toMatchObject({ complete: true, writtenCount: 1201, firstUnwritten: 1201, calls: 3 });
  });

  test('keeps each call within 5 MiB counting multibyte UTF-8 data and partition keys exactly', async () => {
    // GIVEN: "€" is 3 bytes in UTF-8 but 1 UTF-16 unit; a length-based count would overfill the call.
    const key = 'grüppe/strém-€';
    const keyBytes = Buffer.byteLength(key, 'utf8');
    const payload = '€'.repeat(100_000); // 300,000 bytes
    const input = Array.from({ length: 40 }, (_, i) => doc(`${i}:${payload}`.slice(0, 100_000), key));
    const perEntry = input[0].bytes + keyBytes;
    const fitting = Math.floor(MAX_PUT_RECORDS_BYTES / perEntry);
    kinesis
      .on(PutRecordsCommand)
      .callsFake((i: PutRecordsCommandInput) =>
        Promise.resolve({ FailedRecordCount: 0, Records: ok(i.Records!.length) }),
      );
    // WHEN
    const result = await writer(new FakeClock(60_000)).write(input, { remainingMs: () => 60_000 });
    // THEN
    const calls = kinesis.commandCalls(PutRecordsCommand).map((c) => c.args[0].input);
    for (const call of calls) {
      const bytes = call.Records!.reduce(
        (sum, r) => sum + r.Data!.byteLength + Buffer.byteLength(r.PartitionKey!, 'utf8'),
        0,
      );
      expect(bytes).toBeLessThanOrEqual(MAX_PUT_RECORDS_BYTES);
    }
    expect(calls.map((c) => c.Records!.length)).toEqual([fitting, fitting, 40 - 2 * fitting]);
    // A UTF-16 length count would have put about three times as many entries in one call.
    expect(Math.floor(MAX_PUT_RECORDS_BYTES / (100_000 + key.length))).toBeGreaterThan(2 * fitting);
    expect(result.complete).toBe(true);
  });

  test('fills a call to exactly 5 MiB and starts a new one for the next byte', async () => {
    // GIVEN: entries of exactly 1 MiB (data + multibyte partition key); five fill a call to the byte.
    const key = 'ключ/поток'; // Cyrillic: 2 bytes per letter
    const dataBytes = MAX_KINESIS_RECORD_BYTES - Buffer.byteLength(key, 'utf8');
    const input = Array.from({ length: 6 }, (_, i) => doc(String(i).padEnd(dataBytes, 'x'), key));
    const smallTail = doc('t', key);
    kinesis
      .on(PutRecordsCommand)
      .callsFake((i: PutRecordsCommandInput) =>
        Promise.resolve({ FailedRecordCount: 0, Records: ok(i.Records!.length) }),
      );
    // WHEN
    await writer(new FakeClock(60_000)).write([...input.slice(0, 5), smallTail, input[5]], {
      remainingMs: () => 60_000,
    });
    // THEN: 5 x 1 MiB = 5 MiB exactly; even a 1-byte entry does not fit after them.
    expect(sentCalls().map((c) => c.length)).toEqual([5, 2]);
  });

  test('fails when a document cannot fit one Kinesis record, before sending anything', async () => {
    const big = doc('x'.repeat(MAX_KINESIS_RECORD_BYTES), 'k');
    await expect(
      writer(new FakeClock(60_000)).write([doc('{}'), big], { remainingMs: () => 60_000 }),
    ).rejects.toThrow(OversizedDocumentError);
    expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(0);
  });

  test('fails when constructed with limits above the API limits', () => {
    const client = new KinesisClient({ region: 'eu-west-1' });
    expect(() => new KinesisWriter({ client, streamArn: STREAM_ARN, maxEntriesPerCall: 501 })).toThrow(
      KinesisWriterError,
    );
    expect(
      () => new KinesisWriter({ client, streamArn: STREAM_ARN, maxBytesPerCall: MAX_PUT_RECORDS_BYTES + 1 }),
    ).toThrow(/maxBytesPerCall/);
  });
});

describe('partial failures', () => {
  test('retries only the failed entries, in their original order, until all are written', async () => {
    // GIVEN: every third entry fails twice with throttling, one fails once with InternalFailure.
    const input = docs(30);
    const failuresLeft = new Map<string, number>();
    input.forEach((d, i) => {
      if (i % 3 === 0) failuresLeft.set(d.json, 2);
    });
    failuresLeft.set(input[7].json, 1);
    const acknowledged = simulate((data) => {
      const left = failuresLeft.get(data) ?? 0;
      if (left === 0) return undefined;
      failuresLeft.set(data, left - 1);
      return data === input[7].json ? 'InternalFailure' : 'ProvisionedThroughputExceededException';
    });
    const clock = new FakeClock(60_000);
    // WHEN
    const result = await writer(clock).write(input, { remainingMs: clock.remainingMs });
    // THEN
    expect(acknowledged).toEqual(new Set(input.map((d) => d.json)));
    const calls = sentCalls();
    expect(calls[0]).toHaveLength(30);
    // The second call re-sends exactly the 11 failed entries, in input order.
    expect(calls[1]).toEqual(input.filter((_, i) => i % 3 === 0 || i === 7).map((d) => d.json));
    expect(calls[2]).toEqual(input.filter((_, i) => i % 3 === 0).map((d) => d.json));
    expect(calls).toHaveLength(3);
    expect(result).toMatchObject({ complete: true, retriedEntries: 21, throttles: 20, calls: 3 });
  });

  test('puts failed entries ahead of not-yet-sent ones so a partition key never overtakes itself', async () => {
    // GIVEN: 700 documents; entry 10 of the first call fails once.
    const input = docs(700);
    let failedOnce = false;
    simulate((data) => {
      if (data === input[10].json && !failedOnce) {
        failedOnce = true;
        return 'ProvisionedThroughputExceededException';
      }
      return undefined;
    });
    // WHEN
    await writer(new FakeClock(60_000)).write(input, { remainingMs: () => 60_000 });
    // THEN
    const calls = sentCalls();
    expect(calls[1][0]).toBe(input[10].json);
    expect(calls[1].slice(1)).toEqual(input.slice(500, 700).map((d) => d.json));
  });

  test('backs off exponentially with full jitter, capped', async () => {
    // GIVEN: one entry fails five times.
    const input = docs(1);
    let failures = 5;
    simulate(() => (failures-- > 0 ? 'ProvisionedThroughputExceededException' : undefined));
    const clock = new FakeClock(60_000);
    // WHEN: random() = 0.5, base 100, cap 500
    await writer(clock, { baseDelayMs: 100, maxDelayMs: 500 }).write(input, {
      remainingMs: clock.remainingMs,
    });
    // THEN: half of min(500, 100 * 2^n)
    expect(clock.sleeps).toEqual([50, 100, 200, 250, 250]);
  });

  test('treats an entry without an answer as not written', async () => {
    kinesis
      .on(PutRecordsCommand)
      .resolvesOnce({ FailedRecordCount: 0, Records: ok(1) })
      .resolves({ FailedRecordCount: 0, Records: ok(1) });
    const result = await writer(new FakeClock(60_000)).write(docs(2), { remainingMs: () => 60_000 });
    expect(sentCalls()).toEqual([['{"i":0}', '{"i":1}'], ['{"i":1}']]);
    expect(result.complete).toBe(true);
  });
});

describe('whole-call failures', () => {
  test.each([
    ['throttling', serviceError('ProvisionedThroughputExceededException', 400, 'client'), 1],
    ['a 500', serviceError('InternalFailure', 500, 'server'), 0],
    ['a 503', serviceError('ServiceUnavailable', 503, 'server'), 0],
    ['KMS throttling', serviceError('KMSThrottlingException', 400, 'client'), 1],
    ['a connection reset', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }), 0],
  ])('retries the whole call after %s and writes everything once', async (_label, error, throttles) => {
    // GIVEN
    const input = docs(3);
    kinesis
      .on(PutRecordsCommand)
      .rejectsOnce(error)
      .rejectsOnce(error)
      .resolves({ FailedRecordCount: 0, Records: ok(3) });
    const clock = new FakeClock(60_000);
    // WHEN
    const result = await writer(clock).write(input, { remainingMs: clock.remainingMs });
    // THEN
    expect(sentCalls()).toEqual([0, 1, 2].map(() => input.map((d) => d.json)));
    expect(result).toMatchObject({ complete: true, calls: 3, retriedEntries: 6, throttles: 2 * throttles });
  });

  test.each([
    ['AccessDeniedException', 400],
    ['ResourceNotFoundException', 400],
    ['ValidationException', 400],
    ['InvalidArgumentException', 400],
  ])('fails when PutRecords answers %s, reporting what was written before', async (name, status) => {
    // GIVEN: the first call succeeds, the second is rejected.
    kinesis
      .on(PutRecordsCommand)
      .resolvesOnce({ FailedRecordCount: 0, Records: ok(500) })
      .rejects(serviceError(name, status, 'client'));
    // WHEN
    const failure = await writer(new FakeClock(60_000))
      .write(docs(600), { remainingMs: () => 60_000 })
      .then(() => undefined)
      .catch((e: unknown) => e);
    // THEN
    expect(failure).toBeInstanceOf(KinesisWriteRejectedError);
    const rejected = failure as KinesisWriteRejectedError;
    expect(rejected.name).toBe('KinesisWriteRejectedError');
    expect(rejected.message).toContain(name);
    expect(rejected.progress).toMatchObject({ writtenCount: 500, firstUnwritten: 500, complete: false });
    expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(2);
  });

  test('classifies errors', () => {
    expect(classifyCallError(serviceError('ProvisionedThroughputExceededException', 400, 'client'))).toEqual({
      retryable: true,
      throttled: true,
    });
    expect(classifyCallError(serviceError('InternalFailure', 500, 'server'))).toEqual({
      retryable: true,
      throttled: false,
    });
    expect(classifyCallError(serviceError('AccessDeniedException', 400, 'client'))).toEqual({
      retryable: false,
    });
    expect(classifyCallError('not an error')).toEqual({ retryable: false });
    // What the SDK throws when the connection dies (measured against a socket-destroying server).
    const hangUp = Object.assign(new Error('socket hang up'), {
      name: 'TimeoutError',
      code: 'ECONNRESET',
      $metadata: { attempts: 1, totalRetryDelay: 0 },
    });
    expect(classifyCallError(hangUp)).toEqual({ retryable: true, throttled: false });
    expect(classifyCallError(Object.assign(new Error('?'), { $metadata: {} }))).toEqual({
      retryable: true,
      throttled: false,
    });
    // A bug in our own code is not a network problem: retrying it would only burn the budget.
    expect(classifyCallError(new TypeError('x is not a function'))).toEqual({ retryable: false });
  });
});

describe('budget', () => {
  test('stops when the budget runs out and reports exactly which documents are written', async () => {
    // GIVEN: 1,200 documents; the first call succeeds, entries 600..1199 are throttled forever.
    const input = docs(1200);
    const stuck = new Set(input.slice(600).map((d) => d.json));
    const acknowledged = simulate((data) =>
      stuck.has(data) ? 'ProvisionedThroughputExceededException' : undefined,
    );
    const clock = new FakeClock(2_000);
    // WHEN
    const result = await writer(clock).write(input, { remainingMs: clock.remainingMs });
    // THEN
    expect(result.complete).toBe(false);
    expect(result.stoppedBecause).toBe('budget');
    expect(result.firstUnwritten).toBe(600);
    expect(result.writtenCount).toBe(600);
    expect(result.written.slice(0, 600).every(Boolean)).toBe(true);
    expect(result.written.slice(600).some(Boolean)).toBe(false);
    // Nothing claimed written that Kinesis did not acknowledge, and nothing acknowledged that is claimed unwritten.
    expect(new Set(input.filter((_, i) => result.written[i]).map((d) => d.json))).toEqual(acknowledged);
    // It never slept past the budget.
    expect(clock.now).toBeLessThanOrEqual(2_000);
  });

  test('the first unwritten index can lie before written ones (a failed entry inside a good call)', async () => {
    // GIVEN: entry 3 fails forever; its neighbours succeed.
    const input = docs(8);
    simulate((data) => (data === input[3].json ? 'InternalFailure' : undefined));
    const clock = new FakeClock(1_000);
    // WHEN
    const result = await writer(clock).write(input, { remainingMs: clock.remainingMs });
    // THEN
    expect(result.firstUnwritten).toBe(3);
    expect(result.written).toEqual([true, true, true, false, true, true, true, true]);
  });

  test('does not start a call with less than minCallBudgetMs left', async () => {
    const result = await writer(new FakeClock(100), { minCallBudgetMs: 250 }).write(docs(2), {
      remainingMs: () => 100,
    });
    expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(0);
    expect(result).toMatchObject({ complete: false, firstUnwritten: 0, stoppedBecause: 'budget' });
  });

  test('aborts a call that outlives the budget and counts its entries as unwritten', async () => {
    // GIVEN: a call that never answers (a black-holed connection), and 300 ms of budget on jest's fake clock (the
    // writer's abort timer is a real setTimeout, so this test fakes the timers rather than injecting a sleep).
    // aws-sdk-client-mock does not hand the abort signal to the fake, so it rejects on its own later, as an
    // aborted SDK call would; the integration test covers a real aborted connection.
    jest.useFakeTimers({ now: 0, doNotFake: ['nextTick', 'queueMicrotask'] });
    kinesis
      .on(PutRecordsCommand)
      .callsFake(
        () =>
          new Promise((_resolve, reject) =>
            setTimeout(() => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })), 600),
          ),
      );
    const deadline = Date.now() + 300;
    // WHEN 600 ms pass
    const writing = new KinesisWriter({
      client: new KinesisClient({ region: 'eu-west-1' }),
      streamArn: STREAM_ARN,
      minCallBudgetMs: 10,
    }).write(docs(2), { remainingMs: () => deadline - Date.now() });
    try {
      await jest.advanceTimersByTimeAsync(600);
      // THEN
      await expect(writing).resolves.toMatchObject({
        complete: false,
        writtenCount: 0,
        stoppedBecause: 'budget',
      });
      expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(1);
    } finally {
      jest.useRealTimers();
    }
  });

  test('with an empty input makes no call', async () => {
    const result = await writer(new FakeClock(1_000)).write([], { remainingMs: () => 1_000 });
    expect(result).toMatchObject({ complete: true, writtenCount: 0, firstUnwritten: 0, calls: 0 });
    expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(0);
  });
});
