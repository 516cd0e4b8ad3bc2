/**
 * The access side of a deploy (issue 30): kfek's roles and role mappings, and its members in the built-in roles'
 * mappings. Pure, like domain-plan-indices.ts.
 *
 * Who owns what (docs/opensearch.md, "Who owns a kfek role"):
 * - kfek owns its roles (`<name>_writer`, `<name>_reader`, `<name>_<route>_reader`) and their mappings wholly: the
 *   profile says who is mapped; a member mapped by hand, or a restriction added by hand, is reported as drift and
 *   reverted. To give someone access the profile does not name, map them to a role of your own (any role kfek did
 *   not create is never touched), e.g. a copy of `kfek_reader`.
 * - In the built-in roles' mappings (`opensearch_dashboards_user`, `all_access`, `security_manager`) kfek owns only
 *   the members a profile named: it adds the profile's and removes those the previous deploy's profile named and
 *   this one does not; everyone else (the master user, people mapped by hand) stays.
 * - A retired route's indices are read through a role of their stem (`<name>_stem_<stem>_reader`), mapped to the
 *   members the route's reader had when the stem left, while they are kept (domain-families.ts); the route's own
 *   reader, if the name stays or comes back on another stem, reads that stem only (issue 39).
 * - When a retired family goes, its readers leave the built-in roles' mappings as the profile's do.
 *
 * One file past ~300 lines: roles, kfek's mappings and the built-in roles' mappings share the members arithmetic and
 * the previous deploy's view, and are planned together.
 */
import type { Impact } from '../contracts/impact';
import type { DomainChange } from './domain-change';
import type { Families, Family } from './domain-families';
import type { DomainState } from './domain-state';
import { describeDrift, driftSummary } from './drift';
import { readerIndexPattern } from './families';
import {
  ADMIN_ROLES,
  buildReconcileRole,
  DASHBOARDS_USER_ROLE,
  type RoleMappingBody,
  readerRoleFor,
  rolePatternMatches,
  rolePatterns,
  sameRole,
  type SecurityRoleBody,
  writerRoleFor,
} from './security';
import { editedByHand, recordedHash } from './registry-changes';
import { registryIndex } from './registry';
import { mappingPath, rolePath } from './request-path';
import { type OpenSearchSpec, writerBackendRolesOf } from './spec';

/** What kfek's roles should be, from the spec and the families a deploy keeps. */
export function desiredRoles(spec: OpenSearchSpec, families: Families): Map<string, SecurityRoleBody> {
  const roles = new Map<string, SecurityRoleBody>();
  roles.set(spec.names.writerRole, writerRoleFor(families.kept.map((f) => `${f.stem}-*`)));
  const patterns = new Map<string, string[]>();
  const add = (role: string, family: Family): void => {
    patterns.set(role, [...(patterns.get(role) ?? []), readerIndexPattern(family.stem, families.stems)]);
  };
  // Current readers first, in profile order, so their own family's pattern comes first.
  patterns.set(spec.names.readerRole, []);
  for (const route of spec.routes) patterns.set(route.names.readerRole, []);
  for (const family of families.kept) if (family.readerRole !== undefined) add(family.readerRole, family);
  for (const [role, list] of patterns) roles.set(role, readerRoleFor(list));
  if (spec.access.reconcileBackendRoles.length > 0)
    roles.set(spec.names.reconcileRole, buildReconcileRole(registryIndex(spec.name)));
  return roles;
}

type Members = Pick<RoleMappingBody, 'backend_roles' | 'users'>;
const members = (backendRoles: readonly string[], users: readonly string[] = []): Members => ({
  backend_roles: [...new Set(backendRoles)].sort(),
  users: [...new Set(users)].sort(),
});
const isEmpty = (m: Members): boolean => m.backend_roles.length === 0 && m.users.length === 0;
const minus = (a: Members, b: Members): Members =>
  members(
    a.backend_roles.filter((x) => !b.backend_roles.includes(x)),
    a.users.filter((x) => !b.users.includes(x)),
  );
const union = (a: Members, b: Members): Members =>
  members([...a.backend_roles, ...b.backend_roles], [...a.users, ...b.users]);
const describe = (m: Members): string =>
  [...m.backend_roles.map((r) => `backend role ${r}`), ...m.users.map((u) => `user ${u}`)].join(', ');

/**
 * Members of kfek's own roles as the profile says, and a retired route's stem role as its family records them;
 * `keep` for another retired role (its mapping stays as it is). The stem roles come first, so a deploy stopped half
 * way has given the retired stem's readers their role before it takes the route's reader from them.
 */
function desiredOwnedMappings(
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

/** The kfek indices a role's patterns reach. */
function readable(role: unknown, indices: readonly string[]): Set<string> {
  const patterns = rolePatterns(role);
  return new Set(indices.filter((i) => patterns.some((p) => rolePatternMatches(p, i))));
}

const memberKeys = (m: Members): string[] => [
  ...m.backend_roles.map((r) => `backend role ${r}`),
  ...m.users.map((u) => `user ${u}`),
];

/** Who reads which kfek index through kfek's own roles: `member -> index` pairs. */
function grants(
  roles: ReadonlyMap<string, unknown>,
  mappings: ReadonlyMap<string, Members>,
  indices: readonly string[],
): Set<string> {
  const out = new Set<string>();
  for (const [name, role] of roles) {
    const m = mappings.get(name);
    if (m === undefined) continue;
    const reach = readable(role, indices);
    for (const member of memberKeys(m)) for (const index of reach) out.add(`${member} -> ${index}`);
  }
  return out;
}

export interface AccessInputs {
  readonly spec: OpenSearchSpec;
  readonly families: Families;
  readonly state: DomainState;
  /** The previous deploy's spec and families: which members kfek put in shared mappings, what it wrote last. */
  readonly previous?: { readonly spec: OpenSearchSpec; readonly families: Families };
}

/** Access through kfek's roles before and after the deploy, and what one change takes away or gives. */
class AccessDiff {
  readonly lost: Set<string>;
  readonly gained: Set<string>;
  constructor(
    readonly indices: readonly string[],
    before: Set<string>,
    after: Set<string>,
  ) {
    this.lost = new Set([...before].filter((p) => !after.has(p)));
    this.gained = new Set([...after].filter((p) => !before.has(p)));
  }

  /** The lost (or gained) pairs of these members on what `role` reads. */
  pairs(which: 'lost' | 'gained', members: Members, role: unknown): string[] {
    const keys = new Set(memberKeys(members));
    const reach = readable(role, this.indices);
    return [...this[which]].filter((p) => {
      const [member, index] = p.split(' -> ');
      return keys.has(member) && reach.has(index);
    });
  }
}

function accessDiff(
  inputs: AccessInputs,
  roles: ReadonlyMap<string, SecurityRoleBody>,
  wanted: ReadonlyMap<string, Members | 'keep'>,
): AccessDiff {
  const { state } = inputs;
  const indices = inputs.families.kept.flatMap((f) => f.indices.map((i) => i.name));
  const owned = (m: RoleMappingBody | undefined): Members =>
    m === undefined ? members([]) : members(m.backend_roles, m.users);
  const beforeMappings = new Map([...state.roles.keys()].map((r) => [r, owned(state.mappings.get(r))]));
  const afterMappings = new Map(
    [...wanted].map(([r, w]) => [r, w === 'keep' ? owned(state.mappings.get(r)) : w] as const),
  );
  return new AccessDiff(
    indices,
    grants(state.roles, beforeMappings, indices),
    grants(roles, afterMappings, indices),
  );
}

const summary = (pairs: readonly string[]): string =>
  pairs.length <= 6 ? pairs.join(', ') : `${pairs.slice(0, 6).join(', ')} and ${pairs.length - 6} more`;

function planRoles(
  inputs: AccessInputs,
  roles: ReadonlyMap<string, SecurityRoleBody>,
  wanted: ReadonlyMap<string, Members | 'keep'>,
  diff: AccessDiff,
): DomainChange[] {
  const { state, previous } = inputs;
  const before = previous === undefined ? undefined : desiredRoles(previous.spec, previous.families);
  // The previous deploy still kept the families that go now (or they would be gone): it wrote roles covering them.
  const beforePrune =
    previous === undefined
      ? undefined
      : desiredRoles(previous.spec, {
          ...previous.families,
          kept: [...previous.families.kept, ...previous.families.pruned],
        });
  const changes: DomainChange[] = [];
  for (const [name, role] of roles) {
    const stored = state.roles.get(name);
    const path = rolePath(name);
    if (stored !== undefined && sameRole(stored, role)) {
      changes.push({ kind: 'security-role', name, action: 'unchanged', impact: 'none', requests: [] });
      continue;
    }
    const mapped = state.mappings.get(name);
    const m = mapped === undefined ? members([]) : members(mapped.backend_roles, mapped.users);
    // What the role's own change takes away: indices it no longer reads, from members it keeps (members removed
    // from its mapping are the mapping's change).
    const want = wanted.get(name);
    const staying = want === undefined || want === 'keep' ? m : minus(m, minus(m, want));
    const narrowed = stored === undefined ? new Set<string>() : readable(stored, diff.indices);
    for (const index of readable(role, diff.indices)) narrowed.delete(index);
    const lost =
      stored === undefined
        ? []
        : diff.pairs('lost', staying, stored).filter((p) => narrowed.has(p.split(' -> ')[1]));
    const gained = diff.pairs('gained', staying, role);
    const written = before?.get(name);
    // A stored role that is not what kfek wrote is a hand edit: the record's hash of what it wrote decides (issue 39);
    // without one, what the previous profile made kfek write, else a restriction kfek never sets.
    const recorded = recordedHash(state, 'security-role', name);
    const drift =
      stored !== undefined &&
      (recorded !== undefined
        ? editedByHand(state, 'security-role', name, stored)
        : written === undefined
          ? /"(dls|fls|masked_fields)":("[^"]|\[[^\]])/.test(JSON.stringify(stored))
          : !sameRole(stored, written) && !sameRole(stored, beforePrune?.get(name) ?? written));
    const impact: Impact =
      lost.length > 0 ? 'loses-access' : drift ? 'drift' : gained.length > 0 ? 'grants-access' : 'change';
    changes.push({
      kind: 'security-role',
      name,
      action: stored === undefined ? 'create' : 'update',
      impact,
      detail: [
        `index patterns ${rolePatterns(role).join(', ')}`,
        drift
          ? `a hand edit is reverted (kfek owns its roles wholly): ${driftSummary(describeDrift('security-role', stored, role))}`
          : '',
        lost.length === 0 ? '' : `no longer: ${summary(lost)}`,
        gained.length === 0 || stored === undefined ? '' : `now: ${summary(gained)}`,
      ]
        .filter((p) => p !== '')
        .join('; '),
      ...(lost.length > 0 ? { fix: 'keep the route or stem that reads those indices in the profile' } : {}),
      requests: [{ method: 'PUT', path, body: role, ok: [200, 201] }],
    });
  }
  for (const [name, stored] of state.roles) {
    if (roles.has(name)) continue;
    const mapped = state.mappings.get(name);
    const lost =
      mapped === undefined ? [] : diff.pairs('lost', members(mapped.backend_roles, mapped.users), stored);
    changes.push({
      kind: 'security-role',
      name,
      action: 'delete',
      impact: lost.length > 0 ? 'loses-access' : 'change',
      detail:
        lost.length === 0
          ? 'nobody loses access by it (its members read what it read through another role, or nothing is left)'
          : `no longer: ${summary(lost)}`,
      ...(lost.length > 0 ? { fix: 'keep the route that reads those indices in the profile' } : {}),
      requests: [
        ...(mapped === undefined
          ? []
          : [
              {
                method: 'DELETE' as const,
                path: mappingPath(name),
                ok: [200, 404],
              },
            ]),
        { method: 'DELETE', path: rolePath(name), ok: [200, 404] },
      ],
    });
  }
  return changes;
}

function planOwnedMappings(
  inputs: AccessInputs,
  roles: ReadonlyMap<string, SecurityRoleBody>,
  wanted: ReadonlyMap<string, Members | 'keep'>,
  diff: AccessDiff,
): DomainChange[] {
  const { state, previous } = inputs;
  const before =
    previous === undefined
      ? undefined
      : desiredOwnedMappings(
          previous.spec,
          desiredRoles(previous.spec, previous.families),
          previous.families,
        );
  const changes: DomainChange[] = [];
  for (const [role, want] of wanted) {
    const have = state.mappings.get(role);
    if (want === 'keep') {
      if (have !== undefined && !isEmpty(have)) {
        changes.push({
          kind: 'role-mapping',
          name: role,
          action: 'keep',
          impact: 'kept',
          detail: `kept with its members (${describe(have)}) while the indices it reads are kept`,
          requests: [],
        });
      }
      continue;
    }
    const current = have === undefined ? members([]) : members(have.backend_roles, have.users);
    const removed = minus(current, want);
    const added = minus(want, current);
    if (isEmpty(removed) && isEmpty(added) && (have !== undefined || isEmpty(want))) {
      changes.push({ kind: 'role-mapping', name: role, action: 'unchanged', impact: 'none', requests: [] });
      continue;
    }
    const lost = diff.pairs('lost', removed, state.roles.get(role) ?? roles.get(role));
    const gained = diff.pairs('gained', added, roles.get(role));
    const previousWant = before?.get(role);
    const handMapped =
      previousWant === undefined || previousWant === 'keep' ? members([]) : minus(removed, previousWant);
    const path = mappingPath(role);
    changes.push({
      kind: 'role-mapping',
      name: role,
      action: isEmpty(want) ? 'delete' : have === undefined ? 'create' : 'update',
      impact: lost.length > 0 ? 'loses-access' : gained.length > 0 ? 'grants-access' : 'change',
      detail: [
        isEmpty(added) ? '' : `adds ${describe(added)}`,
        isEmpty(removed) ? '' : `removes ${describe(removed)}`,
        isEmpty(handMapped) || previous === undefined
          ? ''
          : `(${describe(handMapped)} mapped by hand: reverted, kfek owns its mappings)`,
      ]
        .filter((p) => p !== '')
        .join('; '),
      ...(lost.length > 0 ? { fix: `if they should keep access, name them in the profile (${role})` } : {}),
      requests: isEmpty(want)
        ? [{ method: 'DELETE', path, ok: [200, 404] }]
        : [{ method: 'PUT', path, body: { ...want, hosts: [] }, ok: [200, 201] }],
    });
  }
  return changes;
}

function planSharedMappings(
  inputs: AccessInputs,
  roles: ReadonlyMap<string, SecurityRoleBody>,
  wanted: ReadonlyMap<string, Members | 'keep'>,
): DomainChange[] {
  const { spec, state, previous, families } = inputs;
  const current = new Set([
    spec.names.writerRole,
    spec.names.readerRole,
    spec.names.reconcileRole,
    ...spec.routes.map((x) => x.names.readerRole),
  ]);
  // The readers of the retired families kfek keeps: what their roles will be mapped to.
  const retiredReaders = [...roles.keys()]
    .filter((r) => !current.has(r))
    .reduce((acc, r) => {
      const want = wanted.get(r);
      const m = want === undefined || want === 'keep' ? state.mappings.get(r) : want;
      return m === undefined ? acc : union(acc, members(m.backend_roles, m.users));
    }, members([]));
  // The readers of the retired families that go now were kfek's additions too, as much as a profile's.
  const prunedReaders = families.pruned.reduce(
    (acc, f) =>
      f.readers === undefined ? acc : union(acc, members(f.readers.backend_roles, f.readers.users)),
    members([]),
  );
  const now = kfekSharedMembers(spec, retiredReaders);
  const previously = previous === undefined ? undefined : kfekSharedMembers(previous.spec, members([]));
  const before = (role: string): Members =>
    union(previously?.get(role) ?? members([]), role === DASHBOARDS_USER_ROLE ? prunedReaders : members([]));
  const changes: DomainChange[] = [];
  for (const [role, ours] of now) {
    const have = state.mappings.get(role);
    const current = have === undefined ? members([]) : members(have.backend_roles, have.users);
    const dropped = minus(before(role), ours);
    const removed = members(
      current.backend_roles.filter((x) => dropped.backend_roles.includes(x)),
      current.users.filter((x) => dropped.users.includes(x)),
    );
    const added = minus(ours, current);
    if (isEmpty(removed) && isEmpty(added)) {
      if (have !== undefined && !isEmpty(ours)) {
        changes.push({ kind: 'role-mapping', name: role, action: 'unchanged', impact: 'none', requests: [] });
      }
      continue;
    }
    const final = union(minus(current, removed), ours);
    changes.push({
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
    });
  }
  return changes;
}

/** Roles, then the mappings of kfek's roles, then kfek's members of the built-in roles, then roles to delete last. */
export function planAccess(inputs: AccessInputs): DomainChange[] {
  if (!inputs.state.features.security) {
    return [
      {
        kind: 'security-role',
        name: '',
        action: 'skip',
        impact: 'none',
        detail: 'no security plugin on the target',
        requests: [],
      },
    ];
  }
  const roles = desiredRoles(inputs.spec, inputs.families);
  const wanted = desiredOwnedMappings(inputs.spec, roles, inputs.families);
  const diff = accessDiff(inputs, roles, wanted);
  const roleChanges = planRoles(inputs, roles, wanted, diff);
  return [
    ...roleChanges.filter((c) => c.action !== 'delete'),
    ...planOwnedMappings(inputs, roles, wanted, diff),
    ...planSharedMappings(inputs, roles, wanted),
    ...roleChanges.filter((c) => c.action === 'delete'),
  ];
}
