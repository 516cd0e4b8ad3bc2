/**
 * Profile resolution: merges a profile over {@link DEFAULTS}, reads every section with its rules, cross-checks
 * sections against each other and reports all problems at once. It stays one file because the section readers
 * share the pattern constants and the {@link Reader}; each reader is small.
 */
import { readFileSync } from 'node:fs';
import { CONTEXT_KEY, DEFAULT_PROFILE, DEFAULTS, PROFILE_CONTEXT_KEY } from './defaults';
import { readCrossAccount } from './cross-account';
import { CdkJsonReadError, ConfigValidationError, UnknownProfileError } from './errors';
import {
  LOG_GROUP_HINT,
  LOG_GROUP_NAME,
  REGION,
  REGION_HINT,
  checkLogGroupName,
  checkPrefixesApart,
  readAccess,
  readPrefix,
} from './names';
import { MAX_VOLUME_GIB, MIN_VOLUME_GIB, checkVolumeSize, readTotalFieldsLimit } from './opensearch-limits';
import { type Json, type JsonObject, Reader, isObject, merge } from './reader';
import {
  INDEX_ROTATIONS,
  type LogGroupSource,
  type PipelineConfig,
  REMOVAL_POLICIES,
  STREAM_MODES,
  type StreamConfig,
  TRANSPORTS,
} from './types';

const NAME = /^[a-z][a-z0-9-]{0,15}$/;
const NAME_HINT = 'lowercase letters, digits and hyphens, starting with a letter, at most 16 characters';
// OpenSearch index names: lowercase, no \ / * ? " < > | space , #, not starting with - _ +.
const INDEX_PREFIX = /^[a-z0-9][a-z0-9._-]{0,199}$/;
const INDEX_HINT =
  'a lowercase OpenSearch index name prefix (a-z 0-9 . _ -, not starting with . _ -), e.g. "logs"';
const INSTANCE_TYPE = /^[a-z0-9]+\.[a-z0-9]+\.search$/;
const INSTANCE_HINT = 'an OpenSearch Service instance type such as "t3.small.search" or "r7g.large.search"';
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const ACCOUNT = /^\d{12}$/;

function readStream(r: Reader, path: string): StreamConfig {
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

/** Cross-field rules, checked after every field has a typed value. */
function crossCheck(r: Reader, c: Omit<PipelineConfig, 'profile'>): void {
  const os = c.openSearch;
  checkVolumeSize(r, os);
  if (os.zoneAwareness.enabled && os.dataNodeCount % os.zoneAwareness.availabilityZoneCount !== 0) {
    r.problem(
      `openSearch.dataNodeCount is ${os.dataNodeCount} but zone awareness spreads nodes over ` +
        `${os.zoneAwareness.availabilityZoneCount} zones; use a multiple of ${os.zoneAwareness.availabilityZoneCount}.`,
    );
  }
  if (os.dedicatedMasters.enabled && os.dedicatedMasters.count % 2 === 0) {
    r.problem(
      `openSearch.dedicatedMasters.count is ${os.dedicatedMasters.count}; use an odd number (3 or 5) for a quorum.`,
    );
  }
  if (os.indexTemplate.replicas >= os.dataNodeCount) {
    r.problem(
      `openSearch.indexTemplate.replicas is ${os.indexTemplate.replicas} with ${os.dataNodeCount} data node(s); ` +
        `replicas must be below the data node count or every index stays yellow. Lower replicas or add nodes.`,
    );
  }
  for (const kind of ['Search', 'Index'] as const) {
    const info = os.indexTemplate[`slow${kind}InfoMs`];
    const warn = os.indexTemplate[`slow${kind}WarnMs`];
    if (info >= warn) {
      r.problem(
        `openSearch.indexTemplate.slow${kind}InfoMs (${info}) must be below slow${kind}WarnMs (${warn}): INFO logs ` +
          'the slower operations first, WARN only the slowest.',
      );
    }
  }
  checkPrefixesApart(r, [
    ['transform.deadLetterPrefix', c.transform.deadLetterPrefix],
    ['delivery.failedDocumentsPrefix', c.delivery.failedDocumentsPrefix],
  ]);
  if (c.failedRecords.expireAfterDays <= os.retention.deleteAfterDays) {
    r.problem(
      `failedRecords.expireAfterDays (${c.failedRecords.expireAfterDays}) must be above ` +
        `openSearch.retention.deleteAfterDays (${os.retention.deleteAfterDays}): failed documents, dead letters and ` +
        'discarded batches would be deleted while the indexed logs around them are still searchable, so a gap could ' +
        'no longer be replayed. Raise failedRecords.expireAfterDays or lower the index retention.',
    );
  }
  // The alarm fires at or below this much free space per node: at or above the whole volume it would always fire.
  // (The monitoring construct checks the same for its own props; this message names the config keys.)
  if (c.alarms.freeStorageMb >= os.volumeSizeGb * 1024) {
    r.problem(
      `alarms.freeStorageMb (${c.alarms.freeStorageMb}) must be below openSearch.volumeSizeGb ` +
        `(${os.volumeSizeGb} GiB = ${os.volumeSizeGb * 1024} MB) or the free-storage alarm always fires; ` +
        `use about 25% of the volume (${Math.floor(os.volumeSizeGb * 256)}).`,
    );
  }
  const warm = os.retention.warmAfterDays;
  if (warm !== undefined) {
    // ISM's warm_migration needs UltraWarm nodes, and the domain kfek deploys has none (no config asks for them):
    // every index would fail its warm step and stay in ISM's failed state, never reaching delete.
    r.problem(
      `openSearch.retention.warmAfterDays (${warm}) needs UltraWarm nodes, which kfek's domain does not have: ` +
        'the ISM warm step would fail on every index and block its deletion. Remove warmAfterDays ' +
        `(indices stay hot until deleteAfterDays, ${os.retention.deleteAfterDays}).`,
    );
  }
}

/**
 * CloudWatch Logs allows one account-level subscription filter policy per account and Region
 * (https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutAccountPolicy.html): the one physical
 * claim that profiles cannot share even under different names, so the second profile's deploy would fail. Two
 * profiles may share an account (or region) unless both pin it to different values: an unpinned profile deploys
 * wherever the CLI points, which may be the other's account and region, so it counts as "maybe the same".
 */
function checkAccountPolicyAcrossProfiles(
  r: Reader,
  selected: string,
  env: PipelineConfig['env'],
  profiles: JsonObject,
): void {
  const mayShare = (a: string | undefined, b: unknown): boolean =>
    a === undefined || typeof b !== 'string' || a === b;
  for (const [other, raw] of Object.entries(profiles)) {
    if (other === selected || !isObject(raw)) continue;
    const sources = isObject(raw.sources) ? raw.sources : {};
    const policy = isObject(sources.accountPolicy) ? sources.accountPolicy : {};
    if (policy.enabled === true && mayShare(env.account, raw.account) && mayShare(env.region, raw.region)) {
      r.problem(
        `sources.accountPolicy.enabled is true here and in profile "${other}", and the two may deploy to the same ` +
          'account and region (one pins neither or the same "account"/"region"); CloudWatch Logs allows one ' +
          'account-level subscription filter policy per account and Region, so the second deploy would fail. ' +
          `Enable it in one profile only, or pin different "account" or "region" in both.`,
      );
    }
  }
}

/**
 * Resolves the configuration of `profile` (default: context `profile`, else `sandbox`) from a CDK context object
 * (the `context` of cdk.json, or `app.node` context). Pure: no env access, no CDK App needed.
 * @throws UnknownProfileError when the profile is not defined (the default profile may be absent: defaults apply)
 * @throws ConfigValidationError listing every invalid setting
 */
export function resolveConfig(context: Readonly<Record<string, unknown>>, profile?: string): PipelineConfig {
  const selected =
    profile ??
    (typeof context[PROFILE_CONTEXT_KEY] === 'string' ? context[PROFILE_CONTEXT_KEY] : DEFAULT_PROFILE);
  const section = context[CONTEXT_KEY];
  const profiles = isObject(section) && isObject(section.profiles) ? section.profiles : {};
  // Own keys only: a profile named "constructor" or "toString" is not defined because every object inherits one.
  const defined = Object.hasOwn(profiles, selected);
  if (!defined && selected !== DEFAULT_PROFILE) {
    throw new UnknownProfileError(selected, Object.keys(profiles));
  }
  const problems: string[] = [];
  if (
    section !== undefined &&
    !(isObject(section) && (section.profiles === undefined || isObject(section.profiles)))
  ) {
    problems.push(
      `context "${CONTEXT_KEY}" must be { "profiles": { "NAME": { ... } } }, got ${JSON.stringify(section)}.`,
    );
  }
  // A profile that is defined but null (or not an object) is an error, never "no overrides": `"production": null`
  // would otherwise deploy the sandbox defaults under the production name.
  const overrides = defined ? profiles[selected] : {};
  if (!isObject(overrides)) {
    throw new ConfigValidationError(selected, [
      ...problems,
      `the profile "${selected}" is ${JSON.stringify(overrides)}; expected an object of settings such as ` +
        '{ "removalPolicy": "retain" } ({} keeps every default).',
    ]);
  }
  const merged = merge(DEFAULTS, overrides, '', problems);
  const r = new Reader(merged);
  r.problems.push(...problems);

  const filterPattern = r.str(
    'sources.filterPattern',
    /^.{0,1024}$/s,
    'a filter pattern of at most 1024 characters',
  );
  const retentionDays = r.retention('sources.retentionDays');
  const name = r.str('name', NAME, NAME_HINT);
  const warmAfterDays = r.raw('openSearch.retention.warmAfterDays');

  const env = {
    account: r.optStr('account', ACCOUNT, 'a 12-digit AWS account id'),
    region: r.optStr('region', REGION, REGION_HINT),
  };

  const body: Omit<PipelineConfig, 'profile'> = {
    name,
    env,
    removalPolicy: r.oneOf('removalPolicy', REMOVAL_POLICIES),
    transport: r.oneOf('transport', TRANSPORTS),
    sources: {
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
    },
    streams: { raw: readStream(r, 'streams.raw'), events: readStream(r, 'streams.events') },
    transform: {
      memoryMb: r.int('transform.memoryMb', 128, 10_240),
      timeoutSeconds: r.int('transform.timeoutSeconds', 1, 900),
      batchSize: r.int('transform.batchSize', 1, 10_000),
      maxBatchingWindowSeconds: r.int('transform.maxBatchingWindowSeconds', 0, 300),
      parallelizationFactor: r.int('transform.parallelizationFactor', 1, 10),
      retryAttempts: r.int('transform.retryAttempts', 0, 10_000),
      maxRecordAgeSeconds: r.int('transform.maxRecordAgeSeconds', 60, 604_800),
      logRetentionDays: r.retention('transform.logRetentionDays'),
      deadLetterPrefix: readPrefix(r, 'transform.deadLetterPrefix', DEFAULTS.transform.deadLetterPrefix),
    },
    delivery: {
      bufferingIntervalSeconds: r.int('delivery.bufferingIntervalSeconds', 0, 900),
      bufferingSizeMb: r.int('delivery.bufferingSizeMb', 1, 100),
      indexPrefix: r.str('delivery.indexPrefix', INDEX_PREFIX, INDEX_HINT),
      indexRotation: r.oneOf('delivery.indexRotation', INDEX_ROTATIONS),
      retryDurationSeconds: r.int('delivery.retryDurationSeconds', 0, 7200),
      failedDocumentsPrefix: readPrefix(
        r,
        'delivery.failedDocumentsPrefix',
        DEFAULTS.delivery.failedDocumentsPrefix,
      ),
      logRetentionDays: r.retention('delivery.logRetentionDays'),
      aggregation: readAggregation(r, overrides),
    },
    openSearch: {
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
        shards: r.int('openSearch.indexTemplate.shards', 1, 1024),
        replicas: r.int('openSearch.indexTemplate.replicas', 0, 15),
        totalFieldsLimit: readTotalFieldsLimit(r),
        refreshSeconds: r.int('openSearch.indexTemplate.refreshSeconds', 1, 3600),
        slowSearchWarnMs: r.int('openSearch.indexTemplate.slowSearchWarnMs', 1, 3_600_000),
        slowSearchInfoMs: r.int('openSearch.indexTemplate.slowSearchInfoMs', 1, 3_600_000),
        slowIndexWarnMs: r.int('openSearch.indexTemplate.slowIndexWarnMs', 1, 3_600_000),
        slowIndexInfoMs: r.int('openSearch.indexTemplate.slowIndexInfoMs', 1, 3_600_000),
      },
      retention: {
        deleteAfterDays: r.int('openSearch.retention.deleteAfterDays', 1, 36_500),
        ...(warmAfterDays === undefined
          ? {}
          : { warmAfterDays: r.int('openSearch.retention.warmAfterDays', 1, 36_500, warmAfterDays) }),
      },
      access: readAccess(r),
    },
    failedRecords: {
      expireAfterDays: r.int('failedRecords.expireAfterDays', 1, 36_500),
    },
    alarms: {
      ...(r.raw('alarms.email') === undefined
        ? {}
        : { email: r.str('alarms.email', EMAIL, 'an e-mail address such as "ops@example.com"') }),
      iteratorAgeMs: r.int('alarms.iteratorAgeMs', 1000, 604_800_000),
      poisonRecords: r.int('alarms.poisonRecords', 1, 1_000_000),
      firehoseFreshnessSeconds: r.int('alarms.firehoseFreshnessSeconds', 60, 86_400),
      freeStorageMb: r.int('alarms.freeStorageMb', 1, 10_000_000),
      jvmMemoryPressurePercent: r.int('alarms.jvmMemoryPressurePercent', 1, 100),
    },
  };
  crossCheck(r, body);
  if (body.sources.accountPolicy.enabled) {
    checkAccountPolicyAcrossProfiles(r, selected, body.env, profiles);
  }
  if (`${name}-${selected}`.length > 28 || !/^[a-z][a-z0-9-]*$/.test(selected)) {
    r.problem(
      `the domain name "${name}-${selected}" (name + "-" + profile) must be 3-28 lowercase letters, digits and ` +
        `hyphens; shorten "name" or the profile name.`,
    );
  }
  if (r.problems.length > 0) throw new ConfigValidationError(selected, r.problems);
  return { profile: selected, ...body };
}

/**
 * The configuration of a profile as `cdk deploy` would resolve it, read straight from a cdk.json: the reader for
 * code that runs outside a CDK app (the local runner, the CLI).
 * @throws CdkJsonReadError when the file cannot be read or parsed; the errors of {@link resolveConfig} otherwise
 */
export function configFromCdkJson(cdkJsonPath: string, profile?: string): PipelineConfig {
  let context: Record<string, unknown>;
  try {
    const cdkJson = JSON.parse(readFileSync(cdkJsonPath, 'utf8')) as { context?: Record<string, unknown> };
    context = cdkJson.context ?? {};
  } catch (error) {
    throw new CdkJsonReadError(cdkJsonPath, error);
  }
  return resolveConfig(context, profile);
}
