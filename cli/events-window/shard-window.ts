/**
 * Reads one shard of a stream between two times for the events-window replay: core/kinesis' shard reader from
 * GetShardIterator AT_TIMESTAMP at the window's start, until a record arrived after the window's end, the shard ends
 * (a closed parent shard, read to its last record), or the tip answers empty (MillisBehindLatest 0). The shard
 * reader keeps the shard's read limits and retries what Kinesis throttles.
 */
import type { ArrivedRecord, KinesisPort, ShardInfo } from '../../core/kinesis/ports';
import { type ShardReadEnd, ShardReader, type ShardReaderOptions } from '../../core/kinesis/shard-reader';

export interface WindowBounds {
  /** The iterator starts at this arrival time (or at the oldest record, when the retention trimmed it). */
  readonly since: Date;
  /** Records that arrived after this are not read: the replay's own start, or `--until`. */
  readonly end: Date;
}

/** Why a shard's reading ended: a record past the window's end, or what ended the shard reader. */
export type ShardEnd = 'window-end' | ShardReadEnd;

/** Reads one shard's records inside the window, one GetRecords call per {@link next}. */
export class ShardWindowReader {
  private readonly reader: ShardReader;
  private pastEnd = false;

  constructor(
    port: Pick<KinesisPort, 'iterator' | 'readPage'>,
    stream: string,
    shard: ShardInfo,
    private readonly bounds: WindowBounds,
    options: ShardReaderOptions,
  ) {
    this.reader = new ShardReader(
      port,
      stream,
      shard,
      { type: 'AT_TIMESTAMP', timestamp: bounds.since },
      { throttledHint: 'run the replay again later', ...options },
    );
  }

  /** Why the shard is done; undefined while it has more to read. */
  get ended(): ShardEnd | undefined {
    return this.pastEnd ? 'window-end' : this.reader.ended;
  }

  /** When (by the injected clock) the shard's read limits allow its next call. */
  get readyAt(): number {
    return this.reader.readyAt;
  }

  /** Calls Kinesis throttled (or failed transiently) and that were retried. */
  get retriedCalls(): number {
    return this.reader.retriedCalls;
  }

  /** One GetRecords call of at most `maxRecords`: the records of its answer that are inside the window, in order. */
  async next(maxRecords: number): Promise<ArrivedRecord[]> {
    if (this.ended !== undefined) return [];
    const page = await this.reader.next(maxRecords);
    const end = this.bounds.end.getTime();
    const past = page.findIndex((r) => r.arrivedAt !== undefined && r.arrivedAt.getTime() > end);
    if (past < 0) return page;
    this.pastEnd = true;
    this.reader.stop();
    return page.slice(0, past);
  }
}
