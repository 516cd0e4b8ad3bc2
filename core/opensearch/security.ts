import { indexFamilies, type OpenSearchSpec, type RouteSpec } from './spec';

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
 * access to other indices.
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
}

/** A role to create and the mapping to ensure for it. */
export interface SecurityRoleSpec {
  readonly name: string;
  readonly role?: SecurityRoleBody;
  /** Members to ensure in the mapping; existing members are kept (see {@link mergeRoleMapping}). */
  readonly mapping?: RoleMappingBody;
}

export const WRITER_CLUSTER_PERMISSIONS = ['cluster_monitor', 'indices:data/write/bulk'] as const;
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
  const patterns = indexFamilies(spec).map((f) => f.indexPattern);
  return {
    description: `kfek: Firehose delivery into ${patterns.join(', ')} (create indices, bulk index; nothing else)`,
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
  return {
    description: `kfek: read-only search of ${indexPattern} and the shared Dashboards objects`,
    // msearch/mget/scroll and resolve-index (Dashboards index-pattern screens), all read-only.
    cluster_permissions: ['cluster_composite_ops_ro'],
    index_permissions: [{ index_patterns: [indexPattern], allowed_actions: ['read'] }],
    // The provisioner stores the starter dashboards in the Global tenant; readers may view, not change, them.
    tenant_permissions: [{ tenant_patterns: ['global_tenant'], allowed_actions: ['kibana_all_read'] }],
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
      ...(spec.access.firehoseRoleArn === undefined
        ? {}
        : { mapping: members([spec.access.firehoseRoleArn]) }),
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
