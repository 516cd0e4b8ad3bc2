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
   * Events followed at most (a random sample); each poll is one search with a clause per unseen event.
   * @default 200
   */
  readonly sampleSize?: number;
  /** @default 100 */
  readonly pollIntervalInMillis?: number;
}

interface Tracked {
  readonly key: string;
  readonly event: SentLogEvent;
  seenAt?: number;
}

/**
 * Measures PutLogEvents-to-searchable latency honestly: it follows a random sample of the written events (by log
 * stream and exact `@timestamp`, which the sender keeps unique per stream) and polls `_search` - without forcing
 * a refresh - until each is visible, so the number includes the index's refresh interval like a user's query.
 */
export class LatencyProbe {
  private readonly tracked: Tracked[] = [];
  /** Events offered to {@link follow} so far (the reservoir's denominator). */
  private seen = 0;
  private readonly sampleSize: number;
  private readonly pollIntervalInMillis: number;
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;

  constructor(private readonly props: LatencyProbeProps) {
    this.sampleSize = props.sampleSize ?? 200;
    this.pollIntervalInMillis = props.pollIntervalInMillis ?? 100;
  }

  /** Adds sent events to the candidate pool (reservoir sampling keeps the sample uniform). */
  follow(events: readonly SentLogEvent[]): void {
    for (const event of events) {
      const item: Tracked = {
        key: keyOf(event.logStreamName, new Date(event.timestamp).toISOString()),
        event,
      };
      this.seen += 1;
      if (this.tracked.length < this.sampleSize) {
        this.tracked.push(item);
      } else {
        const slot = Math.floor(Math.random() * this.seen);
        if (slot < this.sampleSize && this.tracked[slot].seenAt === undefined) this.tracked[slot] = item;
      }
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
    const deadline = Date.now() + timeoutInMillis;
    while (!this.isComplete() && Date.now() < deadline && !this.abort.signal.aborted) {
      await sleep(this.pollIntervalInMillis);
    }
    return this.isComplete();
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
    }>('POST', `/${this.props.indexPattern}/_search?ignore_unavailable=true&allow_no_indices=true`, {
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
    const now = Date.now();
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

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
