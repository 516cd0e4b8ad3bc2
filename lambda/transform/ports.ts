/**
 * The transform's ports: what the batch logic (kinesis-batch.ts, pipes-batch.ts) needs from the world, and the only
 * file it takes them from. The adapters that implement the I/O ports for AWS are built in adapters.ts
 * (kinesis-writer.ts, dead-letter.ts); the handlers wire them, with the pure core's `transformRecord` and
 * `toErrorDocument` (transform.ts) as the transform ports. Tests pass fakes.
 */
import { MAX_PUT_RECORDS_BYTES, MAX_PUT_RECORDS_ENTRIES } from '../../core/contracts/aws-limits';
import type { DeadLetterPutOptions, DeadLetterSource } from './dead-letter-object';
import type { LogDocument, RecordOutcome, SerializedDocument } from '../../core/transform/types';

/**
 * Both batch modules hand the writer documents in chunks of at most this many documents (ten full PutRecords
 * calls)...
 */
export const WRITE_CHUNK_DOCUMENTS = 10 * MAX_PUT_RECORDS_ENTRIES;
/** ... or this many bytes of documents (five full PutRecords calls). */
export const WRITE_CHUNK_BYTES = 5 * MAX_PUT_RECORDS_BYTES;

/** The events-stream writer (adapter: `KinesisWriter` in kinesis-writer.ts). */
export interface EventsWriter {
  write(documents: readonly SerializedDocument[], options: WriteOptions): Promise<WriteResult>;
}

export interface WriteOptions {
  /** Milliseconds the caller can still spend; the writer stops before this reaches zero. */
  readonly remainingMs: () => number;
}

export interface WriteResult {
  /** `written[i]` is true once `documents[i]` is acknowledged by Kinesis. */
  readonly written: readonly boolean[];
  /** Number of documents written. */
  readonly writtenCount: number;
  /** Events-stream records written (each holds one document, or several when aggregated). */
  readonly recordsWritten: number;
  /** True when every document was written. */
  readonly complete: boolean;
  /** Index of the first document not written, or `documents.length` when complete. */
  readonly firstUnwritten: number;
  /** PutRecords calls made (including failed ones). */
  readonly calls: number;
  /** Records (PutRecords entries) queued again after a per-entry failure or a failed whole call (re-sent unless the budget ran out). */
  readonly retriedEntries: number;
  /** Throttling answers seen: per-entry and whole-call. */
  readonly throttles: number;
  /** Why the writer stopped early; absent when complete. */
  readonly stoppedBecause?: 'budget';
}

/** The dead-letter store for poison records (adapter: `S3DeadLetterStore` in dead-letter.ts). */
export interface DeadLetterStore {
  /** Stores the record whole with the reason; resolves with the object's key. */
  put(
    source: DeadLetterSource,
    data: string,
    reason: string,
    options?: DeadLetterPutOptions,
  ): Promise<string>;
}

/** The slice of a logger the batch logic uses (Powertools Logger fits). */
export interface BatchLogger {
  warn(message: string, ...attributes: Array<Record<string, unknown>>): void;
  error(message: string, ...attributes: Array<Record<string, unknown>>): void;
}

/** How the batch logic asks the core for documents. */
export interface RecordTransformOptions {
  /** Largest serialized document plus partition key; the core truncates documents to fit it. */
  readonly maxRecordBytes?: number;
  /** Write each document's partition key into it as `kfek.partitionKey` (Pipes items). */
  readonly partitionKeyInDocument?: boolean;
  /**
   * The raw record's `approximateArrivalTimestamp` as Kinesis reports it (seconds since the epoch); the core writes
   * it into each document as `kfek.arrival`, which names the index (transform.ts `TransformOptions`).
   */
  readonly approximateArrivalTimestamp?: unknown;
}

/** The pure core's record transform: one raw record (base64) in, documents or a poison reason out (`transformRecord`). */
export type RecordTransform = (data: string, options?: RecordTransformOptions) => RecordOutcome;

/**
 * What the dead-letter bucket keeps of a poison record's data (`deadLetterData`): the data itself, or, when it decodes
 * and a route masks, its envelopes with every event masked by its route.
 */
export type DeadLetterData = (data: string) => string;

/** The document that stands for a poison record, naming its dead-letter object (`toErrorDocument`). */
export type ErrorDocumentBuilder = (
  data: string,
  reason: string,
  receivedAt: Date,
  deadLetter: { readonly bucket: string; readonly key: string },
) => LogDocument;
