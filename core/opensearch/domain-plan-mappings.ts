/**
 * The role mappings of a deploy (issue 30; who owns what: domain-plan-access.ts): kfek's own roles' mappings, which
 * kfek owns wholly, and its members of the built-in roles' mappings, where it owns only the members a profile named.
 * Pure.
 */
import {
  type AccessDiff,
  type AccessInputs,
  describe,
  isEmpty,
  type Members,
  members,
  membersOf,
  minus,
  union,
  type WantedMappings,
} from './domain-access-diff';
import type { DomainChange } from './domain-change';
import type { Families } from './domain-families';
import { desiredRoles } from './domain-plan-roles';
import { mappingPath } from './request-path';
import { ADMIN_ROLES, DASHBOARDS_USER_ROLE, type RoleMappingBody, type SecurityRoleBody } from './security';
import { type OpenSearchSpec, writerBackendRolesOf } from './spec';

/**
 * Members of kfek's own roles as the profile says, and a retired route's stem role as its family records them;
 * `keep` for another retired role (its mapping stays as it is). The stem roles come first, so a deploy stopped half
 * way has given the retired stem's readers their role before it takes the route's reader from them.
 */
export function desiredOwnedMappings(
  spec: OpenSearchSpec,
  roles: ReadonlyMap<string, SecurityRoleBody>,
  families: Families,
): Map<string, Members | 'keep'> {
  const out = new Map<string, Members | 'keep'>();
  for (const f of families.kept) {
    if (f.readers !== undefined && f.readerRole !== undefined) {
      out.set(f.readerRole, members(f.readers.backend_roles, f.readers.users));
    }
  }
  for (const role of roles.keys()) if (!out.has(role)) out.set(role, 'keep');
  out.set(spec.names.writerRole, members(writerBackendRolesOf(spec)));
  out.set(spec.names.readerRole, members(spec.access.readerBackendRoles, spec.access.readerUsers));
  for (const route of spec.routes) out.set(route.names.readerRole, members(route.readerBackendRoles));
  if (spec.access.reconcileBackendRoles.length > 0) {
    out.set(spec.names.reconcileRole, members(spec.access.reconcileBackendRoles));
  }
  return out;
}

/** The change to one of kfek's own roles' mappings, or none for a retired role's empty mapping it keeps. */
function ownedMappingChange(
  inputs: AccessInputs,
  role: string,
  want: Members | 'keep',
  roles: ReadonlyMap<string, SecurityRoleBody>,
  diff: AccessDiff,
  before: WantedMappings | undefined,
): DomainChange | undefined {
  const { state } = inputs;
  const have = state.mappings.get(role);
  if (want === 'keep') {
    if (have === undefined || isEmpty(have)) return undefined;
    return {
      kind: 'role-mapping',
      name: role,
      action: 'keep',
      impact: 'kept',
      detail: `kept with its members (${describe(have)}) while the indices it reads are kept`,
      requests: [],
    };
  }
  const current = membersOf(have);
  const removed = minus(current, want);
  const added = minus(want, current);
  if (isEmpty(removed) && isEmpty(added) && (have !== undefined || isEmpty(want))) {
    return { kind: 'role-mapping', name: role, action: 'unchanged', impact: 'none', requests: [] };
  }
  const lost = diff.pairs('lost', removed, state.roles.get(role) ?? roles.get(role));
  const gained = diff.pairs('gained', added, roles.get(role));
  const previousWant = before?.get(role);
  const handMapped =
    previousWant === undefined || previousWant === 'keep' ? members([]) : minus(removed, previousWant);
  const path = mappingPath(role);
  return {
    kind: 'role-mapping',
    name: role,
    action: isEmpty(want) ? 'delete' : have === undefined ? 'create' : 'update',
    impact: lost.length > 0 ? 'loses-access' : gained.length > 0 ? 'grants-access' : 'change',
    detail: [
      isEmpty(added) ? '' : `adds ${describe(added)}`,
      isEmpty(removed) ? '' : `removes ${describe(removed)}`,
      isEmpty(handMapped) || inputs.previous === undefined
        ? ''
        : `(${describe(handMapped)} mapped by hand: reverted, kfek owns its mappings)`,
    ]
      .filter((p) => p !== '')
      .join('; '),
    ...(lost.length > 0 ? { fix: `if they should keep access, name them in the profile (${role})` } : {}),
    requests: isEmpty(want)
      ? [{ method: 'DELETE', path, ok: [200, 404] }]
      : [{ method: 'PUT', path, body: { ...want, hosts: [] }, ok: [200, 201] }],
  };
}

/** The mappings of kfek's own roles: members the profile does not name (mapped by hand) are reverted. */
export function planOwnedMappings(
  inputs: AccessInputs,
  roles: ReadonlyMap<string, SecurityRoleBody>,
  wanted: WantedMappings,
  diff: AccessDiff,
): DomainChange[] {
  const { previous } = inputs;
  const before =
    previous === undefined
      ? undefined
      : desiredOwnedMappings(
          previous.spec,
          desiredRoles(previous.spec, previous.families),
          previous.families,
        );
  return [...wanted].flatMap(([role, want]) => {
    const change = ownedMappingChange(inputs, role, want, roles, diff, before);
    return change === undefined ? [] : [change];
  });
}

/** The members a profile puts in the built-in roles' mappings (plus the readers of retired routes it keeps). */
function kfekSharedMembers(spec: OpenSearchSpec, retiredReaders: Members): Map<string, Members> {
  const readers = union(
    members(
      [...spec.access.readerBackendRoles, ...spec.routes.flatMap((r) => r.readerBackendRoles)],
      spec.access.readerUsers,
    ),
    retiredReaders,
  );
  const admins = members(spec.access.adminBackendRoles);
  return new Map<string, Members>([
    [DASHBOARDS_USER_ROLE, readers],
    ...ADMIN_ROLES.map((r) => [r, admins] as const),
  ]);
}

/** The readers of the retired families kfek keeps: what their roles will be mapped to. */
function retiredReaderMembers(
  inputs: AccessInputs,
  roles: ReadonlyMap<string, SecurityRoleBody>,
  wanted: WantedMappings,
): Members {
  const { spec, state } = inputs;
  const current = new Set([
    spec.names.writerRole,
    spec.names.readerRole,
    spec.names.reconcileRole,
    ...spec.routes.map((x) => x.names.readerRole),
  ]);
  return [...roles.keys()]
    .filter((r) => !current.has(r))
    .reduce((acc, r) => {
      const want = wanted.get(r);
      const m = want === undefined || want === 'keep' ? state.mappings.get(r) : want;
      return m === undefined ? acc : union(acc, membersOf(m));
    }, members([]));
}

/** The members kfek put in one built-in role's mapping before this deploy. */
function sharedMembersBefore(inputs: AccessInputs): (role: string) => Members {
  const { previous, families } = inputs;
  // The readers of the retired families that go now were kfek's additions too, as much as a profile's.
  const prunedReaders = families.pruned.reduce(
    (acc, f) => (f.readers === undefined ? acc : union(acc, membersOf(f.readers))),
    members([]),
  );
  const previously = previous === undefined ? undefined : kfekSharedMembers(previous.spec, members([]));
  return (role) =>
    union(previously?.get(role) ?? members([]), role === DASHBOARDS_USER_ROLE ? prunedReaders : members([]));
}

/** The change to one built-in role's mapping: kfek's members added or removed, everyone else kept. */
function sharedMappingChange(
  role: string,
  have: RoleMappingBody | undefined,
  ours: Members,
  before: Members,
): DomainChange | undefined {
  const current = membersOf(have);
  const dropped = minus(before, ours);
  const removed = members(
    current.backend_roles.filter((x) => dropped.backend_roles.includes(x)),
    current.users.filter((x) => dropped.users.includes(x)),
  );
  const added = minus(ours, current);
  if (isEmpty(removed) && isEmpty(added)) {
    return have !== undefined && !isEmpty(ours)
      ? { kind: 'role-mapping', name: role, action: 'unchanged', impact: 'none', requests: [] }
      : undefined;
  }
  const final = union(minus(current, removed), ours);
  return {
    kind: 'role-mapping',
    name: role,
    action: have === undefined ? 'create' : 'update',
    impact: isEmpty(removed) ? 'grants-access' : 'loses-access',
    detail: [
      isEmpty(added) ? '' : `adds ${describe(added)}`,
      isEmpty(removed)
        ? ''
        : `removes ${describe(removed)}, which the previous profile or a retired family now gone named, and ` +
          'this profile does not',
      'members kfek did not add stay',
    ]
      .filter((p) => p !== '')
      .join('; '),
    ...(isEmpty(removed) ? {} : { fix: 'keep them in the profile if they should keep this role' }),
    requests: [
      {
        method: 'PUT',
        path: mappingPath(role),
        body: {
          backend_roles: final.backend_roles,
          hosts: have?.hosts ?? [],
          users: final.users,
          ...(have?.and_backend_roles === undefined ? {} : { and_backend_roles: have.and_backend_roles }),
          ...(have?.description === undefined ? {} : { description: have.description }),
        },
        ok: [200, 201],
      },
    ],
  };
}

/** kfek's members of the built-in roles' mappings: the profile's added, those it no longer names removed. */
export function planSharedMappings(
  inputs: AccessInputs,
  roles: ReadonlyMap<string, SecurityRoleBody>,
  wanted: WantedMappings,
): DomainChange[] {
  const now = kfekSharedMembers(inputs.spec, retiredReaderMembers(inputs, roles, wanted));
  const before = sharedMembersBefore(inputs);
  return [...now].flatMap(([role, ours]) => {
    const change = sharedMappingChange(role, inputs.state.mappings.get(role), ours, before(role));
    return change === undefined ? [] : [change];
  });
}
