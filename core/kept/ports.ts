/**
 * The I/O `kfek replay` needs, as ports: where kept data is read from (an S3 bucket or a local folder, the pipe's
 * queue). aws-ports.ts and folder-store.ts implement them; tests use fakes. The Kinesis calls go through
 * core/kinesis/ports.ts, the one port of kfek's tools.
 */

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
