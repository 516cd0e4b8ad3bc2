/**
 * Counts attribute every joined line to its own minute: a multi-line trace across a minute boundary is one document
 * in its first line's minute on the OpenSearch side, so one lost event in that minute made the counts equal and
 * the loss was never looked for. Minutes with joined lines are now read exactly where a difference could hide
 * behind them (core/reconcile/minutes.ts).
 */
import { exactRanges, MINUTE_MILLIS, reconcile } from '../../../core/reconcile/engine';
import { GROUP, T0, World, event } from '../../helpers/reconcile-fakes';

const M = (n: number): number => T0 + n * MINUTE_MILLIS;
const window = { groups: [GROUP], since: T0, until: M(10), lagInMillis: 0 };

/** Background traffic: one event at :10 of every minute of the window. */
function background(world: World): void {
  world.write(
    GROUP,
    Array.from({ length: 10 }, (_, i) => event(`bg${i}`, i * 60 + 10)),
  );
}

/** A trace whose first line is at `seconds` after T0 and whose two other lines follow 1 s and 2.5 s later. */
function trace(world: World, id: string, seconds: number, stream = 's1'): void {
  world.write(GROUP, [
    event(`${id}0`, seconds, 'Exception', stream),
    event(`${id}1`, seconds + 1, '  at a', stream),
    event(`${id}2`, seconds + 2.5, '  at b', stream),
  ]);
}

describe('a loss hidden by a join across a minute', () => {
  test.each([
    ['before the trace', 3 * 60 + 5],
    ['after the trace', 3 * 60 + 57.5],
  ])("finds the one lost event of the trace's first minute (%s)", async (_, lostAt) => {
    // GIVEN a trace at 3:58, 3:59 and 4:00.5, and one event of minute 3 lost: minute 3's counts are equal
    const world = new World();
    world.now = M(30);
    background(world);
    trace(world, 't', 3 * 60 + 58);
    world.write(GROUP, [event('lost', lostAt, 'lost', 's2')], false);

    // WHEN
    const report = await reconcile(window, world.ports());

    // THEN
    expect(report.totals).toMatchObject({ missing: 1, joined: 2 });
    expect(report.groups[0].events.find((v) => v.state === 'missing')?.eventId).toBe('lost');
  });

  test('finds a loss behind a chain of traces across minutes', async () => {
    // GIVEN traces across 3->4 and 4->5, one event lost in minute 3 and one in minute 4: only minute 5 differs
    const world = new World();
    world.now = M(30);
    background(world);
    trace(world, 'a', 3 * 60 + 58);
    trace(world, 'b', 4 * 60 + 58, 's3');
    world.write(
      GROUP,
      [event('lost3', 3 * 60 + 20, 'x', 's2'), event('lost4', 4 * 60 + 20, 'x', 's2')],
      false,
    );

    // WHEN
    const report = await reconcile(window, world.ports());

    // THEN
    expect(report.totals.missing).toBe(2);
  });

  test('finds a loss in the last judged minute behind a trace that reaches past the window', async () => {
    // GIVEN a trace at 9:58, 9:59 and 10:00.5 (the window ends at 10:00) and one event of minute 9 lost
    const world = new World();
    world.now = M(30);
    background(world);
    trace(world, 't', 9 * 60 + 58);
    world.write(GROUP, [event('lost', 9 * 60 + 30, 'x', 's2')], false);

    // WHEN
    const report = await reconcile(window, world.ports());

    // THEN
    expect(report.totals.missing).toBe(1);
  });

  test('a trace away from any difference and from the end costs no read', async () => {
    // GIVEN a healthy window with a trace across minutes 3 and 4
    const world = new World();
    world.now = M(30);
    background(world);
    trace(world, 't', 3 * 60 + 58);

    // WHEN
    const report = await reconcile(window, world.ports());

    // THEN minute 4 differs (its line is counted in minute 3), so both are read; nothing else
    expect(report.totals).toMatchObject({ missing: 0 });
    expect(
      world.reads.map(([, start, end]) => [(start - T0) / MINUTE_MILLIS, (end - T0) / MINUTE_MILLIS]),
    ).toEqual([[2, 5]]);
  });
});

describe('exactRanges', () => {
  test('reads a minute with joined lines when a minute its traces reach is read, or they reach past the end', () => {
    const cw = new Map([
      [M(0), 3],
      [M(1), 1],
      [M(5), 2],
    ]);
    const os = new Map([
      [M(0), 3],
      [M(1), 0],
      [M(5), 2],
    ]);
    const joined = new Map([
      [M(0), 2],
      [M(5), 1],
    ]);
    const sides = { cloudWatch: cw, openSearch: os, joined, lookbackInMillis: MINUTE_MILLIS };
    expect(exactRanges(M(0), M(10), sides, 10)).toEqual([{ start: M(0), end: M(2) }]);
    expect(exactRanges(M(0), M(6), sides, 10)).toEqual([
      { start: M(0), end: M(2) },
      { start: M(5), end: M(6) },
    ]);
  });
});
