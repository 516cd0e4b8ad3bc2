/**
 * kfek's own roles in a deploy (issue 30; who owns what: domain-plan-access.ts): what they should be, and the change
 * to each stored role, with what it takes away from or gives to the members it keeps. Pure.
 */
import type { Impact } from '../contracts/impact';
import {
  type AccessDiff,
  type AccessInputs,
  type Members,
  membersOf,
  minus,
  readable,
  summary,
  type WantedMappings,
} from './domain-access-diff';
import type { DomainChange } from './domain-change';
import type { Families, Family } from './domain-families';
import type { DomainState } from './domain-state';
import { describeDrift, driftSummary } from './drift';
import { readerIndexPattern } from './families';
import { editedByHand, recordedHash } from './registry-changes';
import { registryIndex } from './registry';
import { mappingPath, rolePath } from './request-path';
import {
  buildReconcileRole,
  readerRoleFor,
  rolePatterns,
  sameRole,
  type SecurityRoleBody,
  writerRoleFor,
} from './security';
import type { OpenSearchSpec } from './spec';

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

/** What the previous deploy wrote: its roles, and the same with the families that go now (it still kept them). */
interface WrittenRoles {
  readonly before: ReadonlyMap<string, SecurityRoleBody>;
  readonly beforePrune: ReadonlyMap<string, SecurityRoleBody>;
}

function writtenRoles(previous: AccessInputs['previous']): WrittenRoles | undefined {
  if (previous === undefined) return undefined;
  return {
    before: desiredRoles(previous.spec, previous.families),
    beforePrune: desiredRoles(previous.spec, {
      ...previous.families,
      kept: [...previous.families.kept, ...previous.families.pruned],
    }),
  };
}

/**
 * Whether a stored role is not what kfek wrote, i.e. a hand edit: the record's hash of what it wrote decides (issue
 * 39); without one, what the previous profile made kfek write, else a restriction kfek never sets.
 */
function roleEditedByHand(
  state: DomainState,
  name: string,
  stored: Record<string, unknown>,
  written: WrittenRoles | undefined,
): boolean {
  if (recordedHash(state, 'security-role', name) !== undefined)
    return editedByHand(state, 'security-role', name, stored);
  const wrote = written?.before.get(name);
  if (wrote === undefined) return /"(dls|fls|masked_fields)":("[^"]|\[[^\]])/.test(JSON.stringify(stored));
  return !sameRole(stored, wrote) && !sameRole(stored, written?.beforePrune.get(name) ?? wrote);
}

/** The create or update of one of kfek's roles that differs from what is stored. */
function roleWrite(
  inputs: AccessInputs,
  name: string,
  role: SecurityRoleBody,
  want: Members | 'keep' | undefined,
  diff: AccessDiff,
  written: WrittenRoles | undefined,
): DomainChange {
  const { state } = inputs;
  const stored = state.roles.get(name);
  const m = membersOf(state.mappings.get(name));
  // What the role's own change takes away: indices it no longer reads, from members it keeps (members removed
  // from its mapping are the mapping's change).
  const staying = want === undefined || want === 'keep' ? m : minus(m, minus(m, want));
  const narrowed = stored === undefined ? new Set<string>() : readable(stored, diff.indices);
  for (const index of readable(role, diff.indices)) narrowed.delete(index);
  const lost =
    stored === undefined
      ? []
      : diff.pairs('lost', staying, stored).filter((p) => narrowed.has(p.split(' -> ')[1]));
  const gained = diff.pairs('gained', staying, role);
  const drift = stored !== undefined && roleEditedByHand(state, name, stored, written);
  const impact: Impact =
    lost.length > 0 ? 'loses-access' : drift ? 'drift' : gained.length > 0 ? 'grants-access' : 'change';
  return {
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
    requests: [{ method: 'PUT', path: rolePath(name), body: role, ok: [200, 201] }],
  };
}

/** The delete of a stored kfek role the deploy no longer wants, its mapping first. */
function roleDelete(state: DomainState, name: string, stored: unknown, diff: AccessDiff): DomainChange {
  const mapped = state.mappings.get(name);
  const lost = mapped === undefined ? [] : diff.pairs('lost', membersOf(mapped), stored);
  return {
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
        : [{ method: 'DELETE' as const, path: mappingPath(name), ok: [200, 404] }]),
      { method: 'DELETE', path: rolePath(name), ok: [200, 404] },
    ],
  };
}

/** Every role's change: unchanged, created or updated in the deploy's order, then the stored ones that go. */
export function planRoles(
  inputs: AccessInputs,
  roles: ReadonlyMap<string, SecurityRoleBody>,
  wanted: WantedMappings,
  diff: AccessDiff,
): DomainChange[] {
  const { state } = inputs;
  const written = writtenRoles(inputs.previous);
  const changes: DomainChange[] = [];
  for (const [name, role] of roles) {
    const stored = state.roles.get(name);
    changes.push(
      stored !== undefined && sameRole(stored, role)
        ? { kind: 'security-role', name, action: 'unchanged', impact: 'none', requests: [] }
        : roleWrite(inputs, name, role, wanted.get(name), diff, written),
    );
  }
  for (const [name, stored] of state.roles)
    if (!roles.has(name)) changes.push(roleDelete(state, name, stored, diff));
  return changes;
}
