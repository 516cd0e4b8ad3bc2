/**
 * The section readers of {@link resolveConfig} (core/config/resolve.ts): each reads one section of a merged profile
 * with its field rules and returns it typed; problems go to the {@link Reader}, so every problem of every section
 * is reported at once. Cross-section rules stay in resolve.ts.
 */
import { CONFIG_RULES as RULES } from '../contracts/config-rules';
import { DEFAULTS } from './defaults';
import { MAX_BULK_BYTES } from './delivery';
import { readCrossAccount } from './cross-account';
import { LOG_GROUP_HINT, LOG_GROUP_NAME, checkLogGroupName, readAccess, readPrefix } from './names';
import {
  MAX_VOLUME_GIB,
  MIN_VOLUME_GIB,
  readAggregatableFields,
  readTotalFieldsLimit,
} from './opensearch-limits';
import { type Json, type JsonObject, type Reader, isObject } from './reader';
import { OPENSEARCH_KINDS, readServerless } from './serverless';
import {
  type AlarmsConfig,
  DELIVERY_MODES,
  type DeliveryConfig,
  type DirectDeliveryConfig,
  INDEX_ROTATIONS,
  type KinesisFunctionConfig,
  type LogGroupSource,
  type OpenSearchConfig,
  type PipelineConfig,
  type ReconcileConfig,
  STREAM_MODES,
  type SourcesConfig,
  type StreamConfig,
  type TransformConfig,
} from './types';

const INSTANCE_TYPE = /^[a-z0-9]+\.[a-z0-9]+\.search$/;
const INSTANCE_HINT = 'an OpenSearch Service instance type such as "t3.small.search" or "r7g.large.search"';
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;

export function readStream(r: Reader, path: string): StreamConfig {
  const mode = r.oneOf(`${path}.mode`, STREAM_MODES);
  return {
    mode,
    shardCount: r.int(`${path}.shardCount`, 1, 10_000),
    retentionHours: r.int(`${path}.retentionHours`, 24, 8760),
  };
}

function readLogGroups(r: Reader, filterPattern: string, retentionDays: number): LogGroupSource[] {
  const groups = r.array('sources.logGroups');
  const seen = new Set<string>();
  const out: LogGroupSource[] = [];
  groups.forEach((entry, i) => {
    const path = `sources.logGroups[${i}]`;
    // A bare string is shorthand for an existing log group, subscribed with the default pattern.
    const obj: JsonObject =
      typeof entry === 'string' ? { name: entry, create: false } : isObject(entry) ? entry : {};
    if (typeof entry !== 'string' && !isObject(entry)) {
      r.problem(
        `${path} is ${JSON.stringify(entry)}; expected { "name": "...", "create": true|false } or a name.`,
      );
      return;
    }
    for (const key of Object.keys(obj)) {
      if (!['name', 'create', 'filterPattern', 'retentionDays'].includes(key)) {
        r.problem(
          `unknown setting ${path}.${key}; known settings here: create, filterPattern, name, retentionDays.`,
        );
      }
    }
    const name = r.str(`${path}.name`, LOG_GROUP_NAME, LOG_GROUP_HINT, obj.name);
    if (name !== '' && seen.has(name)) {
      r.problem(`${path}.name ${JSON.stringify(name)} is listed twice; list each log group once.`);
    }
    seen.add(name);
    const create = obj.create === undefined ? false : r.bool(`${path}.create`, obj.create);
    checkLogGroupName(r, `${path}.name`, name, create);
    out.push({
      name,
      create,
      filterPattern:
        obj.filterPattern === undefined
          ? filterPattern
          : r.str(`${path}.filterPattern`, /^.{0,1024}$/s, undefined, obj.filterPattern),
      retentionDays:
        obj.retentionDays === undefined
          ? retentionDays
          : r.retention(`${path}.retentionDays`, obj.retentionDays),
    });
  });
  return out;
}

/**
 * `delivery.aggregation`: on by default for the Lambda transport. The Pipes transport cannot aggregate (the pipe,
 * not kfek, writes each returned item as one record), so there the default resolves to false and an explicit
 * `true` in the profile is an error rather than a setting silently ignored.
 */
function readAggregation(r: Reader, profile: Json): boolean {
  const aggregation = r.bool('delivery.aggregation');
  if (r.raw('transport') !== 'pipes') return aggregation;
  const delivery = isObject(profile) ? profile.delivery : undefined;
  if (isObject(delivery) && delivery.aggregation === true) {
    r.problem(
      'delivery.aggregation is true but transport is "pipes": an EventBridge pipe writes every item the ' +
        'enrichment returns as its own record and cannot write KPL aggregated records. Remove ' +
        'delivery.aggregation (it is off with pipes) or use transport "lambda".',
    );
  }
  return false;
}

/** `sources`: the log groups, their default filter pattern and retention, the account policy, cross-account. */
export function readSources(r: Reader, env: PipelineConfig['env']): SourcesConfig {
  const filterPattern = r.str(
    'sources.filterPattern',
    /^.{0,1024}$/s,
    'a filter pattern of at most 1024 characters',
  );
  const retentionDays = r.retention('sources.retentionDays');
  return {
    logGroups: readLogGroups(r, filterPattern, retentionDays),
    filterPattern,
    retentionDays,
    accountPolicy: {
      enabled: r.bool('sources.accountPolicy.enabled'),
      filterPattern: r.str(
        'sources.accountPolicy.filterPattern',
        /^.{0,1024}$/s,
        'a filter pattern of at most 1024 characters',
      ),
      excludeLogGroups: r.strings('sources.accountPolicy.excludeLogGroups', LOG_GROUP_NAME, LOG_GROUP_HINT),
    },
    ...readCrossAccount(r, env),
  };
}

/** A Kinesis-driven function's settings under `section` (`transform`, `delivery.direct`). */
function readKinesisFunction(r: Reader, section: string): KinesisFunctionConfig {
  return {
    memoryMb: r.int(`${section}.memoryMb`, 128, 10_240),
    timeoutSeconds: r.int(`${section}.timeoutSeconds`, 1, 900),
    batchSize: r.int(`${section}.batchSize`, 1, 10_000),
    maxBatchingWindowSeconds: r.int(`${section}.maxBatchingWindowSeconds`, 0, 300),
    parallelizationFactor: r.int(`${section}.parallelizationFactor`, 1, 10),
    retryAttempts: r.int(`${section}.retryAttempts`, 0, 10_000),
    maxRecordAgeSeconds: r.int(`${section}.maxRecordAgeSeconds`, 60, 604_800),
  };
}

/** `transform`: the function and its event source mapping (or pipe). */
export function readTransform(r: Reader): TransformConfig {
  return {
    ...readKinesisFunction(r, 'transform'),
    logRetentionDays: r.retention('transform.logRetentionDays'),
    deadLetterPrefix: readPrefix(r, 'transform.deadLetterPrefix', DEFAULTS.transform.deadLetterPrefix),
  };
}

/** `delivery.direct`: the indexer and its event source mapping. Optional settings left out stay unset. */
function readDirect(r: Reader): DirectDeliveryConfig {
  const optional = (key: 'bulkMaxBytes' | 'concurrency', min: number, max: number): object => {
    const path = `delivery.direct.${key}`;
    return r.raw(path) === undefined ? {} : { [key]: r.int(path, min, max) };
  };
  return {
    ...readKinesisFunction(r, 'delivery.direct'),
    ...optional('bulkMaxBytes', 1024, MAX_BULK_BYTES),
    ...optional('concurrency', 1, 64),
  };
}

/** `delivery`: the mode, Firehose, the indexer of mode `direct` and the events stream's record format. */
export function readDelivery(r: Reader, overrides: Json): DeliveryConfig {
  return {
    mode: r.oneOf('delivery.mode', DELIVERY_MODES),
    direct: readDirect(r),
    bufferingIntervalSeconds: r.int('delivery.bufferingIntervalSeconds', 0, 900),
    bufferingSizeMb: r.int('delivery.bufferingSizeMb', 1, 100),
    indexPrefix: r.ruleStr(RULES.indexPrefix),
    indexRotation: r.oneOf('delivery.indexRotation', INDEX_ROTATIONS),
    retryDurationSeconds: r.int('delivery.retryDurationSeconds', 0, 7200),
    failedDocumentsPrefix: readPrefix(
      r,
      'delivery.failedDocumentsPrefix',
      DEFAULTS.delivery.failedDocumentsPrefix,
    ),
    logRetentionDays: r.retention('delivery.logRetentionDays'),
    aggregation: readAggregation(r, overrides),
  };
}

/** `openSearch`: the domain, the index template, retention and access. */
export function readOpenSearch(r: Reader): OpenSearchConfig {
  const warmAfterDays = r.raw('openSearch.retention.warmAfterDays');
  return {
    kind: r.oneOf('openSearch.kind', OPENSEARCH_KINDS),
    serverless: readServerless(r),
    // 2.7 is the oldest engine that has the `flat_object` type kfek's index template maps `kfek.collisions` to.
    engineVersion: r.str(
      'openSearch.engineVersion',
      /^(2\.([7-9]|\d{2,})|[3-9]\.\d+|[1-9]\d+\.\d+)$/,
      'an OpenSearch version 2.7 or later such as "2.19" (the index template maps kfek.collisions as flat_object, new in 2.7)',
    ),
    dataNodeInstanceType: r.str('openSearch.dataNodeInstanceType', INSTANCE_TYPE, INSTANCE_HINT),
    dataNodeCount: r.int('openSearch.dataNodeCount', 1, 80),
    volumeSizeGb: r.int('openSearch.volumeSizeGb', MIN_VOLUME_GIB, MAX_VOLUME_GIB),
    zoneAwareness: {
      enabled: r.bool('openSearch.zoneAwareness.enabled'),
      availabilityZoneCount: r.int('openSearch.zoneAwareness.availabilityZoneCount', 2, 3) as 2 | 3,
    },
    dedicatedMasters: {
      enabled: r.bool('openSearch.dedicatedMasters.enabled'),
      instanceType: r.str('openSearch.dedicatedMasters.instanceType', INSTANCE_TYPE, INSTANCE_HINT),
      count: r.int('openSearch.dedicatedMasters.count', 3, 5),
    },
    logRetentionDays: r.retention('openSearch.logRetentionDays'),
    auditLogs: r.bool('openSearch.auditLogs'),
    indexTemplate: {
      shards: r.ruleInt(RULES.shards),
      replicas: r.ruleInt(RULES.replicas),
      totalFieldsLimit: readTotalFieldsLimit(r),
      refreshSeconds: r.ruleInt(RULES.refreshSeconds),
      slowSearchWarnMs: r.ruleInt(RULES.slowSearchWarnMs),
      slowSearchInfoMs: r.ruleInt(RULES.slowSearchInfoMs),
      slowIndexWarnMs: r.ruleInt(RULES.slowIndexWarnMs),
      slowIndexInfoMs: r.ruleInt(RULES.slowIndexInfoMs),
      aggregatableFields: readAggregatableFields(r),
    },
    retention: {
      deleteAfterDays: r.ruleInt(RULES.deleteAfterDays),
      ...(warmAfterDays === undefined
        ? {}
        : { warmAfterDays: r.ruleInt(RULES.warmAfterDays, RULES.warmAfterDays.path, warmAfterDays) }),
    },
    access: readAccess(r),
  };
}

/** `alarms`: thresholds and the optional e-mail. */
export function readAlarms(r: Reader): AlarmsConfig {
  return {
    ...(r.raw('alarms.email') === undefined
      ? {}
      : { email: r.str('alarms.email', EMAIL, 'an e-mail address such as "ops@example.com"') }),
    iteratorAgeMs: r.int('alarms.iteratorAgeMs', 1000, 604_800_000),
    poisonRecords: r.int('alarms.poisonRecords', 1, 1_000_000),
    firehoseFreshnessSeconds: r.int('alarms.firehoseFreshnessSeconds', 60, 86_400),
    freeStorageMb: r.int('alarms.freeStorageMb', 1, 10_000_000),
    jvmMemoryPressurePercent: r.int('alarms.jvmMemoryPressurePercent', 1, 100),
  };
}

/** `reconcile`: the scheduled reconcile function. */
export function readReconcile(r: Reader): ReconcileConfig {
  return {
    enabled: r.bool('reconcile.enabled'),
    everyMinutes: r.int('reconcile.everyMinutes', 5, 60),
    lagMinutes: r.int('reconcile.lagMinutes', 1, 1440),
    heal: r.bool('reconcile.heal'),
    memoryMb: r.int('reconcile.memoryMb', 256, 10_240),
  };
}
