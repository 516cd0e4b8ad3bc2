/**
 * A {@link ChangePlan} as findings, each with its one impact (core/contracts/impact.ts), and as lines a person
 * reads: the stacks in deploy order, then every finding, worst first.
 */
import { IMPACTS, type Impact, worstFirst } from '../contracts/impact';
import type {
  ChangePlan,
  Deletion,
  DeliverySwitch,
  NameClash,
  RefusedUpdate,
  Replacement,
  StackPlan,
} from './types';

/** One thing a deploy of the plan does that someone should know, with its impact and its text. */
export type ChangeFinding =
  | {
      readonly kind: 'refused-update';
      readonly impact: Impact;
      readonly message: string;
      readonly subject: RefusedUpdate;
    }
  | {
      readonly kind: 'replacement';
      readonly impact: Impact;
      readonly message: string;
      readonly subject: Replacement;
    }
  | {
      readonly kind: 'deletion';
      readonly impact: Impact;
      readonly message: string;
      readonly subject: Deletion;
    }
  | {
      readonly kind: 'name-clash';
      readonly impact: Impact;
      readonly message: string;
      readonly subject: NameClash;
    }
  | {
      readonly kind: 'delivery-switch';
      readonly impact: Impact;
      readonly message: string;
      readonly subject: DeliverySwitch;
    }
  | {
      readonly kind: 'unchecked';
      readonly impact: Impact;
      readonly message: string;
      /** The resource types not in the schema table. */
      readonly subject: readonly string[];
    };

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

/** The impact of a replacement: refused before lost data, lost data before a harmless replacement. */
function replacementImpact(r: Replacement): Impact {
  if (r.refused) return 'refused';
  return r.stateful ? 'loses-data' : 'replaces';
}

function deletionImpact(d: Deletion): Impact {
  if (d.retained) return 'orphans';
  return d.stateful ? 'loses-data' : 'deletes';
}

/**
 * Whether a deletion is the old reader of a delivery switch the plan recognized: a delivery stream deleted on a
 * switch to the indexer, whose re-read covers what the stream held (./delivery-switch.ts), so the switch's finding
 * says what happens instead of "data lost".
 */
function coveredBySwitch(plan: ChangePlan, d: Deletion): boolean {
  return (plan.deliverySwitches ?? []).some(
    (s) =>
      s.stackName === d.stackName && s.to === 'direct' && d.type === 'AWS::KinesisFirehose::DeliveryStream',
  );
}

/** Every finding of the plan, worst first ({@link IMPACTS}); equally bad ones in the plan's order. */
export function planFindings(plan: ChangePlan): ChangeFinding[] {
  const findings: ChangeFinding[] = [
    ...(plan.deliverySwitches ?? []).map((s): ChangeFinding => ({
      kind: 'delivery-switch',
      impact: 'switches',
      message: s.message,
      subject: s,
    })),
    ...plan.refused.map((r): ChangeFinding => ({
      kind: 'refused-update',
      impact: 'refused',
      message: r.message,
      subject: r,
    })),
    ...plan.replacements.map((r): ChangeFinding => ({
      kind: 'replacement',
      impact: replacementImpact(r),
      message: describeReplacement(r),
      subject: r,
    })),
    ...plan.deletions
      .filter((d) => !coveredBySwitch(plan, d))
      .map((d): ChangeFinding => ({
        kind: 'deletion',
        impact: deletionImpact(d),
        message: describeDeletion(d),
        subject: d,
      })),
    ...plan.nameClashes.map((c): ChangeFinding => ({
      kind: 'name-clash',
      impact: 'fails',
      message: c.message,
      subject: c,
    })),
  ];
  if (plan.unknownTypes.length > 0) {
    findings.push({
      kind: 'unchecked',
      impact: 'unchecked',
      message: `${plan.unknownTypes.join(', ')}: not in the schema table (scripts/create-only-properties.ts), so replacements of these were not predicted`,
      subject: plan.unknownTypes,
    });
  }
  return worstFirst(findings);
}

/** The word a plan line starts with for a finding. */
function label(f: ChangeFinding): string {
  switch (f.kind) {
    case 'refused-update':
      return 'REFUSED';
    case 'replacement':
      return f.impact === 'refused' ? 'REFUSED' : 'REPLACE';
    case 'deletion':
      return 'DELETE';
    case 'name-clash':
      return 'FAILS';
    case 'delivery-switch':
      return 'SWITCH';
    case 'unchecked':
      return 'UNCHECKED';
  }
}

export function describePlan(plan: ChangePlan): string[] {
  const findings = planFindings(plan);
  const lines = [...plan.stacks.map(describeStack), ...findings.map((f) => `${label(f)} ${f.message}`)];
  if (findings.some((f) => IMPACTS[f.impact].stopsDeploy)) {
    lines.push('cdk deploy stops at the first stack that fails; the stacks after it are not deployed');
  }
  return lines;
}
