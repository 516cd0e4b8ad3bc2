/**
 * One CloudWatch log event in, its serialized document out (the public schema, docs/schema.md): the one place
 * that turns an event into document text, on every path (Kinesis and Pipes, plain, with `extractedFields`, with
 * collisions, over the field budget, cut to fit a record). Pure: no SDK, no environment, no I/O.
 *
 * The walk of one event: `DocumentSerializer.serialize(event)` parses the message (parsers/), lays out the app's
 * members (app-json.ts: copied from the app's text in one canonical form, numbers as written), writes the text, and
 * cuts `message` when the text does not fit one record (serialize.ts measures). The document is text whose
 * `JSON.parse` then `JSON.stringify` gives it back, numbers aside (app-json.ts): that is what lets the Pipes path
 * answer with objects and still deliver the same text.
 *
 * The serializer is one class because its fast path, cutting and text writing share its per-envelope state (the
 * written `cloudwatch` tail and `kfek` tail, the second's ISO prefix, the record budget); what it writes with (the
 * options, the timestamp, the layout, kfek's members) is in document-parts.ts, the app's field layout in
 * app-layout.ts, the metadata in metadata.ts and the drop rules' view in document-view.ts.
 */
import { NestingTooDeepError } from './app-json';
import { canonicalText, collides, generalLayout, needsGeneralRules } from './app-layout';
import { MAX_KINESIS_RECORD_BYTES } from '../contracts/aws-limits';
import { CloudWatchLogEvent, errorMessage } from './decode';
import {
  arrivalMember,
  type DocumentOptions,
  JOIN_MARKS_BYTES,
  type JoinMarks,
  joinMembers,
  type Layout,
  TimestampWriter,
  withMember,
} from './document-parts';
import type { DropSubject } from './drop-rules';
import { documentSubject } from './document-view';
import { envelopeRegion, type EventSource, isLambdaLogGroup, toCloudWatchMetadata } from './metadata';
import { parseMessage, type ParsedMessage, stripOneNewline } from './parsers';
import type { DocumentRoute } from './routing';
import { fittingPrefixLength, partitionKeyFor } from './serialize';
import { LogDocument, SerializedDocument } from './types';

export { isLambdaLogGroup, regionOf, toCloudWatchMetadata, type EventSource } from './metadata';
export {
  arrivalMillisOf,
  type DocumentOptions,
  isArrivalMillis,
  type JoinMarks,
  PARTITION_KEY_MEMBER_BYTES,
} from './document-parts';

/**
 * The document of one event as an object: the document's text, parsed (numbers then in JavaScript's form). For
 * callers that want to look at a document; the pipeline itself writes `DocumentSerializer.serialize`'s text.
 */
export function toDocument(
  event: CloudWatchLogEvent,
  source: EventSource,
  options: DocumentOptions = {},
): LogDocument {
  return JSON.parse(new DocumentSerializer(source, options).json(event)) as LogDocument;
}

/** An event read for its document: the event (as it will be written), its route, and its message parsed once. */
export interface ReadEvent {
  readonly event: CloudWatchLogEvent;
  readonly route: DocumentRoute | undefined;
  readonly parsed: ParsedMessage;
}

/**
 * Writes the documents of one envelope. `read(event, route)` parses an event once; `write(read)` turns it into its
 * record, cut to fit; `serialize(event)` does both for an event that no route processes; `json(event)` is the same
 * document without a size limit. The decisions of a route's processing (masking, dropping, joining) are the caller's
 * (processing.ts): this only writes what it is given. A fast path covers almost every event (no collision, within the
 * field budget, the app's text already in canonical form: one string built, nothing else allocated per event); the
 * general path (app-json.ts `appMemberList`) writes the same form for everything else.
 */
export class DocumentSerializer {
  private readonly cloudwatchTail: string;
  private readonly partitionKey: string;
  private readonly budget: number;
  private readonly partitionKeyMember: string;
  /** `"arrival":<ms>`, or '' without an arrival. */
  private readonly arrivalMember: string;
  /**
   * The text after the last body member of a document with no kfek member of its own (almost every one): `}`, or
   * `,"kfek":{<arrival>}}`; `[1]` with the partition key where the options ask for it. Written once per envelope.
   */
  private readonly plainTails: readonly [string, string];
  private readonly fromLambda: boolean;
  private readonly sourceRegions: readonly string[] | undefined;
  private readonly timestamps = new TimestampWriter();

  public constructor(
    private readonly source: EventSource,
    options: DocumentOptions = {},
  ) {
    this.sourceRegions = options.sourceRegions;
    this.fromLambda = isLambdaLogGroup(source.logGroup);
    // The region of an event without extractedFields depends on the envelope only: written once.
    const region = envelopeRegion(source, options.sourceRegions);
    this.cloudwatchTail =
      `,"logGroup":${JSON.stringify(source.logGroup)},"logStream":${JSON.stringify(source.logStream)}` +
      `,"owner":${JSON.stringify(source.owner)}${region === undefined ? '' : `,"region":${JSON.stringify(region)}`}}`;
    this.partitionKey = partitionKeyFor(source.logGroup, source.logStream);
    this.budget =
      (options.maxRecordBytes ?? MAX_KINESIS_RECORD_BYTES) - Buffer.byteLength(this.partitionKey, 'utf8');
    this.partitionKeyMember =
      options.partitionKeyInDocument === true ? `"partitionKey":"${this.partitionKey}"` : '';
    this.arrivalMember = arrivalMember(options.arrivalMillis);
    this.plainTails = [
      kfekTail(this.arrivalMember),
      kfekTail(withMember(this.arrivalMember, this.partitionKeyMember)),
    ];
  }

  /** The envelope's source. */
  public get envelope(): EventSource {
    return this.source;
  }

  /** Parses an event for its document (once: the drop rules and the writer share it). */
  public read(event: CloudWatchLogEvent, route: DocumentRoute | undefined): ReadEvent {
    return { event, route, parsed: parseMessage(event.message, this.fromLambda) };
  }

  /** What a drop rule sees of the event's document (document-view.ts). */
  public subject(read: ReadEvent): DropSubject {
    const { event, route, parsed } = read;
    const skipMessage = parsed.messageFromApp === true;
    return documentSubject({
      message: parsed.message,
      timestamp: () => this.iso(event.timestamp),
      cloudwatch: () => toCloudWatchMetadata(event, this.source, this.sourceRegions),
      ...(parsed.derived === undefined ? {} : { derived: parsed.derived }),
      ...(route === undefined ? {} : { routeName: route.route.name, staticFields: route.route.staticFields }),
      ...(parsed.appFields === undefined ? {} : { app: parsed.appFields }),
      keeps: (key) => !(skipMessage && key === 'message') && !collides(key, parsed.derived, route),
    });
  }

  /**
   * The record of an event that no route processes (no masking, drop or join; the name and static fields of its
   * `route`, when it has one, are still written): its document, cut to fit one record with the partition key. Never
   * throws.
   */
  public serialize(event: CloudWatchLogEvent, route?: DocumentRoute): SerializedDocument {
    return this.write(this.read(event, route));
  }

  /**
   * The record of a read event: its document, cut to fit one record with the partition key, with the join's marks.
   * Never throws.
   */
  public write(read: ReadEvent, marks?: JoinMarks): SerializedDocument {
    let layout: Layout;
    try {
      layout = this.layout(read);
    } catch (err) {
      // Not expected but for a message nested deeper than a document may be (app-json.ts MAX_NESTING): the event is
      // kept, its message as text, with the reason.
      layout = this.textLayout(
        read.event,
        read.route,
        stripOneNewline(read.event.message),
        `"parseError":${JSON.stringify(reason(err))}`,
      );
    }
    const joinMarks = joinMembers(marks);
    if (joinMarks.length > 0) layout = { ...layout, kfek: withMember(layout.kfek, joinMarks) };
    return this.fit(layout, read.event, read.route, joinMarks);
  }

  /**
   * JSON-escaped bytes a joined message starting with `event` may take in its document and still fit one record
   * uncut (multiline.ts). Half of the room when the first line starts like a JSON object, whose joined text, should
   * it parse, is written twice (as fields and as `message`).
   */
  public messageRoom(event: CloudWatchLogEvent, route: DocumentRoute | undefined): number {
    const empty = this.textLayout(event, route, '', '');
    const bytes = Buffer.byteLength(this.write0(empty, '', '', true), 'utf8') + JOIN_MARKS_BYTES;
    const room = Math.max(0, this.budget - bytes);
    return event.message.trimStart().startsWith('{') ? Math.floor(room / 2) : room;
  }

  /** The whole document text, without a size limit. */
  public json(event: CloudWatchLogEvent, route?: DocumentRoute): string {
    const layout = this.layout(this.read(event, route));
    return this.write0(layout, layout.message, '', true);
  }

  /** The event's layout. */
  private layout(read: ReadEvent): Layout {
    const { event, route, parsed } = read;
    const cloudwatch =
      event.extractedFields === undefined
        ? `,"cloudwatch":{"id":${JSON.stringify(event.id)}${this.cloudwatchTail}`
        : `,"cloudwatch":${JSON.stringify(toCloudWatchMetadata(event, this.source, this.sourceRegions))}`;
    let body = cloudwatch;
    const derived = parsed.derived;
    if (derived !== undefined) {
      if (derived.level !== undefined) body += `,"level":${JSON.stringify(derived.level)}`;
      if (derived.thread !== undefined) body += `,"thread":${JSON.stringify(derived.thread)}`;
      if (derived.logger !== undefined) body += `,"logger":${JSON.stringify(derived.logger)}`;
      if (derived.lambda !== undefined) body += `,"lambda":${JSON.stringify(derived.lambda)}`;
    }
    const app = parsed.appFields;
    if (app === undefined) {
      return {
        head: this.timestamps.head(event.timestamp),
        message: parsed.message,
        body: route === undefined ? body : body + route.staticMembers,
        kfek: route?.kfekMember ?? '',
        numbersAsWritten: false,
      };
    }
    const rules = needsGeneralRules(parsed, route);
    const fast = rules ? undefined : canonicalText(parsed, app);
    if (fast !== undefined) {
      if (fast.text.length > 0) body += `,${fast.text}`;
      return {
        head: this.timestamps.head(event.timestamp),
        message: parsed.message,
        body: route === undefined ? body : body + route.staticMembers,
        kfek: route?.kfekMember ?? '',
        numbersAsWritten: fast.numbersAsWritten,
      };
    }
    return generalLayout(parsed, app, this.timestamps.member(event.timestamp), body, rules, route);
  }

  /** A layout without app fields: `message` is `text`, kfek carries `kfek` (and the route, as every document). */
  private textLayout(
    event: CloudWatchLogEvent,
    route: DocumentRoute | undefined,
    text: string,
    kfek: string,
  ): Layout {
    const cloudwatch = `,"cloudwatch":${JSON.stringify(toCloudWatchMetadata(event, this.source, this.sourceRegions))}`;
    return {
      head: this.timestamps.head(event.timestamp),
      message: text,
      body: route === undefined ? cloudwatch : cloudwatch + route.staticMembers,
      kfek: route === undefined ? kfek : withMember(route.kfekMember, kfek),
      numbersAsWritten: false,
    };
  }

  /** The document's text; `withKey` adds `kfek.partitionKey` when the options ask for it. */
  private write0(layout: Layout, message: string, kfekExtra: string, withKey: boolean): string {
    if (layout.kfek.length === 0 && kfekExtra.length === 0) {
      return `${layout.head},"message":${JSON.stringify(message)}${layout.body}${this.plainTails[withKey ? 1 : 0]}`;
    }
    let kfek = withMember(withMember(layout.kfek, kfekExtra), this.arrivalMember);
    if (withKey) kfek = withMember(kfek, this.partitionKeyMember);
    return `${layout.head},"message":${JSON.stringify(message)}${layout.body}${kfekTail(kfek)}`;
  }

  /**
   * The record for `layout`: whole when it fits; else `message` cut to fit (`kfek.truncated`, `kfek.originalBytes`);
   * else, when the other fields alone are too big, the event's original text, cut, in place of its fields
   * (`kfek.fieldsInMessage`). Every input yields a record within the limit.
   */
  private fit(
    layout: Layout,
    event: CloudWatchLogEvent,
    route: DocumentRoute | undefined,
    joinMarks: string,
  ): SerializedDocument {
    const json = this.write0(layout, layout.message, '', false);
    // A UTF-16 code unit is at most three UTF-8 bytes: skip exact counting when even the worst case fits (almost
    // every document).
    const bytes = json.length * 3 <= this.budget ? -1 : Buffer.byteLength(json, 'utf8');
    if (bytes <= this.budget) {
      return this.record(
        this.partitionKeyMember.length > 0 ? this.write0(layout, layout.message, '', true) : json,
        false,
        layout.numbersAsWritten,
      );
    }

    const cutMarks = `"truncated":true,"originalBytes":${bytes}`;
    const cut = this.fitMessage(layout, layout.message, cutMarks);
    if (cut !== undefined) return this.record(cut, true, layout.numbersAsWritten);
    // The fields other than `message` are too big on their own: keep kfek's own fields and the original text,
    // which still contains the app's data, and cut that.
    const minimal = this.textLayout(event, route, '', joinMarks);
    const last = this.fitMessage(minimal, event.message, `${cutMarks},"fieldsInMessage":true`);
    if (last !== undefined) return this.record(last, true, false);
    // Unreachable for validated envelopes (log group and stream names are capped at 512 characters); kept so that
    // a bug shows up as a clear error rather than an oversized record.
    throw new RangeError(`document metadata alone exceeds ${this.budget} bytes`);
  }

  /**
   * The layout written with the longest prefix of `message` that fits (measured without `kfek.partitionKey`, which
   * is then added); undefined when even '' does not fit.
   */
  private fitMessage(layout: Layout, message: string, kfekExtra: string): string | undefined {
    const empty = this.write0(layout, '', kfekExtra, false);
    const room = this.budget - Buffer.byteLength(empty, 'utf8');
    if (room < 0) return undefined;
    // The byte arithmetic mirrors JSON.stringify exactly; the loop is a guard that never lets an oversized record
    // out should an engine escape differently. With an empty message it fits.
    for (let messageRoom = room; ;) {
      const cut = message.slice(0, fittingPrefixLength(message, messageRoom));
      const overshoot = Buffer.byteLength(this.write0(layout, cut, kfekExtra, false), 'utf8') - this.budget;
      if (overshoot <= 0) return this.write0(layout, cut, kfekExtra, true);
      messageRoom -= overshoot + 8;
    }
  }

  private record(json: string, truncated: boolean, numbersAsWritten: boolean): SerializedDocument {
    const bytes = Buffer.byteLength(json, 'utf8');
    return numbersAsWritten
      ? { json, bytes, partitionKey: this.partitionKey, truncated, numbersAsWritten: true }
      : { json, bytes, partitionKey: this.partitionKey, truncated };
  }

  /** `new Date(timestamp).toISOString()` (document-parts.ts `TimestampWriter`). */
  private iso(timestamp: number): string {
    return this.timestamps.iso(timestamp);
  }
}

function reason(err: unknown): string {
  return err instanceof NestingTooDeepError ? err.message : errorMessage(err);
}

/** The text after a document's last body member, for kfek members `kfek` ('' for none). */
function kfekTail(kfek: string): string {
  return kfek.length > 0 ? `,"kfek":{${kfek}}}` : '}';
}
