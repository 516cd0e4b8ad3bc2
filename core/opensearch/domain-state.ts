/**
 * What a domain holds of kfek's (issues 30, 39): the objects kfek owns and the indices under its stems. The planner
 * (domain-plan.ts) compares this with the profile; the provisioner and `kfek doctor` both read it with
 * {@link readDomainState}.
 *
 * What kfek owns is what its own record names (registry.ts, docs/opensearch.md "What kfek owns in the domain"),
 * plus the names the profile renders (kfek writes those anyway). The old marks only find candidates for the one-time
 * adoption of a domain deployed before the record ({@link Ownership}):
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
 * One file past ~300 lines: the state's types and one short reader per kind of object, which only make sense together.
 */
import type { OpenSearchHttpClient } from './http';
import { POLICY_HASH_MARKER } from './ism-policy';
import { call, record } from './provision-client';
import type { Feature } from './provision-types';
import { Ownership } from './ownership';
import { type Registry, readRegistry } from './registry';
import { chunkNames, isAddressable, name as one, names as nameList, requestPath } from './request-path';
import { type RoleMappingBody, ADMIN_ROLES, DASHBOARDS_USER_ROLE } from './security';

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

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const strings = (v: unknown): string[] => list(v).filter((s): s is string => typeof s === 'string');

/** The stem of a template: its ledger, else its first pattern without `-*` (templates made before issue 30). */
function stemOf(body: Record<string, unknown>, meta: Record<string, unknown>): string | undefined {
  const stem = meta[LEDGER.stem];
  if (typeof stem === 'string') return stem;
  const first = strings(body.index_patterns)[0];
  return first?.endsWith('-*') === true ? first.slice(0, -2) : undefined;
}

async function readTemplates(
  client: OpenSearchHttpClient,
  name: string,
  ownership: Ownership,
): Promise<{ own: Map<string, StoredTemplate>; foreign: ForeignTemplate[] }> {
  // One listing of every composable template: kfek's by its record, the others for the overlap check.
  const listed = await call(client, { method: 'GET', path: '/_index_template' }, [200, 404]);
  const own = new Map<string, StoredTemplate>();
  const foreign: ForeignTemplate[] = [];
  for (const entry of list(record(listed.body).index_templates)) {
    const templateName = String(record(entry).name);
    const body = record(record(entry).index_template);
    const meta = record(body._meta);
    const stem = stemOf(body, meta);
    const marked = meta.managed_by === 'kfek' && templateName.startsWith(`${name}-`);
    const owned =
      stem !== undefined &&
      isAddressable('index template', templateName) &&
      (marked
        ? ownership.adoptTemplate(templateName, stem, meta[LEDGER.readerRole])
        : ownership.owns('index-template', templateName, false));
    if (owned) {
      const route = meta.kfek_route;
      own.set(templateName, {
        name: templateName,
        stem,
        route: typeof route === 'string' ? route : undefined,
        body,
        meta,
      });
    } else {
      foreign.push({
        name: templateName,
        patterns: strings(body.index_patterns),
        priority: Number(body.priority ?? 0),
      });
    }
  }
  return { own, foreign };
}

async function readPipelines(
  client: OpenSearchHttpClient,
  name: string,
  ownership: Ownership,
): Promise<Map<string, Record<string, unknown>>> {
  // A wildcard GET answers 404 when nothing matches.
  const path = requestPath(['_ingest', 'pipeline', one('name pattern', `${name}-*`)]);
  const listed = await call(client, { method: 'GET', path }, [200, 404]);
  const out = new Map<string, Record<string, unknown>>();
  for (const [id, body] of Object.entries(listed.status === 200 ? record(listed.body) : {})) {
    const addressable = isAddressable('ingest pipeline', id);
    if (addressable && ownership.owns('ingest-pipeline', id, id.endsWith('-document-id')))
      out.set(id, record(body));
  }
  return out;
}

async function readPolicies(
  client: OpenSearchHttpClient,
  name: string,
  ownership: Ownership,
): Promise<Map<string, StoredPolicy>> {
  const out = new Map<string, StoredPolicy>();
  const pageSize = 1000;
  for (let from = 0; ; from += pageSize) {
    const page = await call(
      client,
      { method: 'GET', path: requestPath(['_plugins', '_ism', 'policies'], { size: pageSize, from }) },
      [200],
    );
    const policies = list(record(page.body).policies);
    for (const entry of policies) {
      const e = record(entry);
      const id = String(e._id);
      const policy = record(e.policy);
      const description = policy.description;
      const marked =
        id.startsWith(`${name}-`) &&
        typeof description === 'string' &&
        description.includes(POLICY_HASH_MARKER);
      if (!isAddressable('ISM policy', id) || !ownership.owns('ism-policy', id, marked)) continue;
      out.set(id, { id, seqNo: Number(e._seq_no), primaryTerm: Number(e._primary_term), policy });
    }
    if (policies.length < pageSize) return out;
  }
}

/** `GET _cat/indices` of the visible indices: kfek's are among them, told apart by stem. */
async function readIndices(client: OpenSearchHttpClient): Promise<IndexState[]> {
  const listed = await call(
    client,
    { method: 'GET', path: '/_cat/indices?format=json&h=index,creation.date,pri,rep&expand_wildcards=open' },
    [200],
  );
  return list(listed.body)
    .map((row) => record(row))
    .filter(
      (row) =>
        typeof row.index === 'string' && !row.index.startsWith('.') && isAddressable('index', row.index),
    )
    .map((row) => ({
      name: String(row.index),
      creationDate: Number(row['creation.date']),
      primaryShards: Number(row.pri),
      replicas: Number(row.rep),
      settings: {},
    }));
}

/**
 * Adds the dynamic settings and ISM's view to the named indices, in lists that keep each request line under
 * OpenSearch's 4 KiB (each name goes into the URL; a 200-character stem makes 20 names too many).
 */
async function describeIndices(
  client: OpenSearchHttpClient,
  indices: readonly IndexState[],
  wanted: ReadonlySet<string>,
  ism: boolean,
): Promise<IndexState[]> {
  const names = indices.filter((i) => wanted.has(i.name)).map((i) => i.name);
  const settings = new Map<string, Record<string, string>>();
  const managed = new Map<string, ManagedState>();
  const settingsPaths = chunkNames('index', names, (chunk) =>
    requestPath([chunk, '_settings', nameList('setting', DYNAMIC_SETTINGS)], { flat_settings: true }),
  );
  for (const path of settingsPaths) {
    const got = await call(client, { method: 'GET', path }, [200]);
    for (const [index, value] of Object.entries(record(got.body))) {
      const flat = record(record(value).settings);
      settings.set(index, Object.fromEntries(Object.entries(flat).map(([k, v]) => [k, String(v)])));
    }
  }
  const explainPaths = ism
    ? chunkNames('index', names, (chunk) => requestPath(['_plugins', '_ism', 'explain', chunk]))
    : [];
  for (const path of explainPaths) {
    const explained = await call(client, { method: 'GET', path }, [200]);
    for (const [index, value] of Object.entries(record(explained.body))) {
      if (index === 'total_managed_indices') continue;
      const v = record(value);
      const policyId = v['index.plugins.index_state_management.policy_id'] ?? v.policy_id;
      const seqNo = v.policy_seq_no;
      const state = record(v.state).name;
      managed.set(index, {
        policyId: typeof policyId === 'string' ? policyId : null,
        ...(typeof seqNo === 'number' ? { policySeqNo: seqNo } : {}),
        ...(typeof state === 'string' ? { state } : {}),
      });
    }
  }
  return indices.map((i) => {
    const m = managed.get(i.name);
    return { ...i, settings: settings.get(i.name) ?? i.settings, ...(m === undefined ? {} : { managed: m }) };
  });
}

async function readSecurity(
  client: OpenSearchHttpClient,
  name: string,
  ownership: Ownership,
): Promise<{ roles: Map<string, Record<string, unknown>>; mappings: Map<string, RoleMappingBody> }> {
  const rolesAnswer = await call(client, { method: 'GET', path: '/_plugins/_security/api/roles' }, [200]);
  const roles = new Map<string, Record<string, unknown>>();
  for (const [role, body] of Object.entries(record(rolesAnswer.body))) {
    const description = record(body).description;
    const marked =
      role.startsWith(`${name}_`) && typeof description === 'string' && description.startsWith('kfek:');
    if (isAddressable('security role', role) && ownership.owns('security-role', role, marked)) {
      roles.set(role, record(body));
    }
  }
  const mappingsAnswer = await call(
    client,
    { method: 'GET', path: '/_plugins/_security/api/rolesmapping' },
    [200],
  );
  const shared = new Set<string>([DASHBOARDS_USER_ROLE, ...ADMIN_ROLES]);
  const mappings = new Map<string, RoleMappingBody>();
  for (const [role, body] of Object.entries(record(mappingsAnswer.body))) {
    if (!roles.has(role) && !shared.has(role)) continue;
    const b = record(body);
    mappings.set(role, {
      backend_roles: strings(b.backend_roles),
      hosts: strings(b.hosts),
      users: strings(b.users),
      ...(Array.isArray(b.and_backend_roles) ? { and_backend_roles: strings(b.and_backend_roles) } : {}),
      ...(typeof b.description === 'string' ? { description: b.description } : {}),
    });
  }
  return { roles, mappings };
}

async function readSavedObjects(
  dashboards: OpenSearchHttpClient,
  name: string,
  ownership: Ownership,
  tenant?: string,
): Promise<Set<string>> {
  const out = new Set<string>();
  const headers = { 'osd-xsrf': 'true', ...(tenant === undefined ? {} : { securitytenant: tenant }) };
  for (const type of ['index-pattern', 'search', 'visualization', 'dashboard']) {
    const found = await call(
      dashboards,
      {
        method: 'GET',
        path: requestPath(['api', 'saved_objects', '_find'], { type, per_page: 10000, fields: 'title' }),
        headers,
      },
      [200],
    );
    for (const o of list(record(found.body).saved_objects)) {
      const id = String(record(o).id);
      const addressable = isAddressable('saved object', id);
      if (addressable && ownership.owns('saved-object', `${type}/${id}`, id.startsWith(`${name}-`)))
        out.add(`${type}/${id}`);
    }
  }
  return out;
}

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

/** Reads everything the planner needs, with one listing per kind of object. */
export async function readDomainState(
  client: OpenSearchHttpClient,
  options: ReadOptions,
): Promise<DomainState> {
  const registry = await readRegistry(client, options.name);
  const ownership = new Ownership(options.name, registry, options.claim, options.adopt ?? new Set());
  // Templates first: before the record, a retired family's own names come from its template's stem.
  const { own: templates, foreign: foreignTemplates } = await readTemplates(client, options.name, ownership);
  const pipelines = await readPipelines(client, options.name, ownership);
  const policies = options.features.ism
    ? await readPolicies(client, options.name, ownership)
    : new Map<string, StoredPolicy>();
  const all = await readIndices(client);
  const indices = await describeIndices(
    client,
    all,
    options.describe(all, templates, policies),
    options.features.ism,
  );
  const security = options.features.security
    ? await readSecurity(client, options.name, ownership)
    : { roles: new Map<string, Record<string, unknown>>(), mappings: new Map<string, RoleMappingBody>() };
  const savedObjects =
    options.dashboards === undefined
      ? undefined
      : await readSavedObjects(options.dashboards, options.name, ownership, options.tenant);
  return {
    version: options.version,
    features: options.features,
    templates,
    foreignTemplates,
    pipelines,
    policies,
    indices,
    ...security,
    ...(savedObjects === undefined ? {} : { savedObjects }),
    ...(registry === undefined ? {} : { registry }),
  };
}
