/**
 * Every hit of a query without the scroll API (issue 42, docs/serverless.md): an OpenSearch Serverless collection
 * has no `_search/scroll` (it is not in the API table of serverless-genref; aws/aws-sdk-pandas discussion #2639
 * confirms it is refused) and its `index.max_result_window` cannot be raised, so the hits are read in `@timestamp`
 * slices of at most `maxHits` each: `_count` says how many a slice holds, a slice with too many is halved, and each
 * small enough slice is one `_search`. Only `_search` and `_count` are sent, which every OpenSearch accepts.
 */
import { indicesPath } from './request-path';

/** A slice of more than `maxHits` documents within one millisecond: it cannot be cut finer. */
export class TimeSliceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeSliceError';
  }
}

export interface TimeSliceSearch {
  readonly indexPattern: string;
  /** The query every slice adds its `@timestamp` range to (a filter: scores are not used). */
  readonly query: Record<string, unknown>;
  /** `_source` fields to return. */
  readonly fields: readonly string[];
  /** Most hits one `_search` returns (at most the collection's `max_result_window`, 10,000). */
  readonly maxHits: number;
}

/** How the caller sends one request and reads its JSON answer (its error messages are its own). */
export type JsonCall = (method: 'POST', path: string, body: unknown) => Promise<unknown>;

const TIMESTAMP = '@timestamp';

interface Answer {
  readonly count?: number;
  readonly hits?: {
    readonly total?: { readonly value?: number } | number;
    readonly hits?: readonly unknown[];
  };
  readonly aggregations?: Record<string, { readonly value?: number | null }>;
}

/** The hits of `search.query`, every one once, in slices of at most `search.maxHits`. */
export async function searchInTimeSlices<Hit>(call: JsonCall, search: TimeSliceSearch): Promise<Hit[]> {
  const within = (gte?: number, lte?: number): Record<string, unknown> => ({
    bool: {
      filter: [
        search.query,
        ...(gte === undefined ? [] : [{ range: { [TIMESTAMP]: { gte, lte, format: 'epoch_millis' } } }]),
      ],
    },
  });
  const searchPath = indicesPath(search.indexPattern, '_search');
  const bounds = (await call('POST', searchPath, {
    size: 0,
    track_total_hits: true,
    query: within(),
    aggs: { first: { min: { field: TIMESTAMP } }, last: { max: { field: TIMESTAMP } } },
  })) as Answer;
  const first = bounds.aggregations?.first?.value;
  const last = bounds.aggregations?.last?.value;
  if (typeof first !== 'number' || typeof last !== 'number') return [];
  const hits: Hit[] = [];
  const read = async (gte: number, lte: number, count: number): Promise<void> => {
    if (count === 0) return;
    if (count <= search.maxHits) {
      // The limit, not the count: documents that arrived since the count are read too, up to what one search returns.
      const page = (await call('POST', searchPath, {
        size: search.maxHits,
        _source: search.fields,
        query: within(gte, lte),
      })) as Answer;
      for (const hit of page.hits?.hits ?? []) hits.push(hit as Hit);
      return;
    }
    if (gte === lte) {
      throw new TimeSliceError(
        `${count} documents of ${search.indexPattern} share the ${TIMESTAMP} ${new Date(gte).toISOString()}, more ` +
          `than one search returns (${search.maxHits}): narrow the query (a shorter run, or --index per route)`,
      );
    }
    const middle = Math.floor((gte + lte) / 2);
    for (const [from, to] of [
      [gte, middle],
      [middle + 1, lte],
    ] as const) {
      const counted = (await call('POST', indicesPath(search.indexPattern, '_count'), {
        query: within(from, to),
      })) as Answer;
      await read(from, to, counted.count ?? 0);
    }
  };
  const total = bounds.hits?.total;
  await read(first, last, typeof total === 'number' ? total : (total?.value ?? 0));
  return hits;
}
