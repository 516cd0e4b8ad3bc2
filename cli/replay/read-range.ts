/**
 * Reads a discarded batch back from its stream (the raw one, or the events one for the indexer's) by its sequence numbers (GetShardIterator AT_SEQUENCE_NUMBER,
 * then GetRecords up to the last one, through core/kinesis' shard reader and its throttling policy), for the kept
 * data that holds metadata only: the pipe's dead-letter messages, and on-failure records without the invocation's
 * records. Says clearly when the stream no longer has them: Kinesis keeps records for the stream's retention period
 * only (24 hours by default).
 */
import { errorName } from '../../core/aws/errors';
import { ShardReader } from '../../core/kinesis/shard-reader';
import type { KinesisPort } from '../../core/kinesis/ports';
import { RangeExpiredError, ReplayError } from './errors';
import type { ReplayRecord, StreamRange } from '../../core/kept/model';

export interface ReadRangeOptions {
  readonly sleep: (millis: number) => Promise<void>;
  /** @default Date.now */
  readonly now?: () => number;
  /** @default Math.random */
  readonly random?: () => number;
  /** Most GetRecords calls for one range. @default 1000 */
  readonly maxCalls?: number;
}

/** Records per GetRecords call: a batch is at most 10,000 records, usually far fewer. */
const RECORDS_PER_READ = 1000;

/** Kinesis sequence numbers are decimal strings up to 128 bits: compare them as big integers. */
function seq(value: string): bigint {
  try {
    return BigInt(value);
  } catch {
    throw new ReplayError(`${JSON.stringify(value)} is not a Kinesis sequence number`);
  }
}

const EXPIRED_ERRORS = new Set([
  'ResourceNotFoundException',
  'ExpiredIteratorException',
  'InvalidArgumentException',
]);

export async function readRange(
  kinesis: Pick<KinesisPort, 'iterator' | 'readPage'>,
  stream: string,
  range: StreamRange,
  location: string,
  options: ReadRangeOptions,
): Promise<ReplayRecord[]> {
  const start = seq(range.startSequenceNumber);
  const end = seq(range.endSequenceNumber);
  const reader = new ShardReader(
    kinesis,
    stream,
    { shardId: range.shardId, closed: false },
    { type: 'AT_SEQUENCE_NUMBER', sequenceNumber: range.startSequenceNumber },
    {
      now: options.now ?? Date.now,
      sleep: options.sleep,
      ...(options.random !== undefined ? { random: options.random } : {}),
      throttledHint: 'run the replay again later',
    },
  );
  try {
    await reader.open();
  } catch (error) {
    // A trimmed sequence number (or a shard that was merged away and expired) is refused here.
    const name = errorName(error);
    if (EXPIRED_ERRORS.has(name)) {
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
  for (let calls = 0; reader.ended === undefined; calls += 1) {
    if (calls >= maxCalls) {
      throw new ReplayError(
        `${location}: did not reach ${range.endSequenceNumber} in ${range.shardId} after ${maxCalls} GetRecords ` +
          'calls; run the replay again',
      );
    }
    for (const record of await reader.next(RECORDS_PER_READ)) {
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
  }
  if (first) {
    throw new RangeExpiredError(
      location,
      `${range.shardId} holds nothing at ${range.startSequenceNumber} any more`,
    );
  }
  throw new ReplayError(
    `${location}: ${range.shardId} ends before the batch's last record ${range.endSequenceNumber}; ` +
      `${records.length} record(s) read. Check that ${stream} is the stream the batch came from`,
  );
}
