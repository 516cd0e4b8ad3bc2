/**
 * The one sender of kfek's tools (replay, the events window, backfill, the reconcile heal): PutRecords in calls of
 * at most 500 records and 5 MiB (the API's limits), paced to `--rate` records per second (core/pace.ts), entries
 * Kinesis refuses (throttling, internal failure) retried with capped exponential backoff and full jitter. Time is
 * injected, so tests run on a fake clock.
 */
import { isRetryable, translateAwsError } from '../aws/retry';
import { RatePacer } from '../pace';
import { type KinesisRecord, MAX_BYTES_PER_CALL, MAX_RECORDS_PER_CALL, recordBytes } from './limits';
import type { KinesisPort } from './ports';

export interface SenderOptions {
  readonly kinesis: Pick<KinesisPort, 'putRecords'>;
  /** Records per second. @default - unpaced */
  readonly ratePerSecond?: number;
  readonly now: () => number;
  readonly sleep: (millis: number) => Promise<void>;
  /** @default Math.random */
  readonly random?: () => number;
  /** Attempts per record (and per call that fails as a whole with a retryable error). @default 8 */
  readonly maxAttempts?: number;
  /** Called after every call with the records put so far. */
  readonly onProgress?: (put: number, note: string) => void;
}

export interface SendResult {
  /** Per record, in order: true once Kinesis took it. */
  readonly accepted: readonly boolean[];
  readonly retries: number;
  /** The last error code Kinesis gave for a record it never took. */
  readonly lastErrorCode?: string;
}

export class RecordSender {
  private put = 0;
  /** Records Kinesis took so far, against the rate since the first call. */
  private readonly pacer: RatePacer;

  constructor(private readonly options: SenderOptions) {
    this.pacer = new RatePacer(options.ratePerSecond, options);
  }

  async send(stream: string, records: readonly KinesisRecord[]): Promise<SendResult> {
    const accepted = records.map(() => false);
    let retries = 0;
    let lastErrorCode: string | undefined;
    const maxAttempts = this.options.maxAttempts ?? 8;
    for (const chunk of this.chunks(records)) {
      let pending = chunk;
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        await this.pacer.wait();
        let codes: (string | undefined)[];
        try {
          codes = await this.options.kinesis.putRecords(
            stream,
            pending.map((i) => records[i]),
          );
        } catch (error) {
          if (!isRetryable(error) || attempt >= maxAttempts) {
            throw translateAwsError(error, `PutRecords on ${stream}`, { attempts: attempt });
          }
          codes = pending.map(() => (error as Error).name);
        }
        const failed = pending.filter((_, k) => codes[k] !== undefined);
        for (const [k, i] of pending.entries()) {
          if (codes[k] === undefined) accepted[i] = true;
          else lastErrorCode = codes[k];
        }
        this.put += pending.length - failed.length;
        this.pacer.count(pending.length - failed.length);
        this.options.onProgress?.(this.put, failed.length > 0 ? `${failed.length} to retry` : '');
        if (failed.length === 0 || attempt >= maxAttempts) break;
        retries += failed.length;
        pending = failed;
        const random = this.options.random ?? Math.random;
        await this.options.sleep(Math.floor(random() * Math.min(10_000, 100 * 2 ** (attempt - 1))));
      }
    }
    return { accepted, retries, ...(lastErrorCode !== undefined ? { lastErrorCode } : {}) };
  }

  /** Indexes of `records` in calls within the API's limits, smaller when paced so the rate stays smooth. */
  private *chunks(records: readonly KinesisRecord[]): Generator<number[]> {
    const rate = this.options.ratePerSecond;
    // About five calls per second at a given rate, so the pace holds within a fifth of a second.
    const maxCount =
      rate === undefined
        ? MAX_RECORDS_PER_CALL
        : Math.max(1, Math.min(MAX_RECORDS_PER_CALL, Math.ceil(rate / 5)));
    let chunk: number[] = [];
    let bytes = 0;
    for (const [i, record] of records.entries()) {
      const size = recordBytes(record);
      if (chunk.length > 0 && (chunk.length >= maxCount || bytes + size > MAX_BYTES_PER_CALL)) {
        yield chunk;
        chunk = [];
        bytes = 0;
      }
      chunk.push(i);
      bytes += size;
    }
    if (chunk.length > 0) yield chunk;
  }
}
