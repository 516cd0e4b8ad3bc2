/**
 * What the transform decided for each input event (issue 40): one decision per log event of a record's
 * `DATA_MESSAGE`s, in the order of the events, beside the documents. Whoever needs to know what became of an event
 * (the reconcile planner, `npm start`'s accounting, the metrics, the direct-delivery indexer) reads these instead of
 * running the transform again or parsing its documents back:
 * - `kept`: the event has its own document (route, index stem, the ingest pipeline's `_id`, masked or not, cut or
 *   not, the lines joined into it and the part of a split join);
 * - `joined`: its line is in the document of an earlier event of its route and account (which one, which part);
 * - `dropped`: a drop rule kept its document out (which rule).
 * A record that cannot be decoded has no events to decide on: its outcome is `poison` with the reason. The types are
 * in types.ts, beside the outcome that carries them; here are their builders and the document id.
 *
 * Pure: no SDK, no environment, no I/O.
 */
import { documentIdFor } from '../contracts/document-id';
import type { CloudWatchLogEvent } from './decode';
import { type EventSource, sourceAccountOf } from './metadata';
import type { ResolvedEvents } from './routing';
import type { EventDecision, JoinPart } from './types';

export type { DroppedEvent, EventDecision, JoinedEvent, JoinPart, KeptEvent } from './types';

/**
 * The `_id` the ingest pipeline gives the document that holds the event (its own, or the one it was joined into);
 * undefined for a dropped event, and for an event without an id (the pipeline then lets OpenSearch choose one).
 */
export function documentIdOf(decision: EventDecision): string | undefined {
  if (decision.kind === 'dropped') return undefined;
  const id = decision.kind === 'kept' ? decision.eventId : decision.into;
  return id === '' ? undefined : documentIdFor(decision.source.logGroup, decision.source.logStream, id);
}

/**
 * Writes the decisions of one envelope's events, by position, from their routes and accounts (routing.ts `resolve`),
 * straight into the record's decisions (`out`, from the envelope's first event at `first`): each one object literal
 * of a fixed shape (absent optional members present as undefined), with nothing else allocated per event. A spread of
 * a shared part, or a small object per event for its place, cost more than the rest of deciding, and so did copying
 * each envelope's decisions into the record's afterwards (bench/decisions.bench.ts).
 */
export class EnvelopeDecisions {
  public constructor(
    private readonly events: readonly CloudWatchLogEvent[],
    private readonly source: EventSource,
    private readonly resolved: ResolvedEvents,
    private readonly out: EventDecision[],
    private readonly first: number,
  ) {}

  /** Event `k` has its own document. */
  public kept(
    k: number,
    document: number,
    masked: boolean,
    truncated: boolean,
    joined: number,
    part?: JoinPart,
  ): void {
    const route = this.resolved.routes[k]?.route;
    this.out[this.first + k] = {
      kind: 'kept',
      eventId: this.events[k].id,
      source: this.source,
      account: this.resolved.accounts[k],
      route: route?.name,
      stem: route?.indexStem,
      document,
      masked,
      truncated,
      joined,
      part,
    };
  }

  /** Event `k`'s line is in the document of event `into`. */
  public joined(k: number, into: string, document: number, part: JoinPart | undefined): void {
    const route = this.resolved.routes[k]?.route;
    this.out[this.first + k] = {
      kind: 'joined',
      eventId: this.events[k].id,
      source: this.source,
      account: this.resolved.accounts[k],
      route: route?.name,
      stem: route?.indexStem,
      into,
      document,
      part,
    };
  }

  /** A drop rule kept event `k` out (`into`: the line it had joined, for a continuation line). */
  public dropped(k: number, rule: string, into: string | undefined): void {
    const route = this.resolved.routes[k]?.route;
    this.out[this.first + k] = {
      kind: 'dropped',
      eventId: this.events[k].id,
      source: this.source,
      account: this.resolved.accounts[k],
      route: route?.name,
      stem: route?.indexStem,
      rule,
      into,
    };
  }
}

/**
 * The decisions of one envelope whose events no route processes (a profile without routes): each event kept, with
 * its own document, in order from `first`, appended to `out`. Written only when read (transform.ts): the plain path
 * decides nothing beyond "kept", so its hot loop builds no object per event for them.
 */
export function plainDecisions(
  source: EventSource,
  events: readonly CloudWatchLogEvent[],
  documents: ReadonlyArray<{ readonly truncated: boolean }>,
  first: number,
  out: EventDecision[],
): void {
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    out.push({
      kind: 'kept',
      eventId: event.id,
      source,
      account: sourceAccountOf(event, source),
      route: undefined,
      stem: undefined,
      document: first + i,
      masked: false,
      truncated: documents[first + i].truncated,
      joined: 0,
      part: undefined,
    });
  }
}
