/** The paces of a backfill on a fake clock: events per second, and FilterLogEvents calls per second. */
import { CallSpacer, RatePacer } from '../../core/pace';
import { FakeClock } from '../helpers/replay-fakes';

describe('RatePacer', () => {
  test('lets a take of many units go at once and makes the next one wait for it', async () => {
    const clock = new FakeClock();
    const pacer = new RatePacer(100, clock);
    await pacer.take(50);
    expect(clock.millis).toBe(0);
    await pacer.take(10);
    expect(clock.millis).toBe(500);
    await pacer.take(1);
    expect(clock.millis).toBe(600);
  });

  test('does not wait when unpaced', async () => {
    const clock = new FakeClock();
    const pacer = new RatePacer(undefined, clock);
    for (let i = 0; i < 10; i++) await pacer.take(1_000_000);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('CallSpacer', () => {
  test('spaces calls 1/rate apart, and does not wait when they are slower than that', async () => {
    const clock = new FakeClock();
    const spacer = new CallSpacer(4, clock);
    await spacer.next();
    await spacer.next();
    await spacer.next();
    expect(clock.sleeps).toEqual([250, 250]);
    clock.millis += 1_000;
    await spacer.next();
    expect(clock.sleeps).toEqual([250, 250]);
  });
});
