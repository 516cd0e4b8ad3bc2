/**
 * The one pacer of kfek's tools, on an injected clock (tests run it on a fake one): units per second (records or
 * events to a stream, `--rate`), and calls per second (FilterLogEvents, whose quota is per account and region).
 * core/kinesis/sender.ts paces PutRecords with it; backfill and the reconcile read CloudWatch Logs with it.
 */
import type { Clock } from './clock';

export type { Clock } from './clock';

/**
 * FilterLogEvents allows 5 transactions per second per account and region, a quota AWS does not raise
 * (https://repost.aws/knowledge-center/cloudwatch-logs-throttling). A backfill takes 4 of them, so a person
 * searching the console at the same time is not throttled; throttling that happens anyway is retried with backoff.
 */
export const FILTER_LOG_EVENTS_CALLS_PER_SECOND = 4;

/** At most `rate` units per second since the first one, whatever the size of each `take`. */
export class RatePacer {
  private taken = 0;
  private startedAt?: number;

  /** @param ratePerSecond - undefined: no pacing */
  constructor(
    private readonly ratePerSecond: number | undefined,
    private readonly clock: Clock,
  ) {}

  /**
   * Waits until `units` more may go: the units taken before number at most rate x (seconds since the first take),
   * so a call of many units goes at once and the next one waits for it.
   */
  async take(units: number): Promise<void> {
    await this.wait();
    this.count(units);
  }

  /** Waits until the units counted so far fit the rate since the first wait. */
  async wait(): Promise<void> {
    const now = this.clock.now();
    this.startedAt ??= now;
    if (this.ratePerSecond !== undefined) {
      const due = this.startedAt + (this.taken / this.ratePerSecond) * 1000;
      if (due > now) await this.clock.sleep(due - now);
    }
  }

  /** Counts units that went (the sender counts the records Kinesis took, after the call). */
  count(units: number): void {
    this.taken += units;
  }
}

/** Spaces calls at least `1 / callsPerSecond` apart. */
export class CallSpacer {
  private last?: number;

  constructor(
    private readonly callsPerSecond: number,
    private readonly clock: Clock,
  ) {}

  async next(): Promise<void> {
    const interval = 1000 / this.callsPerSecond;
    if (this.last !== undefined) {
      const wait = this.last + interval - this.clock.now();
      if (wait > 0) await this.clock.sleep(wait);
    }
    this.last = this.clock.now();
  }
}
