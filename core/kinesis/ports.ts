/**
 * The Kinesis calls kfek's tools make (replay, the events window, backfill, the reconcile heal), as one port: aws.ts
 * implements it with the SDK; tests use in-memory fakes. Every method throws the SDK's errors as they are: the
 * sender and the shard reader decide what is retried (sender.ts, shard-reader.ts).
 */
import type { KinesisRecord } from './limits';

/** One shard of a stream as ListShards describes it. */
export interface ShardInfo {
  readonly shardId: string;
  readonly parentShardId?: string;
  readonly adjacentParentShardId?: string;
  /** Closed by a reshard (it has an ending sequence number): it takes no new records and is read to its end. */
  readonly closed: boolean;
}

/** A record as GetRecords answers it. */
export interface ShardRecord extends KinesisRecord {
  readonly sequenceNumber: string;
}

/** A record with the time Kinesis took it. */
export interface ArrivedRecord extends ShardRecord {
  /** `ApproximateArrivalTimestamp`. @default - unknown */
  readonly arrivedAt?: Date;
}

/** Where a shard iterator starts (GetShardIterator's `ShardIteratorType`). */
export type ShardPosition =
  | { readonly type: 'AT_TIMESTAMP'; readonly timestamp: Date }
  | { readonly type: 'AT_SEQUENCE_NUMBER'; readonly sequenceNumber: string }
  | { readonly type: 'AFTER_SEQUENCE_NUMBER'; readonly sequenceNumber: string };

/** One GetRecords answer. */
export interface ShardPage {
  readonly records: ArrivedRecord[];
  /** `NextShardIterator`: none once a closed shard is read to its end. */
  readonly next?: string;
  readonly millisBehindLatest?: number;
}

export interface KinesisPort {
  /** One ListShards page: the first with `stream`, the next ones with the token alone (the API's rule). */
  listShards(stream: string, nextToken?: string): Promise<{ shards: ShardInfo[]; nextToken?: string }>;
  /** GetShardIterator; undefined (or empty) when Kinesis answers none. */
  iterator(stream: string, shardId: string, position: ShardPosition): Promise<string | undefined>;
  /** One GetRecords call of at most `limit` records. */
  readPage(stream: string, iterator: string, limit: number): Promise<ShardPage>;
  /** One PutRecords call; answers, per entry in order, undefined for success or the error code. */
  putRecords(stream: string, records: readonly KinesisRecord[]): Promise<(string | undefined)[]>;
  /**
   * The time of Kinesis' latest answer (its `Date` header, whole seconds, so never later than Kinesis' clock), to
   * compare with arrival timestamps that Kinesis' clock wrote.
   * @default - unknown: the local clock is used
   */
  serverTime?(): Date | undefined;
}
