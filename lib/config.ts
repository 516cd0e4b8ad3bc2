/**
 * The CDK app's one reader of context: turns the app's context (cdk.json, `-c` flags) and the account/region the
 * CDK CLI resolved into a validated {@link PipelineConfig}. The model itself (types, defaults, validation) is
 * CDK-free in core/config.ts so the CLI and the local runner read the same profiles without loading aws-cdk-lib.
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
