/**
 * The OpenSearch side of `kfek reconcile` (core/reconcile/ports.ts `SearchSide`), over kfek's HTTP port (plain HTTP to
 * the local node, SigV4 to a domain):
 *
 * - counts: one composite aggregation over every kept index pattern (the default route's, each route's and the
 *   retired ones', kept-stems.ts), per
 *   `cloudwatch.logGroup` and one-minute `@timestamp` bucket, each bucket's documents plus the sum of `kfek.joined`
 *   (the lines a multi-line rule joined into them), filtered to the groups' owners; paged with `after`;
 * - lookups: `_mget` of each document in the route's index of its event's time (with the routing the ingest pipeline
 *   derives from the id, core/opensearch/ingest-pipeline.ts `routingFor`: the id's first characters for up to 64
 *   shards), real time, exact; what is not there (Firehose names indices by arrival time, so an event delivered late
 *   sits in a later index; a domain of more than 64 shards routes by a longer prefix) is looked for with one `ids`
 *   query over every kfek index pattern, which needs no routing. On an OpenSearch Serverless collection (issue 42)
 *   the `_mget` carries no routing: the service places documents itself and kfek's indexer sends none
 *   (docs/serverless.md), so each document sits where its id alone puts it. And each index is asked on its own path
 *   (`POST /<index>/_mget`): a collection judges a request by the indices its path names, so a root `_mget` needs
 *   `aoss:ReadDocument` on every index (`index/<collection>/*`), which the reconcile role, reading only kfek's
 *   families, is rightly refused (found by test/e2e/serverless-teams.test.ts).
 */
import { indexNameFor, indexPatternFor, type IndexRotation, owningStem } from '../contracts/index-naming';
import { OpenSearchRequestError } from '../errors';
import { OpenSearchConnectionError, type OpenSearchHttpClient } from '../opensearch/http';
import { indicesPath, name, requestPath } from '../opensearch/request-path';
import { routingFor } from '../opensearch/ingest-pipeline';
import { MINUTE_MILLIS } from './engine';
import type { ReconcileGroup } from './model';
import type { DocumentRef, FoundDocument, RequestMeter, SearchCounts, SearchSide } from './ports';

export interface SearchSideOptions {
  readonly client: OpenSearchHttpClient;
  /**
   * Every index stem kfek keeps: the default route's (config `delivery.indexPrefix`), each route's, and the retired
   * ones whose indices are kept (kept-stems.ts).
   */
  readonly stems: readonly string[];
  readonly rotation: IndexRotation;
  readonly meter: RequestMeter;
  /** Ids per `_mget` or `ids` query. @default 1000 */
  readonly batchSize?: number;
  /**
   * Whether `_mget` sends each document's routing: a domain's documents are routed by their id's first characters
   * (the ingest pipeline's `routingFor`); a Serverless collection takes no routing and places documents itself.
   * @default true
   */
  readonly routing?: boolean;
  /**
   * Whether each index's lookups go on its own path (`POST /<index>/_mget`) rather than one root `_mget`: on a
   * Serverless collection, whose data access policy judges a request by the indices its path names.
   * @default false
   */
  readonly lookupPerIndex?: boolean;
}

/** Buckets per page of the composite aggregation. */
const PAGE = 5000;

interface CompositeAnswer {
  aggregations?: {
    byMinute?: {
      after_key?: Record<string, unknown>;
      buckets?: {
        key: { group: string; minute: number };
        doc_count: number;
        joined?: { value: number | null };
      }[];
    };
  };
}

interface MgetAnswer {
  docs?: { _index?: string; _id?: string; found?: boolean; _source?: { kfek?: { joined?: unknown } } }[];
}

interface SearchAnswer {
  hits?: { hits?: { _index: string; _id: string; _source?: { kfek?: { joined?: unknown } } }[] };
}

export function searchSide(options: SearchSideOptions): SearchSide {
  const stems = [...new Set(options.stems)];
  const patterns = stems.map((s) => indexPatternFor(s, options.rotation));
  // Every stem's pattern, each one encoded segment of the list (core/opensearch/request-path.ts).
  const searchPath = (): string => indicesPath(patterns, '_search');
  const stemOf = (index: string): string | undefined =>
    options.rotation === 'NoRotation' && stems.includes(index) ? index : owningStem(index, stems);
  const ownerFilter = (group: ReconcileGroup): Record<string, unknown>[] => [
    { term: { 'cloudwatch.logGroup': group.logGroup } },
    { term: { 'cloudwatch.owner': group.owner } },
  ];
  const batch = options.batchSize ?? 1000;
  /** `body`'s answer; with `missing`, a 404 (no such index) answers that instead of failing. */
  const call: SearchCall = async (method, path, body, ifNotFound) => {
    options.meter.openSearch += 1;
    const response = await options.client.request({ method, path, body }).catch((error: unknown) => {
      throw error instanceof OpenSearchConnectionError ? unreachable(options.client.baseUrl, error) : error;
    });
    if (response.status === 404 && ifNotFound !== undefined) return ifNotFound.missing;
    if (response.status !== 200) {
      throw new OpenSearchRequestError(
        `OpenSearch answered ${method} ${path} with HTTP ${response.status}: ${response.text.slice(0, 300)}`,
      );
    }
    return response.body;
  };

  return {
    countPerMinute: async (groups, start, end) => countPerMinute(call, searchPath(), groups, start, end),

    async find(refs: readonly DocumentRef[]): Promise<ReadonlyMap<string, FoundDocument>> {
      const found = new Map<string, FoundDocument>();
      for (let i = 0; i < refs.length; i += batch) {
        for (const answer of await mget(call, options, refs.slice(i, i + batch))) {
          for (const doc of answer.docs ?? []) {
            if (doc.found === true && doc._id !== undefined && doc._index !== undefined) {
              found.set(doc._id, { ...placeOf(doc._index), joined: joinedOf(doc._source) });
            }
          }
        }
      }
      const elsewhere = refs.filter((r) => !found.has(r.id)).map((r) => r.id);
      for (let i = 0; i < elsewhere.length; i += batch) {
        const ids = elsewhere.slice(i, i + batch);
        const answer = (await call('POST', searchPath(), {
          size: ids.length,
          track_total_hits: false,
          _source: ['kfek.joined'],
          query: { ids: { values: ids } },
        })) as SearchAnswer;
        for (const hit of answer.hits?.hits ?? []) {
          found.set(hit._id, { ...placeOf(hit._index), joined: joinedOf(hit._source) });
        }
      }
      return found;
    },

    stemAt: async (group, at) => {
      const index = await latestIndexOf(call, searchPath(), ownerFilter(group), at);
      return index === undefined ? undefined : stemOf(index);
    },
  };

  function placeOf(index: string): { index: string; stem?: string } {
    const stem = stemOf(index);
    return stem === undefined ? { index } : { index, stem };
  }
}

/**
 * One metered search call: the body's answer, or a typed error for anything but HTTP 200; given `missing`, a 404 (no
 * such index) answers that instead of failing.
 */
type SearchCall = (
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  ifNotFound?: { readonly missing: unknown },
) => Promise<unknown>;

/** One root `_mget` for `refs`, or one per index they name ({@link SearchSideOptions.lookupPerIndex}). */
async function mget(
  call: SearchCall,
  options: Pick<SearchSideOptions, 'rotation' | 'routing' | 'lookupPerIndex'>,
  refs: readonly DocumentRef[],
): Promise<MgetAnswer[]> {
  const routing = options.routing ?? true;
  const doc = (r: DocumentRef): Record<string, string> => ({
    _id: r.id,
    ...(routing ? { routing: routingFor(r.id) } : {}),
  });
  const indexOf = (r: DocumentRef): string => indexNameFor(r.stem, options.rotation, new Date(r.at));
  if (options.lookupPerIndex !== true) {
    const docs = refs.map((r) => ({ _index: indexOf(r), ...doc(r) }));
    return [(await call('POST', '/_mget?_source_includes=kfek.joined', { docs })) as MgetAnswer];
  }
  const byIndex = new Map<string, DocumentRef[]>();
  for (const r of refs) byIndex.set(indexOf(r), [...(byIndex.get(indexOf(r)) ?? []), r]);
  const answers: MgetAnswer[] = [];
  for (const [index, inIndex] of byIndex) {
    const path = requestPath([name('index', index), '_mget'], { _source_includes: 'kfek.joined' });
    // An index not created yet (no event of that day delivered) holds none of them: the ids query looks further.
    const answer = await call('POST', path, { docs: inIndex.map(doc) }, { missing: { docs: [] } });
    answers.push(answer as MgetAnswer);
  }
  return answers;
}

/**
 * Documents per group and minute, plus the lines joined into them: one composite aggregation over every kept index
 * pattern, filtered to the groups' owners, paged with `after`.
 */
async function countPerMinute(
  call: SearchCall,
  searchPath: string,
  groups: readonly ReconcileGroup[],
  start: number,
  end: number,
): Promise<SearchCounts> {
  const counts = new Map<string, Map<number, number>>(groups.map((g) => [g.logGroup, new Map()]));
  const joinedCounts = new Map<string, Map<number, number>>(groups.map((g) => [g.logGroup, new Map()]));
  if (groups.length === 0) return { events: counts, joined: joinedCounts };
  let after: Record<string, unknown> | undefined;
  do {
    const answer = (await call('POST', searchPath, {
      size: 0,
      track_total_hits: false,
      query: {
        bool: {
          filter: [
            { terms: { 'cloudwatch.logGroup': groups.map((g) => g.logGroup) } },
            { terms: { 'cloudwatch.owner': [...new Set(groups.map((g) => g.owner))] } },
            { range: { '@timestamp': { gte: start, lt: end, format: 'epoch_millis' } } },
          ],
        },
      },
      aggs: {
        byMinute: {
          composite: {
            size: PAGE,
            sources: [
              { group: { terms: { field: 'cloudwatch.logGroup' } } },
              {
                minute: {
                  date_histogram: { field: '@timestamp', fixed_interval: `${MINUTE_MILLIS / 1000}s` },
                },
              },
            ],
            ...(after !== undefined ? { after } : {}),
          },
          aggs: { joined: { sum: { field: 'kfek.joined' } } },
        },
      },
    })) as CompositeAnswer;
    const agg = answer.aggregations?.byMinute;
    for (const bucket of agg?.buckets ?? []) {
      const byMinute = counts.get(bucket.key.group);
      if (byMinute === undefined) continue;
      const joined = Math.round(bucket.joined?.value ?? 0);
      byMinute.set(bucket.key.minute, (byMinute.get(bucket.key.minute) ?? 0) + bucket.doc_count + joined);
      if (joined > 0) {
        const joinedByMinute = joinedCounts.get(bucket.key.group);
        joinedByMinute?.set(bucket.key.minute, (joinedByMinute.get(bucket.key.minute) ?? 0) + joined);
      }
    }
    after = (agg?.buckets?.length ?? 0) === PAGE ? agg?.after_key : undefined;
  } while (after !== undefined);
  return { events: counts, joined: joinedCounts };
}

/** The index of a group's latest document at or before `at`, if any. */
async function latestIndexOf(
  call: SearchCall,
  searchPath: string,
  ownerFilter: readonly Record<string, unknown>[],
  at: number,
): Promise<string | undefined> {
  const answer = (await call('POST', searchPath, {
    size: 1,
    track_total_hits: false,
    _source: false,
    query: {
      bool: {
        filter: [...ownerFilter, { range: { '@timestamp': { lte: at, format: 'epoch_millis' } } }],
      },
    },
    sort: [{ '@timestamp': { order: 'desc' } }],
  })) as SearchAnswer;
  return answer.hits?.hits?.[0]?._index;
}

/**
 * OpenSearch did not answer at all (refused, timed out, name not found, TLS): one line naming the URL (without the
 * credentials a basic-auth URL carries) and what to check, instead of fetch's `TypeError: fetch failed`.
 */
export function unreachable(baseUrl: string, error: OpenSearchConnectionError): OpenSearchRequestError {
  let shown = baseUrl;
  try {
    const url = new URL(baseUrl);
    url.username = '';
    url.password = '';
    shown = url.toString().replace(/\/$/, '');
  } catch {
    // Not a URL: shown as given (the client would not have been made with credentials it could not parse).
  }
  // fetch's `TypeError: fetch failed` holds the reason (ECONNREFUSED, ENOTFOUND, a timeout) in its own cause. Read
  // by shape, not `instanceof`: fetch's errors may come from another realm (a test runner's sandbox).
  const messageOf = (e: unknown): string | undefined =>
    typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string'
      ? (e as { message: string }).message
      : undefined;
  const inner = (error.cause as { cause?: unknown } | undefined)?.cause;
  const reason = messageOf(inner) ?? messageOf(error.cause);
  const why = reason === undefined || reason === '' ? '' : ` (${reason.split('\n')[0]})`;
  return new OpenSearchRequestError(
    `reconcile: OpenSearch at ${shown} did not answer${why}: check --opensearch (scheme, host and port), that the ` +
      'node or domain is up and reachable from here (VPC, security group, kfek proxy), and --sigv4 for a domain',
    { cause: error },
  );
}

function joinedOf(source: { kfek?: { joined?: unknown } } | undefined): number {
  const joined = source?.kfek?.joined;
  return typeof joined === 'number' ? joined : 0;
}
