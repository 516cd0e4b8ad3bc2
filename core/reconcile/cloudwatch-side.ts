/**
 * The CloudWatch Logs side of `kfek reconcile` (core/reconcile/ports.ts `CloudWatchSide`), in two ways of counting:
 *
 * - `insights` (AWS): `stats count(*) by @log, bin(1m)` over up to 50 log groups per query, as many minutes per query
 *   as keep the answer under Logs Insights' 10,000 rows: requests in proportion to groups x minutes, whatever the
 *   volume. Logs Insights cannot apply a subscription filter pattern, so for a group with a pattern the count is an
 *   upper bound (every event, matched or not): a minute where the pattern left events out differs and is read in the
 *   exact tier. moto's Logs Insights understands only `fields`, `sort` and `limit` (no `stats`), so this way is tested
 *   with a mocked client only (test/cli/reconcile/cloudwatch.test.ts) and runs only on AWS.
 * - `scan` (anywhere, moto included): every event of the window read once with FilterLogEvents and the group's
 *   pattern and counted per minute (page by page: nothing is kept, the exact tier reads the minutes that differ
 *   again). Exact, but requests grow with the events (10,000 a page).
 *
 * Events are read through core/logs' FilterLogEvents port (retries, the operator's errors), paced to the account's
 * FilterLogEvents quota as backfill paces it.
 */
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { runInsightsQuery } from '../logs/insights';
import type { LogsPort } from '../logs/ports';
import { CallSpacer, FILTER_LOG_EVENTS_CALLS_PER_SECOND } from '../pace';
import { MINUTE_MILLIS, minuteOf } from './engine';
import type { LogEvent, ReconcileGroup } from './model';
import type { CloudWatchSide, Clock, MinuteCounts, RequestMeter } from './ports';

export type CountMode = 'insights' | 'scan';
export const COUNT_MODES: readonly CountMode[] = ['insights', 'scan'];

/** StartQuery takes at most 50 log groups. */
export const MAX_GROUPS_PER_QUERY = 50;
/** Logs Insights returns at most 10,000 rows of a query. */
export const MAX_ROWS_PER_QUERY = 10_000;

export interface CloudWatchSideOptions {
  readonly mode: CountMode;
  readonly logs: LogsPort;
  /** Logs Insights (mode `insights`). */
  readonly client?: CloudWatchLogsClient;
  readonly clock: Clock;
  readonly meter: RequestMeter;
  /** @default 300000 */
  readonly queryTimeoutInMillis?: number;
  readonly endpoint?: string;
}

export function cloudWatchSide(options: CloudWatchSideOptions): CloudWatchSide {
  const spacer = new CallSpacer(FILTER_LOG_EVENTS_CALLS_PER_SECOND, options.clock);
  /** Every FilterLogEvents page of the group in [start, end), handed to `each` as it arrives. */
  const pages = async (
    group: ReconcileGroup,
    start: number,
    end: number,
    each: (events: readonly LogEvent[]) => void,
  ): Promise<void> => {
    let nextToken: string | undefined;
    do {
      await spacer.next();
      options.meter.cloudWatch += 1;
      const page = await options.logs.filterPage({
        logGroup: group.logGroup,
        startTime: start,
        // FilterLogEvents' endTime is inclusive.
        endTime: end - 1,
        ...(group.filterPattern !== '' ? { filterPattern: group.filterPattern } : {}),
        ...(nextToken !== undefined ? { nextToken } : {}),
      });
      each(page.events);
      nextToken = page.nextToken;
    } while (nextToken !== undefined);
  };
  const events = async (group: ReconcileGroup, start: number, end: number): Promise<LogEvent[]> => {
    const all: LogEvent[] = [];
    await pages(group, start, end, (page) => all.push(...page));
    return all;
  };

  if (options.mode === 'scan') {
    return {
      countedWith: 'scan',
      events,
      // Counted page by page and not kept, so memory stays one page whatever the window: the exact tier reads the
      // minutes that differ again.
      async countPerMinute(groups, start, end) {
        const counts = new Map<string, Map<number, number>>();
        for (const group of groups) {
          const byMinute = new Map<number, number>();
          // FilterLogEvents may answer an event again on the next page: the previous page's ids are remembered.
          let previous = new Set<string>();
          await pages(group, start, end, (page) => {
            const current = new Set<string>();
            for (const e of page) {
              const key = `${e.logStream}\0${e.id}`;
              if (previous.has(key) || current.has(key)) continue;
              current.add(key);
              const minute = minuteOf(e.timestamp);
              byMinute.set(minute, (byMinute.get(minute) ?? 0) + 1);
            }
            previous = current;
          });
          counts.set(group.logGroup, byMinute);
        }
        return counts;
      },
    };
  }
  const client = options.client;
  if (client === undefined) throw new Error('cloudWatchSide: mode insights needs a CloudWatch Logs client');
  return {
    countedWith: 'insights',
    events,
    countPerMinute: (groups, start, end) => insightsCounts(client, groups, start, end, options),
  };
}

/** The Logs Insights query that counts events per log group and minute. */
export const COUNT_QUERY = 'stats count(*) as events by @log, bin(1m) as minute';

/**
 * Counts per group and minute with Logs Insights: groups in batches of 50, minutes in slices that keep each answer
 * within 10,000 rows (one row per group and minute at most).
 */
export async function insightsCounts(
  client: CloudWatchLogsClient,
  groups: readonly ReconcileGroup[],
  start: number,
  end: number,
  options: Pick<CloudWatchSideOptions, 'clock' | 'meter' | 'queryTimeoutInMillis' | 'endpoint'>,
): Promise<MinuteCounts> {
  const counts = new Map<string, Map<number, number>>(groups.map((g) => [g.logGroup, new Map()]));
  for (let i = 0; i < groups.length; i += MAX_GROUPS_PER_QUERY) {
    const batch = groups.slice(i, i + MAX_GROUPS_PER_QUERY);
    const sliceMinutes = Math.max(1, Math.floor(MAX_ROWS_PER_QUERY / batch.length));
    for (let from = start; from < end; from += sliceMinutes * MINUTE_MILLIS) {
      const to = Math.min(end, from + sliceMinutes * MINUTE_MILLIS);
      const answer = await runInsightsQuery(
        client,
        {
          logGroupNames: batch.map((g) => g.logGroup),
          queryString: COUNT_QUERY,
          startTime: from,
          // Whole seconds, inclusive: the last second of the slice (a bin outside it is dropped below).
          endTime: to - 1000,
        },
        {
          timeoutInMillis: options.queryTimeoutInMillis ?? 300_000,
          pollIntervalInMillis: 1000,
          retry: { sleep: options.clock.sleep },
          now: options.clock.now,
          sleep: options.clock.sleep,
          onCall: () => {
            options.meter.cloudWatch += 1;
          },
          ...(options.endpoint !== undefined ? { endpoint: options.endpoint } : {}),
        },
      );
      for (const row of answer.rows) {
        const group = groupOfLog(row['@log'] ?? '', batch);
        const minute = parseBin(row.minute ?? '');
        const n = Number(row.events);
        if (group === undefined || minute === undefined || !Number.isFinite(n)) continue;
        if (minute < from || minute >= to) continue;
        const byMinute = counts.get(group);
        byMinute?.set(minute, (byMinute.get(minute) ?? 0) + n);
      }
    }
  }
  return counts;
}

/** `@log` is `<account id>:<log group name>`; a single-group query may answer the bare name. */
function groupOfLog(log: string, groups: readonly ReconcileGroup[]): string | undefined {
  const name = /^\d{12}:/.test(log) ? log.slice(13) : log;
  return (
    groups.find((g) => g.logGroup === name)?.logGroup ??
    (groups.length === 1 ? groups[0].logGroup : undefined)
  );
}

/** `bin(1m)` answers `2026-11-27 10:01:00.000` (UTC). */
export function parseBin(text: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)Z?$/.exec(text.trim());
  if (m === null) return undefined;
  const time = Date.parse(`${m[1]}T${m[2]}Z`);
  return Number.isFinite(time) ? time : undefined;
}
