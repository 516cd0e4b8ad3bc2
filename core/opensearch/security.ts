import { indexFamilies, type OpenSearchSpec, type RouteSpec, writerBackendRolesOf } from './spec';

/**
 * Security plugin roles and role mappings (fine-grained access control), applied with
 * `PUT _plugins/_security/api/roles/<name>` and `PUT _plugins/_security/api/rolesmapping/<name>`
 * (https://docs.opensearch.org/latest/security/access-control/api/).
 *
 * The writer role is what Firehose gets instead of `all_access`. Firehose's OpenSearch destination
 * (https://docs.aws.amazon.com/firehose/latest/dev/controlling-access.html, "Grant Firehose access to a public
 * OpenSearch Service destination") does two things on the domain:
 * - `POST _bulk` into `<prefix>-<rotation suffix>`, creating the index of a new day on first write: the cluster-level
 *   `indices:data/write/bulk` plus, on the log indices, `indices:admin/create`, `indices:data/write/index` and
 *   `indices:data/write/bulk*` (the per-shard bulk action), and `indices:admin/mapping/put` plus
 *   `indices:admin/mapping/auto_put` (the internal action newer versions use) because dynamic templates add fields
 *   while documents are indexed;
 * - GETs of `_cluster/stats`, `_nodes/stats`, `_stats`, `<index>*\/_stats`, `_all/_settings` and `<index>/_mapping`
 *   (the ESHttpGet paths that page lists) to check the destination: `cluster_monitor` and, on the log indices,
 *   `indices:monitor/stats`, `indices:monitor/settings/get` and `indices:admin/mappings/get`.
 * It deliberately lacks `cluster_composite_ops` (that adds alias management and reindex), delete, update and any
 * access to other indices. The direct path's indexer (issue 41) is mapped to the same role: it sends the same `_bulk`
 * and reads kfek's ingest pipeline for its route table ({@link WRITER_CLUSTER_PERMISSIONS}).
 */

export interface IndexPermission {
  readonly index_patterns: readonly string[];
  readonly allowed_actions: readonly string[];
}

export interface SecurityRoleBody {
  readonly description: string;
  readonly cluster_permissions: readonly string[];
  readonly index_permissions: readonly IndexPermission[];
  readonly tenant_permissions: ReadonlyArray<{
    readonly tenant_patterns: readonly string[];
    readonly allowed_actions: readonly string[];
  }>;
}

export interface RoleMappingBody {
  readonly backend_roles: readonly string[];
  readonly hosts: readonly string[];
  readonly users: readonly string[];
  /** Kept as found when kfek rewrites a built-in role's mapping. */
  readonly and_backend_roles?: readonly string[];
  readonly description?: string;
}

/** A role to create and the mapping to ensure for it. */
export interface SecurityRoleSpec {
  readonly name: string;
  readonly role?: SecurityRoleBody;
  /** Members to ensure in the mapping; existing members are kept (see {@link mergeRoleMapping}). */
  readonly mapping?: RoleMappingBody;
}

/**
 * What the writer may do on the cluster. `cluster:admin/ingest/pipeline/get` (OpenSearch's `GetPipelineAction.NAME`,
 * not in `cluster_monitor`, which is `cluster:monitor/*`) lets the direct path's indexer read the route table from
 * kfek's ingest pipeline (lambda/indexer/routes.ts), the retired routes included. A cluster permission names no
 * pipeline, so under it the role could read any pipeline's definition (configuration, no document); IAM narrows the
 * indexer's requests to kfek's one pipeline (`es:ESHttpGet` on `<domain ARN>/_ingest/pipeline/<name>`,
 * lib/constructs/direct-to-opensearch.ts). Not `cluster_manage_pipelines`, which also puts and deletes them.
 */
export const WRITER_CLUSTER_PERMISSIONS = [
  'cluster_monitor',
  'indices:data/write/bulk',
  'cluster:admin/ingest/pipeline/get',
] as const;
/** What the writer may do on every index: read statistics and settings (Firehose's destination checks). */
export const WRITER_MONITOR_ALL_ACTIONS = ['indices:monitor/stats', 'indices:monitor/settings/get'] as const;
export const WRITER_INDEX_ACTIONS = [
  'indices:admin/create',
  'indices:admin/mapping/put',
  'indices:admin/mapping/auto_put',
  'indices:data/write/index',
  'indices:data/write/bulk*',
  'indices:monitor/stats',
  'indices:monitor/settings/get',
  'indices:admin/mappings/get',
] as const;

/**
 * The built-in role that lets a person use OpenSearch Dashboards at all (its own indices, tenants). Readers are
 * mapped to it as well as to the kfek reader role.
 */
export const DASHBOARDS_USER_ROLE = 'opensearch_dashboards_user';

/**
 * The built-in roles people in `access.adminBackendRoles` are mapped to: `all_access` (every index, every
 * Dashboards tenant) and `security_manager`, without which the security REST API and Dashboards' Security pages
 * refuse them, so they could not map a colleague to the reader role (the workflow docs/opensearch.md describes under "Roles and mappings").
 * https://docs.aws.amazon.com/opensearch-service/latest/developerguide/fgac.html
 */
export const ADMIN_ROLES = ['all_access', 'security_manager'] as const;

/**
 * Firehose writes every document to the default route's index; the ingest pipeline moves a routed one to its
 * route's index, which the bulk request then creates and writes as the same user, so the writer needs the same
 * actions on every route's indices. A route removed from the config drops out of the role on the next deploy.
 */
export function buildWriterRole(spec: OpenSearchSpec): SecurityRoleBody {
  return writerRoleFor(indexFamilies(spec).map((f) => f.indexPattern));
}

/**
 * The writer role over `patterns`: the profile's families and, after a change of `indexPrefix` or of a route's stem,
 * the retired ones (issue 30), because Firehose writes the old prefix until its own update and the pipeline still
 * routes documents marked with a retired name to the old stem.
 */
export function writerRoleFor(patterns: readonly string[]): SecurityRoleBody {
  return {
    description:
      `kfek: delivery into ${patterns.join(', ')} ` +
      "(create indices, bulk index, read kfek's ingest pipeline; nothing else)",
    cluster_permissions: [...WRITER_CLUSTER_PERMISSIONS],
    index_permissions: [
      { index_patterns: patterns, allowed_actions: [...WRITER_INDEX_ACTIONS] },
      // Firehose checks its destination with `GET _stats` and `GET _all/_settings`, which name every index: the
      // security plugin 2.11.1 refused both with the first pattern alone (security.secured.test.ts).
      // Statistics and settings only: no document, mapping or write on any index but kfek's.
      { index_patterns: ['*'], allowed_actions: [...WRITER_MONITOR_ALL_ACTIONS] },
    ],
    tenant_permissions: [],
  };
}

/** Read-only search of one family of indices: the default route's (`kfek_reader`) or a route's. */
function readerRole(indexPattern: string): SecurityRoleBody {
  return readerRoleFor([indexPattern]);
}

/**
 * Read-only search of `patterns`: a family's own (families.ts excludes longer stems' indices) and those of retired
 * families the role read before (issue 30: history stays readable by the same readers).
 */
export function readerRoleFor(patterns: readonly string[]): SecurityRoleBody {
  return {
    description: `kfek: read-only search of ${patterns.join(', ')} and the shared Dashboards objects`,
    // msearch/mget/scroll and resolve-index (Dashboards index-pattern screens), all read-only.
    cluster_permissions: ['cluster_composite_ops_ro'],
    index_permissions: [{ index_patterns: [...patterns], allowed_actions: ['read'] }],
    // The provisioner stores the starter dashboards in the Global tenant; readers may view, not change, them.
    tenant_permissions: [{ tenant_patterns: ['global_tenant'], allowed_actions: ['kibana_all_read'] }],
  };
}

/**
 * The reconcile function's extra role: listing index templates (`GET _index_template`), a cluster action no reader
 * role has, and getting the one document of kfek's record of what it owns (`registryIndex`, `GET <index>/_doc/...`),
 * so `kfek reconcile` in Lambda finds every stem kfek keeps, from the templates that record vouches for
 * (core/reconcile/kept-stems.ts). Least privilege: a document get on that one index (no search, no write), no other
 * index, no tenant.
 */
export function buildReconcileRole(registryIndex: string): SecurityRoleBody {
  return {
    description:
      "kfek: lists index templates and reads kfek's record of what it owns, so reconcile finds the stems kfek keeps (nothing else)",
    cluster_permissions: ['indices:admin/index_template/get'],
    index_permissions: [{ index_patterns: [registryIndex], allowed_actions: ['indices:data/read/get'] }],
    tenant_permissions: [],
  };
}

/** The default route's reader: `<prefix>-*` only, never a route's indices. */
export function buildReaderRole(spec: OpenSearchSpec): SecurityRoleBody {
  return readerRole(spec.indexPattern);
}

/** A route's reader: its own indices only, so one team cannot read another's. */
export function buildRouteReaderRole(route: RouteSpec): SecurityRoleBody {
  return readerRole(route.indexPattern);
}

function members(backendRoles: readonly string[], users: readonly string[] = []): RoleMappingBody {
  return { backend_roles: [...backendRoles], hosts: [], users: [...users] };
}

function hasMembers(m: RoleMappingBody): boolean {
  return m.backend_roles.length > 0 || m.users.length > 0;
}

/** All roles and mappings, in apply order. */
export function buildSecurityRoles(spec: OpenSearchSpec): readonly SecurityRoleSpec[] {
  const readerMembers = members(spec.access.readerBackendRoles, spec.access.readerUsers);
  const routeReaders = spec.routes.map((route) => ({ route, mapping: members(route.readerBackendRoles) }));
  // Everyone who reads some route needs Dashboards itself: one mapping, merged like every mapping.
  const dashboardUsers = members(
    [...new Set([...readerMembers.backend_roles, ...routeReaders.flatMap((r) => r.mapping.backend_roles)])],
    readerMembers.users,
  );
  return [
    {
      name: spec.names.writerRole,
      role: buildWriterRole(spec),
      ...(spec.access.firehoseRoleArn === undefined ? {} : { mapping: members(writerBackendRolesOf(spec)) }),
    },
    {
      name: spec.names.readerRole,
      role: buildReaderRole(spec),
      ...(hasMembers(readerMembers) ? { mapping: readerMembers } : {}),
    },
    // A role per route, created even without members: people can be mapped to it in Dashboards later.
    ...routeReaders.map(({ route, mapping }) => ({
      name: route.names.readerRole,
      role: buildRouteReaderRole(route),
      ...(hasMembers(mapping) ? { mapping } : {}),
    })),
    ...(hasMembers(dashboardUsers) ? [{ name: DASHBOARDS_USER_ROLE, mapping: dashboardUsers }] : []),
    // Built-in roles: only their mappings are touched (merged, like every mapping), never their definitions.
    ...(spec.access.adminBackendRoles.length > 0
      ? ADMIN_ROLES.map((name) => ({ name, mapping: members(spec.access.adminBackendRoles) }))
      : []),
  ];
}

function union(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Merges desired members into an existing mapping (`GET _plugins/_security/api/rolesmapping/<name>` value) without
 * removing anyone: people map colleagues to the reader role in Dashboards, and a redeploy must not undo that.
 * Returns `undefined` when the existing mapping already contains every desired member (nothing to write).
 */
export function mergeRoleMapping(existing: unknown, desired: RoleMappingBody): RoleMappingBody | undefined {
  const current = (existing ?? {}) as Record<string, unknown>;
  const merged: RoleMappingBody = {
    backend_roles: union(stringArray(current.backend_roles), desired.backend_roles),
    hosts: union(stringArray(current.hosts), desired.hosts),
    users: union(stringArray(current.users), desired.users),
  };
  const unchanged =
    existing !== undefined &&
    merged.backend_roles.length === stringArray(current.backend_roles).length &&
    merged.hosts.length === stringArray(current.hosts).length &&
    merged.users.length === stringArray(current.users).length;
  return unchanged ? undefined : merged;
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const recordOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};

/**
 * A role as the security API answers it, reduced to what kfek sets: description, cluster permissions, index
 * permissions (patterns, actions, and the document- and field-level security and masking kfek never sets) and tenant
 * permissions. The API adds `reserved`, `hidden`, `static` and empty `fls`/`masked_fields` lists.
 */
export function normalizedRole(role: unknown): string {
  const r = recordOf(role);
  return JSON.stringify({
    description: typeof r.description === 'string' ? r.description : '',
    cluster_permissions: listOf(r.cluster_permissions),
    index_permissions: listOf(r.index_permissions).map((p) => {
      const x = recordOf(p);
      return {
        index_patterns: listOf(x.index_patterns),
        allowed_actions: listOf(x.allowed_actions),
        dls: typeof x.dls === 'string' ? x.dls : '',
        fls: listOf(x.fls),
        masked_fields: listOf(x.masked_fields),
      };
    }),
    tenant_permissions: listOf(r.tenant_permissions).map((p) => ({
      tenant_patterns: listOf(recordOf(p).tenant_patterns),
      allowed_actions: listOf(recordOf(p).allowed_actions),
    })),
  });
}

/** True when the role the security API returns grants exactly `wanted` (see {@link normalizedRole}). */
export function sameRole(current: unknown, wanted: SecurityRoleBody): boolean {
  return normalizedRole(current) === normalizedRole(wanted);
}

/** The index patterns a role grants anything on. */
export function rolePatterns(role: unknown): string[] {
  return listOf(recordOf(role).index_permissions).flatMap((p) =>
    listOf(recordOf(p).index_patterns).filter((x): x is string => typeof x === 'string'),
  );
}

/**
 * Whether a role index pattern matches an index, as the security plugin reads it: `/regex/` matched whole, else a
 * wildcard pattern (`*`, `?`). A regular expression JavaScript cannot read matches nothing here.
 */
export function rolePatternMatches(pattern: string, index: string): boolean {
  if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
    try {
      return new RegExp(`^(?:${pattern.slice(1, -1)})$`).test(index);
    } catch {
      return false;
    }
  }
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(index);
}
