/**
 * What `kfek backfill` works on: a job (log groups and a time window going to the raw stream) and its counts. The
 * log events it reads and the envelopes it writes are core/logs/model.ts'.
 */

/** The job a run (and a resumed run) carries out. Times are absolute, so a resumed run reads the same window. */
export interface BackfillJob {
  readonly logGroups: readonly string[];
  readonly since: Date;
  readonly until: Date;
  /**
   * FilterLogEvents' filter pattern.
   * @default - per log group, the pattern of its subscription filter to the raw stream, else none (every event)
   */
  readonly filterPattern?: string;
  /** The raw stream's name or ARN. */
  readonly rawStream: string;
}

/** Counts of a run, also kept in the checkpoint so a resumed run reports the whole backfill. */
export interface BackfillCounts {
  /** Events FilterLogEvents returned. */
  readonly read: number;
  /** Events Kinesis took, in `records` records of `gzipBytes` bytes. */
  readonly written: number;
  readonly records: number;
  /** UTF-8 bytes of the written events' messages. */
  readonly messageBytes: number;
  readonly gzipBytes: number;
  /** Events not sent: already sent before an interruption, or too large for a Kinesis record. */
  readonly skipped: number;
  /** Events in records Kinesis still refused after every retry: kept for `kfek replay`. */
  readonly failed: number;
  readonly failedRecords: number;
  /** FilterLogEvents calls. */
  readonly pages: number;
  /** PutRecords entries retried. */
  readonly retries: number;
}

export const NO_COUNTS: BackfillCounts = {
  read: 0,
  written: 0,
  records: 0,
  messageBytes: 0,
  gzipBytes: 0,
  skipped: 0,
  failed: 0,
  failedRecords: 0,
  pages: 0,
  retries: 0,
};

export function addCounts(a: BackfillCounts, b: Partial<BackfillCounts>): BackfillCounts {
  const sum: { -readonly [K in keyof BackfillCounts]: number } = { ...a };
  for (const key of Object.keys(b) as (keyof BackfillCounts)[]) sum[key] = a[key] + (b[key] ?? 0);
  return sum;
}
