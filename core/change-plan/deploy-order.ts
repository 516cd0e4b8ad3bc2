/**
 * The assembly's stacks in the order `cdk deploy` deploys them (a stack after the stacks it depends on, otherwise
 * in manifest order), with their environments, and which of them a run of the doctor in one account and region
 * can see.
 */
import type { CfnTemplate } from './types';

export interface PlannedStack {
  /** Construct id (`Search`): what `cdk deploy` takes. */
  readonly id: string;
  readonly stackName: string;
  /** Undefined for an environment-agnostic stack (deployed to whoever's account and region deploys it). */
  readonly account: string | undefined;
  readonly region: string | undefined;
  /** Stack names of the stacks it depends on. */
  readonly dependsOn: readonly string[];
  readonly template: CfnTemplate;
}

/** What plannedStacks needs of a manifest artifact. */
export interface StackArtifact {
  readonly id: string;
  readonly stackName: string;
  readonly body: CfnTemplate;
  readonly environment: string | undefined;
  readonly dependencies: readonly string[];
}

function parseEnvironment(environment: string | undefined): { account?: string; region?: string } {
  const match = /^aws:\/\/([^/]+)\/(.+)$/.exec(environment ?? '');
  const known = (v: string | undefined): v is string => v !== undefined && !v.startsWith('unknown-');
  return {
    ...(known(match?.[1]) ? { account: match[1] } : {}),
    ...(known(match?.[2]) ? { region: match[2] } : {}),
  };
}

/** The stacks, dependencies first. */
export function plannedStacks(artifacts: readonly StackArtifact[]): PlannedStack[] {
  const byId = new Map(artifacts.map((a) => [a.id, a]));
  const ordered: PlannedStack[] = [];
  const visiting = new Set<string>();
  const done = new Set<string>();
  const visit = (a: StackArtifact): void => {
    // A cycle cannot be synthesized (CDK refuses it); the guard only keeps a hand-made manifest from looping.
    if (done.has(a.id) || visiting.has(a.id)) return;
    visiting.add(a.id);
    const deps = a.dependencies.flatMap((d) => {
      const dep = byId.get(d);
      return dep === undefined ? [] : [dep];
    });
    deps.forEach(visit);
    done.add(a.id);
    const { account, region } = parseEnvironment(a.environment);
    ordered.push({
      id: a.id,
      stackName: a.stackName,
      account,
      region,
      dependsOn: deps.map((d) => d.stackName),
      template: a.body,
    });
  };
  artifacts.forEach(visit);
  return ordered;
}

export interface StackScope {
  /** The stacks this account and region deploy, in deploy order. */
  readonly inScope: readonly PlannedStack[];
  /** The others, each with why. */
  readonly leftOut: readonly { readonly stack: PlannedStack; readonly why: string }[];
}

/**
 * The stacks that deploy to `account` in `region`. An environment-agnostic stack deploys wherever the caller's
 * credentials point, unless other stacks of the app pin an account: then it is a template for other accounts (the
 * cross-account source stacks, docs/multi-account.md).
 */
export function stackScope(
  stacks: readonly PlannedStack[],
  account: string | undefined,
  region: string,
): StackScope {
  const pinned = stacks.some((s) => s.account !== undefined);
  const inScope: PlannedStack[] = [];
  const leftOut: { stack: PlannedStack; why: string }[] = [];
  for (const stack of stacks) {
    if (stack.region !== undefined && stack.region !== region) {
      leftOut.push({ stack, why: `region ${stack.region}: run the doctor with --region ${stack.region}` });
    } else if (stack.account === undefined ? pinned : account !== undefined && stack.account !== account) {
      leftOut.push({
        stack,
        why: stack.account === undefined ? 'deployed by other accounts' : `account ${stack.account}`,
      });
    } else {
      inScope.push(stack);
    }
  }
  return { inScope, leftOut };
}
