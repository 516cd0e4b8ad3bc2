import { documentIdFor } from '../../../core/opensearch/ingest-pipeline';
import {
  differingRanges,
  judgedMinutes,
  MINUTE_MILLIS,
  reconcile,
  type ReconcileOptions,
} from '../../../core/reconcile/engine';
import { GROUP, T0, World, event } from '../../helpers/reconcile-fakes';

const HOUR = 60 * MINUTE_MILLIS;
const OPTIONS: ReconcileOptions = {
  groups: [GROUP],
  since: T0,
  until: T0 + HOUR,
  lagInMillis: 5 * MINUTE_MILLIS,
};

/** Healthy traffic: one event every 10 s for the first 50 minutes. */
function healthy(world: World): void {
  world.write(
    GROUP,
    Array.from({ length: 300 }, (_, i) => event(`h${i}`, i * 10)),
  );
}

describe('judgedMinutes', () => {
  test('judges from the first minute up to the earlier of until and now minus the lag, in whole seconds', () => {
    expect(judgedMinutes(T0 + 30_000, T0 + HOUR, T0 + HOUR, 5 * MINUTE_MILLIS)).toEqual({
      start: T0,
      end: T0 + 55 * MINUTE_MILLIS,
    });
    expect(judgedMinutes(T0, T0 + 10 * MINUTE_MILLIS + 1_500, T0 + HOUR, 0)).toEqual({
      start: T0,
      end: T0 + 10 * MINUTE_MILLIS + 1_000,
    });
  });

  test('judges nothing when the whole window is newer than the lag', () => {
    const { start, end } = judgedMinutes(T0, T0 + HOUR, T0 + HOUR, 2 * HOUR);
    expect(end).toBe(start);
  });
});

describe('differingRanges', () => {
  test('merges consecutive differing minutes and cuts them at the longest range', () => {
    const cw = new Map([
      [T0, 1],
      [T0 + MINUTE_MILLIS, 2],
      [T0 + 2 * MINUTE_MILLIS, 3],
      [T0 + 4 * MINUTE_MILLIS, 1],
    ]);
    const os = new Map([[T0, 1]]);
    expect(differingRanges(T0, T0 + 5 * MINUTE_MILLIS, cw, os, 1)).toEqual([
      { start: T0 + MINUTE_MILLIS, end: T0 + 2 * MINUTE_MILLIS },
      { start: T0 + 2 * MINUTE_MILLIS, end: T0 + 3 * MINUTE_MILLIS },
      { start: T0 + 4 * MINUTE_MILLIS, end: T0 + 5 * MINUTE_MILLIS },
    ]);
    expect(differingRanges(T0, T0 + 5 * MINUTE_MILLIS, cw, os, 10)).toHaveLength(2);
    // A window that ends in a minute judges that minute up to its end.
    expect(differingRanges(T0, T0 + 4 * MINUTE_MILLIS + 30_000, cw, os, 10)[1]).toEqual({
      start: T0 + 4 * MINUTE_MILLIS,
      end: T0 + 4 * MINUTE_MILLIS + 30_000,
    });
  });
});

describe('reconcile', () => {
  test('a healthy hour costs two counting requests and reads no event', async () => {
    // GIVEN every event delivered
    const world = new World();
    healthy(world);

    // WHEN
    const report = await reconcile(OPTIONS, world.ports());

    // THEN
    expect(report.totals).toMatchObject({ searchable: 300, missing: 0 });
    expect(world.reads).toEqual([]);
    expect(report.requests).toEqual({ cloudWatch: 1, openSearch: 1, kept: 0, kinesis: 0 });
    expect(report.groups[0]).toMatchObject({ minutes: 55, exactMinutes: 0, cloudWatchEvents: 300 });
  });

  test('reads only the minute that differs and finds exactly the lost event', async () => {
    // GIVEN one event of minute 7 never delivered
    const world = new World();
    healthy(world);
    world.write(GROUP, [event('lost', 7 * 60 + 3)], false);

    // WHEN
    const report = await reconcile(OPTIONS, world.ports());

    // THEN
    expect(world.reads).toEqual([[GROUP.logGroup, T0 + 7 * MINUTE_MILLIS - 60_000, T0 + 8 * MINUTE_MILLIS]]);
    expect(report.totals).toMatchObject({ searchable: 300, missing: 1 });
    expect(report.groups[0].events).toEqual([
      expect.objectContaining({
        eventId: 'lost',
        state: 'missing',
        documentId: documentIdFor(GROUP.logGroup, 's1', 'lost'),
      }),
    ]);
    expect(report.exactTier.events).toBe(7);
  });

  test('does not judge minutes newer than the lag, and calls an event ingested within the lag pending', async () => {
    // GIVEN an undelivered event in the last minutes, and one of minute 2 ingested just now
    const world = new World();
    healthy(world);
    world.write(GROUP, [event('fresh', 57 * 60)], false);
    world.write(GROUP, [{ ...event('late', 2 * 60 + 1), ingestionTime: world.now - 1000 }], false);

    // WHEN
    const report = await reconcile(OPTIONS, world.ports());

    // THEN
    expect(report.window.judgedUntil).toBe(new Date(T0 + 55 * MINUTE_MILLIS).toISOString());
    expect(report.totals).toMatchObject({ missing: 0, pending: 1 });
    expect(report.groups[0].events.map((e) => [e.eventId, e.state])).toEqual([['late', 'pending']]);
  });

  test('accounts for dropped, joined and kept events without calling them missing', async () => {
    // GIVEN a dropped line, a three-line trace delivered as one document, and a document kept as failed, in one
    // minute (whose counts then differ)
    const world = new World();
    healthy(world);
    world.write(GROUP, [event('d1', 60 * 5 + 6, 'DROP health check')]);
    world.write(GROUP, [
      event('t0', 60 * 5 + 2, 'Exception in thread main'),
      event('t1', 60 * 5 + 3, '    at a.b(c.java:1)'),
      event('t2', 60 * 5 + 4, '    at d.e(f.java:2)'),
    ]);
    world.write(GROUP, [event('k1', 60 * 5 + 1)], false);
    world.kept.set(documentIdFor(GROUP.logGroup, 's1', 'k1'), {
      kind: 'failed-document',
      location: 's3://bucket/failed-documents/2026/11/27/10/x',
    });

    // WHEN
    const report = await reconcile(OPTIONS, world.ports());

    // THEN
    expect(report.totals).toMatchObject({ searchable: 300 + 1, dropped: 1, joined: 2, kept: 1, missing: 0 });
    expect(report.groups[0].droppedByRule).toEqual({ drop: 1 });
    const byId = Object.fromEntries(report.groups[0].events.map((e) => [e.eventId, e]));
    expect(byId.t2).toMatchObject({ state: 'joined', joinedInto: 't0' });
    expect(byId.k1).toMatchObject({ state: 'kept', kept: { kind: 'failed-document' } });
  });

  test('a trace the pipeline delivered in two documents is searchable; a line in neither is missing', async () => {
    // GIVEN, in one minute, a four-line trace whose envelope was cut after its second line (two documents), and
    // another trace whose head document holds one line although the plan joins two
    const world = new World();
    healthy(world);
    const split = [
      event('a0', 60 * 9 + 1, 'Exception'),
      event('a1', 60 * 9 + 2, '  at x'),
      event('a2', 60 * 9 + 3, '  at y'),
      event('a3', 60 * 9 + 4, '  at z'),
    ];
    world.write(GROUP, split, false);
    world.deliver(GROUP, split.slice(0, 2));
    world.docs.set(documentIdFor(GROUP.logGroup, 's1', 'a2'), {
      group: GROUP.logGroup,
      at: split[2].timestamp,
      joined: 1,
    });
    const short = [
      event('b0', 60 * 9 + 5, 'Exception', 's2'),
      event('b1', 60 * 9 + 6, '  at x', 's2'),
      event('b2', 60 * 9 + 7, '  at y', 's2'),
    ];
    world.write(GROUP, short, false);
    world.docs.set(documentIdFor(GROUP.logGroup, 's2', 'b0'), {
      group: GROUP.logGroup,
      at: short[0].timestamp,
      joined: 1,
    });

    // WHEN
    const report = await reconcile(OPTIONS, world.ports());

    // THEN
    const states = Object.fromEntries(report.groups[0].events.map((e) => [e.eventId, e.state]));
    expect(states).toEqual({ a1: 'joined', a3: 'joined', b1: 'joined', b2: 'missing' });
    expect(report.totals.missing).toBe(1);
  });

  test('a continuation line whose head is in the minute before is joined, not missing', async () => {
    // GIVEN a trace across a minute boundary, delivered as one document (its minute counts one event more)
    const world = new World();
    healthy(world);
    world.write(GROUP, [
      event('c0', 60 * 13 - 1, 'Exception', 'trace'),
      event('c1', 60 * 13 + 1, '  at x', 'trace'),
    ]);

    // WHEN
    const report = await reconcile(OPTIONS, world.ports());

    // THEN both minutes were read, and nothing is missing
    expect(report.groups[0].exactMinutes).toBe(2);
    expect(report.totals).toMatchObject({ missing: 0, joined: 1 });
  });

  test('heals the missing events, and a second run finds nothing missing', async () => {
    // GIVEN a lost trace and a lost line; the pipeline delivers what is sent after two polls
    const world = new World();
    healthy(world);
    world.write(GROUP, [event('m0', 60 * 20 + 1, 'Exception'), event('m1', 60 * 20 + 2, '  at x')], false);
    world.write(GROUP, [event('m2', 60 * 30 + 1)], false);
    world.deliverAfterPolls = 2;

    // WHEN
    const first = await reconcile({ ...OPTIONS, heal: { timeoutInMillis: 60_000 } }, world.ports());
    const second = await reconcile(OPTIONS, world.ports());

    // THEN
    expect(world.healed.map((e) => e.id)).toEqual(['m0', 'm1', 'm2']);
    expect(first.heal).toMatchObject({ sent: 3, healed: 3, notSent: 0 });
    expect(first.totals).toMatchObject({ missing: 0, healed: 3 });
    expect(first.groups[0].events.find((e) => e.eventId === 'm1')).toMatchObject({
      state: 'healed',
      joinedInto: 'm0',
    });
    // (the minutes agree now: every event there counts as searchable)
    expect(second.totals).toMatchObject({ searchable: 303, missing: 0, healed: 0 });
    expect(second.groups[0].exactMinutes).toBe(0);
  });

  test('an event still not searchable when the heal times out stays missing', async () => {
    // GIVEN a lost event the pipeline loses again
    const world = new World();
    healthy(world);
    world.write(GROUP, [event('x', 60 * 40 + 1)], false);
    world.loseOnHeal.add('x');

    // WHEN
    const report = await reconcile({ ...OPTIONS, heal: { timeoutInMillis: 10_000 } }, world.ports());

    // THEN
    expect(report.heal).toMatchObject({ sent: 1, healed: 0 });
    expect(report.totals.missing).toBe(1);
    expect(report.heal?.durationInMillis).toBeLessThanOrEqual(10_000);
  });

  test('never heals a dropped, kept or pending event', async () => {
    // GIVEN one of each, and no missing event
    const world = new World();
    healthy(world);
    world.write(GROUP, [event('d', 60 * 3 + 1, 'DROP x')]);
    world.write(GROUP, [event('k', 60 * 5 + 1)], false);
    world.kept.set(documentIdFor(GROUP.logGroup, 's1', 'k'), { kind: 'dead-letter', location: 's3://b/k' });
    world.write(GROUP, [{ ...event('p', 60 * 6 + 1), ingestionTime: world.now }], false);

    // WHEN
    const report = await reconcile({ ...OPTIONS, heal: { timeoutInMillis: 10_000 } }, world.ports());

    // THEN
    expect(world.healed).toEqual([]);
    expect(report.heal).toBeUndefined();
    expect(report.totals).toMatchObject({ dropped: 1, kept: 1, pending: 1, missing: 0 });
  });
});
