/**
 * A route's processing of one envelope's events (docs/teams-and-routes.md "Processing"), decided per event: each
 * event's route (by its own account, resolved once: routing.ts `resolve`), its masking, the multi-line join within its
 * route and account, and the drop rules on the document as it will be indexed. The serializer (document.ts) only
 * writes what this decides; every event's decision (decisions.ts) is written here, and one accumulator per record
 * ({@link ProcessingTally}) counts everything the metrics and logs report. Pure: no SDK, no environment, no I/O.
 */
import { stripOneNewline } from '../contracts/multiline';
import { looksLikeJsonObject, maskMessage, maskText, type MaskTally } from './masking';
import type { CloudWatchLogEvent } from './decode';
import { EnvelopeDecisions } from './decisions';
import type { EventDecision } from './types';
import type { DocumentSerializer, JoinMarks, ReadEvent } from './document';
import { joinEvents, type JoinChain, type JoinKey } from './multiline';
import type { EventSource } from './metadata';
import type { DocumentRoute, ResolvedEvents } from './routing';
import type { ProcessingCounts, SerializedDocument } from './types';

/** What a record's processing did, counted once, in one place. */
export class ProcessingTally {
  private maskedValues = 0;
  private joinedLines = 0;
  private readonly droppedByRule: Record<string, number> = {};

  /** Counts masked values (a {@link MaskTally}). */
  public readonly masked: MaskTally = (_detector, n) => {
    this.maskedValues += n;
  };

  public dropped(rule: string): void {
    this.droppedByRule[rule] = (this.droppedByRule[rule] ?? 0) + 1;
  }

  /** Values masked so far (what one event's masking added is the difference). */
  public get maskedSoFar(): number {
    return this.maskedValues;
  }

  public joined(lines: number): void {
    this.joinedLines += lines;
  }

  /** The counts; undefined when processing did nothing. */
  public counts(): ProcessingCounts | undefined {
    const dropped = Object.keys(this.droppedByRule).length > 0;
    if (this.maskedValues === 0 && this.joinedLines === 0 && !dropped) return undefined;
    return {
      maskedValues: this.maskedValues,
      droppedByRule: { ...this.droppedByRule },
      joinedLines: this.joinedLines,
    };
  }
}

/** The event as its route's masking leaves it, read for its document. Masked values are told to `tally`. */
export function maskedRead(
  serializer: DocumentSerializer,
  event: CloudWatchLogEvent,
  route: DocumentRoute | undefined,
  tally: MaskTally,
): ReadEvent {
  const masker = route?.masker;
  if (masker === undefined) return serializer.read(event, route);
  // Counted only once decided: a message that starts like a JSON object but does not parse is masked again as text.
  const counted: Array<readonly [string, number]> = [];
  const text = maskMessage(event.message, masker, (d, n) => counted.push([d, n]));
  const read = serializer.read(text === undefined ? event : { ...event, message: text }, route);
  if (read.parsed.appFields === undefined && looksLikeJsonObject(event.message)) {
    // Not JSON after all: every detector on the whole text as written, so nothing outside a string escapes them.
    const asText = maskText(event.message, masker, tally);
    return asText === undefined
      ? serializer.read(event, route)
      : serializer.read({ ...event, message: asText }, route);
  }
  for (const [detector, n] of counted) tally(detector, n);
  return read;
}

/**
 * Where one record's processing writes: its documents, its decisions (one per event of the record, by position;
 * undefined when not asked for), its tally.
 */
export interface RecordSink {
  readonly documents: SerializedDocument[];
  readonly decisions: EventDecision[] | undefined;
  readonly tally: ProcessingTally;
}

/** One document to write: its read event, the positions of the events whose lines it holds, their masked values. */
interface Piece {
  readonly read: ReadEvent;
  /** The envelope positions of its events: the first (whose id and timestamp it keeps), then those joined into it. */
  readonly at: readonly number[];
  readonly masked: number;
  readonly chain?: JoinChain;
}

/** One `DATA_MESSAGE` envelope to process: its events with their routes and accounts, resolved once. */
export interface EnvelopeInput {
  readonly events: readonly CloudWatchLogEvent[];
  /** Where the events come from, as their decisions name it (log group, log stream, owner). */
  readonly source: EventSource;
  /** The envelope's writer. */
  readonly serializer: DocumentSerializer;
  /** Each event's route and account (routing.ts `resolve`). */
  readonly resolved: ResolvedEvents;
  /** The position of the envelope's first event among the record's events (where its decisions start). */
  readonly first: number;
}

/** An envelope being processed, and where its documents and decisions go. */
interface Envelope extends EnvelopeInput {
  readonly sink: RecordSink;
  /** The decisions of this envelope's events, by position; undefined when not asked for. */
  readonly decided: EnvelopeDecisions | undefined;
}

/**
 * The documents of one envelope's events under their routes, in order, without the events drop rules keep out,
 * appended to `sink.documents`; one decision per event written into `sink.decisions` at its position; what was masked, joined and
 * dropped counted in `sink.tally`.
 */
export function processEnvelope(input: EnvelopeInput, sink: RecordSink): void {
  const { events, source, serializer, resolved, first } = input;
  const decided =
    sink.decisions === undefined
      ? undefined
      : new EnvelopeDecisions(events, source, resolved, sink.decisions, first);
  const envelope: Envelope = { ...input, sink, decided };
  if (!resolved.joins) {
    for (let i = 0; i < events.length; i++) {
      const before = sink.tally.maskedSoFar;
      const read = maskedRead(serializer, events[i], resolved.routes[i], sink.tally.masked);
      emit(envelope, { read, at: [i], masked: sink.tally.maskedSoFar - before });
    }
  } else {
    for (const piece of joinedPieces(envelope)) {
      const lines = piece.at.length;
      if (lines > 1) sink.tally.joined(lines - 1);
      const chain = piece.chain;
      if (chain === undefined || chain.parts === 1) {
        emit(envelope, piece, lines === 1 ? undefined : { joined: lines - 1 });
      } else {
        emit(envelope, piece, { joined: lines - 1, part: { number: ++chain.written, of: chain.id } });
      }
    }
  }
}

/** The pieces of an envelope whose routes join lines: its groups (multiline.ts), each fitted to one record. */
function joinedPieces(envelope: Envelope): Piece[] {
  const { events, serializer, resolved, sink } = envelope;
  // Events without an account of their own (all but centralized ones) share the envelope's sequence.
  let envelopeKey: JoinKey | undefined;
  const groups = joinEvents(
    events,
    (event, i) =>
      event.extractedFields === undefined
        ? (envelopeKey ??= joinKey(resolved.routes[i], resolved.accounts[i]))
        : joinKey(resolved.routes[i], resolved.accounts[i]),
    (event, i) => serializer.messageRoom(event, resolved.routes[i]),
  );
  const pieces: Piece[] = [];
  for (const group of groups) {
    const at = group.joinedAt === undefined ? [group.at] : [group.at, ...group.joinedAt];
    const fitted = fittedPieces(serializer, events, at, resolved.routes[group.at], sink.tally);
    const chain =
      group.chain ?? (fitted.length > 1 ? { id: group.first.id, parts: 0, written: 0 } : undefined);
    for (const piece of fitted) {
      if (chain !== undefined) chain.parts++;
      pieces.push(chain === undefined ? piece : { ...piece, chain });
    }
  }
  return pieces;
}

/** Writes a piece's document, or drops it by its route's rule; decides for each of its events. */
function emit(envelope: Envelope, piece: Piece, marks?: JoinMarks): void {
  const { events, serializer, sink, decided } = envelope;
  const { read, at } = piece;
  const head = at[0];
  const rule = read.route?.drop?.(serializer.subject(read));
  if (rule !== undefined) {
    sink.tally.dropped(rule);
    if (decided !== undefined) {
      decided.dropped(head, rule, undefined);
      for (let j = 1; j < at.length; j++) decided.dropped(at[j], rule, events[head].id);
    }
    return;
  }
  const document = sink.documents.length;
  const written = serializer.write(read, marks);
  sink.documents.push(written);
  if (decided === undefined) return;
  const part = marks?.part;
  decided.kept(head, document, piece.masked > 0, written.truncated, at.length - 1, part);
  for (let j = 1; j < at.length; j++) decided.joined(at[j], events[head].id, document, part);
}

function joinKey(route: DocumentRoute | undefined, account: string): JoinKey {
  return {
    key: `${route?.route.name ?? ''}\0${account}`,
    ...(route?.continuation === undefined ? {} : { continuation: route.continuation }),
  };
}

/**
 * A group's documents: one, or, when masking made the joined text too long for one record (a marker can be longer
 * than what it replaces), the group's lines split in halves until each fits or holds one line. Masked values are
 * counted for the pieces kept. `at` holds the envelope positions of the group's events, first to last.
 */
function fittedPieces(
  serializer: DocumentSerializer,
  events: readonly CloudWatchLogEvent[],
  at: readonly number[],
  route: DocumentRoute | undefined,
  tally: ProcessingTally,
): Piece[] {
  const first = events[at[0]];
  if (at.length === 1) {
    const before = tally.maskedSoFar;
    const read = maskedRead(serializer, first, route, tally.masked);
    return [{ read, at, masked: tally.maskedSoFar - before }];
  }
  const counted: Array<readonly [string, number]> = [];
  const event = { ...first, message: at.map((k) => stripOneNewline(events[k].message)).join('\n') };
  const read = maskedRead(serializer, event, route, (d, n) => counted.push([d, n]));
  if (route?.masker !== undefined && serializer.write(read, PROBE_MARKS).truncated) {
    const half = Math.ceil(at.length / 2);
    return [
      ...fittedPieces(serializer, events, at.slice(0, half), route, tally),
      ...fittedPieces(serializer, events, at.slice(half), route, tally),
    ];
  }
  let masked = 0;
  for (const [detector, n] of counted) {
    tally.masked(detector, n);
    masked += n;
  }
  return [{ read, at, masked }];
}

/** The largest marks a join can add (what `messageRoom` reserves room for). */
const PROBE_MARKS: JoinMarks = { joined: 999_999, part: { number: 99_999, of: 'x'.repeat(512) } };
