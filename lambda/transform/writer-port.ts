/**
 * The events-stream writer as the batch logic sees it (a port): what a write is given and what it answers. The
 * Kinesis implementation is kinesis-writer.ts; tests pass fakes.
 */
import { MAX_PUT_RECORDS_BYTES, MAX_PUT_RECORDS_ENTRIES } from '../../core/contracts/aws-limits';

/**
 * Both batch modules hand the writer documents in chunks of at most this many documents (ten full PutRecords
 * calls)...
 */
export const WRITE_CHUNK_DOCUMENTS = 10 * MAX_PUT_RECORDS_ENTRIES;
/** ... or this many bytes of documents (five full PutRecords calls). */
export const WRITE_CHUNK_BYTES = 5 * MAX_PUT_RECORDS_BYTES;

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
