import type { ReplayRecord } from '../../../core/kept/model';
import { RecordSender } from '../../../core/kinesis/sender';
import { FakeClock, FakeKinesis } from '../../helpers/replay-fakes';

const records = (n: number, size = 10): ReplayRecord[] =>
  Array.from({ length: n }, (_, i) => ({ data: Buffer.alloc(size, i % 256), partitionKey: `k${i}` }));

describe('RecordSender', () => {
  test('puts in calls of at most 500 records, in order', async () => {
    const kinesis = new FakeKinesis();
    const clock = new FakeClock();
    const result = await new RecordSender({ kinesis, now: clock.now, sleep: clock.sleep }).send(
      's',
      records(1201),
    );
    expect(kinesis.calls.map((c) => c.entries)).toEqual([500, 500, 201]);
    expect(result.accepted.every(Boolean)).toBe(true);
    expect(kinesis.put.get('s')!.map((r) => r.partitionKey)).toEqual(
      records(1201).map((r) => r.partitionKey),
    );
    expect(clock.sleeps).toEqual([]);
  });

  test('keeps a call under 5 MiB', async () => {
    // GIVEN records of the largest size Kinesis takes: 1 MiB with their 2-character partition keys
    const kinesis = new FakeKinesis();
    const clock = new FakeClock();
    await new RecordSender({ kinesis, now: clock.now, sleep: clock.sleep }).send(
      's',
      records(6, 1024 * 1024 - 2),
    );
    expect(kinesis.calls.map((c) => c.entries)).toEqual([5, 1]);
  });

  test('paces to the rate on the injected clock', async () => {
    // GIVEN 100 records/s
    const kinesis = new FakeKinesis();
    const clock = new FakeClock();
    const sender = new RecordSender({ kinesis, ratePerSecond: 100, now: clock.now, sleep: clock.sleep });
    // WHEN 300 records are sent
    await sender.send('s', records(300));
    // THEN in calls of 20 (five a second), the last one starting at 2.8 s: 300 records in 3 s
    expect(kinesis.calls.every((c) => c.entries === 20)).toBe(true);
    expect(clock.millis).toBe(2800);
  });

  test('retries only the entries Kinesis refused, with backoff', async () => {
    const kinesis = new FakeKinesis();
    kinesis.failNextEntries = 3;
    const clock = new FakeClock();
    const result = await new RecordSender({
      kinesis,
      now: clock.now,
      sleep: clock.sleep,
      random: () => 0.5,
    }).send('s', records(10));
    expect(kinesis.calls.map((c) => c.entries)).toEqual([10, 3]);
    expect(result).toMatchObject({ retries: 3 });
    expect(result.accepted.every(Boolean)).toBe(true);
    expect(clock.sleeps).toEqual([50]);
  });

  test('gives up after maxAttempts and says which records and why', async () => {
    const kinesis = new FakeKinesis();
    kinesis.failNextEntries = 1000;
    const clock = new FakeClock();
    const result = await new RecordSender({
      kinesis,
      now: clock.now,
      sleep: clock.sleep,
      maxAttempts: 3,
    }).send('s', records(2));
    expect(kinesis.calls).toHaveLength(3);
    expect(result.accepted).toEqual([false, false]);
    expect(result.lastErrorCode).toBe('ProvisionedThroughputExceededException');
  });
});
