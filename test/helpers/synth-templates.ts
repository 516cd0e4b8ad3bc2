/**
 * Synthesizes a whole kfek app for a profile config and returns what a change plan needs: each stack's template by
 * CloudFormation stack name, the deploy order `cdk deploy` follows (dependencies first), and for reading results,
 * each resource's construct path by stack and logical id (templates synthesized in tests carry no path metadata).
 */
import { CfnResource, Stack } from 'aws-cdk-lib';
import type { CfnTemplate } from '../../core/change-plan';
import { buildTestApp } from './app';

export interface SynthesizedApp {
  readonly templates: Readonly<Record<string, CfnTemplate>>;
  /** Stack names, dependencies first. */
  readonly order: readonly string[];
  /** `stackName` -> logical id -> construct path (`Pipeline/Transform/Function/Resource`). */
  readonly paths: ReadonlyMap<string, ReadonlyMap<string, string>>;
  /** `stackName` -> the stack's construct id, the CLI's selector (`Pipeline`, `DestinationEuWest1`). */
  readonly ids: ReadonlyMap<string, string>;
  /**
   * `stackName` -> its environment (`aws://111122223333/eu-west-1`, `aws://unknown-account/unknown-region`).
   * Exports and most names are per account and region: plan each environment's stacks on their own.
   */
  readonly environments: ReadonlyMap<string, string>;
}

/** The profile `test` made of `profile` (a cdk.json profile object), synthesized with bundling skipped. */
export function synthProfile(profile: Record<string, unknown>): SynthesizedApp {
  const { app } = buildTestApp({ overrides: profile });
  const assembly = app.synth();
  const templates: Record<string, CfnTemplate> = {};
  const byArtifactId = new Map<string, string>();
  for (const stack of assembly.stacks) {
    templates[stack.stackName] = stack.template as CfnTemplate;
    byArtifactId.set(stack.id, stack.stackName);
  }
  // Depth-first over the manifest's dependencies: a stack comes after every stack it depends on.
  const order: string[] = [];
  const visit = (artifactId: string): void => {
    const name = byArtifactId.get(artifactId);
    if (name === undefined || order.includes(name)) return;
    const artifact = assembly.getStackArtifact(artifactId);
    for (const dependency of artifact.dependencies) visit(dependency.id);
    order.push(name);
  };
  for (const stack of assembly.stacks) visit(stack.id);

  const paths = new Map<string, Map<string, string>>();
  for (const construct of app.node.findAll()) {
    if (!CfnResource.isCfnResource(construct)) continue;
    const stack = Stack.of(construct);
    const logicalId = stack.resolve(construct.logicalId) as string;
    const byId = paths.get(stack.stackName) ?? new Map<string, string>();
    byId.set(logicalId, construct.node.path);
    paths.set(stack.stackName, byId);
  }
  const ids = new Map(assembly.stacks.map((s) => [s.stackName, s.hierarchicalId]));
  const environments = new Map(assembly.stacks.map((s) => [s.stackName, s.environment.name]));
  return { templates, order, paths, ids, environments };
}
