/**
 * What a domain holds of kfek's (issues 30, 39): the objects kfek owns and the indices under its stems. The planner
 * (domain-plan.ts) compares this with the profile; the provisioner and `kfek doctor` both read it with
 * readDomainState (domain-state-read.ts).
 *
 * What kfek owns is what its own record names (registry.ts, docs/opensearch.md "What kfek owns in the domain"),
 * plus the names the profile renders (kfek writes those anyway). The old marks only find candidates for the one-time
 * adoption of a domain deployed before the record (ownership.ts):
 * - index templates named `<name>-...` with `_meta.managed_by: kfek`;
 * - ingest pipelines named `<name>-<prefix>-document-id`;
 * - ISM policies named `<name>-...` whose description carries the content-hash marker;
 * - security roles named `<name>_...` whose description starts with `kfek:`, and their role mappings;
 * - Dashboards saved objects whose id starts with `<name>-`.
 * In the built-in roles' mappings (`all_access`, `security_manager`, `opensearch_dashboards_user`) kfek owns the
 * members a profile named (the previous deploy's spec says which).
 *
 * A name kfek cannot address as exactly one object (core/opensearch/request-path.ts: a `/`, `,`, `..`, an escape that
 * decodes to one) is never kfek's, since kfek never creates one: the readers leave such objects out, so no plan
 * ever names them and a hostile name cannot block a deploy.
 *
 * The state is read by domain-state-read.ts (kfek's objects) and domain-state-indices.ts (the indices under its stems).
 */
import type { OpenSearchHttpClient } from './http';
import type { Feature } from './provision-types';
import type { Registry } from './registry';
import type { RoleMappingBody } from './security';

/** The `_meta` keys kfek keeps on its index templates beside `managed_by` and the content hash. */
export const LEDGER = {
  /** The stem whose indices the template covers. */
  stem: 'kfek_stem',
  /** The role that reads the stem's indices (kept when the route or prefix goes, so its readers keep them). */
  readerRole: 'kfek_reader_role',
  /** When the stem left the profile (ISO 8601); absent while it is in the profile. */
  retiredAt: 'kfek_retired_at',
  /** Route names that pointed at this stem and left the profile, with when (ISO 8601). */
  retiredNames: 'kfek_retired_names',
  /** A retired route's readers (`{backend_roles, users}`), as its reader had them when the stem left (issue 39). */
  readers: 'kfek_readers',
} as const;

/** One of kfek's index templates as stored. */
export interface StoredTemplate {
  readonly name: string;
  readonly stem: string;
  /** The route whose indices it covers (`_meta.kfek_route`); undefined for a default route's template. */
  readonly route: string | undefined;
  /** `index_template` of `GET _index_template`. */
  readonly body: Record<string, unknown>;
  readonly meta: Record<string, unknown>;
}

/** One of kfek's ISM policies as stored (`GET _plugins/_ism/policies`). */
export interface StoredPolicy {
  readonly id: string;
  readonly seqNo: number;
  readonly primaryTerm: number;
  readonly policy: Record<string, unknown>;
}

/** What ISM says about one index (`GET _plugins/_ism/explain`). */
export interface ManagedState {
  /** null: not managed. */
  readonly policyId: string | null;
  /** The policy version it runs; undefined until ISM initialised it (it then takes the policy's latest). */
  readonly policySeqNo?: number;
  /** Its current state (`hot`, `warm`, `delete`); undefined until initialised. */
  readonly state?: string;
}

export interface IndexState {
  readonly name: string;
  /** Epoch milliseconds. */
  readonly creationDate: number;
  readonly primaryShards: number;
  readonly replicas: number;
  /** ISM's view; undefined when the domain has no ISM. */
  readonly managed?: ManagedState;
  /** The dynamic settings kfek sets (flat keys), as the index has them; empty when not read. */
  readonly settings: Readonly<Record<string, string>>;
}

/** A template of someone else's (for the overlap check): OpenSearch refuses equal priorities on overlapping patterns. */
export interface ForeignTemplate {
  readonly name: string;
  readonly patterns: readonly string[];
  readonly priority: number;
}

export interface DomainState {
  readonly version: string;
  readonly features: Readonly<Record<Feature, boolean>>;
  readonly templates: ReadonlyMap<string, StoredTemplate>;
  readonly foreignTemplates: readonly ForeignTemplate[];
  readonly pipelines: ReadonlyMap<string, Record<string, unknown>>;
  readonly policies: ReadonlyMap<string, StoredPolicy>;
  /** Every index of the domain that is not hidden or a system index (kfek decides which are its own by stem). */
  readonly indices: readonly IndexState[];
  /** kfek's roles (bodies as the API answers them). */
  readonly roles: ReadonlyMap<string, Record<string, unknown>>;
  /** The mappings of kfek's roles and of the built-in roles kfek maps people to. */
  readonly mappings: ReadonlyMap<string, RoleMappingBody>;
  /** kfek's saved objects (`type/id`); undefined when Dashboards was not read. */
  readonly savedObjects?: ReadonlySet<string>;
  /** kfek's record of what it owns (registry.ts); undefined when the domain has none yet. */
  readonly registry?: Registry;
}

/** The settings {@link IndexState.settings} holds: those of the template that can change on an existing index. */
export const DYNAMIC_SETTINGS = [
  'index.number_of_replicas',
  'index.refresh_interval',
  'index.mapping.total_fields.limit',
  'index.search.slowlog.threshold.query.warn',
  'index.search.slowlog.threshold.query.info',
  'index.indexing.slowlog.threshold.index.warn',
  'index.indexing.slowlog.threshold.index.info',
] as const;

export interface ReadOptions {
  /** kfek's name stem (spec.name). */
  readonly name: string;
  readonly version: string;
  readonly features: Readonly<Record<Feature, boolean>>;
  /** Which indices to describe (settings, ISM): kfek's, decided by the caller from the stems it knows. */
  readonly describe: (
    indices: readonly IndexState[],
    templates: ReadonlyMap<string, StoredTemplate>,
    policies: ReadonlyMap<string, StoredPolicy>,
  ) => ReadonlySet<string>;
  /** The record keys (registry.ts) of the objects the profile renders: kfek's whatever they hold. */
  readonly claim: ReadonlySet<string>;
  /**
   * The record keys a domain without a record adopts when they carry kfek's old mark: the previous deploy's
   * rendered names. @default - none beyond the retired families' own names
   */
  readonly adopt?: ReadonlySet<string>;
  /** Read kfek's saved objects through this client. @default - not read */
  readonly dashboards?: OpenSearchHttpClient;
  readonly tenant?: string;
}
