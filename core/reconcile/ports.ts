/**
 * The I/O the reconcile engine needs, as ports: CloudWatch Logs (counts per minute, the events of a range), OpenSearch
 * (counts per minute, documents by id), kept data (dead letters, discarded batches, failed documents), the transform's
 * decision of what documents a list of events becomes, and the raw stream (heal). cli/reconcile implements them
 * against AWS, moto and the local node; tests use in-memory fakes.
 */
import type { KeptKind, LogEvent, ReconcileGroup } from './model';

/** Counts by log group, then by minute (the minute's start, epoch millis). */
export type MinuteCounts = ReadonlyMap<string, ReadonlyMap<number, number>>;

export interface CloudWatchSide {
  /** How this side counts: with Logs Insights, or by reading every event. */
  readonly countedWith: 'insights' | 'scan';
  /**
   * Events per group and minute in [start, end) (whole minutes), as the subscription sees them; a side that cannot
   * apply a group's filter pattern (Logs Insights) answers an upper bound, which the engine treats like any
   * difference (it reads that minute exactly).
   */
  countPerMinute(groups: readonly ReconcileGroup[], start: number, end: number): Promise<MinuteCounts>;
  /** Every event of the group with a timestamp in [start, end), read with the group's filter pattern. */
  events(group: ReconcileGroup, start: number, end: number): Promise<LogEvent[]>;
}

/** A document to look up: its id, the index stem of its route, and the time of its event (which index of the stem). */
export interface DocumentRef {
  readonly id: string;
  readonly stem: string;
  readonly at: number;
}

/** A document found in OpenSearch. */
export interface FoundDocument {
  readonly index: string;
  /**
   * The kept stem its index belongs to (index-naming.ts `owningStem`): where live put it, which the heal compares
   * with where it would put it now.
   * @default - unknown
   */
  readonly stem?: string;
  /** `kfek.joined`: continuation lines a multi-line rule joined into it (0 when none). */
  readonly joined: number;
}

/** What OpenSearch counts per group and minute. */
export interface SearchCounts {
  /** Documents, each counted with the lines joined into it: the number of log events the documents stand for. */
  readonly events: MinuteCounts;
  /**
   * Of those, the lines joined into the minute's documents (`kfek.joined`). They are counted in their document's
   * minute, but a line may be of a later one (a trace across a minute boundary): such minutes are read exactly
   * where a difference could hide behind them (engine.ts `exactMinutes`).
   */
  readonly joined: MinuteCounts;
}

export interface SearchSide {
  /** Documents per group (`cloudwatch.logGroup`, of the group's owner) and minute (`@timestamp`) in [start, end). */
  countPerMinute(groups: readonly ReconcileGroup[], start: number, end: number): Promise<SearchCounts>;
  /** The documents of `refs` that exist, by id. */
  find(refs: readonly DocumentRef[]): Promise<ReadonlyMap<string, FoundDocument>>;
  /**
   * The kept stem of the index holding the group's newest document at or before `at` (by `@timestamp`): where live
   * was putting the group's events then; undefined when the group has no document that old.
   */
  stemAt(group: ReconcileGroup, at: number): Promise<string | undefined>;
}

export interface KeptSide {
  /** Where kept data holds the documents (or raw events) of `documentIds`, by document id. */
  find(
    documentIds: readonly string[],
  ): Promise<ReadonlyMap<string, { readonly kind: KeptKind; readonly location: string }>>;
}

/**
 * What the transform makes of an event among its neighbours of the same log stream, as the transform itself decides
 * it (routes, drop rules, multi-line join):
 * - `document`: the event has its own document (its id is the ingest pipeline's, `documentIdFor`), in the route with
 *   index stem `stem`, and `joined` lines of later events are in it;
 * - `dropped`: a drop rule keeps it out (`rule` when the transform names one);
 * - `joined`: it is a continuation line, joined into the document of event `into` (of the same log stream).
 */
export type PlannedEvent =
  | { readonly kind: 'document'; readonly stem: string; readonly joined: number }
  | { readonly kind: 'dropped'; readonly rule?: string }
  | { readonly kind: 'joined'; readonly into: string };

export interface DocumentPlanner {
  /**
   * One answer per event, in the order given. `events` are in FilterLogEvents' order (by time); the planner groups
   * them by log stream as CloudWatch Logs' envelopes do.
   */
  plan(group: ReconcileGroup, events: readonly LogEvent[]): PlannedEvent[];
}

export interface HealResult {
  /** Events Kinesis took. */
  readonly sent: number;
  /** Events not sent: refused after every retry (kept where backfill keeps them), or too large for a record. */
  readonly notSent: readonly LogEvent[];
}

export interface Healer {
  /**
   * Sends `events` of `group` through the raw stream as subscription envelopes, exactly as `kfek backfill` does, each
   * envelope marked with the arrival `arrivalOf` gives its events (when they first reached the pipeline: heal.ts
   * gives a trace's lines their first line's), so their documents land in the index of the period live used.
   */
  send(
    group: ReconcileGroup,
    events: readonly LogEvent[],
    arrivalOf: (event: LogEvent) => number,
  ): Promise<HealResult>;
}

/** What waits and measures: the wall clock, or a fake one in tests. */
export interface Clock {
  readonly now: () => number;
  readonly sleep: (millis: number) => Promise<void>;
}

/** Counts the calls each port makes (for the report and `npm run bench:reconcile`). */
export class RequestMeter {
  cloudWatch = 0;
  openSearch = 0;
  kept = 0;
  kinesis = 0;

  snapshot(): { cloudWatch: number; openSearch: number; kept: number; kinesis: number } {
    return {
      cloudWatch: this.cloudWatch,
      openSearch: this.openSearch,
      kept: this.kept,
      kinesis: this.kinesis,
    };
  }
}

export interface ReconcilePorts {
  readonly cloudWatch: CloudWatchSide;
  readonly search: SearchSide;
  readonly kept: KeptSide;
  readonly planner: DocumentPlanner;
  /** @default - no heal: missing events are reported, never sent */
  readonly healer?: Healer;
  readonly clock: Clock;
  /** The meter the ports count their calls on. */
  readonly meter: RequestMeter;
}
