/**
 * Log events to CloudWatch Logs subscription envelopes, exactly the shape the service writes to a Kinesis stream
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/SubscriptionFilters.html): gzip of the JSON
 * `{"messageType":"DATA_MESSAGE","owner","logGroup","logStream","subscriptionFilters","logEvents":[{"id",
 * "timestamp","message"}]}`, one log stream per envelope, so the deployed transform handles them like live data
 * (core/transform/decode.ts reads them). Pure: no I/O.
 */
import { gzipSync } from 'node:zlib';
import { MAX_KINESIS_RECORD_BYTES } from '../contracts/aws-limits';
import { ENVELOPE_ARRIVAL_FIELD } from '../contracts/index-naming';
import type { Continuation } from '../contracts/multiline';
import { contentPartitionKey } from '../kinesis/limits';
import type { EnvelopeRecord, GroupSource, HistoricLogEvent } from './model';

export interface EnvelopeLimits {
  /**
   * Most events in one envelope: as many as one PutLogEvents call can carry, so no envelope holds more than live
   * traffic can produce.
   * @default 10000
   */
  readonly maxEvents?: number;
  /**
   * Most bytes of an envelope's JSON before gzip. 4 KiB under a record: gzip of text that does not compress at all
   * grows by its 18-byte frame and 5 bytes per 16 KiB block (about 340 bytes for 1 MiB), and the partition key
   * takes 64, so every envelope within this fits a record whatever its content.
   * @default 1 MiB - 4 KiB
   */
  readonly maxJsonBytes?: number;
  /**
   * The multi-line rule of the group's route: an envelope then ends before an event that starts a document, never
   * inside a trace, unless the trace alone passes the limits (as a live envelope would split it too).
   * @default - envelopes end wherever the limits say
   */
  readonly continuation?: Continuation;
  /**
   * When the events first reached the pipeline (epoch millis), written into each envelope as
   * index-naming.ts `ENVELOPE_ARRIVAL_FIELD` (the heal's: its documents then land in the period live used).
   * @default - none: the documents take the record's own arrival (backfill)
   */
  readonly arrivalMillis?: number;
}

const DEFAULT_MAX_EVENTS = 10_000;
const DEFAULT_MAX_JSON_BYTES = MAX_KINESIS_RECORD_BYTES - 4096;

/** An event that does not fit a Kinesis record even alone: reported as skipped, never sent half. */
export interface OversizedEvent {
  readonly event: HistoricLogEvent;
  readonly gzipBytes: number;
}

export interface Envelopes {
  readonly records: EnvelopeRecord[];
  readonly oversized: OversizedEvent[];
}

/** The events of each log stream, in their order, streams in the order they first appear. */
function byLogStream(events: readonly HistoricLogEvent[]): Map<string, HistoricLogEvent[]> {
  const byStream = new Map<string, HistoricLogEvent[]>();
  for (const event of events) {
    const list = byStream.get(event.logStream);
    if (list === undefined) byStream.set(event.logStream, [event]);
    else list.push(event);
  }
  return byStream;
}

/**
 * Groups `events` (one FilterLogEvents page, in its order) by log stream and packs each stream's events, in order,
 * into envelopes within `limits`. The partition key is the SHA-256 of the record's bytes: the same envelope always
 * goes to the same shard, and envelopes spread evenly over the shards (the subscription's `Distribution: Random`
 * spreads them too).
 */
export function buildEnvelopes(
  source: GroupSource,
  events: readonly HistoricLogEvent[],
  limits: EnvelopeLimits = {},
): Envelopes {
  const maxEvents = limits.maxEvents ?? DEFAULT_MAX_EVENTS;
  const maxJsonBytes = limits.maxJsonBytes ?? DEFAULT_MAX_JSON_BYTES;
  const byStream = byLogStream(events);
  const records: EnvelopeRecord[] = [];
  const oversized: OversizedEvent[] = [];
  for (const [logStream, streamEvents] of byStream) {
    const head = envelopeHead(source, logStream, limits.arrivalMillis);
    const headBytes = Buffer.byteLength(head, 'utf8') + ENVELOPE_TAIL.length;
    const starts = documentStarts(streamEvents, limits.continuation);
    let texts: string[] = [];
    let sizes: number[] = [];
    let batch: HistoricLogEvent[] = [];
    let bytes = headBytes;
    const flush = (count = batch.length): void => {
      if (count === 0) return;
      const record = toRecord(source, logStream, head, texts.slice(0, count), batch.slice(0, count));
      if (record.data.length + record.partitionKey.length <= MAX_KINESIS_RECORD_BYTES) records.push(record);
      else
        for (const event of batch.slice(0, count)) oversized.push({ event, gzipBytes: record.data.length });
      texts = texts.slice(count);
      batch = batch.slice(count);
      sizes = sizes.slice(count);
      bytes = headBytes + sizes.reduce((sum, n) => sum + n, 0);
    };
    for (const [i, event] of streamEvents.entries()) {
      const text = eventJson(event);
      // +1 for the comma between events.
      const size = Buffer.byteLength(text, 'utf8') + 1;
      if (batch.length > 0 && (batch.length >= maxEvents || bytes + size > maxJsonBytes)) {
        // End the envelope before the document this event continues, when that leaves something to send.
        const from = i - batch.length;
        const start = starts[i] ? i : lastStart(starts, from, i);
        flush(start > from ? start - from : batch.length);
      }
      texts.push(text);
      sizes.push(size);
      batch.push(event);
      bytes += size;
      // An event that alone passes the JSON limit goes alone; it is sent when its gzip fits a record.
      if (bytes > maxJsonBytes) flush();
    }
    flush();
  }
  return { records, oversized };
}

/**
 * For each event of one log stream (in order), true when it starts a document under `continuation` (is no
 * continuation line); every event starts one without a rule. A fresh decider per stream, as the transform has per
 * sequence.
 */
function documentStarts(
  events: readonly HistoricLogEvent[],
  continuation: Continuation | undefined,
): boolean[] {
  if (continuation === undefined) return events.map(() => true);
  const decide = continuation();
  return events.map((event) => !decide(event.message));
}

/** Index of the last document start in `starts[from..to)`, or `from` when none. */
function lastStart(starts: readonly boolean[], from: number, to: number): number {
  for (let i = to - 1; i > from; i--) if (starts[i]) return i;
  return from;
}

/** Most events or message bytes of a trace held back for the next page; past them it is sent as it is. */
const MAX_HELD_EVENTS = 10_000;
const MAX_HELD_BYTES = DEFAULT_MAX_JSON_BYTES;

/**
 * The events of `events` (a FilterLogEvents page, with what an earlier page held, in order) to hold back for the next
 * page because the next page may continue them: of each log stream, its last document (from the last event that
 * starts one to the stream's end), unless that is past the size of one envelope (a live envelope would have split it
 * too).
 */
export function heldBack(
  events: readonly HistoricLogEvent[],
  continuation: Continuation,
): HistoricLogEvent[] {
  const byStream = byLogStream(events);
  const held: HistoricLogEvent[] = [];
  for (const streamEvents of byStream.values()) {
    const starts = documentStarts(streamEvents, continuation);
    const from = lastStart(starts, 0, streamEvents.length);
    const tail = streamEvents.slice(from);
    const bytes = tail.reduce((sum, e) => sum + Buffer.byteLength(e.message, 'utf8'), 0);
    if (tail.length <= MAX_HELD_EVENTS && bytes <= MAX_HELD_BYTES) held.push(...tail);
  }
  return held;
}

const ENVELOPE_TAIL = ']}';

/** Everything of the envelope before its events, fields in the order CloudWatch Logs writes them. */
function envelopeHead(source: GroupSource, logStream: string, arrivalMillis: number | undefined): string {
  const arrival =
    arrivalMillis === undefined
      ? ''
      : `${JSON.stringify(ENVELOPE_ARRIVAL_FIELD)}:${Math.round(arrivalMillis)},`;
  return (
    `{"messageType":"DATA_MESSAGE","owner":${JSON.stringify(source.owner)},` +
    `"logGroup":${JSON.stringify(source.logGroup)},"logStream":${JSON.stringify(logStream)},` +
    `"subscriptionFilters":${JSON.stringify(source.subscriptionFilters)},${arrival}"logEvents":[`
  );
}

/** The event as the service writes it: the id as a string (AWS's 56 digits; moto's integer ids as text). */
function eventJson(event: HistoricLogEvent): string {
  return `{"id":${JSON.stringify(event.id)},"timestamp":${event.timestamp},"message":${JSON.stringify(event.message)}}`;
}

function toRecord(
  source: GroupSource,
  logStream: string,
  head: string,
  texts: readonly string[],
  batch: readonly HistoricLogEvent[],
): EnvelopeRecord {
  const data = gzipSync(Buffer.from(`${head}${texts.join(',')}${ENVELOPE_TAIL}`, 'utf8'));
  let messageBytes = 0;
  let firstTimestamp = Number.POSITIVE_INFINITY;
  let lastTimestamp = Number.NEGATIVE_INFINITY;
  for (const event of batch) {
    messageBytes += Buffer.byteLength(event.message, 'utf8');
    firstTimestamp = Math.min(firstTimestamp, event.timestamp);
    lastTimestamp = Math.max(lastTimestamp, event.timestamp);
  }
  return {
    data,
    partitionKey: contentPartitionKey(data),
    logGroup: source.logGroup,
    logStream,
    events: batch.length,
    messageBytes,
    firstTimestamp,
    lastTimestamp,
  };
}
