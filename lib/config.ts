/**
 * The CDK app's one reader of context and of the environment: turns the app's context (cdk.json, `-c` flags) and
 * the account/region the CDK CLI resolved (`CDK_DEFAULT_*`) into a validated {@link PipelineConfig}; nothing below
 * it in lib/ reads either. The model itself (types, defaults, validation) is CDK-free in core/config/ so the CLI
 * and the local runner read the same profiles without loading aws-cdk-lib.
 *
 * The other runtimes read the environment at their own edges, once: lambda/transform/env.ts (the transform's
 * variables, core/contracts/transform-env.ts), lambda/indexer/env.ts (the indexer's, core/contracts/indexer-env.ts),
 * lambda/opensearch-provisioner/handler.ts (`AWS_REGION`),
 * cli/main.ts (which hands `process.env` down as `io.env`) and the local runner's entry points in scripts/.
 */
import type { App } from 'aws-cdk-lib';
import { CONTEXT_KEY, PROFILE_CONTEXT_KEY, type PipelineConfig, resolveConfig } from '../core/config';

/**
 * The configuration of a CDK app: its context (cdk.json, `-c` flags) plus the account/region the CLI resolved
 * (`CDK_DEFAULT_ACCOUNT`/`CDK_DEFAULT_REGION`) when the profile does not pin them.
 */
export function configFromApp(
  app: App,
  env: Readonly<Record<string, string | undefined>> = process.env,
): PipelineConfig {
  const context: Record<string, unknown> = {};
  for (const key of [CONTEXT_KEY, PROFILE_CONTEXT_KEY]) {
    const value: unknown = app.node.tryGetContext(key);
    if (value !== undefined) context[key] = value;
  }
  const config = resolveConfig(context);
  return {
    ...config,
    env: {
      account: config.env.account ?? env.CDK_DEFAULT_ACCOUNT,
      region: config.env.region ?? env.CDK_DEFAULT_REGION,
    },
  };
}
