/**
 * The pure transform core's entry points, shared by the Kinesis and the Pipes handlers:
 * one raw subscription record in, serialized documents (or a poison reason) out.
 * No SDK, no environment, no I/O.
 */
import { gzipSync } from 'node:zlib';
import { CloudWatchEnvelope, decodeEnvelopes, jsonErrorReason } from './decode';
import { ENVELOPE_ARRIVAL_FIELD } from '../contracts/index-naming';
import { type EventDecision, plainDecisions } from './decisions';
import { arrivalMillisOf, DocumentSerializer, type DocumentOptions, isArrivalMillis } from './document';
import { PoisonRecordError } from './errors';
import { looksLikeJsonObject, maskMessage, type Masker, maskText } from './masking';
import type { EventSource } from './metadata';
import { processEnvelope, ProcessingTally, type RecordSink } from './processing';
import type { RouteTable } from './routing';
import { DecodeLimits, LogDocument, RecordOutcome, SerializedDocument } from './types';

/**
 * Most log events one raw record may hold. CloudWatch Logs puts at most 10,000 events in one envelope
 * (https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutLogEvents.html); the limit is twice
 * that so a producer that concatenates two full envelopes into one record still gets through. Above it the record
 * is poison (dead-lettered whole, with the reason) before any document is built: the 64 MiB input cap bounds the
 * bytes, this bounds the documents (a record of 1,000,000 one-character events was 173 MiB of documents, more than
 * a 512 MB function can hold beside its input). Measured in test/lambda/transform/memory-bound.test.ts.
 */
export const DEFAULT_MAX_EVENTS_PER_RECORD = 20_000;

/** Limits and sizes of one `transformRecord` call. */
export interface TransformOptions extends DecodeLimits, Omit<DocumentOptions, 'arrivalMillis'> {
  /**
   * Most log events one record may hold; a record with more is poison.
   * @default DEFAULT_MAX_EVENTS_PER_RECORD (20,000)
   */
  readonly maxEventsPerRecord?: number;
  /**
   * The profile's routes (routing.ts): each event's route (by its log group and source account) gives its document
   * the route's name under `kfek.route`, its stem and static fields, and its processing (masking, drop rules, join).
   * @default none: every event is the default route's
   */
  readonly routes?: RouteTable;
  /**
   * Whether to say what became of each event (`decisions` on the outcome, decisions.ts). `false` gives the documents
   * alone, for a caller that reads no decision (the benchmark measures the cost of deciding with it).
   * @default true
   */
  readonly decide?: boolean;
  /**
   * The raw record's `approximateArrivalTimestamp` (seconds since the epoch, as Kinesis reports it): each document
   * carries it as `kfek.arrival` (document.ts `arrivalMillis`), so a record read again lands in its first copy's
   * index. Ignored when it is not a plausible time.
   * @default none
   */
  readonly approximateArrivalTimestamp?: unknown;
}

/**
 * Largest raw record data (base64 text) copied into an error document. Kinesis records hold at most
 * 1 MiB, whose base64 is ~1.4 MB: 256 KiB keeps an error document well inside one Kinesis record
 * and OpenSearch's default `http.max_content_length` while leaving enough to diagnose the record.
 */
export const MAX_ERROR_DATA_CHARS = 256 * 1024;

/**
 * Turns one raw Kinesis record from a CloudWatch Logs subscription into its outcome:
 * `data` (one serialized document per log event, in order), `control` (a CONTROL_MESSAGE, nothing
 * to write) or `poison` (a record that can never be decoded, with the reason). A record holding several
 * concatenated envelopes gives the documents of all its `DATA_MESSAGE`s, envelope by envelope. Never throws.
 *
 * @param data the record data as base64 text (`kinesis.data`) or already-decoded bytes.
 */
export function transformRecord(data: string | Buffer, given: TransformOptions = {}): RecordOutcome {
  const options =
    given.approximateArrivalTimestamp === undefined
      ? given
      : { ...given, arrivalMillis: arrivalMillisOf(given.approximateArrivalTimestamp) };
  try {
    const dataEnvelopes = decodeEnvelopes(data, options).filter((e) => e.messageType === 'DATA_MESSAGE');
    if (dataEnvelopes.length === 0) return { kind: 'control' };
    const maxEvents = options.maxEventsPerRecord ?? DEFAULT_MAX_EVENTS_PER_RECORD;
    let events = 0;
    for (const envelope of dataEnvelopes) events += envelope.logEvents.length;
    if (events > maxEvents) {
      return {
        kind: 'poison',
        reason:
          `record holds ${events} log events, more than the limit of ${maxEvents} per record ` +
          '(CloudWatch Logs sends at most 10,000 per envelope); split it into smaller records to replay it',
      };
    }
    const routes = options.routes;
    if (routes === undefined) {
      // One array for the record's documents, sized once: the events were counted above.
      const documents = new Array<SerializedDocument>(events);
      let first = 0;
      for (const envelope of dataEnvelopes) {
        plainDocuments(envelope, withEnvelopeArrival(envelope, options), documents, first);
        first += envelope.logEvents.length;
      }
      return options.decide === false
        ? { kind: 'data', documents }
        : new PlainOutcome(documents, dataEnvelopes);
    }
    const sink: RecordSink = {
      documents: [],
      // One decision per event, written by position: the events were counted above.
      decisions: options.decide === false ? undefined : new Array<EventDecision>(events),
      tally: new ProcessingTally(),
    };
    let first = 0;
    for (const envelope of dataEnvelopes) {
      processEnvelope(
        {
          events: envelope.logEvents,
          source: sourceOf(envelope),
          serializer: new DocumentSerializer(envelope, withEnvelopeArrival(envelope, options)),
          resolved: routes.resolve(envelope, envelope.logEvents),
          first,
        },
        sink,
      );
      first += envelope.logEvents.length;
    }
    const { documents, decisions } = sink;
    const processing = sink.tally.counts();
    return {
      kind: 'data',
      documents,
      ...(processing === undefined ? {} : { processing }),
      ...(decisions === undefined ? {} : { decisions }),
    };
  } catch (err) {
    if (err instanceof PoisonRecordError) return { kind: 'poison', reason: err.message };
    // Not expected for any input: a bug. Dead-lettering the record keeps its data; retrying it
    // would block the shard forever. The reason never quotes the record (decode.ts `jsonErrorReason`).
    return { kind: 'poison', reason: `internal error: ${jsonErrorReason(err)}` };
  }
}

/**
 * The options for one envelope's documents: with the envelope's own arrival (index-naming.ts
 * `ENVELOPE_ARRIVAL_FIELD`, written by `kfek reconcile --heal`) when it is a plausible time earlier than the
 * record's, so a healed event lands in the period live used; otherwise the record's. Never later than the record's
 * arrival: the field can only keep a document in an earlier period, as the ingest pipeline only ever moves it to one.
 */
function withEnvelopeArrival<T extends DocumentOptions>(envelope: CloudWatchEnvelope, options: T): T {
  const given = envelope[ENVELOPE_ARRIVAL_FIELD];
  if (typeof given !== 'number' || !isArrivalMillis(given)) return options;
  if (options.arrivalMillis !== undefined && given >= options.arrivalMillis) return options;
  return { ...options, arrivalMillis: given };
}

/**
 * One serialized document per log event of a `DATA_MESSAGE` envelope, in order, when the profile has no routes:
 * written into `documents` from position `first`.
 */
function plainDocuments(
  envelope: CloudWatchEnvelope,
  options: DocumentOptions,
  documents: SerializedDocument[],
  first: number,
): void {
  const events = envelope.logEvents;
  const serializer = new DocumentSerializer(envelope, options);
  for (let i = 0; i < events.length; i++) documents[first + i] = serializer.serialize(events[i]);
}

/**
 * The outcome of a record no route processes, whose decisions (every event kept, its own document) are written when
 * first read: the plain path's hot loop builds nothing per event for them. A class, not an object literal with a
 * getter: a closure per record made the plain path a fifth slower (measured, bench/decisions.bench.ts).
 */
class PlainOutcome {
  public readonly kind = 'data';
  private written: EventDecision[] | undefined;

  public constructor(
    public readonly documents: SerializedDocument[],
    private readonly envelopes: readonly CloudWatchEnvelope[],
  ) {}

  public get decisions(): readonly EventDecision[] {
    if (this.written !== undefined) return this.written;
    const decisions: EventDecision[] = [];
    let first = 0;
    for (const envelope of this.envelopes) {
      plainDecisions(sourceOf(envelope), envelope.logEvents, this.documents, first, decisions);
      first += envelope.logEvents.length;
    }
    this.written = decisions;
    return decisions;
  }
}

/** What an envelope's decisions name of it: not the envelope itself, which holds every event's message. */
function sourceOf(envelope: CloudWatchEnvelope): EventSource {
  return { logGroup: envelope.logGroup, logStream: envelope.logStream, owner: envelope.owner };
}

/**
 * What the dead-letter bucket keeps of a poison record (base64, as the record's `data`): the record itself, unless
 * it decodes and a route masks some of its events; then its envelopes with each event masked by its route, gzipped,
 * so no secret a detector matches is kept in a dead letter that could be read (a replay of it gives the masked
 * documents). A record that does not decode is kept whole: it could not be read, so it could not be masked either.
 */
export function deadLetterData(
  data: string,
  routes: RouteTable | undefined,
  limits: DecodeLimits = {},
): string {
  if (routes === undefined || !routes.masks) return data;
  let envelopes: CloudWatchEnvelope[];
  try {
    envelopes = decodeEnvelopes(data, limits);
  } catch {
    return data;
  }
  let changed = false;
  const texts = envelopes.map((envelope) => {
    if (envelope.messageType !== 'DATA_MESSAGE') return JSON.stringify(envelope);
    const resolved = routes.resolve(envelope, envelope.logEvents);
    const logEvents = envelope.logEvents.map((event, i) => {
      const route = resolved.routes[i];
      const masked = route?.masker === undefined ? undefined : maskedForKeeping(event.message, route.masker);
      if (masked === undefined) return event;
      changed = true;
      return { ...event, message: masked };
    });
    return JSON.stringify({ ...envelope, logEvents });
  });
  return changed ? gzipSync(Buffer.from(texts.join(''), 'utf8')).toString('base64') : data;
}

/** Where a poison record's whole data is kept (the dead-letter object). */
export interface DeadLetterReference {
  readonly bucket: string;
  readonly key: string;
}

/**
 * The document the Pipes handler returns for a poison record: it has no log event, so
 * `cloudwatch` fields are empty strings, `@timestamp` is when the record was received, the raw
 * data (base64, as received) is previewed under `kfek.error.data`, capped at `MAX_ERROR_DATA_CHARS`,
 * and `kfek.error.deadLetter` names the S3 object that keeps the whole record.
 *
 * @param receivedAt @default now
 * @param deadLetter @default none (the record is kept nowhere else)
 */
export function toErrorDocument(
  data: string,
  reason: string,
  receivedAt: Date = new Date(),
  deadLetter?: DeadLetterReference,
): LogDocument {
  const cut = data.length > MAX_ERROR_DATA_CHARS;
  return {
    '@timestamp': receivedAt.toISOString(),
    message: `kfek could not decode a Kinesis record: ${reason}`,
    cloudwatch: { id: '', logGroup: '', logStream: '', owner: '' },
    kfek: {
      error: {
        reason,
        data: cut ? data.slice(0, MAX_ERROR_DATA_CHARS) : data,
        ...(cut ? { dataTruncated: true as const } : {}),
        ...(deadLetter ? { deadLetter: { bucket: deadLetter.bucket, key: deadLetter.key } } : {}),
      },
    },
  };
}

/** A message masked as its document would have it: value by value when it is a JSON object, else as text. */
function maskedForKeeping(message: string, masker: Masker): string | undefined {
  const uncounted = (): void => {};
  const masked = maskMessage(message, masker, uncounted);
  if (!looksLikeJsonObject(message)) return masked;
  try {
    JSON.parse(masked ?? message);
    return masked;
  } catch {
    return maskText(message, masker, uncounted);
  }
}
