/**
 * Log events to CloudWatch Logs subscription envelopes, exactly the shape the service writes to a Kinesis stream
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/SubscriptionFilters.html): gzip of the JSON
 * `{"messageType":"DATA_MESSAGE","owner","logGroup","logStream","subscriptionFilters","logEvents":[{"id",
 * "timestamp","message"}]}`, one log stream per envelope, so the deployed transform handles them like live data
 * (lambda/transform/decode.ts reads them). Pure: no I/O.
 */
import { gzipSync } from 'node:zlib';
import { MAX_KINESIS_RECORD_BYTES } from '../../core/contracts/aws-limits';
import { contentPartitionKey } from '../replay/parse';
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
  const byStream = new Map<string, HistoricLogEvent[]>();
  for (const event of events) {
    const list = byStream.get(event.logStream);
    if (list === undefined) byStream.set(event.logStream, [event]);
    else list.push(event);
  }
  const records: EnvelopeRecord[] = [];
  const oversized: OversizedEvent[] = [];
  for (const [logStream, streamEvents] of byStream) {
    const head = envelopeHead(source, logStream);
    const headBytes = Buffer.byteLength(head, 'utf8') + ENVELOPE_TAIL.length;
    let texts: string[] = [];
    let batch: HistoricLogEvent[] = [];
    let bytes = headBytes;
    const flush = (): void => {
      if (batch.length === 0) return;
      const record = toRecord(source, logStream, head, texts, batch);
      if (record.data.length + record.partitionKey.length <= MAX_KINESIS_RECORD_BYTES) records.push(record);
      else for (const event of batch) oversized.push({ event, gzipBytes: record.data.length });
      texts = [];
      batch = [];
      bytes = headBytes;
    };
    for (const event of streamEvents) {
      const text = eventJson(event);
      // +1 for the comma between events.
      const size = Buffer.byteLength(text, 'utf8') + 1;
      if (batch.length > 0 && (batch.length >= maxEvents || bytes + size > maxJsonBytes)) flush();
      texts.push(text);
      batch.push(event);
      bytes += size;
      // An event that alone passes the JSON limit goes alone; it is sent when its gzip fits a record.
      if (bytes > maxJsonBytes) flush();
    }
    flush();
  }
  return { records, oversized };
}

const ENVELOPE_TAIL = ']}';

/** Everything of the envelope before its events, fields in the order CloudWatch Logs writes them. */
function envelopeHead(source: GroupSource, logStream: string): string {
  return (
    `{"messageType":"DATA_MESSAGE","owner":${JSON.stringify(source.owner)},` +
    `"logGroup":${JSON.stringify(source.logGroup)},"logStream":${JSON.stringify(logStream)},` +
    `"subscriptionFilters":${JSON.stringify(source.subscriptionFilters)},"logEvents":[`
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
