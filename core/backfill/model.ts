/**
 * What `kfek backfill` works on: a job (log groups and a time window going to the raw stream), its counts and the
 * checkpoint that holds both between runs (cli/backfill/checkpoint.ts stores it, checkpoint-read.ts reads it back):
 * a file format, read back by whichever version runs next. The log events it reads and the envelopes it writes are
 * core/logs/model.ts'.
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

/** The one checkpoint version this kfek writes and reads. */
export const CHECKPOINT_VERSION = 1;

export interface GroupProgress {
  /** Every page of the group was written. */
  readonly done: boolean;
  /**
   * Where the next read starts: the timestamp of the last event of the last page written.
   * @default - the window's start
   */
  readonly from?: number;
  /** Ids of the events at `from` already written: skipped when read again. */
  readonly writtenAtFrom: readonly string[];
}

/** The options as typed, to tell whether a `--resume` command line asks for the same job. */
export interface TypedJob {
  readonly since: string;
  readonly until?: string;
}

export interface CheckpointState {
  readonly version: typeof CHECKPOINT_VERSION;
  readonly job: BackfillJob;
  /**
   * The cdk.json profile whose routes the backfill used: a resumed run with another profile is refused.
   * @default - not recorded (a checkpoint of an earlier kfek): not checked
   */
  readonly profile?: string;
  readonly typed: TypedJob;
  readonly groups: Readonly<Record<string, GroupProgress>>;
  readonly counts: BackfillCounts;
  /** The estimate the first run made (the progress bar's total). */
  readonly estimatedEvents?: number;
  /** Runs so far, this one included. */
  readonly runs: number;
  readonly startedAt: string;
  readonly updatedAt: string;
}

export function isFinished(state: CheckpointState): boolean {
  return state.job.logGroups.every((g) => state.groups[g]?.done === true);
}
