/**
 * Puts records back on a stream: PutRecords in calls of at most 500 records and 5 MiB (the API's limits), paced
 * to `--rate` records per second, entries Kinesis refuses (throttling, internal failure) retried with capped
 * exponential backoff and full jitter. Time is injected, so tests run on a fake clock.
 */
import { isRetryable, translateAwsError } from '../../core/aws/retry';
import { MAX_BYTES_PER_CALL, MAX_RECORDS_PER_CALL, recordBytes } from './kinesis-limits';
import type { ReplayRecord } from './model';
import type { KinesisPort } from './ports';

export interface SenderOptions {
  readonly kinesis: KinesisPort;
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
  private startedAt?: number;

  constructor(private readonly options: SenderOptions) {}

  async send(stream: string, records: readonly ReplayRecord[]): Promise<SendResult> {
    const accepted = records.map(() => false);
    let retries = 0;
    let lastErrorCode: string | undefined;
    const maxAttempts = this.options.maxAttempts ?? 8;
    for (const chunk of this.chunks(records)) {
      let pending = chunk;
      for (let attempt = 1; pending.length > 0; attempt += 1) {
        await this.pace();
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
  private *chunks(records: readonly ReplayRecord[]): Generator<number[]> {
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

  /**
   * Waits until the records put so far fit the rate since the first call: the records put at second t number at
   * most rate x t, plus the call in hand.
   */
  private async pace(): Promise<void> {
    const rate = this.options.ratePerSecond;
    const now = this.options.now();
    this.startedAt ??= now;
    if (rate === undefined) return;
    const due = this.startedAt + (this.put / rate) * 1000;
    if (due > now) await this.options.sleep(due - now);
  }
}
