/**
 * Shared factory of the whole kfek app for infrastructure tests: the same composition as bin/kfek.ts
 * (lib/app.ts `buildKfek`), with cdk.json's real context, bundling skipped and cdk-nag optional.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { buildKfek, type KfekStacks } from '../../lib/app';
import { CONTEXT_KEY, resolveConfig, type PipelineConfig } from '../../core/config';
import { testOutdir } from './temp-dirs';

/** The context of the cdk.json that ships (feature flags and profiles). */
export const CDK_JSON_CONTEXT: Readonly<Record<string, unknown>> = (
  JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  }
).context;

/**
 * Whether a profile (cdk.json's shape, or overrides) deploys a domain rather than an OpenSearch Serverless collection
 * (`openSearch.kind: serverless`), which has no engine version, zones, Firehose, provisioner or domain roles.
 */
export function deploysDomain(profile: Readonly<Record<string, unknown>>): boolean {
  return (profile.openSearch as { kind?: string } | undefined)?.kind !== 'serverless';
}

export interface TestAppOptions {
  /**
   * A cdk.json profile to build.
   * @default 'sandbox'
   */
  readonly profile?: string;
  /**
   * When set, builds the profile `test` made of these overrides instead of a cdk.json profile.
   * @default - use `profile`
   */
  readonly overrides?: Record<string, unknown>;
  /**
   * Attach AwsSolutionsChecks and ServerlessChecks (synth then throws on unacknowledged findings).
   * @default false
   */
  readonly nag?: boolean;
}

export interface TestApp {
  readonly app: App;
  readonly config: PipelineConfig;
  readonly stacks: KfekStacks;
}

/** The context a test app runs with: cdk.json's, with bundling skipped (asset hashes still appear). */
export function testContext(options: TestAppOptions = {}): Record<string, unknown> {
  const context: Record<string, unknown> = { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] };
  if (options.overrides !== undefined) {
    context[CONTEXT_KEY] = { profiles: { test: options.overrides } };
  }
  return context;
}

/** Builds the whole app for a profile (environment-agnostic: no account/region). */
export function buildTestApp(options: TestAppOptions = {}): TestApp {
  const context = testContext(options);
  const profile = options.overrides !== undefined ? 'test' : (options.profile ?? 'sandbox');
  const app = new App({ context, outdir: testOutdir() });
  const config = resolveConfig(context, profile);
  const stacks = buildKfek(app, config);
  if (options.nag === true) {
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  }
  return { app, config, stacks };
}
