import { ReplayError } from '../../../cli/replay/errors';
import {
  type EventsWindowPlan,
  type EventsWindowPorts,
  type EventsWindowReport,
  replayEventsWindow,
} from '../../../cli/events-window/run';
import { formatEventsWindowReport } from '../../../cli/events-window/format';
import { parentsFirst } from '../../../core/kinesis/shard-window';
import { FakeClock } from '../../helpers/replay-fakes';
import { FakeStream } from '../../helpers/stream-window-fakes';

/** The replay's start on the fake clock. */
const T0 = Date.parse('2026-11-23T12:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SHARD = (n: number): string => `shardId-${String(n).padStart(12, '0')}`;

function setup(): { clock: FakeClock; stream: FakeStream } {
  const clock = new FakeClock();
  clock.millis = T0;
  return { clock, stream: new FakeStream(clock) };
}

async function replay(
  stream: FakeStream,
  clock: FakeClock,
  plan: Partial<EventsWindowPlan> = {},
  ports: Partial<EventsWindowPorts> = {},
): Promise<EventsWindowReport> {
  return replayEventsWindow(
    { stream: stream.name, since: new Date(T0 - 3 * HOUR), dryRun: false, ...plan },
    { kinesis: stream, now: clock.now, sleep: clock.sleep, random: () => 0.5, ...ports },
  );
}

const texts = (records: readonly { data: Uint8Array }[]): string[] =>
  records.map((r) => Buffer.from(r.data).toString());

/** A split: closed parent 0 with children 1 and 2, listed children first. */
function splitStream(stream: FakeStream): void {
  stream
    .addShard(SHARD(1), { parentShardId: SHARD(0) })
    .addShard(SHARD(2), { parentShardId: SHARD(0) })
    .addShard(SHARD(0), { closed: true });
  stream.add(SHARD(0), 'a', T0 - 4 * HOUR);
  stream.add(SHARD(0), 'b', T0 - 2 * HOUR);
  stream.add(SHARD(0), 'c', T0 - 90 * MINUTE);
  stream.add(SHARD(1), 'd', T0 - HOUR);
  stream.add(SHARD(2), 'e', T0 - 30 * MINUTE);
  stream.add(SHARD(2), 'f', T0 - MINUTE);
}

describe('replayEventsWindow', () => {
  test('re-puts every record of the window unchanged, closed parent first, and never reads back what it put', async () => {
    // GIVEN a split stream whose children are listed before their parent
    const { clock, stream } = setup();
    splitStream(stream);
    // WHEN
    const report = await replay(stream, clock);
    // THEN data and partition keys as they were, parent before children, and nothing twice
    expect(texts(stream.put)).toEqual(['b', 'c', 'd', 'e', 'f']);
    expect(stream.put.map((r) => r.partitionKey)).toEqual(['pk-b', 'pk-c', 'pk-d', 'pk-e', 'pk-f']);
    expect(stream.calls.filter((c) => c.startsWith('GetShardIterator'))).toEqual([
      `GetShardIterator ${SHARD(0)} 2026-11-23T09:00:00.000Z`,
      `GetShardIterator ${SHARD(1)} 2026-11-23T09:00:00.000Z`,
      `GetShardIterator ${SHARD(2)} 2026-11-23T09:00:00.000Z`,
    ]);
    expect(report).toMatchObject({
      kind: 'events-window',
      dryRun: false,
      records: 5,
      bytes: 5,
      put: 5,
      // Kinesis tells whole seconds: the window ends with the second the replay started in.
      end: new Date(T0 + 999),
      limited: false,
      shards: [
        { shardId: SHARD(0), closed: true, records: 2, end: 'shard-end', first: new Date(T0 - 2 * HOUR) },
        { shardId: SHARD(1), closed: false, records: 1, end: expect.stringMatching(/^(tip|window-end)$/) },
        { shardId: SHARD(2), closed: false, records: 2, last: new Date(T0 - MINUTE) },
      ],
    });
    expect(report.failure).toBeUndefined();
  });

  test("ends the window at Kinesis' time when this machine's clock is ahead, so its own records are not read back", async () => {
    // GIVEN Kinesis' clock 5 s behind this machine's, and a pace that lets the clock move while putting
    const { clock, stream } = setup();
    stream.skewMillis = -5000;
    stream.addShard(SHARD(0));
    for (const text of ['x', 'y', 'z']) stream.add(SHARD(0), text, T0 - 10 * MINUTE);
    // WHEN
    const report = await replay(stream, clock, { ratePerSecond: 1 });
    // THEN each record is put once, although the copies arrived before this machine's start time, and none was put
    // before Kinesis' clock had passed the window's end
    expect(report.end).toEqual(new Date(T0 - 5000 + 999));
    expect(texts(stream.put)).toEqual(['x', 'y', 'z']);
    expect(stream.texts()[0]).toEqual(['x', 'y', 'z', 'x', 'y', 'z']);
    const copies = stream.shards[0].records.slice(3);
    expect(copies.every((r) => r.arrivedAt!.getTime() > report.end.getTime())).toBe(true);
    expect(report.shards[0].end).toBe('window-end');
  });

  test("without Kinesis' time (no Date header), the window ends at this machine's start", async () => {
    const { clock, stream } = setup();
    stream.tellsTime = false;
    splitStream(stream);
    const report = await replay(stream, clock);
    expect(report.end).toEqual(new Date(T0));
    expect(texts(stream.put)).toEqual(['b', 'c', 'd', 'e', 'f']);
  });

  test('reads from --since to --until only', async () => {
    const { clock, stream } = setup();
    stream.addShard(SHARD(0));
    stream.add(SHARD(0), 'too-old', T0 - 3 * HOUR - MINUTE);
    stream.add(SHARD(0), 'in-1', T0 - 2 * HOUR);
    stream.add(SHARD(0), 'in-2', T0 - HOUR);
    stream.add(SHARD(0), 'too-new', T0 - 10 * MINUTE);
    const report = await replay(stream, clock, { until: new Date(T0 - 30 * MINUTE) });
    expect(texts(stream.put)).toEqual(['in-1', 'in-2']);
    expect(report.end).toEqual(new Date(T0 - 30 * MINUTE));
    expect(report.shards[0].end).toBe('window-end');
  });

  test('--limit stops after N records, shard by shard, and asks Kinesis for no more than it needs', async () => {
    const { clock, stream } = setup();
    for (const n of [0, 1, 2]) {
      stream.addShard(SHARD(n));
      for (const i of [1, 2, 3]) stream.add(SHARD(n), `${n}-${i}`, T0 - HOUR + i);
    }
    const report = await replay(stream, clock, { limit: 4 });
    expect(texts(stream.put)).toEqual(['0-1', '0-2', '0-3', '1-1']);
    expect(report.limited).toBe(true);
    expect(report.shards.map((s) => s.end)).toEqual(['limit', 'limit', 'not read']);
    expect(stream.calls.filter((c) => c.startsWith('GetRecords'))).toEqual([
      `GetRecords ${SHARD(0)}`,
      `GetRecords ${SHARD(1)}`,
    ]);
    expect(formatEventsWindowReport(report)).toContain(
      'stopped at --limit: the rest of the window was not read',
    );
  });

  test('a dry run reads and counts records and bytes, and puts nothing', async () => {
    const { clock, stream } = setup();
    splitStream(stream);
    const report = await replay(stream, clock, { dryRun: true });
    expect(stream.putCalls).toEqual([]);
    expect(report).toMatchObject({ dryRun: true, records: 5, bytes: 5, put: 0 });
    expect(formatEventsWindowReport(report)).toContain(
      `dry run: would re-put 5 record(s) (5 B, 1 B per record) to the events stream ${stream.name}; ` +
        'nothing was written',
    );
  });

  test('backs off when GetRecords is throttled, then goes on', async () => {
    const { clock, stream } = setup();
    splitStream(stream);
    stream.throttleReads = 2;
    const report = await replay(stream, clock);
    // 500 ms and 1 s, each times 0.75 (half to full, random 0.5)
    expect(clock.sleeps).toEqual(expect.arrayContaining([375, 750]));
    expect(report.readRetries).toBe(2);
    expect(texts(stream.put)).toEqual(['b', 'c', 'd', 'e', 'f']);
    expect(formatEventsWindowReport(report)).toContain('2 read(s) throttled by Kinesis and retried');
  });

  test('fails when GetRecords stays throttled: it says where it stopped and how to finish, and keeps what was done', async () => {
    // GIVEN the first shard read, then every read throttled
    const { clock, stream } = setup();
    splitStream(stream);
    let throttled = false;
    // WHEN
    const report = await replay(
      stream,
      clock,
      {},
      {
        onProgress: (p) => {
          if (p.shardDone && !throttled) {
            throttled = true;
            stream.throttleReads = 1000;
          }
        },
      },
    );
    // THEN
    expect(report.failure).toMatch(
      new RegExp(
        `^GetRecords on ${SHARD(1)} of kfek-sandbox-events was throttled or failed 10 times in a row`,
      ),
    );
    expect(report.put).toBe(2);
    expect(report.shards.map((s) => s.end)).toEqual(['shard-end', 'stopped', 'not read']);
    const text = formatEventsWindowReport(report);
    expect(text).toContain('stopped: GetRecords on');
    expect(text).toContain('to finish, run the same replay with --until 2026-11-23T12:00:00.999Z');
  });

  test('spaces GetRecords calls on a shard by 200 ms, and by the bytes read at 1 MB/s', async () => {
    const { clock, stream } = setup();
    stream.pageSize = 1;
    stream.addShard(SHARD(0));
    stream.add(SHARD(0), 'x'.repeat(2 * 1024 * 1024), T0 - HOUR);
    stream.add(SHARD(0), 'small', T0 - HOUR);
    stream.add(SHARD(0), 'small', T0 - HOUR);
    await replay(stream, clock, { dryRun: true });
    const times = stream.readTimes.get(SHARD(0))!;
    const gaps = times.slice(1).map((t, i) => t - times[i]);
    expect(gaps[0]).toBeGreaterThanOrEqual(2098); // 2 MiB at 1 MB/s
    expect(gaps[1]).toBeGreaterThanOrEqual(200);
    expect(gaps[1]).toBeLessThan(300);
  });

  test('reads shards side by side, each within its own limits, and a child only once its parents are read', async () => {
    // GIVEN two open shards of one 2 MiB record and a small one each (2 s of one shard's read budget), and a
    // split child of a closed parent
    const { clock, stream } = setup();
    stream.pageSize = 1;
    stream.addShard(SHARD(0)).addShard(SHARD(1)).addShard(SHARD(2), { closed: true });
    stream.addShard(SHARD(3), { parentShardId: SHARD(2) });
    for (const n of [0, 1]) {
      stream.add(SHARD(n), 'x'.repeat(2 * 1024 * 1024), T0 - HOUR);
      stream.add(SHARD(n), 'small', T0 - HOUR);
    }
    stream.add(SHARD(2), 'parent', T0 - HOUR);
    stream.add(SHARD(3), 'child', T0 - HOUR);
    // WHEN
    const report = await replay(stream, clock, { dryRun: true });
    // THEN the big reads overlap (about 2 s in all, not 4), and the child is read after its parent's end
    expect(report.durationMillis).toBeLessThan(3000);
    const order = stream.calls.filter((c) => c.startsWith('GetRecords'));
    expect(order.slice(0, 3)).toEqual([
      `GetRecords ${SHARD(0)}`,
      `GetRecords ${SHARD(1)}`,
      `GetRecords ${SHARD(2)}`,
    ]);
    expect(order.indexOf(`GetRecords ${SHARD(3)}`)).toBeGreaterThan(
      order.lastIndexOf(`GetRecords ${SHARD(2)}`),
    );
    expect(report.records).toBe(6);
  });

  test('an expired iterator is renewed after the last record read: nothing lost, nothing twice', async () => {
    const { clock, stream } = setup();
    stream.pageSize = 2;
    stream.addShard(SHARD(0));
    const records = [1, 2, 3, 4, 5].map((i) => stream.add(SHARD(0), `r${i}`, T0 - HOUR + i));
    let expired = false;
    await replay(
      stream,
      clock,
      {},
      {
        onProgress: () => {
          if (!expired) stream.expireNextIterator = expired = true;
        },
      },
    );
    expect(texts(stream.put)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
    expect(stream.calls).toContain(`GetShardIterator ${SHARD(0)} ${records[1].sequenceNumber}`);
  });

  test('lists every shard over ListShards pages, the next pages by token alone', async () => {
    const { clock, stream } = setup();
    stream.listPageSize = 2;
    for (const n of [0, 1, 2, 3, 4]) {
      stream.addShard(SHARD(n));
      stream.add(SHARD(n), `s${n}`, T0 - HOUR);
    }
    // (a dry run: a replay that puts also asks ListShards for Kinesis' time before its first put)
    const report = await replay(stream, clock, { dryRun: true });
    expect(stream.calls.filter((c) => c.startsWith('ListShards'))).toEqual([
      'ListShards kfek-sandbox-events',
      'ListShards 2',
      'ListShards 4',
    ]);
    expect(report.shards.map((s) => s.records)).toEqual([1, 1, 1, 1, 1]);
  });

  test('a closed shard whose records all expired is skipped; the others are read', async () => {
    const { clock, stream } = setup();
    splitStream(stream);
    stream.gone.add(SHARD(0));
    const report = await replay(stream, clock);
    expect(texts(stream.put)).toEqual(['d', 'e', 'f']);
    expect(report.shards[0]).toMatchObject({ shardId: SHARD(0), end: 'expired', records: 0 });
  });

  test('fails when the stream does not exist, saying what to check', async () => {
    const { clock, stream } = setup();
    stream.missing = true;
    const run = replay(stream, clock);
    await expect(run).rejects.toThrow(ReplayError);
    await expect(run).rejects.toThrow(
      /^the events stream kfek-sandbox-events does not exist \(ListShards: .*\): check --events-stream \(a name or ARN\), --region, or --profile \(a deployment made before fixed names/,
    );
  });

  test('fails when Kinesis keeps refusing the re-put entries: stops there and says so', async () => {
    const { clock, stream } = setup();
    splitStream(stream);
    stream.refuseEntries = 1000;
    const report = await replay(stream, clock);
    expect(report.failure).toMatch(
      /^2 record\(s\) could not be put on kfek-sandbox-events after retries \(ProvisionedThroughputExceededException\)/,
    );
    expect(report.put).toBe(0);
    expect(report.shards.map((s) => s.end)).toEqual(['shard-end', 'not read', 'not read']);
  });

  test('the report names each shard, what it held and where reading stopped, and the rate', async () => {
    const { clock, stream } = setup();
    splitStream(stream);
    const text = formatEventsWindowReport(await replay(stream, clock, { ratePerSecond: 2 }));
    expect(text).toMatch(
      /^events window of kfek-sandbox-events, records that arrived from 2026-11-23T09:00:00.000Z to 2026-11-23T12:00:00.999Z:$/m,
    );
    expect(text).toMatch(/^shard +state +records +bytes +first +last +read to$/m);
    expect(text).toMatch(
      /^shardId-000000000000 +closed +2 +2 B +2026-11-23T10:00:00.000Z +2026-11-23T10:30:00.000Z +its end \(closed\)$/m,
    );
    expect(text).toMatch(
      /^re-put 5 record\(s\) \(5 B, 1 B per record\) to the events stream kfek-sandbox-events in /m,
    );
  });
});

describe('parentsFirst', () => {
  test('orders a merge child after both parents and a split child after its parent, whatever the ids', () => {
    const order = parentsFirst([
      { shardId: 'a-child', parentShardId: 'z-parent', adjacentParentShardId: 'y-parent', closed: false },
      { shardId: 'y-parent', parentShardId: 'x-root', closed: true },
      { shardId: 'z-parent', closed: true },
      { shardId: 'x-root', closed: true },
    ]).map((s) => s.shardId);
    expect(order).toEqual(['x-root', 'z-parent', 'y-parent', 'a-child']);
  });
});
