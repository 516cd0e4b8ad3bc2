/**
 * `kfek verify`: finds one run's events in OpenSearch and reports what arrived, what is missing and how long it
 * took.
 */
import type { OpenSearchHttpClient } from '../core/opensearch/http';
import { indicesPath, nameProblem } from '../core/opensearch/request-path';
import { searchInTimeSlices } from '../core/opensearch/time-slices';
import { sleep as realSleep } from '../core/clock';
import { OpenSearchRequestError, UsageError } from './errors';
import { parseRunMarker, validateRunId } from '../core/log-generator';
import { findGaps, type LatencySummary, type Seen, summarizeLatency } from '../core/verify-stats';

export interface VerifyOptions {
  readonly runId: string;
  /** Index pattern to search, e.g. `logs-*`. @default '*' */
  readonly indexPattern?: string;
  /** Events the run wrote (`kfek send --count`). @default - unknown: missing = gaps below the highest seq seen */
  readonly expected?: number;
  /** Keep polling until every expected event is found or this much time has passed. 0 = search once. */
  readonly timeoutInMillis: number;
  /** @default 2000 */
  readonly pollIntervalInMillis?: number;
  /**
   * Document field holding the time the document was indexed (e.g. set by an ingest pipeline). When absent,
   * latency is measured to the poll in which the event was first seen.
   * @default - none
   */
  readonly ingestField?: string;
  /** Hits per page. @default 1000 */
  readonly pageSize?: number;
  /**
   * Page with the scroll API; without it (a Serverless collection has none) in `@timestamp` slices
   * (core/opensearch/time-slices.ts).
   * @default true
   */
  readonly scroll?: boolean;
  /** Called after each poll. */
  readonly onPoll?: (found: number, expected: number | undefined) => void;
  /** Injected by tests. @default Date.now */
  readonly now?: () => number;
  /** Injected by tests. @default setTimeout */
  readonly sleep?: (millis: number) => Promise<void>;
}

export interface VerifyResult {
  readonly runId: string;
  readonly expected?: number;
  /** Distinct events found (by sequence number). */
  readonly delivered: number;
  /** Extra copies of events already found (Firehose delivers at least once). */
  readonly duplicates: number;
  /** Events not found (expected minus delivered, or gaps below {@link highestSeq} when `expected` is unknown). */
  readonly missing: number;
  /** The first missing sequence numbers (at most 20). */
  readonly missingSample: readonly number[];
  /** The highest sequence number counted as delivered (absent when none was). */
  readonly highestSeq?: number;
  /**
   * Documents of the last search whose sequence number this run cannot have written: at or beyond `expected`, or
   * beyond 2^53 (no JavaScript number holds it exactly). Not counted as delivered, duplicates or missing.
   */
  readonly outOfRange: number;
  /** Events already searchable at the first poll: their first-seen latency is only an upper bound. */
  readonly presentAtFirstPoll: number;
  readonly latency?: LatencySummary;
  readonly polls: number;
  readonly elapsedInMillis: number;
  /** True when every expected event was found. */
  readonly complete: boolean;
}

interface SearchHit {
  readonly _source?: Record<string, unknown>;
}

interface SearchAnswer {
  readonly _scroll_id?: string;
  readonly hits?: { readonly hits?: readonly SearchHit[] };
}

/** Reads a dotted path (`kfek.ingestedAt`) or a literal key with dots from a document. */
function fieldAt(source: Record<string, unknown>, path: string): unknown {
  if (path in source) return source[path];
  let current: unknown = source;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function toMillis(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? undefined : parsed;
  }
  return undefined;
}

/** The marker is in `message` (analysed text) whatever the layout; the phrase keeps its tokens together. */
function runQuery(runId: string): Record<string, unknown> {
  return { match_phrase: { message: `kfek_run=${runId}` } };
}

/** All of a run's documents, through the scroll API (works on every OpenSearch version and on the service). */
async function fetchRun(
  client: OpenSearchHttpClient,
  indexPattern: string,
  runId: string,
  fields: readonly string[],
  pageSize: number,
): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  const first = await call<SearchAnswer>(
    client,
    'POST',
    indicesPath(indexPattern, '_search', { scroll: '1m' }),
    {
      size: pageSize,
      _source: fields,
      sort: ['_doc'],
      query: runQuery(runId),
    },
  );
  let scrollId = first._scroll_id;
  let page = first.hits?.hits ?? [];
  try {
    while (page.length > 0) {
      // A loop, not push(...page): a page is as long as the server makes it, and spread arguments live on the stack.
      for (const hit of page) hits.push(hit);
      if (page.length < pageSize || scrollId === undefined) break;
      const next = await call<SearchAnswer>(client, 'POST', '/_search/scroll', {
        scroll: '1m',
        scroll_id: scrollId,
      });
      scrollId = next._scroll_id ?? scrollId;
      page = next.hits?.hits ?? [];
    }
  } finally {
    if (scrollId !== undefined) {
      // Frees the search context now rather than in a minute; a failure here loses nothing.
      await client
        .request({ method: 'DELETE', path: '/_search/scroll', body: { scroll_id: [scrollId] } })
        .catch(() => {
          /* best effort */
        });
    }
  }
  return hits;
}

async function call<T>(
  client: OpenSearchHttpClient,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
): Promise<T> {
  let response;
  try {
    response = await client.request({ method, path, body });
  } catch (error) {
    throw new OpenSearchRequestError(
      `Could not reach OpenSearch at ${client.baseUrl} (${String(error)}): check --opensearch and that it is running.`,
      { cause: error },
    );
  }
  if (response.status === 401 || response.status === 403) {
    throw new OpenSearchRequestError(
      `OpenSearch at ${client.baseUrl} refused the search (HTTP ${response.status}): pass credentials ` +
        '(--sigv4 for IAM, or https://user:password@host for basic auth) with read access to the index.',
    );
  }
  if (response.status >= 300) {
    throw new OpenSearchRequestError(
      `OpenSearch ${method} ${path} answered HTTP ${response.status}: ${response.text.slice(0, 300)}`,
    );
  }
  if (typeof response.body !== 'object' || response.body === null) {
    throw new OpenSearchRequestError(`OpenSearch ${method} ${path} answered something that is not JSON.`);
  }
  return response.body as T;
}

/** The run's documents: by scroll, or in `@timestamp` slices where there is no scroll API (a Serverless collection). */
function fetchHits(
  client: OpenSearchHttpClient,
  options: VerifyOptions,
  indexPattern: string,
  fields: readonly string[],
): Promise<SearchHit[]> {
  const pageSize = options.pageSize ?? 1000;
  if (options.scroll !== false) return fetchRun(client, indexPattern, options.runId, fields, pageSize);
  return searchInTimeSlices<SearchHit>((method, path, body) => call(client, method, path, body), {
    indexPattern,
    query: runQuery(options.runId),
    fields,
    maxHits: pageSize,
  });
}

/** Searches (and re-searches, until complete or timed out) for the run's events. */
export async function verifyRun(client: OpenSearchHttpClient, options: VerifyOptions): Promise<VerifyResult> {
  const indexPattern = validateVerifyOptions(options);
  const now = options.now ?? Date.now;
  const pause = options.sleep ?? realSleep;
  const interval = options.pollIntervalInMillis ?? 2000;
  const fields = [
    'message',
    '@timestamp',
    ...(options.ingestField !== undefined ? [options.ingestField] : []),
  ];
  const startedAt = now();
  const seen = new Map<number, Seen>();
  let counted = { outOfRange: 0, duplicates: 0 };
  let polls = 0;

  for (;;) {
    const pollStartedAt = now();
    const hits = await fetchHits(client, options, indexPattern, fields);
    polls += 1;
    counted = tally(hits, options, seen, { pollStartedAt, firstPoll: polls === 1 });
    options.onPoll?.(seen.size, options.expected);
    const complete = options.expected !== undefined && seen.size >= options.expected;
    if (complete || now() - startedAt + interval > options.timeoutInMillis) break;
    await pause(interval);
  }

  const gaps = findGaps(seen.keys(), options.expected);
  return {
    runId: options.runId,
    expected: options.expected,
    delivered: seen.size,
    duplicates: counted.duplicates,
    ...gaps,
    outOfRange: counted.outOfRange,
    presentAtFirstPoll: [...seen.values()].filter((s) => s.atFirstPoll).length,
    latency: summarizeLatency([...seen.values()], options.ingestField !== undefined),
    polls,
    elapsedInMillis: now() - startedAt,
    complete: gaps.missing === 0 && (options.expected === undefined || seen.size >= options.expected),
  };
}

/** Refuses a bad run id, index pattern or --expect; returns the index pattern to search. */
function validateVerifyOptions(options: VerifyOptions): string {
  validateRunId(options.runId);
  const indexPattern = options.indexPattern ?? '*';
  // Each pattern of the list goes into the path as one encoded segment (core/opensearch/request-path.ts).
  const problem = indexPattern
    .split(',')
    .map((p) => nameProblem('index pattern', p))
    .find((p) => p !== undefined);
  if (problem !== undefined) {
    throw new UsageError(
      `--index ${JSON.stringify(indexPattern)} is not an index pattern such as logs-*: ${problem}`,
    );
  }
  if (options.expected !== undefined && !(Number.isInteger(options.expected) && options.expected >= 0)) {
    throw new UsageError(`--expect is ${options.expected}; expected a whole number >= 0`);
  }
  return indexPattern;
}

/**
 * Adds one poll's hits to `seen` (the first sighting of each sequence number of the run) and counts this poll's
 * duplicates and out-of-range markers.
 */
function tally(
  hits: readonly SearchHit[],
  options: VerifyOptions,
  seen: Map<number, Seen>,
  poll: { readonly pollStartedAt: number; readonly firstPoll: boolean },
): { outOfRange: number; duplicates: number } {
  // A document's kfek_seq is untrusted input (any app can write the marker): one that this run cannot have written
  // is set aside, so that no count, loop or allocation is sized by it.
  const inRange = (seq: number): boolean =>
    Number.isSafeInteger(seq) && (options.expected === undefined || seq < options.expected);
  const copies = new Map<number, number>();
  let outOfRange = 0;
  for (const hit of hits) {
    const source = hit._source ?? {};
    const message = typeof source.message === 'string' ? source.message : '';
    const marker = parseRunMarker(message);
    if (marker === undefined || marker.runId !== options.runId) continue;
    if (!inRange(marker.seq)) {
      outOfRange += 1;
      continue;
    }
    copies.set(marker.seq, (copies.get(marker.seq) ?? 0) + 1);
    if (seen.has(marker.seq)) continue;
    const timestamp = toMillis(source['@timestamp']);
    if (timestamp === undefined) continue;
    seen.set(marker.seq, {
      timestamp,
      // The event became searchable between the previous poll and this one; this poll's start bounds it.
      firstSeenAt: poll.pollStartedAt,
      ingestedAt:
        options.ingestField !== undefined ? toMillis(fieldAt(source, options.ingestField)) : undefined,
      atFirstPoll: poll.firstPoll,
    });
  }
  const duplicates = [...copies.values()].reduce((sum, n) => sum + Math.max(0, n - 1), 0);
  return { outOfRange, duplicates };
}
