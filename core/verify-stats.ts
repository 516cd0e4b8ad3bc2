/**
 * What `kfek verify` makes of the events it found: the missing sequence numbers and the latency percentiles. Pure;
 * the percentile is also the local runner's latency probe's (scripts/local/latency-probe.ts).
 */

export interface LatencySummary {
  /** `ingest-field`: the documents' own ingest time; `first-seen`: the poll that first found the event. */
  readonly basis: 'ingest-field' | 'first-seen';
  readonly samples: number;
  readonly p50InMillis: number;
  readonly p95InMillis: number;
  readonly p99InMillis: number;
  readonly maxInMillis: number;
}

/** An event of the run as the polls saw it. */
export interface Seen {
  readonly timestamp: number;
  readonly firstSeenAt: number;
  readonly ingestedAt?: number;
  readonly atFirstPoll: boolean;
}

/** Nearest-rank percentile of sorted values; undefined when there are none. */
export function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** How many of the missing sequence numbers to name. */
const MISSING_SAMPLE_SIZE = 20;

/**
 * Missing sequence numbers of `0 .. expected - 1` (without `expected`, of `0 .. highest found`), counted from the
 * found ones alone: the range may be as large as the largest safe integer, so it is never walked.
 */
export function findGaps(
  found: Iterable<number>,
  expected: number | undefined,
): { missing: number; missingSample: number[]; highestSeq?: number } {
  // A typed array sorts numerically; every value is a safe integer below `expected` (verifyRun set the rest aside).
  const sorted = Float64Array.from(found).sort();
  const highestSeq = sorted.length === 0 ? undefined : sorted[sorted.length - 1];
  const end = expected ?? (highestSeq === undefined ? 0 : highestSeq + 1);
  const missingSample: number[] = [];
  // Walks the found numbers with `end` as a last sentinel, naming the numbers between neighbours, until 20 are named.
  let next = 0;
  for (let i = 0; i <= sorted.length && missingSample.length < MISSING_SAMPLE_SIZE; i++) {
    const seq = i < sorted.length ? sorted[i] : end;
    while (next < seq && missingSample.length < MISSING_SAMPLE_SIZE) missingSample.push(next++);
    next = seq + 1;
  }
  return {
    missing: end - sorted.length,
    missingSample,
    ...(highestSeq !== undefined ? { highestSeq } : {}),
  };
}

/**
 * With an ingest field, latency is ingest time minus `@timestamp` for every event that has one. Without, it is
 * first-seen minus `@timestamp` over the events that appeared after the first poll (for those already there, the
 * first poll says only "at most"); if every event was there at the first poll, those upper bounds are reported.
 */
export function summarizeLatency(
  events: readonly Seen[],
  useIngestField: boolean,
): LatencySummary | undefined {
  let basis: LatencySummary['basis'];
  let values: number[];
  if (useIngestField) {
    basis = 'ingest-field';
    values = events.flatMap((e) => (e.ingestedAt === undefined ? [] : [e.ingestedAt - e.timestamp]));
  } else {
    basis = 'first-seen';
    const later = events.filter((e) => !e.atFirstPoll);
    values = (later.length > 0 ? later : events).map((e) => e.firstSeenAt - e.timestamp);
  }
  if (values.length === 0) return undefined;
  values.sort((a, b) => a - b);
  // `values` is not empty here, so every percentile is a number.
  const [p50InMillis, p95InMillis, p99InMillis] = [50, 95, 99].map((p) => percentile(values, p) as number);
  return {
    basis,
    samples: values.length,
    p50InMillis,
    p95InMillis,
    p99InMillis,
    maxInMillis: values[values.length - 1],
  };
}
