/**
 * A route's processing of one envelope's events (docs/teams-and-routes.md "Processing"), decided per event: each
 * event's route (by its own account), its masking, the multi-line join within its route and account, and the drop
 * rules on the document as it will be indexed. The serializer (document.ts) only writes what this decides, and one
 * accumulator per record ({@link ProcessingTally}) counts everything the metrics and logs report. Pure: no SDK, no
 * environment, no I/O.
 */
import { looksLikeJsonObject, maskMessage, maskText, type MaskTally } from './masking';
import type { CloudWatchLogEvent } from './decode';
import type { DocumentSerializer, JoinMarks, ReadEvent } from './document';
import { groupLines, joinEvents, type JoinChain, type JoinKey } from './multiline';
import type { DocumentRoute } from './routing';
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

/** One document to write: its read event, how many lines it holds, and the join it is part of. */
interface Piece {
  readonly read: ReadEvent;
  readonly lines: number;
  readonly chain?: JoinChain;
}

/**
 * The documents of one `DATA_MESSAGE` envelope's events under its routes, in order, without the events drop rules keep
 * out; what was masked, joined and dropped is counted in `tally`.
 */
export function processEnvelope(
  events: readonly CloudWatchLogEvent[],
  serializer: DocumentSerializer,
  tally: ProcessingTally,
): SerializedDocument[] {
  const documents: SerializedDocument[] = [];
  const emit = (read: ReadEvent, marks?: JoinMarks): void => {
    const rule = read.route?.drop?.(serializer.subject(read));
    if (rule !== undefined) {
      tally.dropped(rule);
      return;
    }
    documents.push(serializer.write(read, marks));
  };

  if (!hasContinuation(events, serializer)) {
    for (const event of events) {
      emit(maskedRead(serializer, event, serializer.routeOf(event), tally.masked));
    }
    return documents;
  }

  // Events without an account of their own (all but centralized ones) share the envelope's sequence.
  const envelopeKey = joinKey(serializer.envelopeRouteOf, serializer.envelope.owner);
  const groups = joinEvents(
    events,
    (event) =>
      event.extractedFields === undefined
        ? envelopeKey
        : joinKey(serializer.routeOf(event), serializer.accountOf(event)),
    (event) => serializer.messageRoom(event, serializer.routeOf(event)),
  );
  const pieces: Piece[] = [];
  for (const group of groups) {
    if (group.joined === undefined && group.chain === undefined) {
      const first = group.first;
      pieces.push({ read: maskedRead(serializer, first, serializer.routeOf(first), tally.masked), lines: 1 });
      continue;
    }
    const fitted = fittedPieces(
      serializer,
      group.first,
      groupLines(group),
      [group.first, ...(group.joined ?? [])],
      tally,
    );
    const chain =
      group.chain ?? (fitted.length > 1 ? { id: group.first.id, parts: 0, written: 0 } : undefined);
    for (const piece of fitted) {
      if (chain !== undefined) chain.parts++;
      pieces.push(chain === undefined ? piece : { ...piece, chain });
    }
  }
  for (const { read, lines, chain } of pieces) {
    if (lines > 1) tally.joined(lines - 1);
    if (chain === undefined || chain.parts === 1) {
      emit(read, lines === 1 ? undefined : { joined: lines - 1 });
    } else {
      emit(read, { joined: lines - 1, part: { number: ++chain.written, of: chain.id } });
    }
  }
  return documents;
}

function joinKey(route: DocumentRoute | undefined, account: string): JoinKey {
  return {
    key: `${route?.route.name ?? ''}\0${account}`,
    ...(route?.continuation === undefined ? {} : { continuation: route.continuation }),
  };
}

/** True when some event's route joins lines (else the join is skipped: one document per event). */
function hasContinuation(events: readonly CloudWatchLogEvent[], serializer: DocumentSerializer): boolean {
  for (const event of events) if (serializer.routeOf(event)?.continuation !== undefined) return true;
  return false;
}

/**
 * A group's documents: one, or, when masking made the joined text too long for one record (a marker can be longer
 * than what it replaces), the group's lines split in halves until each fits or holds one line. Masked values are
 * counted for the pieces kept.
 */
function fittedPieces(
  serializer: DocumentSerializer,
  first: CloudWatchLogEvent,
  lines: readonly string[],
  events: readonly CloudWatchLogEvent[],
  tally: ProcessingTally,
): Array<{ read: ReadEvent; lines: number }> {
  const route = serializer.routeOf(first);
  if (lines.length === 1) return [{ read: maskedRead(serializer, first, route, tally.masked), lines: 1 }];
  const counted: Array<readonly [string, number]> = [];
  const event = { ...first, message: lines.join('\n') };
  const read = maskedRead(serializer, event, route, (d, n) => counted.push([d, n]));
  if (route?.masker !== undefined && serializer.write(read, PROBE_MARKS).truncated) {
    const half = Math.ceil(lines.length / 2);
    return [
      ...fittedPieces(serializer, events[0], lines.slice(0, half), events.slice(0, half), tally),
      ...fittedPieces(serializer, events[half], lines.slice(half), events.slice(half), tally),
    ];
  }
  for (const [detector, n] of counted) tally.masked(detector, n);
  return [{ read, lines: lines.length }];
}

/** The largest marks a join can add (what `messageRoom` reserves room for). */
const PROBE_MARKS: JoinMarks = { joined: 999_999, part: { number: 99_999, of: 'x'.repeat(512) } };
