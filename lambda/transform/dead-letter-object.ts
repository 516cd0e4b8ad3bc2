/**
 * What a dead-letter object is and where it goes (key scheme), with no I/O: the batch logic and the S3 store
 * (dead-letter.ts) both use it, and the batch logic stays free of the S3 SDK.
 */

/** Where a poison record came from: everything needed to find it again in the raw stream. */
export interface DeadLetterSource {
  /** `eventID` of the Lambda event record (`shardId-...:sequenceNumber`). */
  readonly eventId: string;
  readonly sequenceNumber: string;
  readonly shardId: string;
  readonly partitionKey: string;
  /** ARN of the raw stream (`eventSourceARN`). */
  readonly streamArn: string;
  /** Seconds since the epoch, as Kinesis reports it (`approximateArrivalTimestamp`). */
  readonly approximateArrivalTimestamp: number;
  readonly awsRegion?: string;
}

/** The JSON object stored per poison record. Version it: operators write tools against it. */
export interface DeadLetterObject {
  readonly version: 1;
  /** Why the record could not be transformed (from the transform core). */
  readonly reason: string;
  /** When the transform gave up on it (ISO-8601). */
  readonly receivedAt: string;
  readonly source: DeadLetterSource & {
    /** `approximateArrivalTimestamp` as ISO-8601, for people. */
    readonly approximateArrival: string | null;
  };
  /** The record data exactly as received: base64. */
  readonly data: string;
}

/** Shard id from an event id such as `shardId-000000000006:4959...`; `unknown-shard` if it has no such prefix. */
export function shardIdOf(eventId: string): string {
  const colon = eventId.indexOf(':');
  return colon > 0 ? eventId.slice(0, colon) : 'unknown-shard';
}

function streamNameOf(streamArn: string): string {
  const slash = streamArn.lastIndexOf('/');
  const name = slash >= 0 ? streamArn.slice(slash + 1) : streamArn;
  return safeSegment(name || 'unknown-stream');
}

/** Keeps a key segment to characters S3 and Athena partition projection handle without escaping. */
function safeSegment(value: string): string {
  return value.replace(/[^A-Za-z0-9_.=-]/g, '_');
}

function arrivalDate(source: DeadLetterSource, fallback: Date): Date {
  const ms = source.approximateArrivalTimestamp * 1000;
  return Number.isFinite(ms) && ms > 0 ? new Date(ms) : fallback;
}

/**
 * `<prefix>year=YYYY/month=MM/day=DD/hour=HH/<stream>/<shard>/<sequenceNumber>.json`, dated by the record's
 * arrival in the raw stream (UTC), so the same record always gets the same key.
 */
export function deadLetterKey(prefix: string, source: DeadLetterSource, receivedAt: Date): string {
  const at = arrivalDate(source, receivedAt);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return (
    `${prefix}year=${at.getUTCFullYear()}/month=${pad(at.getUTCMonth() + 1)}/day=${pad(at.getUTCDate())}/` +
    `hour=${pad(at.getUTCHours())}/${streamNameOf(source.streamArn)}/${safeSegment(source.shardId)}/` +
    `${safeSegment(source.sequenceNumber)}.json`
  );
}

export function buildDeadLetterObject(
  source: DeadLetterSource,
  data: string,
  reason: string,
  receivedAt: Date,
): DeadLetterObject {
  const ms = source.approximateArrivalTimestamp * 1000;
  return {
    version: 1,
    reason,
    receivedAt: receivedAt.toISOString(),
    source: { ...source, approximateArrival: Number.isFinite(ms) ? new Date(ms).toISOString() : null },
    data,
  };
}

export interface DeadLetterPutOptions {
  /** Aborts the upload when the invocation's budget is spent. */
  readonly abortSignal?: AbortSignal;
}
