/**
 * `kfek reconcile`'s engine: for each log group and each whole minute of the window older than the delivery lag,
 * compare what CloudWatch Logs holds with what OpenSearch holds, and account for every difference.
 *
 * 1. Cheap tier: counts per group and minute on both sides (ports.ts `countPerMinute`), so a healthy window costs
 *    requests in proportion to groups x minutes, not to events.
 * 2. Exact tier, only for the minutes whose counts differ (merged into ranges): every event of the range, each
 *    classified (classify.ts).
 * 3. Heal (optional): the missing events go back through the raw stream as backfill sends them; the run waits until
 *    their documents are found or the timeout passes.
 *
 * Pure over the ports (time included), so the whole decision is unit-tested with fakes.
 */
import { type ClassifiedEvent, classifyRange } from './classify';
import { UnjudgeableWindowError } from './errors';
import { type HealOutcome, healMissing } from './heal';
import {
  addStates,
  BADNESS,
  type EventVerdict,
  type GroupReport,
  type LogEvent,
  NO_STATES,
  type ReconcileGroup,
  type ReconcileReport,
  type StateCounts,
} from './model';
import { exactRanges, MINUTE_MILLIS, minuteOf } from './minutes';
import type { MinuteCounts, ReconcilePorts, SearchCounts } from './ports';

export { differingRanges, exactRanges, MINUTE_MILLIS, minuteOf } from './minutes';

export interface ReconcileOptions {
  readonly groups: readonly ReconcileGroup[];
  /** Start of the window (epoch millis); judged from the start of its minute. */
  readonly since: number;
  /** End of the window (epoch millis); judged up to the start of its minute. */
  readonly until: number;
  /**
   * How long the pipeline may take to make an event searchable: minutes newer than this are not judged, and an event
   * CloudWatch Logs took in more recently is late (`pending`), never missing or healed.
   */
  readonly lagInMillis: number;
  /**
   * How far before a range the exact tier reads, so a multi-line trace that started earlier is joined as the
   * transform joined it.
   * @default 60000
   */
  readonly joinLookbackInMillis?: number;
  /**
   * Most minutes one exact-tier read covers: a long gap is read in pieces, so memory stays bounded.
   * @default 10
   */
  readonly maxRangeMinutes?: number;
  /**
   * Send the missing events through the raw stream and wait up to `timeoutInMillis` for their documents.
   * @default - no heal
   */
  readonly heal?: { readonly timeoutInMillis: number; readonly pollIntervalInMillis?: number };
  /**
   * Most events listed per group in the report (counts are always complete).
   * @default 1000
   */
  readonly maxListedEvents?: number;
  /** Progress notes (one line each). @default - silent */
  readonly onProgress?: (note: string) => void;
}

/**
 * What is judged: from the start of the window's first minute to the earlier of `until` and `now - lag`, in whole
 * seconds (Logs Insights' granularity). A scheduled run's window ends on a minute; a command run up to now may end
 * in a minute, which is then judged up to that second.
 */
export function judgedMinutes(
  since: number,
  until: number,
  now: number,
  lagInMillis: number,
): { start: number; end: number } {
  const start = minuteOf(since);
  const end = Math.max(start, Math.floor(Math.min(until, now - lagInMillis) / 1000) * 1000);
  return { start, end };
}

/**
 * {@link judgedMinutes}, refused when it is empty: a window whose every second is newer than `now - lag` (in the
 * future, or too recent for its events to have arrived) cannot be judged, and a report of it would say `missing 0`
 * about events nobody looked for. The message names the window, the lag, and when it can be judged.
 */
export function judgeableMinutes(
  since: number,
  until: number,
  now: number,
  lagInMillis: number,
): { start: number; end: number } {
  const judged = judgedMinutes(since, until, now, lagInMillis);
  if (judged.end > judged.start) return judged;
  const iso = (t: number): string => new Date(t).toISOString();
  const firstJudgeable = judged.start + lagInMillis + 1000;
  throw new UnjudgeableWindowError(
    `reconcile: the window ${iso(since)} to ${iso(until)} has nothing to judge: it starts at or after now ` +
      `(${iso(now)}) minus the lag (${Math.round(lagInMillis / 1000)} s), so its events may still be on their ` +
      `way. Pass an earlier --since (or a shorter --lag), or run again after ${iso(firstJudgeable)}`,
  );
}

function sumIn(counts: ReadonlyMap<number, number> | undefined, start: number, end: number): number {
  let sum = 0;
  for (const [minute, n] of counts ?? []) if (minute >= start && minute < end) sum += n;
  return sum;
}

interface GroupWork {
  readonly group: ReconcileGroup;
  states: StateCounts;
  readonly droppedByRule: Record<string, number>;
  readonly verdicts: EventVerdict[];
  /** The missing events, in the order read (the heal sends them in this order). */
  readonly missing: LogEvent[];
  /** Verdicts not kept in {@link verdicts} (beyond the listing limit; their counts are in {@link states}). */
  unlisted: number;
  exactMinutes: number;
  cloudWatchEvents: number;
  openSearchEvents: number;
}

export async function reconcile(options: ReconcileOptions, ports: ReconcilePorts): Promise<ReconcileReport> {
  const startedAt = ports.clock.now();
  const { start, end } = judgeableMinutes(options.since, options.until, startedAt, options.lagInMillis);
  const progress = options.onProgress ?? ((): void => undefined);
  const minutes = Math.ceil((end - start) / MINUTE_MILLIS);

  let cloudWatch: MinuteCounts = new Map();
  let openSearch: SearchCounts = { events: new Map(), joined: new Map() };
  if (end > start && options.groups.length > 0) {
    progress(`counting ${options.groups.length} log group(s) x ${minutes} minute(s) on both sides`);
    [cloudWatch, openSearch] = await Promise.all([
      ports.cloudWatch.countPerMinute(options.groups, start, end),
      ports.search.countPerMinute(options.groups, start, end),
    ]);
  }

  const exactStartedAt = ports.clock.now();
  const judging: Judging = { start, end, startedAt, cloudWatch, openSearch };
  let exactEvents = 0;
  const work: GroupWork[] = [];
  for (const group of options.groups) {
    const judged = await judgeGroup(group, judging, options, ports);
    exactEvents += judged.exactEvents;
    work.push(judged.work);
  }
  const exactMillis = ports.clock.now() - exactStartedAt;

  // A group the heal may not send (its route takes events by source account) keeps its missing events.
  const healable = work.filter((w) => w.group.healRefusal === undefined);
  const heal =
    options.heal !== undefined && ports.healer !== undefined && healable.some((w) => w.missing.length > 0)
      ? await healMissing(healable, options.heal, { ...ports, healer: ports.healer }, progress)
      : undefined;
  const groups = work.map((w) => groupReport(w, minutes, options, heal));

  return {
    window: {
      since: new Date(options.since).toISOString(),
      until: new Date(options.until).toISOString(),
      judgedUntil: new Date(end).toISOString(),
      lagInMillis: options.lagInMillis,
    },
    countedWith: ports.cloudWatch.countedWith,
    groups,
    totals: groups.reduce((sum, g) => addStates(sum, g.states), NO_STATES),
    requests: ports.meter.snapshot(),
    exactTier: { events: exactEvents, durationInMillis: exactMillis },
    ...(heal !== undefined ? { heal: heal.report } : {}),
    durationInMillis: ports.clock.now() - startedAt,
  };
}

/** The judged minutes and both sides' counts in them, which every group is judged against. */
interface Judging {
  readonly start: number;
  readonly end: number;
  readonly startedAt: number;
  readonly cloudWatch: MinuteCounts;
  readonly openSearch: SearchCounts;
}

/**
 * One group's work: the minutes whose counts agree are searchable as a whole; the ranges that differ are read
 * event by event (the exact tier) and classified.
 */
async function judgeGroup(
  group: ReconcileGroup,
  judging: Judging,
  options: ReconcileOptions,
  ports: ReconcilePorts,
): Promise<{ readonly work: GroupWork; readonly exactEvents: number }> {
  const { start, end } = judging;
  const lookback = options.joinLookbackInMillis ?? 60_000;
  const cw = judging.cloudWatch.get(group.logGroup);
  const os = judging.openSearch.events.get(group.logGroup);
  const joined = judging.openSearch.joined.get(group.logGroup);
  const sides = { cloudWatch: cw, openSearch: os, joined, lookbackInMillis: lookback };
  const ranges = exactRanges(start, end, sides, options.maxRangeMinutes ?? 10);
  const w: GroupWork = {
    group,
    states: NO_STATES,
    droppedByRule: {},
    verdicts: [],
    missing: [],
    unlisted: 0,
    exactMinutes: ranges.reduce((n, r) => n + Math.ceil((r.end - r.start) / MINUTE_MILLIS), 0),
    cloudWatchEvents: sumIn(cw, start, end),
    openSearchEvents: sumIn(os, start, end),
  };
  // Minutes whose counts agree: every event there is searchable (the cheap tier's whole point).
  const agreeing = w.cloudWatchEvents - ranges.reduce((n, r) => n + sumIn(cw, r.start, r.end), 0);
  w.states = addStates(w.states, { searchable: agreeing });
  if (ranges.length > 0)
    options.onProgress?.(`${group.logGroup}: ${w.exactMinutes} minute(s) differ, reading them`);
  let exactEvents = 0;
  for (const range of ranges) {
    const classified = await classifyRange(
      group,
      { ...range, lookbackInMillis: lookback, pendingAfter: judging.startedAt - options.lagInMillis },
      ports,
    );
    exactEvents += classified.length;
    record(w, classified, options.maxListedEvents ?? 1000);
  }
  return { work: w, exactEvents };
}

/** A group's report: its work with the heal's outcome applied (each healed event moved out of `missing`). */
function groupReport(
  w: GroupWork,
  minutes: number,
  options: ReconcileOptions,
  heal: HealOutcome | undefined,
): GroupReport {
  const changed = heal?.healedByGroup.get(w.group.logGroup) ?? new Map<string, EventVerdict>();
  const verdicts = w.verdicts.map((v) => changed.get(`${v.logStream}\0${v.eventId}`) ?? v);
  // Each event that left `missing` moves to its new state (healed, or dropped when sent again).
  const moved: Record<string, number> = { missing: -changed.size };
  for (const v of changed.values()) moved[v.state] = (moved[v.state] ?? 0) + 1;
  const states = addStates(w.states, moved);
  const droppedByRule = { ...w.droppedByRule };
  for (const v of changed.values()) {
    if (v.state === 'dropped')
      droppedByRule[v.rule ?? '(a drop rule)'] = (droppedByRule[v.rule ?? '(a drop rule)'] ?? 0) + 1;
  }
  const limit = options.maxListedEvents ?? 1000;
  const listed = [...verdicts].sort(
    (a, b) => BADNESS[b.state] - BADNESS[a.state] || a.timestamp - b.timestamp,
  );
  return {
    logGroup: w.group.logGroup,
    minutes,
    exactMinutes: w.exactMinutes,
    cloudWatchEvents: w.cloudWatchEvents,
    openSearchEvents: w.openSearchEvents,
    states,
    droppedByRule,
    events: listed.slice(0, limit),
    truncated: listed.length > limit || w.unlisted > 0,
    ...(refusedHeal(w, options.heal !== undefined, heal?.refusedByGroup) ?? {}),
  };
}

/** Why the heal sent none of the group's missing events, when it was asked to and did not. */
function refusedHeal(
  w: GroupWork,
  asked: boolean,
  refusedByGroup: ReadonlyMap<string, string> | undefined,
): { healRefused: string } | undefined {
  if (!asked || w.missing.length === 0) return undefined;
  const why = w.group.healRefusal ?? refusedByGroup?.get(w.group.logGroup);
  return why === undefined ? undefined : { healRefused: why };
}

/**
 * Adds a range's classified events to the group's counts; keeps the missing events (for the heal) and, for the
 * listing, the verdicts that are not plainly searchable: every missing one, and the others up to `limit` (a run over
 * many dropped health checks keeps their counts, not each of them).
 */
function record(w: GroupWork, classified: readonly ClassifiedEvent[], limit: number): void {
  const delta: Record<string, number> = {};
  for (const { event, verdict } of classified) {
    delta[verdict.state] = (delta[verdict.state] ?? 0) + 1;
    if (verdict.state === 'dropped') {
      const rule = verdict.rule ?? '(a drop rule)';
      w.droppedByRule[rule] = (w.droppedByRule[rule] ?? 0) + 1;
    }
    if (verdict.state === 'missing' || (verdict.state !== 'searchable' && w.verdicts.length < limit)) {
      w.verdicts.push(verdict);
    } else if (verdict.state !== 'searchable') {
      w.unlisted += 1;
    }
    if (verdict.state === 'missing') w.missing.push(event);
  }
  w.states = addStates(w.states, delta);
}
