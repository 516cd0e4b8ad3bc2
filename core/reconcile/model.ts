/**
 * What `kfek reconcile` (and the scheduled reconcile function) works on and reports: the log groups it compares, the
 * events CloudWatch Logs holds, the state each event is found in, and the report. Pure types and the one table that
 * orders the states by how bad they are (habit 20: decide once, render anywhere).
 */
import type { GroupSource } from '../logs/model';

/** One log event as CloudWatch Logs holds it (FilterLogEvents), with the event id the document id is derived from. */
export interface LogEvent {
  readonly id: string;
  /** Milliseconds since the epoch: the event's own time, which the minutes are judged by. */
  readonly timestamp: number;
  readonly message: string;
  readonly logStream: string;
  /**
   * When CloudWatch Logs took the event in (FilterLogEvents' `ingestionTime`). An event ingested less than the lag
   * ago is late, not missing, whatever its own timestamp says.
   * @default - unknown: the event's own time stands in for it
   */
  readonly ingestionTime?: number;
}

/** One log group to reconcile, as its subscription to the raw stream sees it. */
export interface ReconcileGroup {
  readonly logGroup: string;
  /** The account that owns the group: its documents carry it as `cloudwatch.owner`. */
  readonly owner: string;
  /** The subscription's filter pattern (FilterLogEvents reads with it); `''` is every event. */
  readonly filterPattern: string;
  /**
   * The subscription filter names CloudWatch Logs writes into the group's envelopes (`subscriptionFilters`): healed
   * events go out in envelopes that name the same filters, as backfill's do.
   */
  readonly subscriptionFilters: readonly string[];
  /**
   * Why the heal must not send this group's events: sent again, they would not take the route live gave them
   * (core/contracts/routes.ts `accountRoutingProblem`, the rule `kfek backfill` refuses by). Its missing events stay
   * missing, and the report says why.
   * @default - the heal may send them
   */
  readonly healRefusal?: string;
}

/**
 * Where an event was found, from best to worst:
 * - `searchable`: its document is in OpenSearch (or its minute's counts agree on both sides);
 * - `dropped`: a drop rule of its route keeps it out (decided by the transform's own code);
 * - `joined`: a multi-line rule joined it into the document of an earlier event, which is searchable;
 * - `healed`: it was missing and `--heal` made it searchable;
 * - `pending`: not found, but CloudWatch Logs took it in less than the lag ago: late, judged by a later run;
 * - `kept`: not searchable, kept with its reason (dead-letter bucket, discarded batch, failed documents): replay it;
 * - `missing`: not searchable and kept nowhere: lost, until healed.
 */
export const EVENT_STATES = [
  'searchable',
  'dropped',
  'joined',
  'healed',
  'pending',
  'kept',
  'missing',
] as const;
export type EventState = (typeof EVENT_STATES)[number];

/** How bad a state is (higher is worse): the one ordering every renderer uses. */
export const BADNESS: Readonly<Record<EventState, number>> = {
  searchable: 0,
  dropped: 0,
  joined: 0,
  healed: 1,
  pending: 2,
  kept: 3,
  missing: 4,
};

/** The kinds of kept data an event can be found in (cli/replay's kinds that hold events). */
export type KeptKind = 'dead-letter' | 'discarded-batch' | 'failed-document';

/** What the exact tier found about one event that is not plainly searchable. */
export interface EventVerdict {
  readonly logStream: string;
  readonly eventId: string;
  readonly timestamp: number;
  readonly state: EventState;
  /** The `_id` its document has or would have (for a joined line: the document it is joined into). */
  readonly documentId: string;
  /** `dropped`: the rule that keeps it out, when the transform names one. */
  readonly rule?: string;
  /** `joined`: the event whose document holds it. */
  readonly joinedInto?: string;
  /** `kept`: which kind of kept data holds it, and where (an S3 URL or a path). */
  readonly kept?: { readonly kind: KeptKind; readonly location: string };
}

export type StateCounts = Readonly<Record<EventState, number>>;

export const NO_STATES: StateCounts = {
  searchable: 0,
  dropped: 0,
  joined: 0,
  healed: 0,
  pending: 0,
  kept: 0,
  missing: 0,
};

export function addStates(a: StateCounts, b: Partial<StateCounts>): StateCounts {
  const sum: Record<EventState, number> = { ...a };
  for (const state of EVENT_STATES) sum[state] += b[state] ?? 0;
  return sum;
}

/** The worst state with a non-zero count, or `searchable`. */
export function worstState(counts: StateCounts): EventState {
  let worst: EventState = 'searchable';
  for (const state of EVENT_STATES) if (counts[state] > 0 && BADNESS[state] > BADNESS[worst]) worst = state;
  return worst;
}

export interface GroupReport {
  readonly logGroup: string;
  /** Minutes judged (older than the lag). */
  readonly minutes: number;
  /** Of those, minutes whose counts differed and whose events were read and looked up one by one. */
  readonly exactMinutes: number;
  /** Events CloudWatch Logs counted in the judged minutes (cheap tier). */
  readonly cloudWatchEvents: number;
  /** Documents (plus the lines joined into them) OpenSearch counted in the judged minutes (cheap tier). */
  readonly openSearchEvents: number;
  /** Every judged event by state: cheap-tier minutes whose counts agree count as searchable. */
  readonly states: StateCounts;
  readonly droppedByRule: Readonly<Record<string, number>>;
  /** The events of the exact tier that are not searchable, worst first (at most the run's listing limit). */
  readonly events: readonly EventVerdict[];
  /** True when more events than {@link events} lists were not searchable. */
  readonly truncated: boolean;
  /** Why the heal sent none of this group's missing events (they stay missing); absent when it could send them. */
  readonly healRefused?: string;
}

/** Calls made, by the service they went to: what a run costs in requests. */
export interface RequestCounts {
  /** CloudWatch Logs: StartQuery/GetQueryResults or FilterLogEvents pages, and DescribeSubscriptionFilters. */
  readonly cloudWatch: number;
  /** OpenSearch: aggregations, `_mget` and `ids` searches. */
  readonly openSearch: number;
  /** Kept data: objects listed and read. */
  readonly kept: number;
  /** Kinesis PutRecords calls of the heal. */
  readonly kinesis: number;
}

export interface HealReport {
  /** Events sent to the raw stream. */
  readonly sent: number;
  /** Of those, found searchable before the timeout. */
  readonly healed: number;
  /** Events Kinesis refused after every retry, or that do not fit a record: not sent. */
  readonly notSent: number;
  readonly durationInMillis: number;
}

export interface ReconcileReport {
  /** The window asked for, and the end of what was judged (older than the lag). */
  readonly window: {
    readonly since: string;
    readonly until: string;
    readonly judgedUntil: string;
    readonly lagInMillis: number;
  };
  /** How the CloudWatch side was counted: Logs Insights (AWS) or FilterLogEvents pages (anywhere). */
  readonly countedWith: 'insights' | 'scan';
  readonly groups: readonly GroupReport[];
  readonly totals: StateCounts;
  readonly requests: RequestCounts;
  /** Events the exact tier classified one by one, and the time it took (reading, planning, looking up). */
  readonly exactTier: { readonly events: number; readonly durationInMillis: number };
  readonly heal?: HealReport;
  readonly durationInMillis: number;
}

/** What the envelopes of `group` say of it (owner, subscription filters): the heal and the planner build them. */
export function groupSource(group: ReconcileGroup): GroupSource {
  return { logGroup: group.logGroup, owner: group.owner, subscriptionFilters: group.subscriptionFilters };
}
