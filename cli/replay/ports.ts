/**
 * The I/O `kfek replay` needs, as ports: where kept data is read from (an S3 bucket or a local folder, the pipe's
 * queue) and the Kinesis calls it makes. aws-ports.ts and folder-store.ts implement them; tests use fakes.
 */
import type { ReplayRecord } from './model';

export interface StoredObject {
  /** The store's handle: an S3 key or a path. */
  readonly key: string;
  readonly sizeBytes: number;
  readonly lastModified?: Date;
}

/** A bucket or a folder. */
export interface ObjectStore {
  /** How to print an object of it: `s3://bucket/key` or the path. */
  locationOf(key: string): string;
  /** Every object under `prefix` (a key prefix, or a sub-folder ending in `/`); none when it does not exist. */
  list(prefix: string): Promise<StoredObject[]>;
  read(key: string): Promise<Uint8Array>;
  delete(key: string): Promise<void>;
}

export interface QueuedMessage {
  readonly messageId: string;
  readonly body: string;
  readonly receiptHandle: string;
  readonly sentAt?: Date;
}

/** The pipe's dead-letter queue. */
export interface MessageQueue {
  readonly location: string;
  /**
   * Every message, without consuming any: each is received with a visibility timeout of 0 and stays in the queue.
   * Stops after `max` distinct messages.
   */
  peekAll(max: number): Promise<QueuedMessage[]>;
  delete(receiptHandle: string): Promise<void>;
}

export interface ShardRecord extends ReplayRecord {
  readonly sequenceNumber: string;
}

/** The Kinesis calls replay makes. */
export interface KinesisPort {
  /** Iterator at a sequence number; throws the SDK's errors as they are. */
  iteratorAt(stream: string, shardId: string, sequenceNumber: string): Promise<string>;
  getRecords(
    iterator: string,
  ): Promise<{ records: ShardRecord[]; next?: string; millisBehindLatest?: number }>;
  /** One PutRecords call; answers, per entry in order, undefined for success or the error code. */
  putRecords(stream: string, records: readonly ReplayRecord[]): Promise<(string | undefined)[]>;
}

/** One shard of a stream as ListShards describes it. */
export interface ShardInfo {
  readonly shardId: string;
  readonly parentShardId?: string;
  readonly adjacentParentShardId?: string;
  /** Closed by a reshard (it has an ending sequence number): it takes no new records and is read to its end. */
  readonly closed: boolean;
}

/** A record as GetRecords answers it, with the time Kinesis took it. */
export interface ArrivedRecord extends ShardRecord {
  /** `ApproximateArrivalTimestamp`. @default - unknown (treated as inside the window) */
  readonly arrivedAt?: Date;
}

/** Where an iterator of the events-window replay starts. */
export type WindowPosition =
  | { readonly type: 'AT_TIMESTAMP'; readonly timestamp: Date }
  | { readonly type: 'AFTER_SEQUENCE_NUMBER'; readonly sequenceNumber: string };

/** The Kinesis calls the events-window replay makes to read a stream (it puts with {@link KinesisPort}). */
export interface StreamWindowPort {
  /** One ListShards page: the first with `stream`, the next ones with the token alone (the API's rule). */
  listShards(stream: string, nextToken?: string): Promise<{ shards: ShardInfo[]; nextToken?: string }>;
  /** GetShardIterator; undefined when Kinesis answers none. Throws the SDK's errors as they are. */
  iterator(stream: string, shardId: string, position: WindowPosition): Promise<string | undefined>;
  /** One GetRecords call of at most `limit` records. Throws the SDK's errors as they are. */
  readPage(
    stream: string,
    iterator: string,
    limit: number,
  ): Promise<{ records: ArrivedRecord[]; next?: string; millisBehindLatest?: number }>;
  /**
   * The time of Kinesis' latest answer (its `Date` header, whole seconds, so never later than Kinesis' clock), to
   * compare with arrival timestamps that Kinesis' clock wrote.
   * @default - unknown: the local clock is used
   */
  serverTime?(): Date | undefined;
}
