/**
 * Reads a discarded batch back from the raw stream by its sequence numbers (GetShardIterator AT_SEQUENCE_NUMBER,
 * then GetRecords up to the last one), for the kept data that holds metadata only: the pipe's dead-letter
 * messages, and on-failure records without the invocation's records. Says clearly when the stream no longer has
 * them: Kinesis keeps records for the stream's retention period only (24 hours by default).
 */
import { RangeExpiredError, ReplayError } from './errors';
import type { ReplayRecord, StreamRange } from './model';
import type { KinesisPort } from './ports';

export interface ReadRangeOptions {
  /** Pause between empty answers of a shard that is still behind (GetRecords: 5 calls/s per shard). */
  readonly sleep: (millis: number) => Promise<void>;
  /** @default 200 */
  readonly emptyPauseInMillis?: number;
  /** Most GetRecords calls for one range. @default 1000 */
  readonly maxCalls?: number;
}

/** Kinesis sequence numbers are decimal strings up to 128 bits: compare them as big integers. */
function seq(value: string): bigint {
  try {
    return BigInt(value);
  } catch {
    throw new ReplayError(`${JSON.stringify(value)} is not a Kinesis sequence number`);
  }
}

const EXPIRED_ERRORS = new Set(['ResourceNotFoundException', 'ExpiredIteratorException']);

export async function readRange(
  kinesis: KinesisPort,
  stream: string,
  range: StreamRange,
  location: string,
  options: ReadRangeOptions,
): Promise<ReplayRecord[]> {
  const start = seq(range.startSequenceNumber);
  const end = seq(range.endSequenceNumber);
  let iterator: string | undefined;
  try {
    iterator = await kinesis.iteratorAt(stream, range.shardId, range.startSequenceNumber);
  } catch (error) {
    const name = (error as { name?: unknown }).name;
    // A trimmed sequence number (or a shard that was merged away and expired) is refused here.
    if (typeof name === 'string' && (EXPIRED_ERRORS.has(name) || name === 'InvalidArgumentException')) {
      throw new RangeExpiredError(
        location,
        `${name} for ${range.shardId} at ${range.startSequenceNumber}: ${(error as Error).message}`,
        { cause: error },
      );
    }
    throw error;
  }
  const records: ReplayRecord[] = [];
  let first = true;
  const maxCalls = options.maxCalls ?? 1000;
  for (let calls = 0; iterator !== undefined && iterator !== ''; calls += 1) {
    if (calls >= maxCalls) {
      throw new ReplayError(
        `${location}: did not reach ${range.endSequenceNumber} in ${range.shardId} after ${maxCalls} GetRecords ` +
          'calls; run the replay again',
      );
    }
    const page = await kinesis.getRecords(iterator);
    for (const record of page.records) {
      const at = seq(record.sequenceNumber);
      if (first && at > start) {
        // AT_SEQUENCE_NUMBER starts at the trim horizon when the asked record is gone: the batch's head expired.
        throw new RangeExpiredError(
          location,
          `the oldest record left in ${range.shardId} is ${record.sequenceNumber}, after the batch's first ` +
            `record ${range.startSequenceNumber}`,
        );
      }
      first = false;
      if (at > end) return records;
      records.push({ data: record.data, partitionKey: record.partitionKey });
      if (at === end) return records;
    }
    if (page.records.length === 0) {
      if (page.next === undefined || page.millisBehindLatest === 0) break;
      await options.sleep(options.emptyPauseInMillis ?? 200);
    }
    iterator = page.next;
  }
  if (first) {
    throw new RangeExpiredError(
      location,
      `${range.shardId} holds nothing at ${range.startSequenceNumber} any more`,
    );
  }
  throw new ReplayError(
    `${location}: ${range.shardId} ends before the batch's last record ${range.endSequenceNumber}; ` +
      `${records.length} record(s) read. Check that --raw-stream is the stream the batch came from`,
  );
}
