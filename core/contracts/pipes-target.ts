/**
 * The EventBridge pipe's contract: the records it hands the Pipes enrichment (lambda/transform/pipes-batch.ts), and
 * where the enrichment puts each item's events-stream partition key, and where the pipe reads it. The pipe (lib/constructs/pipes-transport.ts)
 * and its local stand-in (scripts/local/pipes-loop.ts) both read this one constant.
 */

/**
 * JSON path of each item's partition key, as the pipe's Kinesis target parameters name it
 * (`kinesisStreamParameters.partitionKey`, a dynamic path parameter).
 */
export const PIPES_PARTITION_KEY_PATH = '$.kfek.partitionKey';

/** One record as EventBridge Pipes delivers it from a Kinesis stream source (flat, not under `kinesis`). */
export interface PipesKinesisRecord {
  readonly kinesisSchemaVersion?: string;
  readonly partitionKey: string;
  readonly sequenceNumber: string;
  /** The record data, base64. */
  readonly data: string;
  /** Seconds since the epoch. */
  readonly approximateArrivalTimestamp?: number;
  readonly eventSource?: string;
  readonly eventVersion?: string;
  readonly eventID?: string;
  readonly eventName?: string;
  readonly invokeIdentityArn?: string;
  readonly awsRegion?: string;
  readonly eventSourceARN?: string;
}
