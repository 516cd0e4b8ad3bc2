import { physicalNamesFor } from '../../core/contracts/physical-names';
import * as path from 'node:path';
import {
  CdkJsonReadError,
  configFromCdkJson,
  indexNameFor,
  indexPatternFor,
  type PipelineConfig,
} from '../../core/config';
import { registryIndex } from '../../core/opensearch/registry';
import { type OpenSearchSpec, resolveOpenSearchSpec } from '../../core/opensearch/spec';
import { openSearchSpecInputOf } from '../../core/config/opensearch-spec';
import { LocalRunError } from './errors';
import { type LocalPipelineSpec, MOTO_ACCOUNT_ID } from './spec';

/** The repository root (cdk.json lives there). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/**
 * Reads cdk.json's `context` and resolves it with the CDK app's own `resolveConfig`, so `npm start` runs the
 * log groups, streams, batch size, index naming and template that `cdk deploy` would deploy.
 */
export function loadConfig(profile?: string, cdkJsonPath = path.join(REPO_ROOT, 'cdk.json')): PipelineConfig {
  try {
    return configFromCdkJson(cdkJsonPath, profile);
  } catch (error) {
    if (error instanceof CdkJsonReadError) throw new LocalRunError(error.message, { cause: error.cause });
    throw error;
  }
}

export interface LocalSpecOptions {
  /**
   * Suffix for stream and bucket names, so several runs against one moto never share a stream.
   * @default - none
   */
  readonly suffix?: string;
}

/**
 * Derives what the local runner creates from the pipeline config. Names follow `<name>-<profile>-...`; in AWS
 * CloudFormation picks the physical names, which the local run does not need to match. Everything that changes
 * behaviour (log groups and their filter patterns, shard counts, batch size, retries, timeout, memory,
 * dead-letter prefix, index prefix and rotation, retry duration, the transport and the pipe's batching window and
 * maximum record age) comes from the config unchanged.
 */
export function localSpecFromConfig(
  config: PipelineConfig,
  options: LocalSpecOptions = {},
): LocalPipelineSpec {
  const stem = `${config.name}-${config.profile}${options.suffix === undefined ? '' : `-${options.suffix}`}`;
  // The names the CDK app gives the deployed resources (one owner: core/contracts/physical-names.ts).
  const names = physicalNamesFor(stem);
  const { indexPrefix, indexRotation } = config.delivery;
  // An on-demand stream starts with 4 shards in AWS; locally a provisioned stream of that size stands in.
  const shards = (s: PipelineConfig['streams']['raw']): number => (s.mode === 'ON_DEMAND' ? 4 : s.shardCount);
  return {
    region: config.env.region ?? 'us-east-1',
    accountId: MOTO_ACCOUNT_ID,
    logGroups: config.sources.logGroups.map((group) => ({
      name: group.name,
      filterPattern: group.filterPattern,
      filterName: `${config.name}-to-raw-stream`,
    })),
    rawStream: { name: names.rawStream, shardCount: shards(config.streams.raw) },
    eventsStream: { name: names.eventsStream, shardCount: shards(config.streams.events) },
    deadLetterBucket: `${stem}-dead-letter`.toLowerCase(),
    deadLetterPrefix: config.transform.deadLetterPrefix,
    routes: config.routes,
    transport: config.transport,
    eventSource: {
      batchSize: config.transform.batchSize,
      retryAttempts: config.transform.retryAttempts,
      timeoutInMillis: config.transform.timeoutSeconds * 1000,
      memorySizeInMb: config.transform.memoryMb,
      functionName: names.transformFunction,
      maxBatchingWindowInMillis: config.transform.maxBatchingWindowSeconds * 1000,
      maxRecordAgeInMillis: config.transform.maxRecordAgeSeconds * 1000,
    },
    ...(config.transport === 'pipes'
      ? { pipe: { name: `${stem}-pipe`, deadLetterQueueName: `${stem}-pipe-dead-letter` } }
      : {}),
    delivery: {
      indexFor: (arrival) => indexNameFor(indexPrefix, indexRotation, arrival),
      indexPattern: indexPatternFor(indexPrefix, indexRotation),
      searchPattern: [indexPrefix, ...config.routes.map((r) => r.indexStem)]
        .map((stem) => indexPatternFor(stem, indexRotation))
        .join(','),
      retryDurationInMillis: config.delivery.retryDurationSeconds * 1000,
      aggregation: config.delivery.aggregation,
      indexPrefix,
      indexRotation,
      indexShards: openSearchSpecFromConfig(config).indexTemplate.shards,
      failedDocumentsPrefix: config.delivery.failedDocumentsPrefix,
      // Where the indexer reads the kept routes: a domain's ingest pipeline, or a collection's record. A collection
      // has no pipeline, and asking it for one is refused to the indexer's role by the data access policy
      // (test/e2e/serverless-teams.test.ts).
      ...(config.openSearch.kind === 'serverless'
        ? { routeRecord: registryIndex(openSearchSpecFromConfig(config).name) }
        : { ingestPipeline: openSearchSpecFromConfig(config).names.ingestPipeline }),
    },
  };
}

/**
 * The provisioning spec the Pipeline stack's OpenSearch provisioner (custom resource) applies, from the same config: template, retention
 * and names are identical; the local node has no security plugin, so there are no role mappings to make.
 */
export function openSearchSpecFromConfig(config: PipelineConfig): OpenSearchSpec {
  return resolveOpenSearchSpec(openSearchSpecInputOf(config));
}
