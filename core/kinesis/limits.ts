/**
 * Kinesis' limits, in one place: what one PutRecords call and one record take, and what one shard lets a reader
 * do. A record outside the per-record limits fails the whole call (`ValidationException`, no entry of it written),
 * so replay checks every record before it sends any.
 * https://docs.aws.amazon.com/kinesis/latest/APIReference/API_PutRecords.html
 * https://docs.aws.amazon.com/kinesis/latest/APIReference/API_PutRecordsRequestEntry.html
 * https://docs.aws.amazon.com/kinesis/latest/APIReference/API_GetRecords.html
 */
import { createHash } from 'node:crypto';

/** A record as PutRecords takes it and GetRecords answers it (no explicit hash key: the partition key routes it). */
export interface KinesisRecord {
  readonly data: Uint8Array;
  readonly partitionKey: string;
}

export const MAX_RECORDS_PER_CALL = 500;
/** Data and partition keys of every record of a call. */
export const MAX_BYTES_PER_CALL = 5 * 1024 * 1024;
/** One record's data blob plus its partition key (UTF-8). */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** A partition key is 1 to 256 Unicode characters (code points, as the API's length constraints count them). */
export const MAX_PARTITION_KEY_CHARS = 256;

/** Bytes a record counts against the record and call limits. */
export function recordBytes(record: KinesisRecord): number {
  return record.data.length + Buffer.byteLength(record.partitionKey, 'utf8');
}

/**
 * Why Kinesis would refuse `record`, or undefined when it fits. Replay sets no explicit hash key (a record goes
 * where its partition key sends it), so only the key and the size are checked.
 */
export function recordProblem(record: KinesisRecord): string | undefined {
  const keyChars = [...record.partitionKey].length;
  if (keyChars === 0) return 'its partition key is empty (Kinesis takes 1 to 256 characters)';
  if (keyChars > MAX_PARTITION_KEY_CHARS) {
    return `its partition key has ${keyChars} characters (Kinesis takes 1 to ${MAX_PARTITION_KEY_CHARS})`;
  }
  const bytes = recordBytes(record);
  if (bytes > MAX_RECORD_BYTES) {
    return `its data and partition key are ${bytes} bytes (Kinesis takes at most ${MAX_RECORD_BYTES}, 1 MiB)`;
  }
  return undefined;
}

/** The most records one GetRecords call returns (the API's `Limit`). */
export const MAX_RECORDS_PER_READ = 10_000;
/** GetRecords allows five calls per second per shard, shared by every consumer of the shard. */
export const MIN_MILLIS_BETWEEN_READS = 200;
/**
 * Bytes per second a kfek reader takes from a shard: of the shard's 2 MB/s of reads, the delivery stream needs what
 * the shard is written, which is at most 1 MB/s (the shard's write limit).
 */
export const READ_BYTES_PER_SECOND = 1_000_000;

/** A partition key that always fits Kinesis (1-256 characters) and is the same for the same data. */
export function contentPartitionKey(data: Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
