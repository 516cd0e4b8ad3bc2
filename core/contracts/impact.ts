/**
 * What a change costs: the one impact vocabulary of kfek's two planners, the stack change planner (core/change-plan:
 * what CloudFormation does with new templates) and the domain planner (core/opensearch/domain-plan.ts: what the
 * provisioner does inside OpenSearch). Every finding and every domain change carries one impact, decided once by its
 * planner; this table says what the impact means (how bad, whether the deploy stops, its title), and every reader
 * (describePlan, `kfek doctor`, the provisioner) takes the meaning from here and never decides it again, as aws-cdk's
 * `@aws-cdk/cloudformation-diff` has one `ResourceImpact` and `worstImpact`.
 */

/** What an impact means to whoever deploys. */
export interface ImpactMeaning {
  /**
   * `fail`: the deploy must not go ahead as it is; `warn`: the planner could not judge it, or it undoes someone's
   * work; `notice`: worth knowing, nothing is lost; `quiet`: no finding of its own (counted where it happens).
   */
  readonly severity: 'fail' | 'warn' | 'notice' | 'quiet';
  /**
   * The deploy stops there: CloudFormation refuses the stack update or the create (`cdk deploy` leaves the stacks
   * after it undeployed), or the provisioner refuses the run before it applies anything (its custom resource fails).
   */
  readonly stopsDeploy: boolean;
  /** What it does, in a few words: the head of the finding that groups changes of this impact. */
  readonly title: string;
  /** The action (create, update, delete) already says all of it: a report line names no impact beside it. */
  readonly plain: boolean;
}

/** The impacts, worst first: the key order is the badness order ({@link worstFirst}). */
export const IMPACTS = {
  /**
   * Refused as it stands: CloudFormation refuses the update (an export in use, a replacement of a resource that
   * keeps its custom name), or OpenSearch would refuse a change (a template overlapping someone else's at the same
   * priority).
   */
  refused: { severity: 'fail', stopsDeploy: true, title: 'refused', plain: false },
  /** A create fails: a resource claims a name another one still holds. */
  fails: { severity: 'fail', stopsDeploy: true, title: 'fails to create', plain: false },
  /**
   * Data is lost: a resource with data or state is replaced or deleted, or existing indices are deleted sooner than
   * before (a shorter retention), or now.
   */
  'loses-data': { severity: 'fail', stopsDeploy: false, title: 'loses data', plain: false },
  /** Someone loses read or write access to indices that exist (a member or a pattern removed). */
  'loses-access': { severity: 'fail', stopsDeploy: false, title: 'access removed', plain: false },
  /** Resource types the schema table does not know: their replacements were not predicted. */
  unchecked: { severity: 'warn', stopsDeploy: false, title: 'not checked', plain: false },
  /** A hand edit of something kfek owns is reverted. */
  drift: { severity: 'warn', stopsDeploy: false, title: 'hand edits reverted', plain: false },
  /** A resource without state is replaced. */
  replaces: { severity: 'notice', stopsDeploy: false, title: 'replaced', plain: false },
  /** A named change of how the pipeline works (a switch of delivery): what it means is in its message. */
  switches: { severity: 'notice', stopsDeploy: false, title: 'switched', plain: false },
  /** A resource leaves its stack but stays in the account, unmanaged (DeletionPolicy Retain). */
  orphans: { severity: 'notice', stopsDeploy: false, title: 'left in the account, unmanaged', plain: false },
  /** Someone gains access. */
  'grants-access': { severity: 'notice', stopsDeploy: false, title: 'access added', plain: false },
  /** Existing indices are kept longer than before. */
  'keeps-longer': {
    severity: 'notice',
    stopsDeploy: false,
    title: 'existing indices are kept longer',
    plain: false,
  },
  /** Something that left the profile is kept (history stays readable and retained). */
  kept: { severity: 'notice', stopsDeploy: false, title: 'kept after leaving the profile', plain: false },
  /** A change that only the next index gets (static settings, mappings). */
  'next-index': { severity: 'notice', stopsDeploy: false, title: 'waits for the next index', plain: false },
  /** Anything else that changes. */
  change: { severity: 'notice', stopsDeploy: false, title: 'changed', plain: true },
  /** A resource without state is deleted. */
  deletes: { severity: 'quiet', stopsDeploy: false, title: 'deleted', plain: true },
  /** Nothing changes. */
  none: { severity: 'quiet', stopsDeploy: false, title: 'unchanged', plain: true },
} as const satisfies Readonly<Record<string, ImpactMeaning>>;

export type Impact = keyof typeof IMPACTS;
export type Severity = ImpactMeaning['severity'];

/** Every impact, worst first. */
export const IMPACT_ORDER = Object.keys(IMPACTS) as readonly Impact[];

const RANK: ReadonlyMap<string, number> = new Map(IMPACT_ORDER.map((impact, i) => [impact, i]));

/** `findings` ordered worst first by {@link IMPACTS}; equally bad ones keep their order. */
export function worstFirst<T extends { readonly impact: Impact }>(findings: readonly T[]): T[] {
  return [...findings].sort((a, b) => (RANK.get(a.impact) ?? 0) - (RANK.get(b.impact) ?? 0));
}
