/**
 * The pipeline's configuration: the ONLY module that reads CDK context or the environment.
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
import { readFileSync } from 'node:fs';
import type { App } from 'aws-cdk-lib';

// ---------------------------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------------------------

/** How raw records get from the raw stream through the transform to the events stream. */
export type Transport = 'lambda' | 'pipes';
/** Kinesis capacity mode. */
export type StreamMode = 'PROVISIONED' | 'ON_DEMAND';
/** Firehose `IndexRotationPeriod` for the OpenSearch destination. */
export type IndexRotation = 'NoRotation' | 'OneHour' | 'OneDay' | 'OneWeek' | 'OneMonth';
/** What happens to data-bearing resources when their stack is deleted or they are replaced. */
export type RemovalPolicyName = 'destroy' | 'retain';

export const TRANSPORTS: readonly Transport[] = ['lambda', 'pipes'];
export const STREAM_MODES: readonly StreamMode[] = ['PROVISIONED', 'ON_DEMAND'];
export const INDEX_ROTATIONS: readonly IndexRotation[] = [
  'NoRotation',
  'OneHour',
  'OneDay',
  'OneWeek',
  'OneMonth',
];
export const REMOVAL_POLICIES: readonly RemovalPolicyName[] = ['destroy', 'retain'];

/**
 * CloudWatch Logs retention values the API accepts (days). Anything else is rejected by `PutRetentionPolicy`.
 * https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_PutRetentionPolicy.html
 */
export const LOG_RETENTION_DAYS: readonly number[] = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
];

/** One log group to subscribe to the raw stream. */
export interface LogGroupSource {
  /** The log group name, e.g. `/kfek/sandbox/app`. */
  readonly name: string;
  /** True: the Sources stack creates it (STANDARD class, retention set). False: it exists already; subscribe only. */
  readonly create: boolean;
  /** Subscription filter pattern; `''` forwards every event. Falls back to `sources.filterPattern`. */
  readonly filterPattern: string;
  /** Retention of a created log group (days). Falls back to `sources.retentionDays`. Ignored for existing groups. */
  readonly retentionDays: number;
}

export interface SourcesConfig {
  readonly logGroups: readonly LogGroupSource[];
  /** Default subscription filter pattern (`''` = all events). */
  readonly filterPattern: string;
  /** Default retention (days) of the log groups kfek creates. */
  readonly retentionDays: number;
  /** Account-level subscription filter policy (every log group in the account, except the pipeline's own). */
  readonly accountPolicy: {
    readonly enabled: boolean;
    /** Filter pattern of the account policy (`''` = all events). */
    readonly filterPattern: string;
    /** Further log group names to exclude, beyond the pipeline's own (which are always excluded). */
    readonly excludeLogGroups: readonly string[];
  };
}

export interface StreamConfig {
  readonly mode: StreamMode;
  /** Shards when `mode` is PROVISIONED (ignored for ON_DEMAND). */
  readonly shardCount: number;
  /** How long records stay readable (hours, 24..8760). */
  readonly retentionHours: number;
}

export interface TransformConfig {
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
  /** Records per invocation (event source mapping or pipe). */
  readonly batchSize: number;
  /** Seconds to gather a batch before invoking (0..300). */
  readonly maxBatchingWindowSeconds: number;
  /** Concurrent batches per shard (1..10), for the event source mapping or the pipe. */
  readonly parallelizationFactor: number;
  /** Retries of a failing batch before it goes to the on-failure destination (0..10000). */
  readonly retryAttempts: number;
  /** Records older than this are sent to the on-failure destination unprocessed (60..604800 s). */
  readonly maxRecordAgeSeconds: number;
  /** Retention of the function's log group (days). */
  readonly logRetentionDays: number;
  /** S3 key prefix of dead-lettered poison records (ends with `/`). */
  readonly deadLetterPrefix: string;
}

export interface DeliveryConfig {
  /** Firehose buffering interval (0..900 s). */
  readonly bufferingIntervalSeconds: number;
  /** Firehose buffering size (1..100 MiB). */
  readonly bufferingSizeMb: number;
  /** Index name prefix: Firehose writes `<indexPrefix>-<rotation suffix>`, e.g. `logs-2026-11-22`. */
  readonly indexPrefix: string;
  readonly indexRotation: IndexRotation;
  /** How long Firehose retries a failed delivery before backing up to S3 (0..7200 s). */
  readonly retryDurationSeconds: number;
  /** S3 key prefix of documents OpenSearch rejected (ends with `/`). */
  readonly failedDocumentsPrefix: string;
  /** Retention of the Firehose error log group (days). */
  readonly logRetentionDays: number;
  /**
   * The transform packs documents into KPL aggregated records, which Firehose de-aggregates. Always false with
   * the Pipes transport (a pipe writes each item its enrichment returns as one record).
   */
  readonly aggregation: boolean;
}

export interface OpenSearchConfig {
  /** OpenSearch engine version, e.g. `2.19`. */
  readonly engineVersion: string;
  readonly dataNodeInstanceType: string;
  readonly dataNodeCount: number;
  /** EBS gp3 volume per data node (GiB). */
  readonly volumeSizeGb: number;
  readonly zoneAwareness: { readonly enabled: boolean; readonly availabilityZoneCount: 2 | 3 };
  readonly dedicatedMasters: {
    readonly enabled: boolean;
    readonly instanceType: string;
    readonly count: number;
  };
  /** Retention of the domain's slow, application and audit log groups (days). */
  readonly logRetentionDays: number;
  /** Turn the security plugin's audit logging on (the provisioner writes its audit config). */
  readonly auditLogs: boolean;
  readonly indexTemplate: {
    readonly shards: number;
    readonly replicas: number;
    readonly totalFieldsLimit: number;
    /** Slow-log thresholds (ms): queries / indexing operations slower than these are logged at WARN / INFO. */
    readonly slowSearchWarnMs: number;
    readonly slowSearchInfoMs: number;
    readonly slowIndexWarnMs: number;
    readonly slowIndexInfoMs: number;
  };
  readonly retention: { readonly deleteAfterDays: number; readonly warmAfterDays?: number };
  readonly access: {
    /**
     * IAM role/user ARNs of people mapped to `all_access` (and `security_manager`, to manage mappings in Dashboards).
     * The domain's master user is kfek's own OpenSearch admin role (the provisioner's); these are the humans.
     */
    readonly adminBackendRoles?: readonly string[];
    /** Backend roles (IAM role ARNs, SAML groups) mapped to the read-only kfek reader role (issue 5). */
    readonly readerBackendRoles?: readonly string[];
  };
}

/** The failed-records bucket: failed documents, dead-lettered poison records and discarded batches. */
export interface FailedRecordsConfig {
  /**
   * Days after which S3 deletes an object of the bucket. Must be above `openSearch.retention.deleteAfterDays`: a
   * record that never reached OpenSearch stays replayable at least as long as the indexed logs around it exist.
   */
  readonly expireAfterDays: number;
}

export interface AlarmsConfig {
  /** E-mail subscribed to the alarm topic. */
  readonly email?: string;
  readonly iteratorAgeMs: number;
  readonly poisonRecords: number;
  readonly firehoseFreshnessSeconds: number;
  readonly freeStorageMb: number;
  readonly jvmMemoryPressurePercent: number;
}

/** The resolved, validated configuration. */
export interface PipelineConfig {
  /** The profile these settings come from. */
  readonly profile: string;
  /** Name stem of stacks and named resources (lowercase, digits, hyphens; the domain name is `<name>-<profile>`). */
  readonly name: string;
  /** Account/region; undefined means environment-agnostic stacks. */
  readonly env: { readonly account?: string; readonly region?: string };
  /** `retain` keeps domain, bucket and streams when their stack goes; also turns on termination protection. */
  readonly removalPolicy: RemovalPolicyName;
  readonly transport: Transport;
  readonly sources: SourcesConfig;
  readonly streams: { readonly raw: StreamConfig; readonly events: StreamConfig };
  readonly transform: TransformConfig;
  readonly delivery: DeliveryConfig;
  readonly openSearch: OpenSearchConfig;
  readonly failedRecords: FailedRecordsConfig;
  readonly alarms: AlarmsConfig;
}

// ---------------------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------------------

/** Base class of configuration errors. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** cdk.json could not be read or is not JSON. */
export class CdkJsonReadError extends ConfigError {
  constructor(
    readonly cdkJsonPath: string,
    override readonly cause: unknown,
  ) {
    super(`could not read ${cdkJsonPath}: ${String(cause)}`);
    this.name = 'CdkJsonReadError';
  }
}

/** The selected profile is not defined in cdk.json. */
export class UnknownProfileError extends ConfigError {
  constructor(
    readonly profile: string,
    readonly known: readonly string[],
  ) {
    super(
      `Unknown config profile ${JSON.stringify(profile)}: cdk.json context "kfek.profiles" defines ` +
        `${known.length === 0 ? 'none' : known.map((k) => JSON.stringify(k)).join(', ')}. ` +
        `Pass one of them with -c profile=NAME, or add "${profile}" under "kfek.profiles".`,
    );
    this.name = 'UnknownProfileError';
  }
}

/** One or more settings are invalid; `problems` lists each one. */
export class ConfigValidationError extends ConfigError {
  constructor(
    readonly profile: string,
    readonly problems: readonly string[],
  ) {
    super(
      `Invalid kfek configuration (profile ${JSON.stringify(profile)}), ${problems.length} problem(s):\n` +
        problems.map((p) => `  - ${p}`).join('\n') +
        `\nFix them in cdk.json under "kfek.profiles.${profile}".`,
    );
    this.name = 'ConfigValidationError';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Defaults (data; README "Default settings" lists the same values)
// ---------------------------------------------------------------------------------------------------------------

/** The context key holding `{ profiles: { NAME: PartialConfig } }`. */
export const CONTEXT_KEY = 'kfek';
/** The context key selecting a profile (`-c profile=NAME`). */
export const PROFILE_CONTEXT_KEY = 'profile';
export const DEFAULT_PROFILE = 'sandbox';

/**
 * Every default, in the input shape (log groups carry optional `filterPattern`/`retentionDays`/`create`).
 * The defaults are the cheap sandbox; profiles override.
 */
export const DEFAULTS = {
  name: 'kfek',
  // Safe by default: a profile must opt in to deleting data with its stacks (the sandbox profile does).
  removalPolicy: 'retain',
  transport: 'lambda',
  sources: {
    logGroups: [{ name: '/kfek/app', create: true }],
    filterPattern: '',
    retentionDays: 14,
    accountPolicy: { enabled: false, filterPattern: '', excludeLogGroups: [] },
  },
  streams: {
    raw: { mode: 'PROVISIONED', shardCount: 1, retentionHours: 24 },
    events: { mode: 'PROVISIONED', shardCount: 1, retentionHours: 24 },
  },
  transform: {
    memoryMb: 512,
    timeoutSeconds: 60,
    batchSize: 100,
    maxBatchingWindowSeconds: 1,
    parallelizationFactor: 1,
    retryAttempts: 3,
    maxRecordAgeSeconds: 3600,
    logRetentionDays: 14,
    deadLetterPrefix: 'dead-letter/transform/',
  },
  delivery: {
    bufferingIntervalSeconds: 60,
    bufferingSizeMb: 5,
    indexPrefix: 'logs',
    indexRotation: 'OneDay',
    retryDurationSeconds: 300,
    failedDocumentsPrefix: 'failed-documents/',
    logRetentionDays: 14,
    aggregation: true,
  },
  openSearch: {
    engineVersion: '2.19',
    dataNodeInstanceType: 't3.small.search',
    dataNodeCount: 1,
    volumeSizeGb: 10,
    zoneAwareness: { enabled: false, availabilityZoneCount: 2 },
    dedicatedMasters: { enabled: false, instanceType: 'm7g.large.search', count: 3 },
    logRetentionDays: 14,
    auditLogs: true,
    indexTemplate: {
      shards: 1,
      replicas: 0,
      totalFieldsLimit: 1000,
      slowSearchWarnMs: 5000,
      slowSearchInfoMs: 2000,
      slowIndexWarnMs: 5000,
      slowIndexInfoMs: 2000,
    },
    retention: { deleteAfterDays: 14 },
    access: {},
  },
  // 90 days: well past the default (14) and production (30) index retention, so someone who notices a gap in the
  // indexed logs while they are still searchable can replay what was kept; after that nobody replays into indices
  // ISM has already deleted, and keeping failed records forever only keeps their (possibly sensitive) content.
  failedRecords: { expireAfterDays: 90 },
  alarms: {
    iteratorAgeMs: 60_000,
    poisonRecords: 1,
    firehoseFreshnessSeconds: 900,
    freeStorageMb: 2048,
    jvmMemoryPressurePercent: 85,
  },
} as const;

/** Keys that may appear in input although {@link DEFAULTS} leaves them unset (optional settings). */
const OPTIONAL_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': ['account', 'region'],
  'openSearch.retention': ['warmAfterDays'],
  'openSearch.access': ['adminBackendRoles', 'readerBackendRoles'],
  alarms: ['email'],
};

/**
 * Settings that existed once and were removed, with what replaces them: a profile that still sets one gets this
 * message instead of a bare "unknown setting", so nobody deploys believing a knob still works.
 */
const REMOVED_KEYS: Readonly<Record<string, string>> = {
  'openSearch.access.masterUserName':
    "the domain master user is now kfek's IAM admin role (no internal users, no password); " +
    'to give people full access, use openSearch.access.adminBackendRoles (IAM role/user ARNs)',
  'openSearch.access.allowedCidrs':
    'the access policy admits only requests signed by IAM principals of the account (unsigned requests would be ' +
    'anonymous and refused by fine-grained access control anyway); use openSearch.access.adminBackendRoles ' +
    '(or readerBackendRoles) for your IAM role and sign your requests (README.md, "Deploy to AWS" step 1)',
};

// ---------------------------------------------------------------------------------------------------------------
// Index naming (shared with the local runner)
// ---------------------------------------------------------------------------------------------------------------

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/**
 * Firehose's week number of a UTC date: weeks start on Sunday and the days before the year's first Sunday are week
 * 00 (strftime `%U`), so the year is always the calendar year. The Firehose guide's example (2016-02-25 is `w08`)
 * fixes this rule; its prose ("the first week is the first week that contains a Saturday") would give `w09` for that
 * day, so the example, the only checkable statement, wins.
 */
function firehoseWeek(date: Date): number {
  const dayOfYear = Math.floor(
    (Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) -
      Date.UTC(date.getUTCFullYear(), 0, 1)) /
      86_400_000,
  );
  return Math.floor((dayOfYear + 7 - date.getUTCDay()) / 7);
}

/**
 * The index Firehose writes a record arriving at `date` (UTC) to: `<prefix>-<suffix>` with the suffixes Firehose
 * documents for `IndexRotationPeriod` (OneHour `YYYY-MM-DD-HH`, OneDay `YYYY-MM-DD`, OneWeek `YYYY-wWW`, OneMonth
 * `YYYY-MM`), or the bare prefix for NoRotation.
 * https://docs.aws.amazon.com/firehose/latest/dev/es-index-rotation.html
 */
export function indexNameFor(prefix: string, rotation: IndexRotation, date: Date): string {
  const y = date.getUTCFullYear();
  const m = pad(date.getUTCMonth() + 1);
  const d = pad(date.getUTCDate());
  switch (rotation) {
    case 'NoRotation':
      return prefix;
    case 'OneHour':
      return `${prefix}-${y}-${m}-${d}-${pad(date.getUTCHours())}`;
    case 'OneDay':
      return `${prefix}-${y}-${m}-${d}`;
    case 'OneWeek':
      return `${prefix}-${y}-w${pad(firehoseWeek(date))}`;
    case 'OneMonth':
      return `${prefix}-${y}-${m}`;
  }
}

/** The pattern covering every index of a prefix, whatever the rotation (`logs-*`; `logs*` without rotation). */
export function indexPatternFor(prefix: string, rotation: IndexRotation): string {
  return rotation === 'NoRotation' ? `${prefix}*` : `${prefix}-*`;
}

// ---------------------------------------------------------------------------------------------------------------
// Merge and validate
// ---------------------------------------------------------------------------------------------------------------

type Json = unknown;
type JsonObject = Record<string, Json>;

function isObject(v: Json): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep-merges `override` into `base`; reports keys that neither the defaults nor {@link OPTIONAL_KEYS} know. */
function merge(base: JsonObject, override: Json, path: string, problems: string[]): JsonObject {
  if (!isObject(override)) {
    problems.push(`${path || 'the profile'} must be an object, got ${JSON.stringify(override)}.`);
    return base;
  }
  const out: JsonObject = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const keyPath = path === '' ? key : `${path}.${key}`;
    const optional = OPTIONAL_KEYS[path] ?? [];
    const removed = REMOVED_KEYS[keyPath];
    if (removed !== undefined) {
      problems.push(`${keyPath} was removed: ${removed}. Delete it from the profile.`);
      continue;
    }
    if (!(key in base) && !optional.includes(key)) {
      const known = [...Object.keys(base), ...optional].sort();
      problems.push(
        `unknown setting ${keyPath}; known settings here: ${known.join(', ')}. Check the spelling.`,
      );
      continue;
    }
    const current = base[key];
    out[key] = isObject(current) && isObject(value) ? merge(current, value, keyPath, problems) : value;
  }
  return out;
}

/** Reads typed values from the merged input, recording every problem instead of stopping at the first. */
class Reader {
  readonly problems: string[] = [];

  constructor(private readonly root: JsonObject) {}

  private get(path: string): Json {
    let v: Json = this.root;
    for (const part of path.split('.')) v = isObject(v) ? v[part] : undefined;
    return v;
  }

  private bad(path: string, value: Json, expected: string): void {
    this.problems.push(`${path} is ${JSON.stringify(value)}; expected ${expected}.`);
  }

  int(path: string, min: number, max: number, value: Json = this.get(path)): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.bad(path, value, `an integer from ${min} to ${max}`);
      return min;
    }
    return value;
  }

  bool(path: string, value: Json = this.get(path)): boolean {
    if (typeof value !== 'boolean') {
      this.bad(path, value, 'true or false');
      return false;
    }
    return value;
  }

  str(path: string, pattern?: RegExp, hint?: string, value: Json = this.get(path)): string {
    if (typeof value !== 'string' || (pattern !== undefined && !pattern.test(value))) {
      this.bad(path, value, hint ?? (pattern ? `a string matching ${pattern.source}` : 'a string'));
      return '';
    }
    return value;
  }

  optStr(path: string, pattern?: RegExp, hint?: string): string | undefined {
    const value = this.get(path);
    return value === undefined ? undefined : this.str(path, pattern, hint, value);
  }

  oneOf<T extends string>(path: string, allowed: readonly T[], value: Json = this.get(path)): T {
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      this.bad(path, value, `one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
      return allowed[0];
    }
    return value as T;
  }

  retention(path: string, value: Json = this.get(path)): number {
    if (typeof value !== 'number' || !LOG_RETENTION_DAYS.includes(value)) {
      this.bad(path, value, `a CloudWatch Logs retention in days: ${LOG_RETENTION_DAYS.join(', ')}`);
      return 14;
    }
    return value;
  }

  array(path: string, value: Json = this.get(path)): readonly Json[] {
    if (!Array.isArray(value)) {
      this.bad(path, value, 'an array');
      return [];
    }
    return value;
  }

  strings(path: string, pattern?: RegExp, hint?: string, value: Json = this.get(path)): string[] {
    return this.array(path, value).map((v, i) => this.str(`${path}[${i}]`, pattern, hint, v));
  }

  problem(message: string): void {
    this.problems.push(message);
  }

  raw(path: string): Json {
    return this.get(path);
  }
}

const NAME = /^[a-z][a-z0-9-]{0,15}$/;
const NAME_HINT = 'lowercase letters, digits and hyphens, starting with a letter, at most 16 characters';
const LOG_GROUP_NAME = /^[\w\-/.#]{1,512}$/;
const LOG_GROUP_HINT = 'a log group name (1-512 of a-z A-Z 0-9 _ - / . #)';
const PREFIX = /^([\w!\-.*'()=]+\/)*$/;
const PREFIX_HINT =
  'an S3 key prefix ending with "/" (letters, digits, !-_.*\'()= and "/"), e.g. "failed-documents/"';
// OpenSearch index names: lowercase, no \ / * ? " < > | space , #, not starting with - _ +.
const INDEX_PREFIX = /^[a-z0-9][a-z0-9._-]{0,199}$/;
const INDEX_HINT =
  'a lowercase OpenSearch index name prefix (a-z 0-9 . _ -, not starting with . _ -), e.g. "logs"';
const INSTANCE_TYPE = /^[a-z0-9]+\.[a-z0-9]+\.search$/;
const INSTANCE_HINT = 'an OpenSearch Service instance type such as "t3.small.search" or "r7g.large.search"';
// An IAM role or user ARN, the form fine-grained access control matches as a backend role for SigV4 requests.
const IAM_PRINCIPAL_ARN = /^arn:aws[a-z-]*:iam::\d{12}:(role|user)\/[\w+=,.@/-]{1,512}$/;
const IAM_PRINCIPAL_HINT = 'an IAM role or user ARN such as "arn:aws:iam::123456789012:role/Admin"';
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
const ACCOUNT = /^\d{12}$/;
const REGION = /^[a-z]{2}(-[a-z]+)+-\d$/;

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
    out.push({
      name,
      create: obj.create === undefined ? false : r.bool(`${path}.create`, obj.create),
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
  if (c.failedRecords.expireAfterDays <= os.retention.deleteAfterDays) {
    r.problem(
      `failedRecords.expireAfterDays (${c.failedRecords.expireAfterDays}) must be above ` +
        `openSearch.retention.deleteAfterDays (${os.retention.deleteAfterDays}): failed documents, dead letters and ` +
        'discarded batches would be deleted while the indexed logs around them are still searchable, so a gap could ' +
        'no longer be replayed. Raise failedRecords.expireAfterDays or lower the index retention.',
    );
  }
  const warm = os.retention.warmAfterDays;
  if (warm !== undefined && warm >= os.retention.deleteAfterDays) {
    r.problem(
      `openSearch.retention.warmAfterDays (${warm}) must be below deleteAfterDays (${os.retention.deleteAfterDays}).`,
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
  if (!(selected in profiles) && selected !== DEFAULT_PROFILE) {
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
  const merged = merge(DEFAULTS, profiles[selected] ?? {}, '', problems);
  const r = new Reader(merged);
  r.problems.push(...problems);

  const filterPattern = r.str(
    'sources.filterPattern',
    /^.{0,1024}$/s,
    'a filter pattern of at most 1024 characters',
  );
  const retentionDays = r.retention('sources.retentionDays');
  const name = r.str('name', NAME, NAME_HINT);
  const readerBackendRoles = r.raw('openSearch.access.readerBackendRoles');
  const adminBackendRoles = r.raw('openSearch.access.adminBackendRoles');
  const warmAfterDays = r.raw('openSearch.retention.warmAfterDays');

  const body: Omit<PipelineConfig, 'profile'> = {
    name,
    env: {
      account: r.optStr('account', ACCOUNT, 'a 12-digit AWS account id'),
      region: r.optStr('region', REGION, 'an AWS region such as "us-east-1"'),
    },
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
      deadLetterPrefix: r.str('transform.deadLetterPrefix', PREFIX, PREFIX_HINT),
    },
    delivery: {
      bufferingIntervalSeconds: r.int('delivery.bufferingIntervalSeconds', 0, 900),
      bufferingSizeMb: r.int('delivery.bufferingSizeMb', 1, 100),
      indexPrefix: r.str('delivery.indexPrefix', INDEX_PREFIX, INDEX_HINT),
      indexRotation: r.oneOf('delivery.indexRotation', INDEX_ROTATIONS),
      retryDurationSeconds: r.int('delivery.retryDurationSeconds', 0, 7200),
      failedDocumentsPrefix: r.str('delivery.failedDocumentsPrefix', PREFIX, PREFIX_HINT),
      logRetentionDays: r.retention('delivery.logRetentionDays'),
      aggregation: readAggregation(r, profiles[selected]),
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
      volumeSizeGb: r.int('openSearch.volumeSizeGb', 10, 16_384),
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
        totalFieldsLimit: r.int('openSearch.indexTemplate.totalFieldsLimit', 100, 100_000),
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
      access: {
        ...(adminBackendRoles === undefined
          ? {}
          : {
              adminBackendRoles: r.strings(
                'openSearch.access.adminBackendRoles',
                IAM_PRINCIPAL_ARN,
                IAM_PRINCIPAL_HINT,
              ),
            }),
        ...(readerBackendRoles === undefined
          ? {}
          : {
              readerBackendRoles: r.strings(
                'openSearch.access.readerBackendRoles',
                /^.{1,256}$/,
                'a backend role (1-256 characters)',
              ),
            }),
      },
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
