/**
 * The parts a document is written from (document.ts assembles them): the options of one envelope's documents, the
 * record's arrival, the `@timestamp` member, the layout of one document, and kfek's own members (a join's marks).
 * Apart from the serializer because none of them holds an event's state: they are the vocabulary it writes with.
 * Pure: no SDK, no environment, no I/O.
 */
import { ARRIVAL_KEY } from '../contracts/index-naming';

/** Most bytes `kfek.partitionKey` adds to a document (`,"kfek":{"partitionKey":"<43 characters>"}`). */
export const PARTITION_KEY_MEMBER_BYTES = 68;

/** How the documents of one envelope are written. */
export interface DocumentOptions {
  /**
   * Largest record, document plus partition key, in bytes.
   * @default MAX_KINESIS_RECORD_BYTES (1 MiB)
   */
  readonly maxRecordBytes?: number;
  /**
   * The regions this pipeline receives logs from (the profile's region and `sources.regions`, environment
   * `SOURCE_REGIONS`). `cloudwatch.region` then comes only from what the sender cannot choose: CloudWatch's own
   * `@aws.region`, or the one region when there is one; a region named by a subscription filter (which the sending
   * account names) is kept only when it is one of these.
   * @default none: a filter's region is taken as it is (local runs, tests)
   */
  readonly sourceRegions?: readonly string[];
  /**
   * Write the partition key into the document as `kfek.partitionKey` (Pipes items: the pipe's target reads it).
   * The member is added after the document is fitted to `maxRecordBytes`, so that a document is cut at the same
   * place with or without it; leave room for it (at most {@link PARTITION_KEY_MEMBER_BYTES} bytes).
   * @default false
   */
  readonly partitionKeyInDocument?: boolean;
  /**
   * When the raw record holding these events reached the raw stream, in milliseconds since the epoch (see
   * {@link arrivalMillisOf}): written as `kfek.arrival`, which the ingest pipeline names the index by and removes
   * (core/contracts/index-naming.ts `ARRIVAL_KEY`), so every copy of a record read again lands in the index of its
   * first copy. The member counts toward `maxRecordBytes` like every other.
   * @default none: Firehose's index (backfill, tests)
   */
  readonly arrivalMillis?: number;
}

/**
 * Kinesis' `approximateArrivalTimestamp` (seconds since the epoch, with a fraction) in whole milliseconds, or
 * undefined when it is missing or not a plausible time (the document then goes to the index Firehose chose).
 */
export function arrivalMillisOf(seconds: unknown): number | undefined {
  if (typeof seconds !== 'number') return undefined;
  const ms = Math.round(seconds * 1000);
  return isArrivalMillis(ms) ? ms : undefined;
}

/** A whole millisecond after the epoch with a four-digit year: the arrivals a document carries. */
export function isArrivalMillis(ms: number): boolean {
  return Number.isSafeInteger(ms) && ms > 0 && ms <= MAX_ARRIVAL_MILLIS;
}

/** 9999-12-31T23:59:59.999Z: a later arrival would not have a four-digit year in its index name. */
const MAX_ARRIVAL_MILLIS = 253_402_300_799_999;

/** `"arrival":<ms>` for a plausible arrival, or '' without one. */
export function arrivalMember(arrival: number | undefined): string {
  return arrival !== undefined && isArrivalMillis(arrival) ? `"${ARRIVAL_KEY}":${arrival}` : '';
}

/** A document laid out in the parts the writer needs to cut its `message`. */
export interface Layout {
  /** `{`, app members JavaScript orders first (array-index keys), `"@timestamp":"..."`. */
  readonly head: string;
  readonly message: string;
  /** `,"cloudwatch":{...}`, derived fields, app members, each with its leading comma. */
  readonly body: string;
  /** kfek's own members (`"collisions":{...}`), joined with commas; '' for none. */
  readonly kfek: string;
  readonly numbersAsWritten: boolean;
}

/** What a multi-line join adds to a document (multiline.ts): `kfek.joined`, and the part of a split join. */
export interface JoinMarks {
  /** Lines joined into the event's own. */
  readonly joined: number;
  readonly part?: { readonly number: number; readonly of: string };
}

/** The most bytes join marks take: `,"joined":<n>,"part":<n>,"partOf":"<id of up to 512 characters>"`. */
export const JOIN_MARKS_BYTES = 64 + 512 * 6;

/** The members a join adds under `kfek`; '' when it adds none. */
export function joinMembers(marks: JoinMarks | undefined): string {
  if (marks === undefined || (marks.joined <= 0 && marks.part === undefined)) return '';
  const joined = `"joined":${marks.joined}`;
  return marks.part === undefined
    ? joined
    : `${joined},"part":${marks.part.number},"partOf":${JSON.stringify(marks.part.of)}`;
}

/** `a,b` of two kfek member lists, either possibly empty. */
export function withMember(members: string, more: string): string {
  if (more.length === 0) return members;
  return members.length > 0 ? `${members},${more}` : more;
}

/** `"@timestamp":"`, the member's name as every document writes it. */
const TIMESTAMP_KEY = '"@timestamp":"';

/**
 * `@timestamp` as `new Date(timestamp).toISOString()` writes it, formatted once per second: the events of one
 * envelope are usually within the same few seconds, and only the milliseconds differ, so a document's head is one
 * concatenation of a cached prefix and a cached `<ms>Z"`, not a date formatted per event.
 */
export class TimestampWriter {
  private lastSecond = Number.NaN;
  /** `"@timestamp":"2026-11-23T09:00:00.` (or `+275760-...` years) of the last second written. */
  private memberPrefix = '';
  /** `{` and {@link memberPrefix}. */
  private headPrefix = '';

  /** The ISO text of `timestamp`. */
  public iso(timestamp: number): string {
    const member = this.member(timestamp);
    return member.slice(TIMESTAMP_KEY.length, -1);
  }

  /** `"@timestamp":"<ISO>"`. */
  public member(timestamp: number): string {
    if (!Number.isInteger(timestamp)) return `${TIMESTAMP_KEY}${new Date(timestamp).toISOString()}"`;
    // The milliseconds first: finding them moves the prefix to their second.
    const tail = MILLIS_TAILS[this.millisOf(timestamp)];
    return this.memberPrefix + tail;
  }

  /** `{"@timestamp":"<ISO>"`: the head of a document whose app has no array-index key. */
  public head(timestamp: number): string {
    if (!Number.isInteger(timestamp)) return `{${TIMESTAMP_KEY}${new Date(timestamp).toISOString()}"`;
    const tail = MILLIS_TAILS[this.millisOf(timestamp)];
    return this.headPrefix + tail;
  }

  /** The milliseconds of an integer `timestamp`, with the prefixes moved to its second. */
  private millisOf(timestamp: number): number {
    const millis = ((timestamp % 1000) + 1000) % 1000;
    const second = timestamp - millis;
    if (second !== this.lastSecond) {
      this.lastSecond = second;
      // Everything up to the milliseconds: `2026-11-23T09:00:00.`.
      this.memberPrefix = TIMESTAMP_KEY + new Date(second).toISOString().slice(0, -4);
      this.headPrefix = `{${this.memberPrefix}`;
    }
    return millis;
  }
}

/** '000Z"' to '999Z"', so finishing a timestamp member is one lookup. */
const MILLIS_TAILS: readonly string[] = Array.from(
  { length: 1000 },
  (_, i) => `${String(i).padStart(3, '0')}Z"`,
);
