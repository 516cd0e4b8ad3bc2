/**
 * One Kinesis event source mapping batch: transform every record, store poison records in the dead-letter
 * bucket, write all documents to the events stream, and answer with the exact resume point.
 *
 * Kept apart from `handler.ts` (which only wires env, clients and metrics) so it can be tested with any
 * transform, writer and dead-letter store.
 *
 * The resume point: with `ReportBatchItemFailures`, Lambda retries from the lowest sequence number reported and
 * treats everything before it as done (https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-batchfailurereporting.html).
 * So the answer names the EARLIEST record that is not fully handled: a data record with any unwritten document,
 * or a poison record whose dead-letter object is not stored. Records after it may already be written; they are
 * written again on the retry (at-least-once delivery; `cloudwatch.id` identifies duplicates).
 */
import type { KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import type { DeadLetterPutOptions, DeadLetterSource } from './dead-letter';
import { shardIdOf } from './dead-letter';
import type { WriteOptions, WriteResult } from './kinesis-writer';
import { KinesisWriteRejectedError } from './kinesis-writer';
import { emptyCounters, type TransformCounters } from './metrics';
import { MAX_KINESIS_RECORD_BYTES, type RecordOutcome, type SerializedDocument } from './types';

/** The slice of a logger this module uses (Powertools Logger fits). */
export interface BatchLogger {
  warn(message: string, ...attributes: Array<Record<string, unknown>>): void;
  error(message: string, ...attributes: Array<Record<string, unknown>>): void;
}

export interface KinesisBatchDeps {
  /** The pure transform core (`transformRecord`). */
  readonly transform: (data: string) => RecordOutcome;
  readonly writer: {
    write(documents: readonly SerializedDocument[], options: WriteOptions): Promise<WriteResult>;
  };
  readonly deadLetters: {
    put(
      source: DeadLetterSource,
      data: string,
      reason: string,
      options?: DeadLetterPutOptions,
    ): Promise<string>;
  };
  readonly logger: BatchLogger;
  /**
   * Dead-letter uploads in flight at once.
   * @default 8
   */
  readonly deadLetterConcurrency?: number;
}

export interface BatchOutcome {
  readonly response: KinesisStreamBatchResponse;
  readonly counters: TransformCounters;
}

interface Poison {
  readonly index: number;
  readonly reason: string;
}

/**
 * Processes one batch. Never rejects for bad input or failed writes: every failure becomes a resume point.
 * `remainingMs` is the budget left for I/O (the invocation's remaining time minus a safety margin).
 */
export async function processKinesisBatch(
  event: KinesisStreamEvent,
  remainingMs: () => number,
  deps: KinesisBatchDeps,
): Promise<BatchOutcome> {
  const counters = emptyCounters();
  const records: readonly KinesisStreamRecord[] = Array.isArray(event?.Records) ? event.Records : [];
  counters.RecordsIn = records.length;

  // 1. Transform, in order. Documents of all records go into one list so the writer can pack full calls;
  //    owners[i] remembers which record documents[i] came from.
  const documents: SerializedDocument[] = [];
  const owners: number[] = [];
  const poison: Poison[] = [];
  records.forEach((record, index) => {
    const outcome = transformSafely(deps.transform, record);
    switch (outcome.kind) {
      case 'control':
        counters.ControlMessages += 1;
        return;
      case 'poison':
        counters.PoisonRecords += 1;
        poison.push({ index, reason: outcome.reason });
        return;
      case 'data':
        for (const doc of outcome.documents) {
          documents.push(doc);
          owners.push(index);
          if (doc.truncated) counters.TruncatedDocuments += 1;
        }
        return;
    }
  });

  // 2. Dead letters first: they are rare, and a record after an unstored poison record needs no writing now
  //    (Lambda will hand it to us again anyway).
  const firstUnstoredPoison = await storePoison(records, poison, remainingMs, deps, counters);
  let firstUnhandled = firstUnstoredPoison;

  // 3. Documents of the records before that point.
  let toWrite = documents.length;
  while (toWrite > 0 && owners[toWrite - 1] >= firstUnhandled) toWrite -= 1;
  const progress = await writeSafely(documents.slice(0, toWrite), remainingMs, deps);
  counters.EventsOut = progress.writtenCount;
  counters.RetriedEntries = progress.retriedEntries;
  counters.Throttles = progress.throttles;
  if (progress.firstUnwritten < toWrite) {
    firstUnhandled = Math.min(firstUnhandled, owners[progress.firstUnwritten]);
  }

  if (firstUnhandled >= records.length) return { response: { batchItemFailures: [] }, counters };
  counters.PartialBatchResponses = 1;
  const resumeAt = records[firstUnhandled];
  deps.logger.warn('Batch not fully handled; Lambda will retry from the reported record', {
    resumeSequenceNumber: resumeAt.kinesis?.sequenceNumber,
    resumeIndex: firstUnhandled,
    records: records.length,
    documents: documents.length,
    documentsWritten: progress.writtenCount,
    stoppedBecause: progress.stoppedBecause,
  });
  return {
    response: { batchItemFailures: [{ itemIdentifier: resumeAt.kinesis?.sequenceNumber ?? '' }] },
    counters,
  };
}

/** The core must not throw; if it ever does, the record is poison (stored and counted), never lost. */
function transformSafely(
  transform: KinesisBatchDeps['transform'],
  record: KinesisStreamRecord,
): RecordOutcome {
  const data: unknown = record?.kinesis?.data;
  if (typeof data !== 'string') return { kind: 'poison', reason: 'record has no kinesis.data string' };
  let outcome: RecordOutcome;
  try {
    outcome = transform(data);
  } catch (error) {
    return { kind: 'poison', reason: `transform failed unexpectedly: ${describe(error)}` };
  }
  if (outcome.kind === 'data') {
    // Defence in depth: a document too big for one Kinesis record would make every PutRecords call containing
    // it fail validation, blocking the shard. The core truncates; if it ever fails to, dead-letter the record.
    const oversized = outcome.documents.find(
      (doc) => doc.bytes + Buffer.byteLength(doc.partitionKey, 'utf8') > MAX_KINESIS_RECORD_BYTES,
    );
    if (oversized) {
      return {
        kind: 'poison',
        reason: `a document of ${oversized.bytes} bytes does not fit one Kinesis record`,
      };
    }
  }
  return outcome;
}

function sourceOf(record: KinesisStreamRecord): DeadLetterSource {
  const eventId = String(record?.eventID ?? '');
  return {
    eventId,
    sequenceNumber: String(record?.kinesis?.sequenceNumber ?? ''),
    shardId: shardIdOf(eventId),
    partitionKey: String(record?.kinesis?.partitionKey ?? ''),
    streamArn: String(record?.eventSourceARN ?? ''),
    approximateArrivalTimestamp: Number(record?.kinesis?.approximateArrivalTimestamp),
    ...(record?.awsRegion ? { awsRegion: record.awsRegion } : {}),
  };
}

/** Stores poison records; returns the index of the earliest one not stored, or `records.length`. */
async function storePoison(
  records: readonly KinesisStreamRecord[],
  poison: readonly Poison[],
  remainingMs: () => number,
  deps: KinesisBatchDeps,
  counters: TransformCounters,
): Promise<number> {
  if (poison.length === 0) return records.length;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), Math.max(0, remainingMs()));
  let firstFailed = records.length;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < poison.length) {
      const { index, reason } = poison[next++];
      const record = records[index];
      const data: unknown = record?.kinesis?.data;
      try {
        const key = await deps.deadLetters.put(
          sourceOf(record),
          typeof data === 'string' ? data : '',
          reason,
          {
            abortSignal: abort.signal,
          },
        );
        counters.DeadLetteredRecords += 1;
        deps.logger.warn('Poison record stored in the dead-letter bucket', { key, reason, index });
      } catch (error) {
        firstFailed = Math.min(firstFailed, index);
        deps.logger.error('Could not store a poison record; it will be retried', {
          index,
          reason,
          error: describe(error),
        });
      }
    }
  };
  try {
    const workers = Math.max(1, Math.min(deps.deadLetterConcurrency ?? 8, poison.length));
    await Promise.all(Array.from({ length: workers }, worker));
  } finally {
    clearTimeout(timer);
  }
  return firstFailed;
}

/** Writes documents; any writer failure becomes progress (what was written before it), never an exception. */
async function writeSafely(
  documents: readonly SerializedDocument[],
  remainingMs: () => number,
  deps: KinesisBatchDeps,
): Promise<WriteResult> {
  try {
    return await deps.writer.write(documents, { remainingMs });
  } catch (error) {
    deps.logger.error(
      'Writing to the events stream failed; the batch will be retried from the first unwritten record',
      {
        error: describe(error),
      },
    );
    if (error instanceof KinesisWriteRejectedError) return error.progress;
    return {
      written: documents.map(() => false),
      writtenCount: 0,
      complete: documents.length === 0,
      firstUnwritten: 0,
      calls: 0,
      retriedEntries: 0,
      throttles: 0,
    };
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
