/**
 * Profile resolution: selects the profile, merges it over {@link DEFAULTS}, reads every section with its rules
 * (the section readers are in ./sections.ts), cross-checks sections against each other and reports all problems
 * at once.
 */
import { readFileSync } from 'node:fs';
import { CONFIG_RULES as RULES, slowLogOrderProblems } from '../contracts/config-rules';
import { MAX_STEM_LENGTH } from '../contracts/physical-names';
import { CONTEXT_KEY, DEFAULT_PROFILE, DEFAULTS, PROFILE_CONTEXT_KEY } from './defaults';
import { checkDirect, firehoseBoundSeconds } from './delivery';
import { CdkJsonReadError, ConfigValidationError, UnknownProfileError } from './errors';
import { REGION, REGION_HINT, checkPrefixesApart } from './names';
import { checkIndexBudget } from './opensearch-budget';
import { checkVolumeSize } from './opensearch-limits';
import { type JsonObject, Reader, isObject, merge } from './reader';
import { checkRoutes, readRoutes } from './routes';
import { checkServerless } from './serverless';
import {
  readAlarms,
  readDelivery,
  readOpenSearch,
  readReconcile,
  readSources,
  readStream,
  readTransform,
} from './sections';
import { type PipelineConfig, REMOVAL_POLICIES, TRANSPORTS } from './types';

const NAME = /^[a-z][a-z0-9-]{0,15}$/;
const NAME_HINT = 'lowercase letters, digits and hyphens, starting with a letter, at most 16 characters';
const ACCOUNT = /^\d{12}$/;

/** Cross-field rules, checked after every field has a typed value. */
function crossCheck(r: Reader, c: Omit<PipelineConfig, 'profile'>): void {
  const os = c.openSearch;
  checkVolumeSize(r, os);
  checkIndexBudget(r, c);
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
  for (const problem of slowLogOrderProblems('openSearch.indexTemplate', os.indexTemplate))
    r.problem(problem);
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
  // A batch Firehose is still retrying (or buffering) is late, not lost: the lag must outlast it, or the reconcile
  // function would call its events missing and send them again. (`kfek reconcile` takes the longer of the two.)
  const deliverySeconds = firehoseBoundSeconds(c.delivery);
  if (c.reconcile.enabled && c.reconcile.lagMinutes * 60 < deliverySeconds) {
    r.problem(
      `reconcile.lagMinutes (${c.reconcile.lagMinutes}) must cover Firehose's retry duration and buffering plus a ` +
        `minute (${deliverySeconds} s): events of a batch Firehose is still retrying would be judged missing. Use ` +
        `${Math.ceil(deliverySeconds / 60)} or more.`,
    );
  }
  checkDirect(r, c.delivery);
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
 * The delivery lag reconcile judges with (milliseconds): `reconcile.lagMinutes`, or Firehose's retry duration and
 * buffering plus a minute when that is longer (a profile with reconcile off may leave the lag at its default).
 */
export function reconcileLagMillis(config: Pick<PipelineConfig, 'reconcile' | 'delivery'>): number {
  return Math.max(config.reconcile.lagMinutes * 60, firehoseBoundSeconds(config.delivery)) * 1000;
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

  const name = r.str('name', NAME, NAME_HINT);
  const env = {
    account: r.optStr('account', ACCOUNT, 'a 12-digit AWS account id'),
    region: r.optStr('region', REGION, REGION_HINT),
  };

  const openSearch = readOpenSearch(r);
  const body: Omit<PipelineConfig, 'profile'> = {
    name,
    env,
    removalPolicy: r.oneOf('removalPolicy', REMOVAL_POLICIES),
    transport: r.oneOf('transport', TRANSPORTS),
    sources: readSources(r, env),
    streams: { raw: readStream(r, 'streams.raw'), events: readStream(r, 'streams.events') },
    transform: readTransform(r),
    delivery: readDelivery(r, overrides),
    openSearch,
    failedRecords: {
      expireAfterDays: r.ruleInt(RULES.expireAfterDays),
    },
    alarms: readAlarms(r),
    routes: readRoutes(r, openSearch.retention.deleteAfterDays),
    reconcile: readReconcile(r),
  };
  crossCheck(r, body);
  checkServerless(r, body);
  checkRoutes(r, body);
  if (body.sources.accountPolicy.enabled) {
    checkAccountPolicyAcrossProfiles(r, selected, body.env, profiles);
  }
  if (`${name}-${selected}`.length > MAX_STEM_LENGTH || !/^[a-z][a-z0-9-]*$/.test(selected)) {
    r.problem(
      `the domain name "${name}-${selected}" (name + "-" + profile) must be 3-${MAX_STEM_LENGTH} lowercase letters, digits and ` +
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
