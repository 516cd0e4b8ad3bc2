/**
 * The one shard reader of kfek's tools, with one throttling policy: `kfek replay` reads a kept batch back from the
 * raw stream by its sequence numbers, `kfek events-window` reads the events stream between two times, both through
 * {@link ShardReader}.
 *
 * GetRecords' limits hold per shard: 5 calls per second and 2 MB per second, shared with every other consumer of
 * the shard (Firehose among them). Calls on a shard are spaced by at least 200 ms and by the bytes the previous
 * call read at `readBytesPerSecond` (1 MB/s); a call Kinesis throttles anyway (ProvisionedThroughputExceeded, KMS
 * throttling, or a transient failure) is retried after an exponential backoff.
 * (https://docs.aws.amazon.com/kinesis/latest/APIReference/API_GetRecords.html)
 */
import { AwsError, errorName } from '../aws/errors';
import { isRetryable } from '../aws/retry';
import type { Clock } from '../clock';
import { MAX_RECORDS_PER_READ, MIN_MILLIS_BETWEEN_READS, READ_BYTES_PER_SECOND } from './limits';
import type { ArrivedRecord, KinesisPort, ShardInfo, ShardPage, ShardPosition } from './ports';

/** A shard's reads were throttled (or failed transiently) every time, `maxAttempts` calls in a row. */
export class ShardReadThrottledError extends AwsError {
  constructor(
    operation: string,
    shardId: string,
    stream: string,
    attempts: number,
    hint: string,
    cause: unknown,
  ) {
    super(
      `${operation} on ${shardId} of ${stream} was throttled or failed ${attempts} times in a row ` +
        `(${errorName(cause) || String(cause)}): the shard's read throughput (2 MB/s, shared with the delivery ` +
        `stream) is in use; ${hint}`,
      { cause },
    );
    this.name = 'ShardReadThrottledError';
  }
}

export interface ShardReaderOptions extends Clock {
  /** @default Math.random */
  readonly random?: () => number;
  /** Bytes per second this reader takes from the shard. @default READ_BYTES_PER_SECOND (1 MB) */
  readonly readBytesPerSecond?: number;
  /** Throttled or failed calls in a row before the shard is given up. @default 10 */
  readonly maxAttempts?: number;
  /** What the operator does when the shard is given up. @default 'run the command again later' */
  readonly throttledHint?: string;
}

/**
 * Why a shard's reading ended: the tip (an empty answer with MillisBehindLatest 0), the end of a closed shard, or a
 * closed shard whose records all expired (Kinesis no longer knows it).
 */
export type ShardReadEnd = 'tip' | 'shard-end' | 'expired';

/** Error names that mean "slow down" for GetRecords and GetShardIterator, besides the SDK's retryable ones. */
const THROTTLED = new Set(['ProvisionedThroughputExceededException', 'KMSThrottlingException']);

/** Reads one shard from a position, one GetRecords call per {@link next}, paced to the shard's read limits. */
export class ShardReader {
  private iterator: string | undefined;
  private lastSequenceNumber: string | undefined;
  private nextCallAt = 0;
  private endedBy: ShardReadEnd | undefined;
  private throttledCalls = 0;

  constructor(
    private readonly port: Pick<KinesisPort, 'iterator' | 'readPage'>,
    private readonly stream: string,
    private readonly shard: Pick<ShardInfo, 'shardId' | 'closed'>,
    private readonly start: ShardPosition,
    private readonly options: ShardReaderOptions,
  ) {}

  /** Why the shard is done; undefined while it has more to read. */
  get ended(): ShardReadEnd | undefined {
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
   * Gets the first iterator (GetShardIterator at the start position) unless there is one. Its errors are thrown as
   * they are, but for a closed shard Kinesis no longer knows ({@link ended} becomes 'expired').
   */
  async open(): Promise<void> {
    if (this.iterator === undefined && this.endedBy === undefined) await this.seek();
  }

  /**
   * One GetRecords call of at most `maxRecords`: its records, in order. An answer can be empty while the shard is
   * not done (Kinesis skips ahead through quiet stretches); read on until {@link ended} is set.
   */
  async next(maxRecords: number): Promise<ArrivedRecord[]> {
    await this.open();
    if (this.iterator === undefined) return [];
    const limit = Math.max(1, Math.min(MAX_RECORDS_PER_READ, maxRecords));
    let page: ShardPage;
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
        if (errorName(error) !== 'ExpiredIteratorException' || renewed >= 3) throw error;
        await this.seek();
        if (this.iterator === undefined) return [];
      }
    }
    const last = page.records[page.records.length - 1];
    if (last !== undefined) this.lastSequenceNumber = last.sequenceNumber;
    if (page.next === undefined || page.next === '') this.endedBy = 'shard-end';
    else if (page.records.length === 0 && page.millisBehindLatest === 0) this.endedBy = 'tip';
    this.iterator = this.endedBy === undefined ? page.next : undefined;
    return page.records;
  }

  /** Reading stops here (the caller found what it needed): no further call is made. */
  stop(): void {
    this.iterator = undefined;
  }

  /** A new iterator: at the start, or after the last record read. */
  private async seek(): Promise<void> {
    const position: ShardPosition =
      this.lastSequenceNumber === undefined
        ? this.start
        : { type: 'AFTER_SEQUENCE_NUMBER', sequenceNumber: this.lastSequenceNumber };
    try {
      this.iterator = await this.paced(
        'GetShardIterator',
        () => this.port.iterator(this.stream, this.shard.shardId, position),
        () => 0,
      );
    } catch (error) {
      // A closed shard is listed for the retention period after it closed; once its last record expired,
      // Kinesis may refuse an iterator for it. Nothing of it is left to read.
      if (errorName(error) === 'ResourceNotFoundException' && this.shard.closed) {
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
        const readBytesPerSecond = this.options.readBytesPerSecond ?? READ_BYTES_PER_SECOND;
        this.nextCallAt =
          startedAt +
          Math.max(MIN_MILLIS_BETWEEN_READS, Math.ceil((bytesOf(answer) * 1000) / readBytesPerSecond));
        return answer;
      } catch (error) {
        if (!THROTTLED.has(errorName(error)) && !isRetryable(error)) throw error;
        if (attempt >= maxAttempts) {
          throw new ShardReadThrottledError(
            operation,
            this.shard.shardId,
            this.stream,
            attempt,
            this.options.throttledHint ?? 'run the command again later',
            error,
          );
        }
        this.throttledCalls += 1;
        const backoff = Math.min(10_000, 500 * 2 ** (attempt - 1));
        this.nextCallAt = this.options.now() + Math.floor(backoff * (0.5 + random() / 2));
      }
    }
  }
}
