/** A {@link ChangePlan} as lines a person reads: the stacks in deploy order, then everything that goes wrong. */
import type { ChangePlan, Deletion, Replacement, StackPlan } from './types';

const count = (n: number, what: string): string => `${n} ${what}`;

export function describeStack(s: StackPlan): string {
  switch (s.action) {
    case 'create':
      return `${s.stackName}: create (${count(s.added.length, 'resources')})`;
    case 'update':
      return (
        `${s.stackName}: update (${count(s.modified.length, 'modified')}, ${count(s.added.length, 'added')}, ` +
        `${count(s.removed.length, 'removed')})`
      );
    case 'unchanged':
      return `${s.stackName}: unchanged (cdk deploy skips it)`;
    case 'left-deployed':
      return `${s.stackName}: no longer in the app; cdk deploy leaves it deployed`;
  }
}

/** `Stack/LogicalId (Type) is replaced: reasons`, whether CloudFormation refuses, and the data at risk. */
export function describeReplacement(r: Replacement): string {
  return (
    `${r.stackName}/${r.logicalId} (${r.type}) is replaced: ${r.reasons.join('; ')}` +
    (r.refused
      ? '; CloudFormation refuses, because the resource keeps its custom name ("CloudFormation cannot update a stack when a custom-named resource requires replacing")'
      : '') +
    (r.dataAtRisk === '' ? '' : `. Data at risk: ${r.dataAtRisk}`)
  );
}

export function describeDeletion(d: Deletion): string {
  const what = `${d.stackName}/${d.logicalId} (${d.type}) is removed`;
  if (d.retained) return `${what}: kept in the account, unmanaged (DeletionPolicy Retain)`;
  return d.dataAtRisk === '' ? `${what} and deleted` : `${what} and deleted. Data at risk: ${d.dataAtRisk}`;
}

export function describePlan(plan: ChangePlan): string[] {
  const lines = plan.stacks.map(describeStack);
  lines.push(...plan.refused.map((r) => `REFUSED ${r.message}`));
  lines.push(
    ...plan.replacements.map((r) => `${r.refused ? 'REFUSED' : 'REPLACE'} ${describeReplacement(r)}`),
  );
  lines.push(...plan.deletions.map((d) => `DELETE ${describeDeletion(d)}`));
  lines.push(...plan.nameClashes.map((c) => `FAILS ${c.message}`));
  if (plan.unknownTypes.length > 0) {
    lines.push(
      `UNCHECKED ${plan.unknownTypes.join(', ')}: not in the schema table (scripts/create-only-properties.ts), so replacements of these were not predicted`,
    );
  }
  if (plan.refused.length + plan.nameClashes.length + plan.replacements.filter((r) => r.refused).length > 0) {
    lines.push('cdk deploy stops at the first stack that fails; the stacks after it are not deployed');
  }
  return lines;
}
