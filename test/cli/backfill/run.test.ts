/**
 * The backfill loop on in-memory ports and a fake clock: every event of the window written once, the pace kept,
 * the checkpoint after every page, an interrupted run resumed without reading more than one page again, and records
 * Kinesis keeps refusing kept for replay.
 */
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { folderKeptStore } from '../../../cli/backfill/kept';
import { type BackfillJob, type CheckpointState, NO_COUNTS } from '../../../core/backfill/model';
import {
  type GroupPlan,
  runBackfill,
  type RunDeps,
  type RunOptions,
  type RunResult,
} from '../../../cli/backfill/run';
import { parseDeadLetter } from '../../../core/kept/parse';
import { FakeLogs, historicEvents, MemoryCheckpoint, MemoryKept } from '../../helpers/backfill-fakes';
import { FakeClock, FakeKinesis } from '../../helpers/replay-fakes';
import { testTempDir } from '../../helpers/temp-dirs';

const GROUP = '/kfek/test/app';
const START = Date.UTC(2026, 10, 20, 0, 0, 0);
const JOB: BackfillJob = {
  logGroups: [GROUP],
  since: new Date(START),
  until: new Date(START + 3_600_000),
  rawStream: 'kfek-test-raw',
};
const PLAN: GroupPlan = { source: { logGroup: GROUP, owner: '123456789012', subscriptionFilters: ['f'] } };

function freshState(job: BackfillJob = JOB): CheckpointState {
  return {
    version: 1,
    job,
    typed: { since: job.since.toISOString() },
    groups: {},
    counts: NO_COUNTS,
    runs: 1,
    startedAt: job.since.toISOString(),
    updatedAt: job.since.toISOString(),
  };
}

/** Event ids in the records put, in order (duplicates included). */
function idsPut(kinesis: FakeKinesis): string[] {
  return (kinesis.put.get(JOB.rawStream) ?? []).flatMap((r) =>
    (JSON.parse(gunzipSync(r.data).toString('utf8')) as { logEvents: { id: string }[] }).logEvents.map(
      (e) => e.id,
    ),
  );
}

/** The fakes one backfill (and its resume) runs on: Kinesis, a fake clock, a checkpoint and kept records in memory. */
function harness(logs: FakeLogs) {
  const kinesis = new FakeKinesis();
  const clock = new FakeClock();
  const checkpoint = new MemoryCheckpoint();
  const run = (
    options: Partial<RunOptions> = {},
    state: CheckpointState = freshState(options.job),
    over: Partial<RunDeps> = {},
  ): Promise<RunResult> =>
    runBackfill({ job: JOB, groups: [PLAN], ...options }, state, {
      logs,
      kinesis,
      checkpoint,
      kept: new MemoryKept(),
      clock: { now: clock.now, sleep: clock.sleep },
      random: () => 0.5,
      ...over,
    });
  return { kinesis, clock, checkpoint, run };
}

describe('runBackfill', () => {
  test('writes every event of the window once, page by page, and checkpoints after each page', async () => {
    // GIVEN 25,000 events in the window over 4 streams, and some outside it
    const events = historicEvents(25_000, { start: START, stepInMillis: 100, streams: 4 });
    const logs = new FakeLogs().addGroup(GROUP, [
      ...events,
      ...historicEvents(10, { start: START - 60_000, idBase: 900_000 }),
      ...historicEvents(10, { start: START + 3_600_001, idBase: 910_000 }),
    ]);
    const { kinesis, checkpoint, run } = harness(logs);
    // WHEN
    const result = await run();
    // THEN
    expect(idsPut(kinesis).sort()).toEqual(events.map((e) => e.id).sort());
    expect(result.interrupted).toBe(false);
    expect(result.thisRun).toMatchObject({ read: 25_000, written: 25_000, skipped: 0, failed: 0, pages: 3 });
    expect(result.state.counts).toEqual(result.thisRun);
    expect(logs.calls.map((c) => [c.startTime, c.endTime, c.nextToken])).toEqual([
      [START, START + 3_600_000, undefined],
      [START, START + 3_600_000, '10000'],
      [START, START + 3_600_000, '20000'],
    ]);
    expect(checkpoint.saves).toBe(3);
    expect(checkpoint.state?.groups[GROUP]).toEqual({
      done: true,
      from: events[24_999].timestamp,
      writtenAtFrom: [events[24_999].id],
    });
    // One envelope per stream per page, all within the limits.
    expect(result.thisRun.records).toBe(12);
  });

  test('keeps to --rate events per second on the injected clock', async () => {
    const logs = new FakeLogs().addGroup(GROUP, historicEvents(5_000, { start: START, streams: 50 }));
    const { kinesis, clock, run } = harness(logs);
    await run({ ratePerSecond: 1_000 });
    // 5,000 events at 1,000/s: the last round (of about a fifth of a second's events) starts at 4.8 s.
    expect(clock.millis).toBeGreaterThanOrEqual(4_700);
    expect(clock.millis).toBeLessThanOrEqual(5_000);
    expect(kinesis.calls.length).toBeGreaterThanOrEqual(25);
    expect(idsPut(kinesis)).toHaveLength(5_000);
  });

  test('an interrupted run resumed writes the rest, reading no more than the page it stopped in again', async () => {
    // GIVEN 4,500 events, pages of 1,000, and a run stopped after 2,200 events were put
    const events = historicEvents(4_500, { start: START, stepInMillis: 10, streams: 3 });
    const logs = new FakeLogs().addGroup(GROUP, events);
    logs.pageSize = 1_000;
    const { kinesis, checkpoint, run } = harness(logs);
    const stop = new AbortController();
    const first = await run({ ratePerSecond: 2_000 }, freshState(), {
      signal: stop.signal,
      onProgress: (counts) => {
        if (counts.written >= 2_200) stop.abort();
      },
    });
    expect(first.interrupted).toBe(true);
    const stoppedAt = checkpoint.state!;
    expect(stoppedAt.groups[GROUP]?.done).toBe(false);
    // Only whole pages are checkpointed: the third page was being sent.
    expect(first.thisRun.read).toBe(3_000);
    expect(stoppedAt.counts).toMatchObject({ read: 2_000, written: 2_000 });

    // WHEN resumed from the checkpoint
    const second = await run({ job: stoppedAt.job }, { ...stoppedAt, runs: 2 });

    // THEN every event was written; the copies are the interrupted page's events sent before the stop
    const put = idsPut(kinesis);
    expect(new Set(put)).toEqual(new Set(events.map((e) => e.id)));
    expect(put.length - events.length).toBeLessThanOrEqual(1_000);
    expect(second.interrupted).toBe(false);
    // The whole backfill's counts: the checkpoint's two pages and this run's, so every event once.
    expect(second.state.counts.written).toBe(2_000 + second.thisRun.written);
    expect(second.state.counts.written).toBe(events.length);
    // It started where the checkpoint said, and skipped the event at that millisecond it had written.
    expect(logs.calls[logs.calls.length - 2].startTime).toBe(stoppedAt.groups[GROUP]?.from);
    expect(second.thisRun.skipped).toBe(1);
    expect(second.thisRun.read).toBe(events.length - 2_000 + 1);
  });

  test('events sharing the millisecond a checkpoint stops at are written once across the resume', async () => {
    // GIVEN 300 events of which 150 have the same timestamp and straddle the end of the first page of 100
    const same = START + 500;
    const events = [
      ...historicEvents(50, { start: START }),
      ...historicEvents(150, { start: same, stepInMillis: 0, idBase: 1_000 }),
      ...historicEvents(100, { start: same + 1, idBase: 2_000 }),
    ];
    const logs = new FakeLogs().addGroup(GROUP, events);
    logs.pageSize = 100;
    const { kinesis, checkpoint, run } = harness(logs);
    const stop = new AbortController();
    await run({}, freshState(), { signal: stop.signal, onProgress: () => stop.abort() });
    expect(checkpoint.state?.groups[GROUP]).toMatchObject({ from: same });
    expect(checkpoint.state?.groups[GROUP]?.writtenAtFrom).toHaveLength(50);

    // WHEN resumed
    const second = await run({}, checkpoint.state);

    // THEN no event was sent twice
    const put = idsPut(kinesis);
    expect(put).toHaveLength(300);
    expect(new Set(put).size).toBe(300);
    expect(second.thisRun.skipped).toBe(50);
  });

  test('records Kinesis refuses after every retry are kept where kfek replay reads dead letters', async () => {
    // GIVEN a stream that refuses every entry
    const dir = testTempDir('kfek-backfill-kept-');
    const logs = new FakeLogs().addGroup(GROUP, historicEvents(20, { start: START, streams: 2 }));
    const { kinesis, run } = harness(logs);
    kinesis.failNextEntries = Number.MAX_SAFE_INTEGER;
    // WHEN
    const result = await run({ maxPutAttempts: 3 }, freshState(), { kept: folderKeptStore(dir) });
    // THEN both envelopes are kept, counted as failed, and the group is done (nothing left to read)
    expect(result.thisRun).toMatchObject({ written: 0, failed: 20, failedRecords: 2, retries: 4 });
    expect(result.lastErrorCode).toBe('ProvisionedThroughputExceededException');
    expect(result.state.groups[GROUP]?.done).toBe(true);
    const folder = path.join(dir, 'dead-letter', 'backfill');
    const files = readdirSync(folder);
    expect(files).toHaveLength(2);
    // replay reads each one back as the raw record it was, with its partition key
    for (const file of files) {
      const location = path.join(folder, file);
      const item = parseDeadLetter(readFileSync(location), { location, handle: location, sizeBytes: 0 });
      expect(item.reason).toMatch(
        /PutRecords refused this envelope 3 times \(last: ProvisionedThroughputExceededException\)/,
      );
      expect(item.content.type).toBe('records');
      const [record] = item.content.type === 'records' ? item.content.records : [];
      expect(`${record.partitionKey}.json`).toBe(file);
      expect(JSON.parse(gunzipSync(record.data).toString('utf8'))).toMatchObject({
        messageType: 'DATA_MESSAGE',
      });
    }
  });

  test('goes through several log groups, skips one the checkpoint has done, and finishes an empty one', async () => {
    const logs = new FakeLogs()
      .addGroup('/a', historicEvents(10, { start: START }))
      .addGroup('/b', historicEvents(10, { start: START, idBase: 100 }))
      .addGroup('/c', []);
    const { kinesis, run } = harness(logs);
    const job = { ...JOB, logGroups: ['/a', '/b', '/c'] };
    const plan = (g: string): GroupPlan => ({ source: { ...PLAN.source, logGroup: g } });
    const result = await run(
      { job, groups: ['/a', '/b', '/c'].map(plan) },
      { ...freshState(job), groups: { '/a': { done: true, writtenAtFrom: [] } } },
    );
    expect(idsPut(kinesis)).toEqual(historicEvents(10, { start: START, idBase: 100 }).map((e) => e.id));
    expect(Object.keys(result.state.groups).sort()).toEqual(['/a', '/b', '/c']);
    expect(Object.values(result.state.groups).every((g) => g.done)).toBe(true);
  });

  test('reads on through the empty pages FilterLogEvents may answer with a token', async () => {
    const logs = new FakeLogs().addGroup(GROUP, historicEvents(30, { start: START }));
    logs.emptyPagesFirst = 3;
    const { kinesis, checkpoint, run } = harness(logs);
    const result = await run();
    expect(idsPut(kinesis)).toHaveLength(30);
    expect(result.thisRun.pages).toBe(4);
    // Empty pages move nothing forward: one checkpoint, after the page with the events.
    expect(checkpoint.saves).toBe(1);
  });
});
