/**
 * The index stems kfek keeps for the domain: the profile's own, and the retired ones whose indices are still kept
 * (a route removed or given another stem, a new `delivery.indexPrefix`: docs/teams-and-routes.md). Reconcile counts
 * and looks documents up under every one of them, so an event that sits in a kept old stem's index is found, not
 * `missing` (and never healed into the profile's current stem).
 *
 * Where retirement is recorded: on kfek's own index templates (core/opensearch/domain-state.ts `LEDGER`: `kfek_stem`
 * on each, kept while their indices are). But anyone who may write an index template can make one named `kfek-...`
 * with a ledger naming another team's stem, or copy one of kfek's: a mark proves nothing (issue 39). So a template's
 * ledger is read only when kfek's own record of what it owns (the hidden `.<name>-registry` index the provisioner
 * writes, core/opensearch/registry.ts) names the template AND holds the content hash of exactly what the template is
 * now (a template it names whose content was edited since gives only the stem of the name kfek recorded). Any other
 * `<name>-*` template is ignored, with a warning line naming it. Without a readable record (a domain
 * deployed before it, a caller refused it) only the profile's stems are searched, and a note says so. A stem read from
 * the domain is used only when it is a valid stem (index-naming.ts `indexStemProblem`): it goes into a request path,
 * where `*` or `,` would widen the search.
 */
import { name as one, requestPath } from '../opensearch/request-path';
import { indexStemProblem } from '../contracts/index-naming';
import { LEDGER } from '../opensearch/domain-state';
import { ownedHash } from '../opensearch/drift';
import {
  OpenSearchConnectionError,
  type HttpRequest,
  type HttpResponse,
  type OpenSearchHttpClient,
} from '../opensearch/http';
import {
  type Registry,
  registryDocPath,
  registryFrom,
  registryIndex,
  registryKey,
} from '../opensearch/registry';
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
  /** Set when the domain's templates or kfek's record could not be read: only the profile's stems are searched. */
  readonly note?: string;
  /** One warning line per `<name>-*` template kfek's record does not vouch for (a copy, one made or edited by hand). */
  readonly ignored: readonly string[];
}

type Json = Record<string, unknown>;
const record = (v: unknown): Json => (typeof v === 'object' && v !== null ? (v as Json) : {});

/** Every stem kfek keeps: the profile's, and those of the index templates kfek's record vouches for. */
export async function keptStems(options: KeptStemsOptions): Promise<KeptStems> {
  const name = options.name ?? OPENSEARCH_SPEC_DEFAULTS.name;
  const profile = { stems: [...new Set(options.current)], ignored: [] };
  const onlyProfile = `only the profile's own stems (${options.current.join(', ')}) are searched: an event kept under a retired stem would show as missing`;
  const listed = await get(options, requestPath(['_index_template', one('name pattern', `${name}-*`)]));
  if (listed.status === 404) return profile;
  if (listed.status !== 200) {
    // A reader without the template permission (a fine-grained role that only reads kfek's indices) still judges
    // the profile's own stems; the note says what it could not see.
    return {
      ...profile,
      note: `the domain's index templates could not be read (HTTP ${listed.status}), so ${onlyProfile}`,
    };
  }
  const answer = await get(options, registryDocPath(name));
  const registry = answer.status === 200 ? registryFrom(answer.body) : undefined;
  if (registry === undefined) {
    const why =
      answer.status === 200 || answer.status === 404
        ? 'is not on the domain (deploy once with this kfek to write it)'
        : `could not be read (HTTP ${answer.status}; the reconcile role reads it, docs/operations.md)`;
    return {
      ...profile,
      note: `kfek's record of what it owns (${registryIndex(name)}) ${why}, so no index template is trusted and ${onlyProfile}`,
    };
  }
  const stems = new Set(options.current);
  const ignored: string[] = [];
  const templates = record(listed.body).index_templates;
  for (const entry of Array.isArray(templates) ? templates : []) {
    const templateName = String(record(entry).name);
    const body = record(record(entry).index_template);
    const { stem, warning } = vouched(registry, name, templateName, body);
    if (warning !== undefined) ignored.push(`index template ${templateName}: ${warning}`);
    if (stem !== undefined && indexStemProblem(stem) === undefined) stems.add(stem);
  }
  return { stems: [...stems], ignored };
}

async function get(options: KeptStemsOptions, path: string): Promise<HttpResponse> {
  options.meter.openSearch += 1;
  const request: HttpRequest = { method: 'GET', path };
  return options.client.request(request).catch((error: unknown) => {
    throw error instanceof OpenSearchConnectionError ? unreachable(options.client.baseUrl, error) : error;
  });
}

/**
 * The stem kfek's record vouches for in a template, and a warning when the template is not exactly what kfek wrote.
 * A template the record holds with its current content: its ledger's stem. One the record names whose content changed
 * since (a hand edit): the stem of the name kfek recorded (`<name>-<stem>`), never its edited `_meta`. One the record
 * does not name (a copy, one made by hand): nothing.
 */
function vouched(
  registry: Registry,
  name: string,
  templateName: string,
  body: Json,
): { readonly stem?: string; readonly warning?: string } {
  const claimed = JSON.stringify(stemOf(body, record(body._meta)) ?? null);
  const recorded = registry.objects.get(registryKey('index-template', templateName));
  if (recorded === undefined) {
    return {
      warning:
        `ignored: kfek's record of what it owns (${registryIndex(name)}) does not name it (not one kfek made: a ` +
        `copy, or made by hand), so its _meta is not read and the stem it names (${claimed}) is not searched`,
    };
  }
  if (recorded === ownedHash('index-template', body)) return { stem: stemOf(body, record(body._meta)) };
  const stem = templateName.slice(name.length + 1);
  return {
    stem,
    warning:
      `changed by hand since kfek wrote it (its content hash is not the one kfek's record holds), so its _meta is ` +
      `not read (it names ${claimed}); the stem of its recorded name (${stem}) is searched. \`kfek doctor\` ` +
      'shows what changed; the next deploy restores it',
  };
}

/** A template's stem: its ledger's, else its first pattern without `-*` (templates made before the ledger). */
function stemOf(body: Json, meta: Json): string | undefined {
  const stem = meta[LEDGER.stem];
  if (typeof stem === 'string') return stem;
  const patterns = body.index_patterns;
  const first: unknown = Array.isArray(patterns) ? patterns[0] : undefined;
  return typeof first === 'string' && first.endsWith('-*') ? first.slice(0, -2) : undefined;
}
