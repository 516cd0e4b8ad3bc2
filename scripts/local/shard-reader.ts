import {
  GetRecordsCommand,
  GetShardIteratorCommand,
  KinesisClient,
  ListShardsCommand,
  type _Record,
  type ShardIteratorType,
} from '@aws-sdk/client-kinesis';

/** Where a shard reader (re)starts. */
export type ShardPosition =
  | { readonly type: 'TRIM_HORIZON' }
  | { readonly type: 'AT_SEQUENCE_NUMBER'; readonly sequenceNumber: string }
  | { readonly type: 'AFTER_SEQUENCE_NUMBER'; readonly sequenceNumber: string };

/** One GetRecords answer. */
export interface ShardBatch {
  readonly records: readonly _Record[];
  /** How far the reader is behind the tip of the shard; 0 when caught up (moto reports it too). */
  readonly millisBehindLatest: number;
  /** False once the shard is closed and fully read (after a reshard; not expected locally). */
  readonly open: boolean;
}

/**
 * Reads one shard the way a Kinesis consumer does: one iterator at a time, GetRecords with a limit, and
 * a new iterator whenever the consumer repositions (to re-read after a partial batch failure).
 * Both local loops use it: the Lambda event-source stand-in and the Firehose stand-in.
 */
export class ShardReader {
  private iterator: string | undefined;
  private closed = false;

  constructor(
    private readonly client: KinesisClient,
    readonly streamArn: string,
    readonly shardId: string,
  ) {}

  /** Positions the reader; the next `read` starts there. */
  async seek(position: ShardPosition): Promise<void> {
    const out = await this.client.send(
      new GetShardIteratorCommand({
        StreamARN: this.streamArn,
        ShardId: this.shardId,
        ShardIteratorType: position.type satisfies ShardIteratorType,
        StartingSequenceNumber: position.type === 'TRIM_HORIZON' ? undefined : position.sequenceNumber,
      }),
    );
    this.iterator = out.ShardIterator;
    this.closed = this.iterator === undefined;
  }

  /** Reads up to `limit` records from the current position and moves past them. */
  async read(limit: number): Promise<ShardBatch> {
    if (this.closed || this.iterator === undefined) {
      return { records: [], millisBehindLatest: 0, open: false };
    }
    // StreamARN as well as the iterator: moto's iterators from an ARN-only GetShardIterator do not name the stream.
    const out = await this.client.send(
      new GetRecordsCommand({ StreamARN: this.streamArn, ShardIterator: this.iterator, Limit: limit }),
    );
    this.iterator = out.NextShardIterator;
    this.closed = this.iterator === undefined;
    return {
      records: out.Records ?? [],
      millisBehindLatest: out.MillisBehindLatest ?? 0,
      open: !this.closed,
    };
  }
}

/** Lists every shard of a stream (following NextToken), in shard-id order. */
export async function listShardIds(client: KinesisClient, streamArn: string): Promise<string[]> {
  const ids: string[] = [];
  let nextToken: string | undefined;
  do {
    const out = await client.send(
      nextToken === undefined
        ? new ListShardsCommand({ StreamARN: streamArn })
        : new ListShardsCommand({ NextToken: nextToken }),
    );
    for (const shard of out.Shards ?? []) {
      if (shard.ShardId !== undefined) ids.push(shard.ShardId);
    }
    nextToken = out.NextToken;
  } while (nextToken !== undefined);
  return ids.sort();
}

/** Resolves after `ms`, or at once when `signal` aborts (so Ctrl-C never waits out a poll interval). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
