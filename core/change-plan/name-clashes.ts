/**
 * New resources that claim a physical name a deployed resource still holds when they are created. CloudFormation
 * creates a stack's new resources before it deletes the ones the template dropped, so moving a named resource to
 * another logical id (a renamed construct, a resource moved between stacks deployed in the wrong order) fails with
 * "... already exists"; so does a name held by a resource that a DeletionPolicy Retain left behind or whose stack
 * is no longer in the app. Only literal names are compared.
 */
import { schemaOf } from './schema-table';
import { keeps, own, resourcesOf, valueAt } from './template';
import type { CfnResource, CfnTemplate, NameClash, StackAction } from './types';

export interface NameClashInput {
  readonly before: Readonly<Record<string, CfnTemplate | undefined>>;
  readonly after: Readonly<Record<string, CfnTemplate>>;
  readonly order: readonly string[];
  readonly actions: ReadonlyMap<string, StackAction>;
}

/** `type|name` of a resource whose name properties are all literal strings; undefined otherwise. */
function nameKey(resource: CfnResource | undefined): string | undefined {
  const names = resource === undefined ? [] : (schemaOf(resource.Type)?.names ?? []);
  const values = names.map((p) => valueAt(resource?.Properties, p));
  if (names.length === 0 || !values.every((v): v is string => typeof v === 'string')) return undefined;
  return `${resource?.Type}|${values.join('|')}`;
}

interface Holder {
  readonly stackName: string;
  readonly logicalId: string;
  readonly resource: CfnResource;
}

export function nameClashes(input: NameClashInput): NameClash[] {
  const holders = new Map<string, Holder[]>();
  for (const [stackName, template] of Object.entries(input.before)) {
    for (const [logicalId, resource] of Object.entries(resourcesOf(template))) {
      const key = nameKey(resource);
      if (key !== undefined)
        holders.set(key, [...(holders.get(key) ?? []), { stackName, logicalId, resource }]);
    }
  }
  const position = (stack: string): number => input.order.indexOf(stack);
  /** Why `h` still holds its name when `stackName` creates a resource under it; undefined when it is gone by then. */
  const stillHeld = (h: Holder, stackName: string): NameClash['reason'] | undefined => {
    if (!Object.hasOwn(input.after, h.stackName)) return 'left-deployed';
    const next = own(resourcesOf(input.after[h.stackName]), h.logicalId);
    // Kept under the same name (same type): the new resource duplicates it.
    if (next?.Type === h.resource.Type && nameKey(next) === nameKey(h.resource)) return 'kept';
    if (keeps(next === undefined ? h.resource.DeletionPolicy : h.resource.UpdateReplacePolicy))
      return 'retained';
    // Deleted in the cleanup phase of its own stack's update: before this create only if that stack deploys first.
    return h.stackName !== stackName && position(h.stackName) < position(stackName)
      ? undefined
      : 'created-before-deleted';
  };
  const clashes: NameClash[] = [];
  for (const stackName of input.order) {
    if (input.actions.get(stackName) === 'unchanged') continue;
    const deployed = resourcesOf(own(input.before, stackName));
    for (const [logicalId, resource] of Object.entries(resourcesOf(input.after[stackName]))) {
      if (own(deployed, logicalId)?.Type === resource.Type) continue;
      const key = nameKey(resource);
      for (const h of key === undefined ? [] : (holders.get(key) ?? [])) {
        const reason = stillHeld(h, stackName);
        if (reason === undefined) continue;
        const name = key?.slice(resource.Type.length + 1) ?? '';
        const why = {
          'created-before-deleted':
            h.stackName === stackName
              ? 'CloudFormation creates new resources before it deletes the old ones'
              : `${h.stackName}, which deletes it, deploys after ${stackName}`,
          kept: 'the new templates keep it too',
          retained: 'it is removed with Retain and stays in the account',
          'left-deployed': `${h.stackName} is no longer in the app, and cdk deploy leaves it deployed`,
        }[reason];
        clashes.push({
          stackName,
          logicalId,
          type: resource.Type,
          name,
          heldBy: { stackName: h.stackName, logicalId: h.logicalId },
          reason,
          message:
            `${stackName} would create ${logicalId} (${resource.Type}) named ${name} while ${h.stackName}/${h.logicalId} ` +
            `still holds that name (${why}): the create fails ("${name} already exists")`,
        });
      }
    }
  }
  return clashes;
}
