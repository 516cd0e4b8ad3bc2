/**
 * CloudWatch Logs as kfek's tools read it back and re-send it (backfill, the reconcile's counts and heal): the log
 * events FilterLogEvents returns, what a subscription envelope says of its log group, and the envelopes themselves,
 * one Kinesis record each.
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

/** The subscription filter name written into envelopes of a log group that has no subscription to the raw stream. */
export const BACKFILL_FILTER_NAME = 'kfek-backfill';
