/**
 * What Kinesis takes in one PutRecords call and in one record. A record outside the per-record limits fails the
 * whole call (`ValidationException`, no entry of it written), so replay checks every record before it sends any.
 * https://docs.aws.amazon.com/kinesis/latest/APIReference/API_PutRecords.html
 * https://docs.aws.amazon.com/kinesis/latest/APIReference/API_PutRecordsRequestEntry.html
 */
import type { ReplayRecord } from './model';

export const MAX_RECORDS_PER_CALL = 500;
/** Data and partition keys of every record of a call. */
export const MAX_BYTES_PER_CALL = 5 * 1024 * 1024;
/** One record's data blob plus its partition key (UTF-8). */
export const MAX_RECORD_BYTES = 1024 * 1024;
/** A partition key is 1 to 256 Unicode characters (code points, as the API's length constraints count them). */
export const MAX_PARTITION_KEY_CHARS = 256;

/** Bytes a record counts against the record and call limits. */
export function recordBytes(record: ReplayRecord): number {
  return record.data.length + Buffer.byteLength(record.partitionKey, 'utf8');
}

/**
 * Why Kinesis would refuse `record`, or undefined when it fits. Replay sets no explicit hash key (a record goes
 * where its partition key sends it), so only the key and the size are checked.
 */
export function recordProblem(record: ReplayRecord): string | undefined {
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
