/**
 * The arithmetic the access side of a deploy (domain-plan-access.ts) plans with: members of a role mapping, the kfek
 * indices a role reads, and who reads which index through kfek's roles before and after the deploy. Pure.
 */
import type { Families } from './domain-families';
import type { DomainState } from './domain-state';
import { type RoleMappingBody, rolePatternMatches, rolePatterns, type SecurityRoleBody } from './security';
import type { OpenSearchSpec } from './spec';

export interface AccessInputs {
  readonly spec: OpenSearchSpec;
  readonly families: Families;
  readonly state: DomainState;
  /** The previous deploy's spec and families: which members kfek put in shared mappings, what it wrote last. */
  readonly previous?: { readonly spec: OpenSearchSpec; readonly families: Families };
}

/** The members of a role mapping, deduplicated and sorted so two can be compared. */
export type Members = Pick<RoleMappingBody, 'backend_roles' | 'users'>;
export const members = (backendRoles: readonly string[], users: readonly string[] = []): Members => ({
  backend_roles: [...new Set(backendRoles)].sort(),
  users: [...new Set(users)].sort(),
});
export const isEmpty = (m: Members): boolean => m.backend_roles.length === 0 && m.users.length === 0;
export const minus = (a: Members, b: Members): Members =>
  members(
    a.backend_roles.filter((x) => !b.backend_roles.includes(x)),
    a.users.filter((x) => !b.users.includes(x)),
  );
export const union = (a: Members, b: Members): Members =>
  members([...a.backend_roles, ...b.backend_roles], [...a.users, ...b.users]);
const memberKeys = (m: Members): string[] => [
  ...m.backend_roles.map((r) => `backend role ${r}`),
  ...m.users.map((u) => `user ${u}`),
];
export const describe = (m: Members): string => memberKeys(m).join(', ');
/** The members of a stored mapping (none when it is missing). */
export const membersOf = (m: Pick<RoleMappingBody, 'backend_roles' | 'users'> | undefined): Members =>
  m === undefined ? members([]) : members(m.backend_roles, m.users);

/** What kfek's own roles are mapped to: the members, or `keep` for a retired role whose mapping stays as it is. */
export type WantedMappings = ReadonlyMap<string, Members | 'keep'>;

/** The kfek indices a role's patterns reach. */
export function readable(role: unknown, indices: readonly string[]): Set<string> {
  const patterns = rolePatterns(role);
  return new Set(indices.filter((i) => patterns.some((p) => rolePatternMatches(p, i))));
}

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

/** Access through kfek's roles before and after the deploy, and what one change takes away or gives. */
export class AccessDiff {
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

export function accessDiff(
  inputs: AccessInputs,
  roles: ReadonlyMap<string, SecurityRoleBody>,
  wanted: WantedMappings,
): AccessDiff {
  const { state } = inputs;
  const indices = inputs.families.kept.flatMap((f) => f.indices.map((i) => i.name));
  const beforeMappings = new Map([...state.roles.keys()].map((r) => [r, membersOf(state.mappings.get(r))]));
  const afterMappings = new Map(
    [...wanted].map(([r, w]) => [r, w === 'keep' ? membersOf(state.mappings.get(r)) : w] as const),
  );
  return new AccessDiff(
    indices,
    grants(state.roles, beforeMappings, indices),
    grants(roles, afterMappings, indices),
  );
}

/** Up to six `member -> index` pairs, and how many more. */
export const summary = (pairs: readonly string[]): string =>
  pairs.length <= 6 ? pairs.join(', ') : `${pairs.slice(0, 6).join(', ')} and ${pairs.length - 6} more`;
