/** The one shard reader and its throttling policy, on an in-memory stream and a fake clock. */
import { ShardReader, ShardReadThrottledError } from '../../../core/kinesis/shard-reader';
import { FakeClock } from '../../helpers/replay-fakes';
import { FakeStream } from '../../helpers/stream-window-fakes';

const SHARD = 'shardId-000000000000';
const T0 = Date.parse('2026-11-23T12:00:00Z');

function setup(records: number): { clock: FakeClock; stream: FakeStream; reader: ShardReader } {
  const clock = new FakeClock();
  clock.millis = T0;
  const stream = new FakeStream(clock).addShard(SHARD);
  for (let i = 0; i < records; i++) stream.add(SHARD, `r${i}`, T0 - 60_000 + i);
  const reader = new ShardReader(
    stream,
    stream.name,
    { shardId: SHARD, closed: false },
    { type: 'AT_TIMESTAMP', timestamp: new Date(T0 - 120_000) },
    { now: clock.now, sleep: clock.sleep, random: () => 0.5 },
  );
  return { clock, stream, reader };
}

async function readAll(reader: ShardReader): Promise<string[]> {
  const read: string[] = [];
  while (reader.ended === undefined) {
    for (const r of await reader.next(100)) read.push(Buffer.from(r.data).toString());
  }
  return read;
}

describe('ShardReader', () => {
  test('reads a shard to the tip, its GetRecords calls at least 200 ms apart', async () => {
    // GIVEN 7 records, 3 per answer
    const { stream, reader } = setup(7);
    // WHEN
    const read = await readAll(reader);
    // THEN
    expect(read).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
    expect(reader.ended).toBe('tip');
    const times = stream.readTimes.get(SHARD) ?? [];
    expect(times.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).toBeGreaterThanOrEqual(200);
  });

  test('retries a throttled read after a backoff and counts it', async () => {
    // GIVEN the first two reads are throttled
    const { clock, stream, reader } = setup(2);
    stream.throttleReads = 2;
    // WHEN
    const read = await readAll(reader);
    // THEN nothing is lost, and the backoffs (half to full of 500 ms, 1 s) were slept
    expect(read).toEqual(['r0', 'r1']);
    expect(reader.retriedCalls).toBe(2);
    expect(clock.sleeps.filter((ms) => ms >= 375)).toHaveLength(2);
  });

  test('fails when the shard stays throttled, saying what to do', async () => {
    const { stream, reader } = setup(2);
    stream.throttleReads = 1000;
    const reading = readAll(reader);
    await expect(reading).rejects.toThrow(ShardReadThrottledError);
    await expect(reading).rejects.toThrow(
      /^GetRecords on shardId-000000000000 of kfek-sandbox-events was throttled or failed 10 times in a row \(ProvisionedThroughputExceededException\): .* run the command again later$/,
    );
  });

  test('renews an expired iterator right after the last record read', async () => {
    // GIVEN an iterator that expires after the first answer
    const { stream, reader } = setup(5);
    const first = await reader.next(100);
    stream.expireNextIterator = true;
    // WHEN
    const rest = await readAll(reader);
    // THEN every record once, the new iterator after the last one read
    expect(
      [...first, ...rest.map((t) => ({ data: Buffer.from(t) }))].map((r) => Buffer.from(r.data).toString()),
    ).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);
    expect(stream.calls.filter((c) => c.startsWith('GetShardIterator')).at(-1)).toBe(
      `GetShardIterator ${SHARD} ${first[first.length - 1].sequenceNumber}`,
    );
  });
});
