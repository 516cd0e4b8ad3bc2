/**
 * Reads one shard of a stream between two times, page by page, for the events-window replay: GetShardIterator
 * AT_TIMESTAMP at the window's start, then GetRecords until a record arrived after the window's end, the shard
 * ends (a closed parent shard, read to its last record), or the tip answers empty (MillisBehindLatest 0).
 *
 * GetRecords' limits hold per shard: 5 calls per second and 2 MB per second, shared with every other consumer of
 * the shard (Firehose among them). Calls on a shard are spaced by at least 200 ms and by the bytes the previous
 * call read at `readBytesPerSecond` (1 MB/s); a call Kinesis throttles anyway is retried after an exponential backoff.
 * (https://docs.aws.amazon.com/kinesis/latest/APIReference/API_GetRecords.html)
 */
import { isRetryable } from '../../core/aws/retry';
import { ReplayError } from './errors';
import type { ArrivedRecord, ShardInfo, StreamWindowPort, WindowPosition } from './ports';

/** The most records one GetRecords call returns (the API's `Limit`). */
export const MAX_RECORDS_PER_READ = 10_000;
/** Five GetRecords calls per second per shard. */
const MIN_MILLIS_BETWEEN_CALLS = 200;

export interface WindowBounds {
  /** The iterator starts at this arrival time (or at the oldest record, when the retention trimmed it). */
  readonly since: Date;
  /** Records that arrived after this are not read: the replay's own start, or `--until`. */
  readonly end: Date;
}

export interface ShardWindowOptions {
  readonly now: () => number;
  readonly sleep: (millis: number) => Promise<void>;
  /** @default Math.random */
  readonly random?: () => number;
  /**
   * Bytes per second this reader takes from the shard.
   * @default 1 MB: of the shard's 2 MB/s of reads, the delivery stream needs what the shard is written, which is at
   * most 1 MB/s (the shard's write limit, the replay's own puts included)
   */
  readonly readBytesPerSecond?: number;
  /** Throttled or failed calls in a row before the shard is given up. @default 10 */
  readonly maxAttempts?: number;
}

/**
 * Why a shard's reading ended: a record past the window's end, the tip, the end of a closed shard, or a closed
 * shard whose records all expired (Kinesis no longer knows it).
 */
export type ShardEnd = 'window-end' | 'tip' | 'shard-end' | 'expired';

/** Error names that mean "slow down" for GetRecords and GetShardIterator, besides the SDK's retryable ones. */
const THROTTLED = new Set(['ProvisionedThroughputExceededException', 'KMSThrottlingException']);

const nameOf = (error: unknown): string => {
  const name = (error as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : '';
};

/** Reads one shard's records inside the window, one GetRecords call per {@link next}. */
export class ShardWindowReader {
  private iterator: string | undefined;
  private lastSequenceNumber: string | undefined;
  private nextCallAt = 0;
  private endedBy: ShardEnd | undefined;
  private throttledCalls = 0;

  constructor(
    private readonly port: StreamWindowPort,
    private readonly stream: string,
    private readonly shard: ShardInfo,
    private readonly bounds: WindowBounds,
    private readonly options: ShardWindowOptions,
  ) {}

  /** Why the shard is done; undefined while it has more to read. */
  get ended(): ShardEnd | undefined {
    return this.endedBy;
  }

  /** When (by the injected clock) the shard's read limits allow its next call. */
  get readyAt(): number {
    return this.nextCallAt;
  }

  /** Calls Kinesis throttled (or failed transiently) and that were retried. */
  get retriedCalls(): number {
    return this.throttledCalls;
  }

  /**
   * One GetRecords call of at most `maxRecords`: the records of its answer that are inside the window, in order.
   * An answer can be empty while the shard is not done (Kinesis skips ahead through quiet stretches); read on
   * until {@link ended} is set.
   */
  async next(maxRecords: number): Promise<ArrivedRecord[]> {
    if (this.endedBy !== undefined) return [];
    if (this.iterator === undefined) {
      await this.seek();
      if (this.iterator === undefined) return [];
    }
    const limit = Math.max(1, Math.min(MAX_RECORDS_PER_READ, maxRecords));
    let page;
    for (let renewed = 0; ; renewed += 1) {
      try {
        const iterator = this.iterator;
        page = await this.paced(
          'GetRecords',
          () => this.port.readPage(this.stream, iterator, limit),
          (answer) => answer.records.reduce((sum, r) => sum + r.data.length, 0),
        );
        break;
      } catch (error) {
        // An iterator lives 5 minutes: a slow --rate can outlast it while the previous page is put. Start again
        // right after the last record read.
        if (nameOf(error) !== 'ExpiredIteratorException' || renewed >= 3) throw error;
        await this.seek();
        if (this.iterator === undefined) return [];
      }
    }
    const inside: ArrivedRecord[] = [];
    for (const record of page.records) {
      if (record.arrivedAt !== undefined && record.arrivedAt.getTime() > this.bounds.end.getTime()) {
        this.endedBy = 'window-end';
        return inside;
      }
      inside.push(record);
      this.lastSequenceNumber = record.sequenceNumber;
    }
    if (page.next === undefined || page.next === '') this.endedBy = 'shard-end';
    else if (page.records.length === 0 && page.millisBehindLatest === 0) this.endedBy = 'tip';
    else this.iterator = page.next;
    return inside;
  }

  /** A new iterator: at the window's start, or after the last record read. */
  private async seek(): Promise<void> {
    const position: WindowPosition =
      this.lastSequenceNumber === undefined
        ? { type: 'AT_TIMESTAMP', timestamp: this.bounds.since }
        : { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: this.lastSequenceNumber };
    try {
      this.iterator = await this.paced(
        'GetShardIterator',
        () => this.port.iterator(this.stream, this.shard.shardId, position),
        () => 0,
      );
    } catch (error) {
      // A closed shard is listed for the retention period after it closed; once its last record expired,
      // Kinesis may refuse an iterator for it. Nothing of it is left to replay.
      if (nameOf(error) === 'ResourceNotFoundException' && this.shard.closed) {
        this.endedBy = 'expired';
        this.iterator = undefined;
        return;
      }
      throw error;
    }
    if (this.iterator === undefined || this.iterator === '') {
      this.iterator = undefined;
      this.endedBy = 'shard-end';
    }
  }

  /**
   * One call, no sooner than the shard's limits allow, retried with exponential backoff (half to full of
   * 500 ms x 2^n, at most 10 s) while Kinesis throttles it or fails transiently. Other errors are thrown as they are.
   */
  private async paced<T>(
    operation: string,
    call: () => Promise<T>,
    bytesOf: (answer: T) => number,
  ): Promise<T> {
    const maxAttempts = this.options.maxAttempts ?? 10;
    const random = this.options.random ?? Math.random;
    for (let attempt = 1; ; attempt += 1) {
      const wait = this.nextCallAt - this.options.now();
      if (wait > 0) await this.options.sleep(wait);
      const startedAt = this.options.now();
      try {
        const answer = await call();
        const bytes = bytesOf(answer);
        const readBytesPerSecond = this.options.readBytesPerSecond ?? 1_000_000;
        this.nextCallAt =
          startedAt + Math.max(MIN_MILLIS_BETWEEN_CALLS, Math.ceil((bytes * 1000) / readBytesPerSecond));
        return answer;
      } catch (error) {
        const retryable = THROTTLED.has(nameOf(error)) || isRetryable(error);
        if (!retryable) throw error;
        if (attempt >= maxAttempts) {
          throw new ReplayError(
            `${operation} on ${this.shard.shardId} of ${this.stream} was throttled or failed ${attempt} times in a ` +
              `row (${nameOf(error) || String(error)}): the shard's read throughput (2 MB/s, shared with the ` +
              'delivery stream) is in use; run the replay again later',
            { cause: error },
          );
        }
        this.throttledCalls += 1;
        const backoff = Math.min(10_000, 500 * 2 ** (attempt - 1));
        this.nextCallAt = this.options.now() + Math.floor(backoff * (0.5 + random() / 2));
      }
    }
  }
}
