import { indicesPath } from '../../core/opensearch/request-path';
import { percentile } from '../../core/verify-stats';
import { LocalRunError } from './errors';
import type { SearchHttp } from './search-http';
import type { SentLogEvent } from './sender';
import { sleep } from './shard-reader';

/** End-to-end latency over a sample of events, in milliseconds. */
export interface LatencyReport {
  /** Events in the sample. */
  readonly sampled: number;
  /** Sampled events found searchable before the probe stopped. */
  readonly found: number;
  readonly p50InMillis: number | undefined;
  readonly p95InMillis: number | undefined;
  readonly maxInMillis: number | undefined;
}

export interface LatencyProbeProps {
  readonly search: SearchHttp;
  /** Index pattern covering every rotated index, e.g. `logs-*`. */
  readonly indexPattern: string;
  /**
   * Events the run will write, so the sample can be spread evenly over the whole write (see {@link follow}).
   */
  readonly expectedEvents: number;
  /**
   * Events followed at most; each poll is one search with a clause per unseen event.
   * @default 200
   */
  readonly sampleSize?: number;
  /** @default 100 */
  readonly pollIntervalInMillis?: number;
  /** The clock `seenAt` is read from; the same clock as the sender's `putAt`. @default Date.now */
  readonly now?: () => number;
}

interface Tracked {
  readonly key: string;
  readonly event: SentLogEvent;
  seenAt?: number;
}

/**
 * Measures PutLogEvents-to-searchable latency honestly: it follows a sample of the written events (by log stream
 * and exact `@timestamp`, which the sender keeps unique per stream) and polls `_search` - without forcing a
 * refresh - until each is visible, so the number includes the index's refresh interval like a user's query.
 *
 * The caller must {@link follow} each PutLogEvents call's events as soon as it returns. An event the probe learns
 * of late is found late: until the runner did that, it followed the whole run only after the last write, so
 * every latency was at least the time left until the end of writing (a 100,000-event run reported p50 9.3 s /
 * p95 10.2 s, and the spread was the write time, not the pipeline).
 */
export class LatencyProbe {
  private readonly tracked: Tracked[] = [];
  /** Events offered to {@link follow} so far. */
  private seen = 0;
  private readonly sampleSize: number;
  private readonly stride: number;
  private readonly pollIntervalInMillis: number;
  private readonly now: () => number;
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;

  constructor(private readonly props: LatencyProbeProps) {
    this.sampleSize = props.sampleSize ?? 200;
    if (!Number.isInteger(props.expectedEvents) || props.expectedEvents < 1 || this.sampleSize < 1) {
      throw new LocalRunError(
        `latency probe: expectedEvents (${props.expectedEvents}) and sampleSize (${this.sampleSize}) must be ` +
          'whole numbers >= 1',
      );
    }
    this.stride = Math.max(1, props.expectedEvents / this.sampleSize);
    this.pollIntervalInMillis = props.pollIntervalInMillis ?? 100;
    this.now = props.now ?? Date.now;
  }

  /**
   * Adds events just written to the sample. The sample is evenly spaced over the write order (the middle event of
   * each of `sampleSize` equal slices of `expectedEvents`), so it covers the end of the write as much as its
   * start: the events written last wait behind everything before them. Events beyond `expectedEvents` are not
   * sampled.
   */
  follow(events: readonly SentLogEvent[]): void {
    for (const event of events) {
      const index = this.seen;
      this.seen += 1;
      if (this.tracked.length >= this.sampleSize) continue;
      // The event is sampled when it is the middle one of the next slice.
      if (index !== Math.floor((this.tracked.length + 0.5) * this.stride)) continue;
      this.tracked.push({ key: keyOf(event.logStreamName, new Date(event.timestamp).toISOString()), event });
    }
  }

  /** Starts polling in the background. */
  start(): void {
    this.running ??= this.poll();
  }

  /** Stops polling and reports. */
  async stop(): Promise<LatencyReport> {
    this.abort.abort();
    await this.running;
    return this.report();
  }

  /**
   * Waits until every sampled event is searchable, at most `timeoutInMillis` (the refresh interval of the index
   * template, 5 s, is part of what is measured, so allow well above it).
   */
  async waitUntilComplete(timeoutInMillis: number): Promise<boolean> {
    const deadline = this.now() + timeoutInMillis;
    while (!this.isComplete() && this.now() < deadline && !this.abort.signal.aborted) {
      await sleep(this.pollIntervalInMillis);
    }
    return this.isComplete();
  }

  /** The events in the sample, in write order. */
  followed(): readonly SentLogEvent[] {
    return this.tracked.map((t) => t.event);
  }

  /** True when every sampled event has been seen. */
  isComplete(): boolean {
    return this.tracked.length > 0 && this.tracked.every((t) => t.seenAt !== undefined);
  }

  report(): LatencyReport {
    const latencies = this.tracked
      .filter((t) => t.seenAt !== undefined)
      .map((t) => (t.seenAt as number) - t.event.putAt)
      .sort((a, b) => a - b);
    return {
      sampled: this.tracked.length,
      found: latencies.length,
      p50InMillis: percentile(latencies, 50),
      p95InMillis: percentile(latencies, 95),
      maxInMillis: latencies.length > 0 ? latencies[latencies.length - 1] : undefined,
    };
  }

  private async poll(): Promise<void> {
    while (!this.abort.signal.aborted) {
      const unseen = this.tracked.filter((t) => t.seenAt === undefined);
      if (unseen.length > 0) {
        try {
          await this.pollOnce(unseen);
        } catch {
          // The index may not exist yet (404) or the node may be busy: the next poll tries again.
        }
      }
      await sleep(this.pollIntervalInMillis, this.abort.signal);
    }
  }

  private async pollOnce(unseen: readonly Tracked[]): Promise<void> {
    const answer = await this.props.search.json<{
      hits: { hits: Array<{ _source?: { '@timestamp'?: string; cloudwatch?: { logStream?: string } } }> };
    }>('POST', indicesPath(this.props.indexPattern, '_search'), {
      size: unseen.length,
      _source: ['@timestamp', 'cloudwatch.logStream'],
      query: {
        bool: {
          should: unseen.map((t) => ({
            bool: {
              filter: [
                { term: { 'cloudwatch.logStream': t.event.logStreamName } },
                { term: { '@timestamp': new Date(t.event.timestamp).toISOString() } },
              ],
            },
          })),
          minimum_should_match: 1,
        },
      },
    });
    const now = this.now();
    const found = new Set(
      answer.hits.hits.map((h) =>
        keyOf(h._source?.cloudwatch?.logStream ?? '', h._source?.['@timestamp'] ?? ''),
      ),
    );
    for (const t of unseen) {
      if (found.has(t.key)) t.seenAt = now;
    }
  }
}

function keyOf(logStream: string, isoTimestamp: string): string {
  return `${logStream}\u0000${isoTimestamp}`;
}
