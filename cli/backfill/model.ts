/**
 * What `kfek backfill` works on: a job (log groups and a time window going to the raw stream), the log events it
 * reads back with FilterLogEvents, and the subscription envelopes it writes, one Kinesis record each.
 */

/** One log event as FilterLogEvents returns it, with the real event id that the document id is derived from. */
export interface HistoricLogEvent {
  /** `eventId`: the same id the subscription's envelope carries for this event (moto: a small integer as text). */
  readonly id: string;
  /** Milliseconds since the epoch: the event's own time, which `--since`/`--until` select on. */
  readonly timestamp: number;
  readonly message: string;
  readonly logStream: string;
  /**
   * When CloudWatch Logs took it in (`ingestionTime`): `kfek reconcile` calls an event late, not missing, while this
   * is more recent than the pipeline's delivery lag.
   * @default - not reported
   */
  readonly ingestionTime?: number;
}

/** What the envelope of a log group says besides its events (CloudWatch Logs fills these in for a subscription). */
export interface GroupSource {
  readonly logGroup: string;
  /** The account that owns the log group (`owner`), from the log group's ARN. */
  readonly owner: string;
  /**
   * The names of the subscription filters of the log group that write to the raw stream, as CloudWatch Logs lists
   * them in `subscriptionFilters`; `kfek-backfill` when none does. The transform reads only a `<stem>@<region>`
   * name of them (`cloudwatch.region`), so the same names give the same documents as the live subscription.
   */
  readonly subscriptionFilters: readonly string[];
}

/** One subscription envelope, gzipped: one Kinesis record for the raw stream. */
export interface EnvelopeRecord {
  readonly data: Uint8Array;
  readonly partitionKey: string;
  readonly logGroup: string;
  readonly logStream: string;
  readonly events: number;
  /** UTF-8 bytes of the events' messages. */
  readonly messageBytes: number;
  readonly firstTimestamp: number;
  readonly lastTimestamp: number;
}

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

/** The subscription filter name written into envelopes of a log group that has no subscription to the raw stream. */
export const BACKFILL_FILTER_NAME = 'kfek-backfill';
