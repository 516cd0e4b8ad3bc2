/**
 * What a profile will deploy, read from the cloud assembly `cdk synth` wrote (manifest.json and the stack
 * templates). Reading the files is here; what the templates say (stack names, bootstrap version, domain sizing,
 * consumers, claimed names, subscriptions) is core/change-plan/stacks-plan.ts's, and the collection
 * core/opensearch/serverless-plan.ts's.
 *
 * The CLI never imports the CDK app (lib/app.ts, lib/stacks, lib/constructs), so it learns all of this from the
 * synthesized JSON, which is also exactly what CloudFormation will be asked to create.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asTemplate, type CfnTemplate } from '../../core/change-plan';
import { CliError } from '../errors';
import { type AssemblyStack, planOf, type StacksPlan } from '../../core/change-plan/stacks-plan';
import { isObject } from '../../core/json';
import { type CollectionPlan, collectionPlanOf } from '../../core/opensearch/serverless-plan';

/** The cloud assembly is missing, unreadable or not one of kfek's. */
export class AssemblyError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AssemblyError';
  }
}

export type { NamedResource } from '../../core/change-plan/stacks-plan';

/** What a profile will deploy: its stacks' plan and, on a serverless profile, the collection. */
export interface ProfilePlan extends StacksPlan {
  /** A serverless profile's collection and its policies (core/opensearch/serverless-plan.ts). */
  readonly collection?: CollectionPlan;
}

type JsonObject = Readonly<Record<string, unknown>>;

const obj = (v: unknown): JsonObject => (isObject(v) ? v : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (error) {
    throw new AssemblyError(
      `Cannot read ${file} (${error instanceof Error ? error.message : String(error)}): synthesize again ` +
        '(`npx cdk synth -c profile=<name>`) or drop --cdk-out.',
      { cause: error },
    );
  }
}

/** A stack template file, checked and typed once (core/change-plan's `CfnTemplate`, as the change planner reads it). */
function readTemplate(file: string): CfnTemplate {
  const json = readJson(file);
  try {
    return asTemplate(json, file);
  } catch (error) {
    throw new AssemblyError(`${error instanceof Error ? error.message : String(error)}: synthesize again`, {
      cause: error,
    });
  }
}

/** Reads the assembly in `dir` (a `cdk synth -o dir`) for `profile`. */
export function readPlan(dir: string, profile: string): ProfilePlan {
  const manifest = obj(readJson(join(dir, 'manifest.json')));
  const stacks: AssemblyStack[] = [];
  for (const [id, artifact] of Object.entries(obj(manifest.artifacts))) {
    const a = obj(artifact);
    if (a.type !== 'aws:cloudformation:stack') continue;
    const properties = obj(a.properties);
    const file = str(properties.templateFile);
    if (file === undefined) continue;
    stacks.push({
      id,
      stackName: str(properties.stackName) ?? id,
      properties,
      body: readTemplate(join(dir, file)),
      environment: str(a.environment),
      dependencies: Array.isArray(a.dependencies) ? a.dependencies.filter((d) => typeof d === 'string') : [],
    });
  }
  if (stacks.length === 0) {
    throw new AssemblyError(`${dir} holds no CloudFormation stacks: is it the output of \`cdk synth\`?`);
  }
  const collection = stacks.map((s) => collectionPlanOf(s.body.Resources ?? {})).find((c) => c !== undefined);
  return { ...planOf(profile, stacks), ...(collection === undefined ? {} : { collection }) };
}
