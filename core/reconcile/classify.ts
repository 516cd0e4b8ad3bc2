/**
 * The exact tier for one range of minutes of one log group: every event CloudWatch Logs holds there, its document id
 * computed as the ingest pipeline computes it, the transform's own decision of what becomes of it (planner), the ids
 * looked up in OpenSearch, and each event classified (model.ts `EventState`). Pure over the ports.
 *
 * Multi-line joins are judged against what OpenSearch holds, not only against the plan: CloudWatch Logs cuts its
 * envelopes where it likes, and the transform joins lines only within one envelope, so a trace the plan joins may
 * have been delivered as two documents (the second one starting with a continuation line). A continuation line is
 * therefore `searchable` when it has a document of its own, and `joined` when the nearest earlier line of the same
 * trace that has a document joined at least as many lines as stand between the two.
 */
import { documentIdFor } from '../opensearch/ingest-pipeline';
import type { EventState, EventVerdict, KeptKind, LogEvent, ReconcileGroup } from './model';
import type { DocumentRef, FoundDocument, PlannedEvent, ReconcilePorts } from './ports';

/** One event of the range with what the exact tier decided about it. */
export interface ClassifiedEvent {
  readonly event: LogEvent;
  readonly verdict: EventVerdict;
}

export interface RangeOptions {
  readonly start: number;
  readonly end: number;
  /** Events read before `start` too, so a trace that began earlier is joined as the transform joined it. */
  readonly lookbackInMillis: number;
  /** Events CloudWatch Logs took in after this are late, not missing. */
  readonly pendingAfter: number;
}

interface Planned {
  readonly event: LogEvent;
  readonly plan: PlannedEvent;
  readonly id: string;
  /** For a document: itself; for a joined line: the event whose document its trace starts with. */
  readonly head?: Planned;
  /** Lines between this one and its head (0 for a head). */
  readonly offset: number;
  /** A head's trace: itself, then the lines joined into it, in order (`trace[offset]` is each line). */
  readonly trace?: Planned[];
  /** The route's stem of the document it belongs to. */
  readonly stem?: string;
}

const key = (stream: string, id: string): string => `${stream}\0${id}`;

/** Classifies every event of [start, end) of `group`; events outside the range serve as context only. */
export async function classifyRange(
  group: ReconcileGroup,
  options: RangeOptions,
  ports: Pick<ReconcilePorts, 'cloudWatch' | 'search' | 'kept' | 'planner'>,
): Promise<ClassifiedEvent[]> {
  const read = await ports.cloudWatch.events(group, options.start - options.lookbackInMillis, options.end);
  const events = unique(read);
  const plans = ports.planner.plan(group, events);
  const planned = linkTraces(group, events, plans);
  const inRange = planned.filter(
    (p) => p.event.timestamp >= options.start && p.event.timestamp < options.end,
  );

  // Every id that may hold an event of the range: its own, and for a continuation line each earlier line's.
  const refs = new Map<string, DocumentRef>();
  const want = (p: Planned): void => {
    if (p.stem !== undefined && !refs.has(p.id))
      refs.set(p.id, { id: p.id, stem: p.stem, at: p.event.timestamp });
  };
  const tracesWanted = new Set<Planned>();
  for (const p of inRange) {
    if (p.plan.kind === 'dropped') continue;
    want(p);
    if (p.plan.kind === 'joined' && p.head !== undefined && !tracesWanted.has(p.head)) {
      tracesWanted.add(p.head);
      for (const line of p.head.trace ?? []) want(line);
    }
  }
  const found =
    refs.size === 0 ? new Map<string, FoundDocument>() : await ports.search.find([...refs.values()]);

  const holders = new JoinedHolders(found);
  const verdicts = new Map<Planned, Omit<EventVerdict, 'state'> & { state?: EventState }>();
  const unresolved: Planned[] = [];
  for (const p of inRange) {
    const base = { logStream: p.event.logStream, eventId: p.event.id, timestamp: p.event.timestamp };
    if (p.plan.kind === 'dropped') {
      verdicts.set(p, {
        ...base,
        state: 'dropped',
        documentId: p.id,
        ...(p.plan.rule !== undefined ? { rule: p.plan.rule } : {}),
      });
      continue;
    }
    if (found.has(p.id)) {
      verdicts.set(p, { ...base, state: 'searchable', documentId: p.id });
      continue;
    }
    const holder = p.plan.kind === 'joined' ? holders.of(p) : undefined;
    if (holder !== undefined) {
      verdicts.set(p, { ...base, state: 'joined', documentId: holder.id, joinedInto: holder.event.id });
      continue;
    }
    // Not searchable: its document is expected under its own id, or (a continuation line) under its head's.
    verdicts.set(p, { ...base, documentId: p.head?.id ?? p.id });
    unresolved.push(p);
  }

  if (unresolved.length > 0) {
    const kept = await ports.kept.find([...new Set(unresolved.flatMap((p) => idsOf(p)))]);
    for (const p of unresolved) {
      const verdict = verdicts.get(p);
      if (verdict === undefined) continue;
      const where = idsOf(p)
        .map((id) => kept.get(id))
        .find((k): k is { kind: KeptKind; location: string } => k !== undefined);
      const ingested = p.event.ingestionTime ?? p.event.timestamp;
      const state: EventState =
        where !== undefined ? 'kept' : ingested > options.pendingAfter ? 'pending' : 'missing';
      verdicts.set(p, { ...verdict, state, ...(where !== undefined ? { kept: where } : {}) });
    }
  }
  return inRange.map((p) => ({ event: p.event, verdict: verdicts.get(p) as EventVerdict }));
}

/** FilterLogEvents may answer an event twice across pages: each (stream, id) once, in the order first seen. */
function unique(events: readonly LogEvent[]): LogEvent[] {
  const seen = new Set<string>();
  return events.filter((e) => {
    const k = key(e.logStream, e.id);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Each event with its id and, for a continuation line, its head and its place in the trace. */
function linkTraces(
  group: ReconcileGroup,
  events: readonly LogEvent[],
  plans: readonly PlannedEvent[],
): Planned[] {
  const byKey = new Map<string, Planned>();
  return events.map((event, i) => {
    const plan = plans[i];
    const p: { -readonly [K in keyof Planned]: Planned[K] } = {
      event,
      plan,
      id: documentIdFor(group.logGroup, event.logStream, event.id),
      offset: 0,
    };
    if (plan.kind === 'document') {
      p.head = p;
      p.stem = plan.stem;
      p.trace = [p];
    } else if (plan.kind === 'joined') {
      const head = byKey.get(key(event.logStream, plan.into));
      if (head?.trace !== undefined) {
        // The lines of one trace follow each other in their stream: each one place further from the head.
        p.offset = head.trace.length;
        head.trace.push(p);
        p.head = head;
        if (head.stem !== undefined) p.stem = head.stem;
      }
    }
    byKey.set(key(event.logStream, event.id), p);
    return p;
  });
}

/**
 * The document holding a continuation line: the nearest earlier line of its trace that has a document, if that
 * document joined at least as many lines as stand between the two. Worked out once per trace.
 */
class JoinedHolders {
  /** Per head: for each offset, the nearest line at or before it that has a document. */
  private readonly nearest = new Map<Planned, (Planned | undefined)[]>();

  constructor(private readonly found: ReadonlyMap<string, FoundDocument>) {}

  of(p: Planned): Planned | undefined {
    const head = p.head;
    if (head?.trace === undefined || p.offset === 0) return undefined;
    let nearest = this.nearest.get(head);
    if (nearest === undefined) {
      let last: Planned | undefined;
      nearest = head.trace.map((line) => (last = this.found.has(line.id) ? line : last));
      this.nearest.set(head, nearest);
    }
    const holder = nearest[p.offset - 1];
    const doc = holder === undefined ? undefined : this.found.get(holder.id);
    return holder !== undefined && doc !== undefined && doc.joined >= p.offset - holder.offset
      ? holder
      : undefined;
  }
}

/** The ids kept data may hold `p` under: its own, and its head's (a joined document). */
function idsOf(p: Planned): string[] {
  return p.head !== undefined && p.head !== p ? [p.id, p.head.id] : [p.id];
}
