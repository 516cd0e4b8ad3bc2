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
 * The roles are planned in domain-plan-roles.ts, the mappings in domain-plan-mappings.ts, with the members
 * arithmetic and the before/after access they share in domain-access-diff.ts.
 */
import { accessDiff, type AccessInputs } from './domain-access-diff';
import type { DomainChange } from './domain-change';
import { desiredOwnedMappings, planOwnedMappings, planSharedMappings } from './domain-plan-mappings';
import { desiredRoles, planRoles } from './domain-plan-roles';

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
