/**
 * The index stems kfek keeps for the domain: the profile's own, and the retired ones whose indices are still kept
 * (a route removed or given another stem, a new `delivery.indexPrefix`: docs/teams-and-routes.md). Reconcile counts
 * and looks documents up under every one of them, so an event that sits in a kept old stem's index is found, not
 * `missing` (and never healed into the profile's current stem).
 *
 * One small reader behind one function, so how retirement is recorded can change without touching the reconcile:
 * today the domain's index templates carry it (core/opensearch/domain-state.ts `LEDGER`: `kfek_stem` on each of
 * kfek's templates, which stay while their indices do). A stem read from the domain is used only when it is a valid
 * stem (index-naming.ts `indexStemProblem`): it goes into a request path, where `*` or `,` would widen the search.
 */
import { name as one, requestPath } from '../opensearch/request-path';
import { indexStemProblem } from '../contracts/index-naming';
import { LEDGER } from '../opensearch/domain-state';
import { OpenSearchConnectionError, type OpenSearchHttpClient } from '../opensearch/http';
import { OPENSEARCH_SPEC_DEFAULTS } from '../opensearch/spec';
import type { RequestMeter } from './ports';
import { unreachable } from './search-side';

export interface KeptStemsOptions {
  readonly client: OpenSearchHttpClient;
  readonly meter: RequestMeter;
  /** The profile's stems: the default route's and each route's (always kept). */
  readonly current: readonly string[];
  /** The name kfek's objects start with. @default 'kfek' */
  readonly name?: string;
}

export interface KeptStems {
  /** The profile's stems first, then the retired ones kept in the domain. */
  readonly stems: readonly string[];
  /** Set when the domain's templates could not be read: only the profile's stems are searched. */
  readonly note?: string;
}

type Json = Record<string, unknown>;
const record = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});

/** Every stem kfek keeps: the profile's, and those of kfek's index templates in the domain. */
export async function keptStems(options: KeptStemsOptions): Promise<KeptStems> {
  const name = options.name ?? OPENSEARCH_SPEC_DEFAULTS.name;
  options.meter.openSearch += 1;
  const path = requestPath(['_index_template', one('name pattern', `${name}-*`)]);
  const response = await options.client.request({ method: 'GET', path }).catch((error: unknown) => {
    throw error instanceof OpenSearchConnectionError ? unreachable(options.client.baseUrl, error) : error;
  });
  if (response.status === 404) return { stems: [...new Set(options.current)] };
  if (response.status !== 200) {
    // A reader without the template permission (a fine-grained role that only reads kfek's indices) still judges
    // the profile's own stems; the note says what it could not see.
    return {
      stems: [...new Set(options.current)],
      note:
        `the domain's index templates could not be read (HTTP ${response.status}), so only the profile's own ` +
        `stems (${options.current.join(', ')}) are searched: an event kept under a retired stem would show as missing`,
    };
  }
  const stems = new Set(options.current);
  const templates = record(response.body).index_templates;
  for (const entry of Array.isArray(templates) ? templates : []) {
    const body = record(record(entry).index_template);
    const meta = record(body._meta);
    if (meta.managed_by !== 'kfek' || !String(record(entry).name).startsWith(`${name}-`)) continue;
    const stem = stemOf(body, meta);
    if (stem !== undefined && indexStemProblem(stem) === undefined) stems.add(stem);
  }
  return { stems: [...stems] };
}

/** A template's stem: its ledger's, else its first pattern without `-*` (templates made before the ledger). */
function stemOf(body: Json, meta: Json): string | undefined {
  const stem = meta[LEDGER.stem];
  if (typeof stem === 'string') return stem;
  const patterns = body.index_patterns;
  const first: unknown = Array.isArray(patterns) ? patterns[0] : undefined;
  return typeof first === 'string' && first.endsWith('-*') ? first.slice(0, -2) : undefined;
}
