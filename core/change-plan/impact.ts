/**
 * How bad each finding of a change plan is: the one badness table (as aws-cdk's `@aws-cdk/cloudformation-diff` has
 * `ResourceImpact` and `worstImpact`). describe.ts gives every finding one impact; findings are ordered by this table,
 * worst first, and renderers (describePlan, `kfek doctor`) take what an impact means from it, never decide again.
 */

/** What an impact means to whoever deploys. */
export interface ImpactMeaning {
  /**
   * `fail`: the deploy must not go ahead as it is; `warn`: the plan could not judge part of it; `notice`: worth
   * knowing, nothing is lost; `quiet`: counted in its stack's line only.
   */
  readonly severity: 'fail' | 'warn' | 'notice' | 'quiet';
  /** CloudFormation stops the deploy at this stack: `cdk deploy` leaves the stacks after it undeployed. */
  readonly stopsDeploy: boolean;
}

/** The impacts, worst first: the key order is the badness order. */
export const IMPACTS = {
  /** CloudFormation refuses the update: an export in use, or a replacement of a resource that keeps its custom name. */
  refused: { severity: 'fail', stopsDeploy: true },
  /** A create fails: a resource claims a name another one still holds. */
  fails: { severity: 'fail', stopsDeploy: true },
  /** A resource with data or state is replaced or deleted: what it holds is lost. */
  'loses-data': { severity: 'fail', stopsDeploy: false },
  /** Resource types the schema table does not know: their replacements were not predicted. */
  unchecked: { severity: 'warn', stopsDeploy: false },
  /** A resource without state is replaced. */
  replaces: { severity: 'notice', stopsDeploy: false },
  /** A named change of how the pipeline works (a switch of delivery): what it means is in its message. */
  switches: { severity: 'notice', stopsDeploy: false },
  /** A resource leaves its stack but stays in the account, unmanaged (DeletionPolicy Retain). */
  orphans: { severity: 'notice', stopsDeploy: false },
  /** A resource without state is deleted. */
  deletes: { severity: 'quiet', stopsDeploy: false },
} as const satisfies Readonly<Record<string, ImpactMeaning>>;

export type Impact = keyof typeof IMPACTS;
export type Severity = ImpactMeaning['severity'];

const RANK: ReadonlyMap<string, number> = new Map(Object.keys(IMPACTS).map((impact, i) => [impact, i]));

/** `findings` ordered worst first by {@link IMPACTS}; equally bad ones keep their order. */
export function worstFirst<T extends { readonly impact: Impact }>(findings: readonly T[]): T[] {
  return [...findings].sort((a, b) => (RANK.get(a.impact) ?? 0) - (RANK.get(b.impact) ?? 0));
}
