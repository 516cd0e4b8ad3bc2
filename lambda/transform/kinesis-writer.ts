/**
 * The one I/O port of the transform: writes serialized documents to the events stream with PutRecords.
 * (Just over ~300 lines: batching, retry and budget rules share one loop.)
 *
 * - Aggregates (by default): documents of one partition key share KPL aggregated records of up to 1 MiB
 *   (`kpl-aggregation.ts`), which Firehose de-aggregates. Kinesis shards take 1,000 records/s and Firehose bills
 *   every record rounded up to 5 KB, so one record per ~300-byte log event costs far more than its bytes.
 * - Packs records into calls of at most 500 entries and 5 MiB, counting data plus partition key in exact
 *   UTF-8 bytes (https://docs.aws.amazon.com/kinesis/latest/APIReference/API_PutRecords.html).
 * - Addresses the stream by ARN: a freshly created stream can answer ResourceNotFound to its name for a moment.
 * - Retries only what failed: the entries a call reports with an `ErrorCode`, or a whole call that was throttled,
 *   hit a 5xx or a network error. Backoff is exponential with full jitter
 *   (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/), bounded by the caller's budget.
 * - Never drops anything: when the budget runs out it stops and reports exactly which documents are written (a
 *   record's documents are written or retried together), so the caller can name the earliest source record to
 *   resume from.
 *
 * The SDK client should be built with `maxAttempts: 1`: this writer owns the retry policy, and SDK-level
 * retries would re-send entries that already succeeded and spend time the writer does not see.
 */
import {
  KinesisClient,
  PutRecordsCommand,
  type PutRecordsRequestEntry,
  type PutRecordsResultEntry,
} from '@aws-sdk/client-kinesis';
import { describeError } from '../../core/transform/errors';
import { KinesisWriterError } from './kinesis-writer-errors';
import { encodeRecord, planRecords, type OutgoingRecord } from './record-plan';
import { MAX_PUT_RECORDS_BYTES, MAX_PUT_RECORDS_ENTRIES } from '../../core/contracts/aws-limits';
import type { SerializedDocument } from '../../core/transform/types';

export { KinesisWriterError, OversizedDocumentError } from './kinesis-writer-errors';
import { KinesisWriteRejectedError } from './kinesis-writer-errors';
import type { EventsWriter, WriteOptions, WriteResult } from './ports';

export interface KinesisWriterProps {
  /** A Kinesis client, ideally with `maxAttempts: 1` (this writer retries) and an HTTP/1.1 keep-alive handler. */
  readonly client: KinesisClient;
  /** ARN of the stream to write to (PutRecords `StreamARN`). */
  readonly streamArn: string;
  /**
   * Pack the documents of one partition key into KPL aggregated records of up to 1 MiB, which Firehose
   * de-aggregates; false writes one record per document (for consumers that do not de-aggregate).
   * @default true
   */
  readonly aggregate?: boolean;
  /**
   * Most entries per PutRecords call.
   * @default 500 (the API limit)
   */
  readonly maxEntriesPerCall?: number;
  /**
   * Most bytes (data plus partition keys, UTF-8) per PutRecords call.
   * @default 5 MiB (the API limit)
   */
  readonly maxBytesPerCall?: number;
  /**
   * First backoff ceiling; attempt n waits a random time in [0, min(maxDelayMs, baseDelayMs * 2^n)).
   * @default 50
   */
  readonly baseDelayMs?: number;
  /**
   * Largest backoff ceiling.
   * @default 3000
   */
  readonly maxDelayMs?: number;
  /**
   * A call is not started with less budget than this left: it would be cut off and its outcome unknown.
   * @default 250
   */
  readonly minCallBudgetMs?: number;
  /**
   * Waits; injected by tests.
   * @default setTimeout
   */
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * Uniform random number in [0, 1); injected by tests.
   * @default Math.random
   */
  readonly random?: () => number;
}

/** Per-entry error codes and whole-call error names that mean "slow down". */
const THROTTLING = new Set([
  'ProvisionedThroughputExceededException',
  'KMSThrottlingException',
  'LimitExceededException',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'SlowDown',
]);

/** Whole-call errors with a 4xx status that are still transient. */
const TRANSIENT_CLIENT_ERRORS = new Set([
  'KMSUnavailableException',
  'RequestTimeout',
  'RequestTimeoutException',
]);

/** Network-level failures (no HTTP answer at all): retrying is the right response. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

type CallFailure = { readonly retryable: false } | { readonly retryable: true; readonly throttled: boolean };

interface SdkLikeError {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly $fault?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

/** Decides whether a whole PutRecords call that threw is worth retrying. Exported for tests. */
export function classifyCallError(error: unknown): CallFailure {
  if (typeof error !== 'object' || error === null) return { retryable: false };
  const e = error as SdkLikeError;
  const name = typeof e.name === 'string' ? e.name : '';
  const code = typeof e.code === 'string' ? e.code : '';
  if (THROTTLING.has(name)) return { retryable: true, throttled: true };
  const status = e.$metadata?.httpStatusCode;
  if (e.$fault === 'server' || (status !== undefined && status >= 500))
    return { retryable: true, throttled: false };
  if (TRANSIENT_CLIENT_ERRORS.has(name)) return { retryable: true, throttled: false };
  if (NETWORK_ERROR_CODES.has(code) || name === 'TimeoutError') return { retryable: true, throttled: false };
  // A failure the SDK saw without any HTTP answer (it attaches $metadata but no status): the network, not us.
  if (e.$metadata !== undefined && status === undefined && e.$fault === undefined) {
    return { retryable: true, throttled: false };
  }
  return { retryable: false };
}

const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Writes documents to one Kinesis stream; one instance per container is fine (it keeps no per-call state). */
export class KinesisWriter implements EventsWriter {
  private readonly client: KinesisClient;
  private readonly streamArn: string;
  private readonly aggregate: boolean;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly minCallBudgetMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(props: KinesisWriterProps) {
    const maxEntries = props.maxEntriesPerCall ?? MAX_PUT_RECORDS_ENTRIES;
    const maxBytes = props.maxBytesPerCall ?? MAX_PUT_RECORDS_BYTES;
    if (!Number.isInteger(maxEntries) || maxEntries < 1 || maxEntries > MAX_PUT_RECORDS_ENTRIES) {
      throw new KinesisWriterError(`maxEntriesPerCall must be an integer in 1..500, got ${maxEntries}.`);
    }
    if (!Number.isInteger(maxBytes) || maxBytes < 1 || maxBytes > MAX_PUT_RECORDS_BYTES) {
      throw new KinesisWriterError(
        `maxBytesPerCall must be an integer in 1..${MAX_PUT_RECORDS_BYTES}, got ${maxBytes}.`,
      );
    }
    this.client = props.client;
    this.streamArn = props.streamArn;
    this.aggregate = props.aggregate ?? true;
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.baseDelayMs = props.baseDelayMs ?? 50;
    this.maxDelayMs = props.maxDelayMs ?? 3000;
    this.minCallBudgetMs = props.minCallBudgetMs ?? 250;
    this.sleep = props.sleep ?? defaultSleep;
    this.random = props.random ?? Math.random;
  }

  /**
   * Writes `documents` in order. Resolves with what was written (never rejects for throttling, 5xx, network
   * errors or an exhausted budget); rejects with `KinesisWriteRejectedError` for errors retrying cannot fix.
   */
  async write(documents: readonly SerializedDocument[], options: WriteOptions): Promise<WriteResult> {
    const progress = new WriteProgress(documents.length);
    // Records still to write, in the order of their first document. Failed records go back to the head, so
    // nothing later is ever sent before an earlier record of the same partition key has had its turn again.
    let pending = planRecords(documents, { aggregate: this.aggregate, maxBytesPerCall: this.maxBytes });
    while (pending.length > 0) {
      const budget = options.remainingMs();
      if (budget < this.minCallBudgetMs) return progress.result('budget');
      const batch = this.takeBatch(pending);
      const answers = await this.send(batch, documents, budget, progress);
      if (answers === 'aborted') return progress.result('budget');
      const failed = answers === 'retry' ? batch : progress.acknowledge(batch, answers);
      if (answers !== 'retry') pending = failed.concat(pending.slice(batch.length));
      if (failed.length === 0) {
        progress.attempt = 0;
        continue;
      }
      progress.retriedEntries += failed.length;
      if (!(await this.backOff(progress, options))) return progress.result('budget');
    }
    return progress.result();
  }

  /**
   * One PutRecords call of `batch`, which may not outlive `budget`: its answers, 'aborted' when the budget ran out
   * (its entries count as unwritten; they may still have landed, which at-least-once delivery allows), or 'retry'
   * when the whole call failed in a way a retry may fix.
   * @throws KinesisWriteRejectedError when the call failed in a way no retry fixes
   */
  private async send(
    batch: readonly OutgoingRecord[],
    documents: readonly SerializedDocument[],
    budget: number,
    progress: WriteProgress,
  ): Promise<readonly PutRecordsResultEntry[] | 'aborted' | 'retry'> {
    const entries: PutRecordsRequestEntry[] = batch.map((record) => ({
      Data: encodeRecord(record, documents),
      PartitionKey: record.partitionKey,
    }));
    progress.calls += 1;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), budget);
    try {
      const response = await this.client.send(
        new PutRecordsCommand({ StreamARN: this.streamArn, Records: entries }),
        { abortSignal: abort.signal },
      );
      return response.Records ?? [];
    } catch (error) {
      if (abort.signal.aborted) return 'aborted';
      const failure = classifyCallError(error);
      if (!failure.retryable) {
        throw new KinesisWriteRejectedError(
          `PutRecords to ${this.streamArn} failed and will not succeed on retry: ${describeError(error)}. ` +
            'Check that the stream exists and the function role may kinesis:PutRecords on it.',
          progress.result(),
          { cause: error },
        );
      }
      if (failure.throttled) progress.throttles += 1;
      return 'retry';
    } finally {
      clearTimeout(timer);
    }
  }

  /** Waits before the next attempt; false when the budget would not allow another call afterwards. */
  private async backOff(progress: WriteProgress, options: WriteOptions): Promise<boolean> {
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** progress.attempt);
    progress.attempt += 1;
    const delay = Math.floor(this.random() * ceiling);
    if (options.remainingMs() - delay < this.minCallBudgetMs) return false;
    if (delay > 0) await this.sleep(delay);
    return true;
  }

  /** The longest head of `pending` that fits one call. */
  private takeBatch(pending: readonly OutgoingRecord[]): OutgoingRecord[] {
    const batch: OutgoingRecord[] = [];
    let bytes = 0;
    for (const record of pending) {
      if (batch.length === this.maxEntries || bytes + record.bytes > this.maxBytes) break;
      batch.push(record);
      bytes += record.bytes;
    }
    return batch;
  }
}

/** What one `write` has done so far: which documents are written, and its counts. */
class WriteProgress {
  public readonly written: boolean[];
  public writtenCount = 0;
  public recordsWritten = 0;
  public calls = 0;
  public retriedEntries = 0;
  public throttles = 0;
  /** Attempts since the last call that wrote everything it sent: the backoff's exponent. */
  public attempt = 0;

  constructor(private readonly documents: number) {
    this.written = new Array<boolean>(documents).fill(false);
  }

  /**
   * Marks the documents of every record of `batch` that `answers` acknowledge as written; returns the others, in
   * order. An entry with no answer is treated as failed: only an acknowledged entry counts as written. A record's
   * documents stand or fall together: Kinesis acknowledges the record, not what it holds.
   */
  acknowledge(batch: readonly OutgoingRecord[], answers: readonly PutRecordsResultEntry[]): OutgoingRecord[] {
    const failed: OutgoingRecord[] = [];
    batch.forEach((record, position) => {
      const answer = answers[position];
      if (answer === undefined || answer.ErrorCode !== undefined || answer.SequenceNumber === undefined) {
        failed.push(record);
        if (answer?.ErrorCode !== undefined && THROTTLING.has(answer.ErrorCode)) this.throttles += 1;
      } else {
        for (const index of record.documents) this.written[index] = true;
        this.writtenCount += record.documents.length;
        this.recordsWritten += 1;
        // The encoded bytes are no longer needed; free them before the next call.
        record.data = undefined;
      }
    });
    return failed;
  }

  result(stoppedBecause?: 'budget'): WriteResult {
    const firstUnwritten = this.written.indexOf(false);
    return {
      written: this.written,
      writtenCount: this.writtenCount,
      complete: this.writtenCount === this.documents,
      firstUnwritten: firstUnwritten === -1 ? this.documents : firstUnwritten,
      recordsWritten: this.recordsWritten,
      calls: this.calls,
      retriedEntries: this.retriedEntries,
      throttles: this.throttles,
      ...(stoppedBecause && this.writtenCount < this.documents ? { stoppedBecause } : {}),
    };
  }
}
