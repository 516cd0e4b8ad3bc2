/**
 * What `cdk deploy` of the new config does to the stacks already deployed in this account and region: the change
 * planner (core/change-plan) run on the deployed templates (GetTemplate) and the synthesized ones, in the
 * manifest's deploy order. Refused updates, replacements that lose data or that CloudFormation refuses, deleted
 * resources with data and names still taken are failed checks with their fix; the rest is one informational line.
 * Pure, like checks.ts.
 */
import {
  type ChangePlan,
  type FixedFinding,
  type FixContext,
  IMPACTS,
  planChange,
  planFindings,
  type Severity,
  describeStack,
  type StackChangeInput,
  withFixes,
} from '../../core/change-plan';
import { type DeployedTemplate, type DoctorFacts, type Finding, skip, unanswered } from './model';
import type { ProfilePlan } from './plan';
import { stackScope } from '../../core/change-plan/deploy-order';

/**
 * Statuses of a stack that `cdk deploy` creates afresh: a create that was never executed, or a failed first create
 * (CDK deletes the stack in ROLLBACK_COMPLETE and creates it again).
 */
const CREATED_AFRESH = new Set(['REVIEW_IN_PROGRESS', 'ROLLBACK_COMPLETE']);

export interface ProfileChange {
  readonly input: StackChangeInput;
  readonly plan: ChangePlan;
  /** Stacks of the profile that deploy elsewhere, with why (`name (why)`). */
  readonly leftOut: readonly string[];
}

/** The change plan of the stacks that deploy to `account` in `region`. */
export function profileChange(
  plan: ProfilePlan,
  deployed: readonly DeployedTemplate[],
  account: string | undefined,
  region: string,
): ProfileChange {
  const { inScope, leftOut } = stackScope(plan.stacks, account, region);
  const byName = new Map(deployed.map((d) => [d.stackName, d]));
  const before = Object.fromEntries(
    inScope.map((s) => {
      const d = byName.get(s.stackName);
      return [s.stackName, d === undefined || CREATED_AFRESH.has(d.status) ? undefined : d.template];
    }),
  );
  const input: StackChangeInput = {
    before,
    after: Object.fromEntries(inScope.map((s) => [s.stackName, s.template])),
    order: inScope.map((s) => s.stackName),
  };
  return {
    input,
    plan: planChange(input),
    leftOut: leftOut.map((l) => `${l.stack.stackName} (${l.why})`),
  };
}

/** The check a finding is reported under. */
const CHECK_OF: Readonly<Record<FixedFinding['kind'], string>> = {
  'refused-update': 'change-exports',
  replacement: 'change-replace',
  deletion: 'change-delete',
  'name-clash': 'change-names',
  'delivery-switch': 'change-delivery',
  unchecked: 'change',
};

const severityOf = (f: FixedFinding): Severity => IMPACTS[f.impact].severity;

/** One line: the stacks, then what is worth knowing (the findings of severity `notice`), then what was left out. */
function summary(change: ProfileChange, findings: readonly FixedFinding[]): string {
  const { plan } = change;
  const failures = findings.filter((f) => severityOf(f) === 'fail').length;
  const actions = new Set(plan.stacks.map((s) => s.action));
  const names = plan.stacks.map((s) => s.stackName).join(', ');
  const parts =
    actions.size === 1 && actions.has('create')
      ? [`not deployed here yet: cdk deploy creates ${names}`]
      : actions.size === 1 && actions.has('unchanged') && failures === 0
        ? [`no change: the deployed templates of ${names} equal the new ones`]
        : plan.stacks.map(describeStack);
  parts.push(...findings.filter((f) => severityOf(f) === 'notice').map((f) => f.message));
  if (change.leftOut.length > 0) parts.push(`not checked here: ${change.leftOut.join(', ')}`);
  return parts.join('; ');
}

/**
 * The change check: one head line (status ok, or warn when part of the plan could not be judged), then one failed
 * check per finding of severity `fail`, worst first. Impact, order and fix are the plan's (core/change-plan); this
 * only renders them.
 */
export function checkChange(facts: DoctorFacts, plan: ProfilePlan | undefined): readonly Finding[] {
  const p = facts.deployedTemplates;
  if (p === undefined || plan === undefined || !facts.region.ok) {
    return [skip('change', 'not checked: needs credentials and a synthesized profile')];
  }
  if (!p.ok) {
    return [unanswered('change', 'warn', p.error, 'allow cloudformation:GetTemplate and DescribeStacks')];
  }
  const account = facts.identity?.ok === true ? /:(\d{12}):/.exec(facts.identity.value)?.[1] : undefined;
  const change = profileChange(plan, p.value, account, facts.region.value);
  const ctx: FixContext = {
    profile: facts.profile,
    input: change.input,
    idOf: (name) => plan.stacks.find((s) => s.stackName === name)?.id ?? name,
  };
  const findings = withFixes(planFindings(change.plan), ctx);
  const failures = findings
    .filter((f) => severityOf(f) === 'fail')
    .map((f): Finding => ({ check: CHECK_OF[f.kind], status: 'fail', finding: f.message, fix: f.fix }));
  const unchecked = findings.filter((f) => severityOf(f) === 'warn');
  const head: Finding =
    unchecked.length === 0
      ? { check: 'change', status: 'ok', finding: summary(change, findings) }
      : {
          check: 'change',
          status: 'warn',
          finding:
            `${summary(change, findings)}; replacements of ${change.plan.unknownTypes.join(', ')} not predicted ` +
            '(not in the schema table)',
          fix: unchecked.map((f) => f.fix).join('; '),
        };
  return [head, ...failures];
}
