/**
 * The cdk.json profile as the CLI sees it (every command reads it through its run's context, cli/context.ts): the
 * log groups a profile subscribes, so a built-in saved query runs on the same groups the Monitoring stack saves it
 * with (`kfek query --name errors-by-15m` needs no `--log-group`), its streams, routes and prefixes. Reads cdk.json with `configFromCdkJson` from the CDK-free config model (core/config.ts) that
 * the CDK app also uses, so the CLI and `cdk deploy` can never disagree on a profile.
 */
import * as path from 'node:path';
import {
  CdkJsonReadError,
  ConfigError,
  type PipelineConfig,
  UnknownProfileError,
  configFromCdkJson,
} from '../core/config';
import { CliError, UsageError } from './errors';

/** The project's cdk.json (the CLI runs from the project: `npx kfek`). */
export const PROJECT_CDK_JSON = path.resolve(__dirname, '..', 'cdk.json');

/**
 * The whole resolved config of `profile`.
 * @param profile - @default - cdk.json's context `profile`, else `sandbox` (as `cdk deploy`)
 * @param readHint - appended to the message when cdk.json cannot be read
 * @throws UsageError for an unknown profile; CliError when cdk.json cannot be read or the profile is invalid
 */
export function profileConfig(
  profile?: string,
  cdkJsonPath: string = PROJECT_CDK_JSON,
  readHint = '',
): PipelineConfig {
  try {
    return configFromCdkJson(cdkJsonPath, profile);
  } catch (error) {
    if (error instanceof CdkJsonReadError) {
      throw new CliError(`${error.message}${readHint}`, { cause: error.cause });
    }
    if (error instanceof UnknownProfileError) {
      throw new UsageError(
        `unknown config profile ${JSON.stringify(error.profile)}: cdk.json defines ` +
          `${error.known.map((known) => JSON.stringify(known)).join(', ') || 'none'}; pass one with --profile NAME`,
      );
    }
    if (error instanceof ConfigError) throw new CliError(error.message, { cause: error });
    throw error;
  }
}
