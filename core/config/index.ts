/**
 * The pipeline's configuration model: types, documented defaults, profile resolution and validation. CDK-free, so
 * the CDK app (through lib/config.ts, the one reader of CDK context), the CLI and the local runner share it.
 *
 * cdk.json holds documented defaults here ({@link DEFAULTS}) and named profiles under the context key `kfek`:
 *
 * ```json
 * "kfek": { "profiles": { "sandbox": { ... }, "production": { ... } } }
 * ```
 *
 * Each profile is a partial override of the defaults (objects merge key by key, arrays and scalars replace).
 * `cdk synth -c profile=production` picks one; `sandbox` is the default. The result is validated as a whole and
 * every problem is reported at once, with the bad value and how to fix it.
 *
 * {@link resolveConfig} is pure (no CDK App, no env), so the local runner of `npm start` can read cdk.json with it
 * and create the same log groups, streams and index names locally.
 */
export * from './types';
export * from './errors';
export * from './serverless';
export { CONTEXT_KEY, DEFAULT_PROFILE, DEFAULTS, PROFILE_CONTEXT_KEY } from './defaults';
export { indexNameFor, indexPatternFor } from '../contracts/index-naming';
export { configFromCdkJson, reconcileLagMillis, resolveConfig } from './resolve';
export { isCrossAccount } from './cross-account';
export { routeOverlapWarnings } from './route-overlaps';
export {
  retiredNamesHours,
  SHARDS_PER_DATA_NODE,
  shardBudget,
  shardBudgetOf,
  SYSTEM_SHARD_RESERVE,
  type ShardBudget,
  type ShardBudgetInput,
} from './opensearch-budget';
