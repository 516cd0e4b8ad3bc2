import { buildEnvelopes } from './envelopes';
import type { GroupSource, HistoricLogEvent } from './model';
import type { LogsPort } from './ports';
/**
 * `--dry-run`'s estimate of a log group's window: events, message bytes, and what they become on the raw stream,
 * from a sampled read. Nothing cheaper counts events: DescribeLogGroups' `storedBytes` covers the whole group over its
 * retention (not the window), DescribeLogStreams' per-stream `storedBytes` is always 0 since 2019, and Logs
 * Insights (which could count exactly) bills the bytes it scans.
 *
 * The sample: FilterLogEvents answers in timestamp order, so its first event from `since` on is where the window's
 * events start. From there to `until` the window is cut into `slices` equal slices, and each slice is read from its
 * start for one call of at most `sampleLimit` events (a few more calls when AWS answers an empty page with a
 * token). A slice read to its end is counted exactly; otherwise its events per millisecond over the time the
 * sample covered (its start to the last event read) are scaled to the slice. Bytes per event and the gzip size
 * come from envelopes built of the sampled events exactly as the backfill builds them.
 */

export interface EstimateOptions {
  /** @default 10 */
  readonly slices?: number;
  /** Events per sampling call. @default 1000 */
  readonly sampleLimit?: number;
  /** Calls per slice while AWS answers empty pages with a token. @default 3 */
  readonly maxCallsPerSlice?: number;
}

export interface GroupEstimate {
  readonly logGroup: string;
  /** The first event in the window; undefined when the window holds none. */
  readonly firstEventAt?: Date;
  readonly events: number;
  readonly messageBytes: number;
  /** Bytes of the gzip envelopes on the raw stream. */
  readonly gzipBytes: number;
  /** Envelopes (raw-stream records): an upper bound, the sample's pages being smaller than a backfill's. */
  readonly records: number;
  readonly sampledEvents: number;
  /** Slices read to their end (counted exactly) of all slices. */
  readonly exactSlices: number;
  readonly slices: number;
  /** FilterLogEvents calls the sample took. */
  readonly calls: number;
}

interface SliceSample {
  readonly events: readonly HistoricLogEvent[];
  /** Read to the slice's end. */
  readonly complete: boolean;
  /** Milliseconds of the slice the events cover (its whole width when complete). */
  readonly coveredMillis: number;
  readonly widthMillis: number;
}

export async function estimateGroup(
  logs: LogsPort,
  source: GroupSource,
  window: { readonly since: Date; readonly until: Date; readonly filterPattern?: string },
  options: EstimateOptions = {},
): Promise<GroupEstimate> {
  const slices = options.slices ?? 10;
  const sampleLimit = options.sampleLimit ?? 1000;
  const maxCalls = options.maxCallsPerSlice ?? 3;
  const until = window.until.getTime();
  let calls = 0;
  const readSlice = async (start: number, end: number): Promise<SliceSample> => {
    const events: HistoricLogEvent[] = [];
    let nextToken: string | undefined;
    for (let call = 0; call < maxCalls; call++) {
      const page = await logs.filterPage({
        logGroup: source.logGroup,
        startTime: start,
        endTime: end,
        ...(window.filterPattern !== undefined ? { filterPattern: window.filterPattern } : {}),
        limit: sampleLimit,
        ...(nextToken !== undefined ? { nextToken } : {}),
      });
      calls += 1;
      events.push(...page.events);
      nextToken = page.nextToken;
      if (nextToken === undefined || events.length > 0) break;
    }
    const widthMillis = end - start + 1;
    if (nextToken === undefined) return { events, complete: true, coveredMillis: widthMillis, widthMillis };
    const last = events.length > 0 ? events[events.length - 1].timestamp : start;
    return { events, complete: false, coveredMillis: Math.max(1, last - start + 1), widthMillis };
  };

  // Where the window's events start: the first event from `since` on.
  const first = await readSlice(window.since.getTime(), until);
  if (first.complete && first.events.length === 0) return empty(source.logGroup, slices, calls);
  const start = first.events.length > 0 ? first.events[0].timestamp : window.since.getTime();
  const width = (until - start + 1) / slices;
  const samples: SliceSample[] = [];
  for (let i = 0; i < slices; i++) {
    const a = Math.floor(start + i * width);
    const b = i === slices - 1 ? until : Math.floor(start + (i + 1) * width) - 1;
    samples.push(
      b < a ? { events: [], complete: true, coveredMillis: 1, widthMillis: 1 } : await readSlice(a, b),
    );
  }

  // A slice whose sample saw nothing yet has a token (AWS's empty pages) is given the mean of the others.
  const known = samples.filter((s) => s.complete || s.events.length > 0);
  const knownRate =
    known.reduce((sum, s) => sum + s.events.length, 0) /
    Math.max(
      1,
      known.reduce((sum, s) => sum + s.coveredMillis, 0),
    );
  const sampled = samples.flatMap((s) => s.events);
  const perEvent = perEventFigures(source, sampled);
  let events = 0;
  for (const s of samples) {
    if (s.complete) events += s.events.length;
    else if (s.events.length > 0) events += (s.events.length / s.coveredMillis) * s.widthMillis;
    else events += knownRate * s.widthMillis;
  }
  events = Math.round(events);
  return {
    logGroup: source.logGroup,
    firstEventAt: new Date(start),
    events,
    messageBytes: Math.round(events * perEvent.messageBytes),
    gzipBytes: Math.round(events * perEvent.gzipBytes),
    records: Math.ceil(events * perEvent.records),
    sampledEvents: sampled.length,
    exactSlices: samples.filter((s) => s.complete).length,
    slices,
    calls,
  };
}

function empty(logGroup: string, slices: number, calls: number): GroupEstimate {
  return {
    logGroup,
    events: 0,
    messageBytes: 0,
    gzipBytes: 0,
    records: 0,
    sampledEvents: 0,
    exactSlices: slices,
    slices,
    calls,
  };
}

/** Message bytes, gzip bytes and records per event of the sample, built into envelopes as a backfill would. */
function perEventFigures(
  source: GroupSource,
  sampled: readonly HistoricLogEvent[],
): { messageBytes: number; gzipBytes: number; records: number } {
  if (sampled.length === 0) return { messageBytes: 0, gzipBytes: 0, records: 0 };
  const { records } = buildEnvelopes(source, sampled);
  const sum = (f: (r: (typeof records)[number]) => number): number => records.reduce((s, r) => s + f(r), 0);
  const n = Math.max(
    1,
    sum((r) => r.events),
  );
  return {
    messageBytes: sum((r) => r.messageBytes) / n,
    gzipBytes: sum((r) => r.data.length) / n,
    records: records.length / n,
  };
}
