/**
 * A stream's shards between two times, for the events-window replay: their lineage order, and one shard's reader,
 * the shard reader from GetShardIterator AT_TIMESTAMP at the window's start, until a record arrived after the
 * window's end, the shard ends (a closed parent shard, read to its last record), or the tip answers empty
 * (MillisBehindLatest 0). The shard reader keeps the shard's read limits and retries what Kinesis throttles.
 */
import type { ArrivedRecord, KinesisPort, ShardInfo } from './ports';
import { type ShardReadEnd, ShardReader, type ShardReaderOptions } from './shard-reader';

/** Shards in lineage order: a parent before its children, so a partition key's records are re-put in order. */
export function parentsFirst(shards: readonly ShardInfo[]): ShardInfo[] {
  const byId = new Map(shards.map((s) => [s.shardId, s]));
  const depths = new Map<string, number>();
  const depth = (shard: ShardInfo, seen: ReadonlySet<string>): number => {
    const known = depths.get(shard.shardId);
    if (known !== undefined) return known;
    const parents = [shard.parentShardId, shard.adjacentParentShardId]
      .map((id) => (id === undefined || seen.has(id) ? undefined : byId.get(id)))
      .filter((p): p is ShardInfo => p !== undefined);
    const next = new Set(seen).add(shard.shardId);
    const value = parents.length === 0 ? 0 : 1 + Math.max(...parents.map((p) => depth(p, next)));
    depths.set(shard.shardId, value);
    return value;
  };
  return [...shards].sort(
    (a, b) => depth(a, new Set()) - depth(b, new Set()) || a.shardId.localeCompare(b.shardId),
  );
}

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
