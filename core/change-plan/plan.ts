/**
 * `planChange`: what CloudFormation would do when a set of stacks goes from their deployed templates to new ones,
 * deployed in order: which stacks are created, updated or skipped, which updates it refuses, which resources it
 * replaces or deletes (and what data goes with them), and which creates fail on a name still in use.
 */
import { canonicalJson } from '../canonical-json';
import { deliverySwitches } from './delivery-switch';
import { ChangePlanError } from './errors';
import { refusedUpdates } from './exports';
import { nameClashes } from './name-clashes';
import { resourceChanges, unknownTypesOf } from './resources';
import { own } from './template';
import type { ChangePlan, Deletion, Replacement, StackAction, StackChangeInput, StackPlan } from './types';

function checkOrder(input: StackChangeInput): void {
  const names = Object.keys(input.after);
  const seen = new Set<string>();
  for (const name of input.order) {
    if (!Object.hasOwn(input.after, name)) {
      throw new ChangePlanError(
        `order lists ${name}, which is not among the new templates (${names.join(', ')})`,
      );
    }
    if (seen.has(name)) throw new ChangePlanError(`order lists ${name} twice`);
    seen.add(name);
  }
  const missing = names.filter((n) => !seen.has(n));
  if (missing.length > 0) {
    throw new ChangePlanError(
      `order misses ${missing.join(', ')}: list every stack of the new templates once`,
    );
  }
}

export function planChange(input: StackChangeInput): ChangePlan {
  checkOrder(input);
  const actions = new Map<string, StackAction>();
  const replaced = new Map<string, ReadonlySet<string>>();
  const stacks: StackPlan[] = [];
  const replacements: Replacement[] = [];
  const deletions: Deletion[] = [];
  const unknownTypes = new Set<string>();
  for (const stackName of input.order) {
    const before = own(input.before, stackName);
    const after = input.after[stackName];
    for (const t of unknownTypesOf(after)) unknownTypes.add(t);
    if (before === undefined) {
      actions.set(stackName, 'create');
      stacks.push({
        stackName,
        action: 'create',
        added: Object.keys(after.Resources ?? {}),
        removed: [],
        modified: [],
      });
      continue;
    }
    const action = canonicalJson(before) === canonicalJson(after) ? 'unchanged' : 'update';
    const changes = resourceChanges(stackName, before, after);
    actions.set(stackName, action);
    replaced.set(stackName, changes.replaced);
    stacks.push({
      stackName,
      action,
      added: changes.added,
      removed: changes.removed,
      modified: changes.modified,
    });
    replacements.push(...changes.replacements);
    deletions.push(...changes.deletions);
  }
  for (const [stackName, before] of Object.entries(input.before)) {
    if (before === undefined || Object.hasOwn(input.after, stackName)) continue;
    actions.set(stackName, 'left-deployed');
    stacks.push({ stackName, action: 'left-deployed', added: [], removed: [], modified: [] });
  }
  const simulation = { before: input.before, after: input.after, order: input.order, actions };
  return {
    stacks,
    refused: refusedUpdates({ ...simulation, replaced }),
    replacements,
    deletions,
    nameClashes: nameClashes(simulation),
    unknownTypes: [...unknownTypes].sort(),
    deliverySwitches: deliverySwitches(input),
  };
}
