/**
 * One Kinesis event source mapping batch: transform the records chunk by chunk, store poison records in the
 * dead-letter bucket, write the documents to the events stream, and answer with the exact resume point.
 *
 * Kept apart from `handler.ts` (which only wires env, adapters, the core and metrics) so it can be tested with any
 * transform, writer and dead-letter store: it sees them only as the ports in ports.ts.
 *
 * The resume point: with `ReportBatchItemFailures`, Lambda retries from the lowest sequence number reported and
 * treats everything before it as done (https://docs.aws.amazon.com/lambda/latest/dg/services-kinesis-batchfailurereporting.html).
 * So the answer names the EARLIEST record that is not fully handled: a data record with any unwritten document,
 * or a poison record whose dead-letter object is not stored. Records after it may already be written; they are
 * written again on the retry (at-least-once delivery; `cloudwatch.id` identifies duplicates).
 *
 * Just over ~300 lines: the resume-point rule spans chunking, dead-lettering and writing, so they stay together.
 */
import type { KinesisStreamBatchResponse, KinesisStreamEvent, KinesisStreamRecord } from 'aws-lambda';
import { shardIdOf, type DeadLetterSource } from './dead-letter-object';
import {
  WRITE_CHUNK_BYTES,
  WRITE_CHUNK_DOCUMENTS,
  type BatchLogger,
  type DeadLetterData,
  type DeadLetterStore,
  type EventsWriter,
  type RecordTransform,
  type WriteResult,
} from './ports';
import { describeError } from '../../core/transform/errors';
import { KinesisWriteRejectedError } from './kinesis-writer-errors';
import { type BatchCounts, RecordLoop } from './record-loop';
import type { SerializedDocument } from '../../core/transform/types';

/** What a batch needs, all ports (ports.ts): the handler wires the real ones, tests pass fakes. */
export interface KinesisBatchDeps {
  /** The pure transform core (`transformRecord`). */
  readonly transform: RecordTransform;
  readonly writer: EventsWriter;
  readonly deadLetters: DeadLetterStore;
  readonly logger: BatchLogger;
  /**
   * What the dead-letter bucket keeps of a poison record (`deadLetterData`: masked when a route masks).
   * @default - the record's data as received
   */
  readonly deadLetterData?: DeadLetterData;
  /**
   * Dead-letter uploads in flight at once.
   * @default 8
   */
  readonly deadLetterConcurrency?: number;
  /**
   * A chunk of consecutive records is transformed and written before the next is transformed, so memory holds
   * one chunk's documents rather than the whole batch's (a 6 MB batch of compressible logs is 200,000+ events).
   * Measured on a 6 MB batch of 23 records / 230,000 events: transforming the whole batch first needed a V8 heap
   * limit above 128 MB (ran at 144 MB); in chunks it runs with a 64 MB heap limit.
   * A chunk is closed at the first record boundary after it reaches this many documents...
   * @default WRITE_CHUNK_DOCUMENTS (5000, ten full PutRecords calls)
   */
  readonly chunkDocuments?: number;
  /**
   * ... or this many bytes of documents.
   * @default WRITE_CHUNK_BYTES (25 MiB, five full PutRecords calls)
   */
  readonly chunkBytes?: number;
}

export interface BatchOutcome extends BatchCounts {
  readonly response: KinesisStreamBatchResponse;
}

interface Poison {
  readonly index: number;
  readonly reason: string;
}

/** Consecutive records [start, end) transformed together. */
interface Chunk {
  readonly end: number;
  readonly documents: SerializedDocument[];
  /** owners[i]: index of the record documents[i] came from. */
  readonly owners: number[];
  readonly poison: Poison[];
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
  const records: readonly KinesisStreamRecord[] = Array.isArray(event?.Records) ? event.Records : [];
  // The one record loop (record-loop.ts): isolation, the size guard and the counters, as the Pipes path has them.
  const loop = new RecordLoop(deps.transform);
  loop.prepare(records.length);
  const counters = loop.counters;
  const chunkDocuments = deps.chunkDocuments ?? WRITE_CHUNK_DOCUMENTS;
  const chunkBytes = deps.chunkBytes ?? WRITE_CHUNK_BYTES;

  // Documents of many records share PutRecords calls, but the records are handled chunk by chunk in order, and
  // the first chunk with anything unhandled ends the batch: everything before the resume point is then complete.
  let firstUnhandled = records.length;
  let documentsSeen = 0;
  let stoppedBecause: WriteResult['stoppedBecause'];
  for (let start = 0; start < records.length && firstUnhandled === records.length;) {
    if (start > 0 && remainingMs() <= 0) {
      // No time left even to transform: the next record is the resume point (its events are not written).
      firstUnhandled = start;
      stoppedBecause = 'budget';
      break;
    }
    const chunk = transformChunk(records, start, loop, chunkDocuments, chunkBytes);
    documentsSeen += chunk.documents.length;
    const handled = await storeAndWrite(records, chunk, remainingMs, deps, loop);
    firstUnhandled = handled.firstUnhandled;
    stoppedBecause = handled.stoppedBecause;
    start = chunk.end;
  }

  if (firstUnhandled >= records.length) return { response: { batchItemFailures: [] }, ...loop.clean() };
  counters.PartialBatchResponses = 1;
  const resumeAt = records[firstUnhandled];
  deps.logger.warn('Batch not fully handled; Lambda will retry from the reported record', {
    resumeSequenceNumber: resumeAt.kinesis?.sequenceNumber,
    resumeIndex: firstUnhandled,
    records: records.length,
    documentsTransformed: documentsSeen,
    documentsWritten: counters.EventsOut,
    stoppedBecause,
  });
  return {
    response: { batchItemFailures: [{ itemIdentifier: resumeAt.kinesis?.sequenceNumber ?? '' }] },
    ...loop.clean(),
  };
}

/** Transforms records from `start` on, in order, until the chunk holds `maxDocuments` documents or `maxBytes`. */
function transformChunk(
  records: readonly KinesisStreamRecord[],
  start: number,
  loop: RecordLoop,
  maxDocuments: number,
  maxBytes: number,
): Chunk {
  const documents: SerializedDocument[] = [];
  const owners: number[] = [];
  const poison: Poison[] = [];
  let bytes = 0;
  let index = start;
  while (index < records.length && documents.length < maxDocuments && bytes < maxBytes) {
    const kinesis = records[index]?.kinesis;
    const outcome = loop.process(kinesis?.data, kinesis?.approximateArrivalTimestamp);
    if (outcome.kind === 'poison') poison.push({ index, reason: outcome.reason });
    else if (outcome.kind === 'data') {
      for (const doc of outcome.documents) {
        documents.push(doc);
        owners.push(index);
        bytes += doc.bytes;
      }
    }
    index += 1;
  }
  return { end: index, documents, owners, poison };
}

/**
 * Stores a chunk's poison records, then writes its documents; returns the earliest record of the chunk not fully
 * handled (`records.length` when all are) and why the writer stopped.
 */
async function storeAndWrite(
  records: readonly KinesisStreamRecord[],
  chunk: Chunk,
  remainingMs: () => number,
  deps: KinesisBatchDeps,
  loop: RecordLoop,
): Promise<{ readonly firstUnhandled: number; readonly stoppedBecause: WriteResult['stoppedBecause'] }> {
  // Dead letters first: they are rare, and documents after an unstored poison record need no writing now
  // (Lambda hands those records over again anyway).
  const firstUnstoredPoison = await storePoison(records, chunk.poison, remainingMs, deps, loop);
  let toWrite = chunk.documents.length;
  while (toWrite > 0 && chunk.owners[toWrite - 1] >= firstUnstoredPoison) toWrite -= 1;
  const progress = await writeSafely(
    toWrite === chunk.documents.length ? chunk.documents : chunk.documents.slice(0, toWrite),
    remainingMs,
    deps,
  );
  loop.wrote(progress, progress.writtenCount);
  return {
    firstUnhandled: Math.min(
      firstUnstoredPoison,
      progress.firstUnwritten < toWrite ? chunk.owners[progress.firstUnwritten] : records.length,
    ),
    stoppedBecause: progress.stoppedBecause,
  };
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
  loop: RecordLoop,
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
        const kept = typeof data !== 'string' ? '' : (deps.deadLetterData?.(data) ?? data);
        const key = await deps.deadLetters.put(sourceOf(record), kept, reason, {
          abortSignal: abort.signal,
        });
        loop.deadLettered();
        deps.logger.warn('Poison record stored in the dead-letter bucket', { key, reason, index });
      } catch (error) {
        firstFailed = Math.min(firstFailed, index);
        deps.logger.error('Could not store a poison record; it will be retried', {
          index,
          reason,
          error: describeError(error),
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
        error: describeError(error),
      },
    );
    if (error instanceof KinesisWriteRejectedError) return error.progress;
    return {
      written: documents.map(() => false),
      writtenCount: 0,
      recordsWritten: 0,
      complete: documents.length === 0,
      firstUnwritten: 0,
      calls: 0,
      retriedEntries: 0,
      throttles: 0,
    };
  }
}
