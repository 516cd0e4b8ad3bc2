import { createHash } from 'node:crypto';
import { OpenSearchSpecError } from './errors';
import { aggregatableFieldsProblems, MIN_TOTAL_FIELDS_LIMIT } from './mappings';
import {
  type IndexFamily,
  type RouteSpec,
  type RouteSpecInput,
  familyNames,
  resolveRouteSpecs,
} from './route-spec';
import { canonicalJson } from '../canonical-json';

export type { IndexFamily, RouteSpec, RouteSpecInput } from './route-spec';

/**
 * The inputs of OpenSearch provisioning, shaped like the `openSearch` config sections (core/config/) so the
 * composition root can pass them through. Everything here is plain data: it travels to the provisioner Lambda as
 * a JSON custom-resource property and to the local runner of `npm start` unchanged.
 *
 * Just over ~300 lines: it is the one schema of that property, each type beside its validation.
 */

/** Index template settings (config `openSearch.indexTemplate`). */
export interface IndexTemplateSettings {
  /**
   * Primary shards per index. One daily index of a few GB needs one shard (AWS sizing guidance: 10-50 GB per shard).
   * @default 1
   */
  readonly shards?: number;
  /**
   * Replicas per primary shard. Must be below the data node count or the indices stay yellow.
   * @default 1
   */
  readonly replicas?: number;
  /**
   * `index.mapping.total_fields.limit`: the cap on mapped fields per index, the guard against mapping explosions.
   * @default 1000
   */
  readonly totalFieldsLimit?: number;
  /**
   * `index.refresh_interval` in seconds: how long after indexing a document becomes searchable (docs/latency.md).
   * A lower value costs more refreshes (more, smaller segments to merge) on the data nodes.
   * @default 5
   */
  readonly refreshSeconds?: number;
  /**
   * Search slow log: a query phase slower than this is logged at WARN (`index.search.slowlog.threshold.query.warn`).
   * OpenSearch's own default is -1 (off), which would leave the domain's slow-log group empty.
   * https://docs.aws.amazon.com/opensearch-service/latest/developerguide/createdomain-configure-slow-logs.html
   * @default 5000
   */
  readonly slowSearchWarnMs?: number;
  /** Search slow log at INFO (`index.search.slowlog.threshold.query.info`). @default 2000 */
  readonly slowSearchInfoMs?: number;
  /** Indexing slow log at WARN (`index.indexing.slowlog.threshold.index.warn`). @default 5000 */
  readonly slowIndexWarnMs?: number;
  /** Indexing slow log at INFO (`index.indexing.slowlog.threshold.index.info`). @default 2000 */
  readonly slowIndexInfoMs?: number;
  /**
   * App string fields kept aggregatable (doc values), as dotted paths with `*` (`status`, `http.*`): every other app
   * string is searchable but not aggregatable, which halves what it costs on disk (docs/costs.md).
   * @default [] (none)
   */
  readonly aggregatableFields?: readonly string[];
}

/** Retention (config `openSearch.retention`). */
export interface RetentionSettings {
  /** Indices older than this many days (by creation date) are deleted by the ISM policy. */
  readonly deleteAfterDays: number;
  /**
   * Move indices to UltraWarm storage after this many days. Only valid on domains with warm nodes.
   * @default - no warm phase
   */
  readonly warmAfterDays?: number;
}

/** Access (config `openSearch.access`) plus the role ARNs the stacks know. */
export interface AccessSettings {
  /**
   * IAM role ARN Firehose delivers with; mapped as a backend role to the writer role.
   * @default - no writer mapping (local node)
   */
  readonly firehoseRoleArn?: string;
  /**
   * Further IAM role ARNs mapped to the writer role: the delivery that is not running (the direct-delivery indexer's
   * fixed-name role while Firehose delivers), so a switch of `delivery.mode` never takes the writer's access from
   * the reader that still runs until CloudFormation removes it (docs/delivery.md, "Switching delivery").
   * @default - none
   */
  readonly writerBackendRoles?: readonly string[];
  /**
   * Backend roles (IAM role ARNs, SAML/Cognito groups) mapped to the read-only role.
   * @default - none; map people in Dashboards (Security > Roles) afterwards
   */
  readonly readerBackendRoles?: readonly string[];
  /**
   * Internal users mapped to the read-only role.
   * @default - none
   */
  readonly readerUsers?: readonly string[];
  /**
   * Backend roles (IAM role/user ARNs of people) mapped to `all_access` and `security_manager`.
   * @default - none; only the master user administers the domain
   */
  readonly adminBackendRoles?: readonly string[];
  /**
   * Backend roles (IAM role ARNs) of kfek's reconcile function, mapped to `<name>_reconcile`: it may list index
   * templates, and nothing else, so reconcile finds the stems kfek keeps (retired ones too); reading their indices
   * comes from the reader roles the same ARNs are mapped to. Reader roles cannot list templates (a cluster action).
   * @default - none: no reconcile role
   */
  readonly reconcileBackendRoles?: readonly string[];
}

/** Everything the provisioner needs to know; the input form (optional fields). */
export interface OpenSearchSpecInput {
  /**
   * Index name prefix; Firehose writes `<prefix>-<rotation suffix>`, e.g. `logs-2026-11-22`, so the template,
   * retention policy and roles cover `<prefix>-*`.
   */
  readonly indexPrefix: string;
  /** @default - see {@link IndexTemplateSettings} */
  readonly indexTemplate?: IndexTemplateSettings;
  /** @default - delete after 30 days, no warm phase */
  readonly retention?: RetentionSettings;
  /** @default - no role mappings */
  readonly access?: AccessSettings;
  /**
   * Turn the security plugin's audit logging on (failures, security changes; not every successful request) so the
   * domain's audit-log group receives something. `false` turns it off. Needs the security plugin.
   * @default true
   */
  readonly auditLogs?: boolean;
  /**
   * Name stem of everything kfek creates in OpenSearch (template, policy, roles, saved objects).
   * @default 'kfek'
   */
  readonly name?: string;
  /**
   * Routes (config `routes`): each gets its own indices, template, retention policy and reader role, and the ingest
   * pipeline sends a document whose `kfek.route` names one there (docs/teams-and-routes.md).
   * @default - none: every document stays in `<indexPrefix>-*`
   */
  readonly routes?: readonly RouteSpecInput[];
  /**
   * How long (hours) a route name, stem or prefix that left the profile stays known after its last index is gone
   * (issue 30, core/opensearch/domain-families.ts): documents marked with it may still be in flight in the streams,
   * or be replayed from the failed-records bucket. The CDK app passes the longer of the streams' retention and the
   * bucket's expiry.
   * @default 0 - forgotten on the first deploy after its last index is gone
   */
  readonly keepRetiredHours?: number;
}

/** The resolved spec: defaults applied, validated. */
export interface OpenSearchSpec {
  readonly name: string;
  readonly indexPrefix: string;
  /** `<prefix>-*`. */
  readonly indexPattern: string;
  /** `aggregatableFields` only when it names any, so a spec without them hashes as before. */
  readonly indexTemplate: Required<Omit<IndexTemplateSettings, 'aggregatableFields'>> &
    Pick<IndexTemplateSettings, 'aggregatableFields'>;
  readonly retention: RetentionSettings;
  readonly auditLogs: boolean;
  readonly access: {
    readonly firehoseRoleArn?: string;
    /** Only when it names any, so a spec without them hashes as before. */
    readonly writerBackendRoles?: readonly string[];
    readonly readerBackendRoles: readonly string[];
    readonly readerUsers: readonly string[];
    readonly adminBackendRoles: readonly string[];
    readonly reconcileBackendRoles: readonly string[];
  };
  /** Names of the objects created in OpenSearch. */
  readonly names: {
    readonly indexTemplate: string;
    /** The ingest pipeline that sets each document's `_id` (the template's `index.default_pipeline`). */
    readonly ingestPipeline: string;
    readonly ismPolicy: string;
    readonly writerRole: string;
    readonly readerRole: string;
    /** Lists index templates for the reconcile function (only with `access.reconcileBackendRoles`). */
    readonly reconcileRole: string;
  };
  /** The routes, in config order; empty without routes. */
  readonly routes: readonly RouteSpec[];
  readonly keepRetiredHours: number;
}

/** Defaults are data, applied once in {@link resolveOpenSearchSpec} (the app's own defaults are listed in docs/settings.md). */
export const OPENSEARCH_SPEC_DEFAULTS = {
  name: 'kfek',
  shards: 1,
  replicas: 1,
  totalFieldsLimit: 1000,
  refreshSeconds: 5,
  slowSearchWarnMs: 5000,
  slowSearchInfoMs: 2000,
  slowIndexWarnMs: 5000,
  slowIndexInfoMs: 2000,
  deleteAfterDays: 30,
} as const;

// OpenSearch index names: lowercase, no \ / * ? " < > | space , #, must not start with - _ +. The prefix is
// followed by `-` and a date, so a valid prefix gives valid index names.
const INDEX_PREFIX_RE = /^[a-z0-9][a-z0-9._-]{0,200}$/;
const NAME_RE = /^[a-z][a-z0-9_-]{0,60}$/;

function checkInt(field: string, value: number, min: number, max: number, fix: string): void {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new OpenSearchSpecError(
      `${field} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}. ${fix}`,
    );
  }
}

const SLOW_LOG_KEYS = ['slowSearchWarnMs', 'slowSearchInfoMs', 'slowIndexWarnMs', 'slowIndexInfoMs'] as const;

/** The slow-log thresholds with defaults applied; each INFO threshold must be below its WARN one. */
function slowLogThresholds(
  input: IndexTemplateSettings,
): Pick<Required<IndexTemplateSettings>, (typeof SLOW_LOG_KEYS)[number]> {
  const out = Object.fromEntries(
    SLOW_LOG_KEYS.map((key) => [key, input[key] ?? OPENSEARCH_SPEC_DEFAULTS[key]]),
  ) as Record<(typeof SLOW_LOG_KEYS)[number], number>;
  for (const key of SLOW_LOG_KEYS) {
    checkInt(`indexTemplate.${key}`, out[key], 1, 3_600_000, 'Use milliseconds, e.g. 5000 for 5 s.');
  }
  for (const [info, warn] of [
    ['slowSearchInfoMs', 'slowSearchWarnMs'],
    ['slowIndexInfoMs', 'slowIndexWarnMs'],
  ] as const) {
    if (out[info] >= out[warn]) {
      throw new OpenSearchSpecError(
        `indexTemplate.${info} (${out[info]}) must be below ${warn} (${out[warn]}): INFO logs the slower ` +
          'operations first, WARN only the slowest.',
      );
    }
  }
  return out;
}

/** Applies defaults and validates; throws {@link OpenSearchSpecError} naming the field, the value and the fix. */
export function resolveOpenSearchSpec(input: OpenSearchSpecInput): OpenSearchSpec {
  const name = input.name ?? OPENSEARCH_SPEC_DEFAULTS.name;
  if (!NAME_RE.test(name)) {
    throw new OpenSearchSpecError(
      `name must be lowercase letters, digits, '-' or '_' starting with a letter, got ${JSON.stringify(name)}.`,
    );
  }
  if (!INDEX_PREFIX_RE.test(input.indexPrefix)) {
    throw new OpenSearchSpecError(
      `indexPrefix must be a valid lowercase index name start (a-z, 0-9, '.', '_', '-'; not starting with ` +
        `'-', '_' or '.'), got ${JSON.stringify(input.indexPrefix)}. Use e.g. 'logs'.`,
    );
  }
  const shards = input.indexTemplate?.shards ?? OPENSEARCH_SPEC_DEFAULTS.shards;
  const replicas = input.indexTemplate?.replicas ?? OPENSEARCH_SPEC_DEFAULTS.replicas;
  const totalFieldsLimit = input.indexTemplate?.totalFieldsLimit ?? OPENSEARCH_SPEC_DEFAULTS.totalFieldsLimit;
  checkInt('indexTemplate.shards', shards, 1, 1024, 'One shard per 10-50 GB of daily data is enough.');
  checkInt('indexTemplate.replicas', replicas, 0, 15, 'Use 0 on a one-node domain, 1 otherwise.');
  checkInt(
    'indexTemplate.totalFieldsLimit',
    totalFieldsLimit,
    MIN_TOTAL_FIELDS_LIMIT,
    100_000,
    'Keep it near 1000: a higher limit only postpones a mapping explosion.',
  );

  const aggregatableFields = [...(input.indexTemplate?.aggregatableFields ?? [])];
  checkAggregatableFields(aggregatableFields);

  const refreshSeconds = input.indexTemplate?.refreshSeconds ?? OPENSEARCH_SPEC_DEFAULTS.refreshSeconds;
  checkInt(
    'indexTemplate.refreshSeconds',
    refreshSeconds,
    1,
    3600,
    'Use 1 for near-realtime search, 5-30 to spend less on refreshes (docs/latency.md).',
  );

  const deleteAfterDays = input.retention?.deleteAfterDays ?? OPENSEARCH_SPEC_DEFAULTS.deleteAfterDays;
  checkInt('retention.deleteAfterDays', deleteAfterDays, 1, 36_500, 'Set how many days of logs to keep.');
  const warmAfterDays = input.retention?.warmAfterDays;
  if (warmAfterDays !== undefined) {
    checkInt(
      'retention.warmAfterDays',
      warmAfterDays,
      1,
      deleteAfterDays - 1,
      'The warm move must come before deletion (warmAfterDays < deleteAfterDays); omit it without UltraWarm.',
    );
  }

  const keepRetiredHours = input.keepRetiredHours ?? 0;
  checkInt(
    'keepRetiredHours',
    keepRetiredHours,
    0,
    24 * 36_500,
    'Use the hours documents may still arrive late.',
  );

  const readerBackendRoles = [...(input.access?.readerBackendRoles ?? [])];
  const readerUsers = [...(input.access?.readerUsers ?? [])];
  const adminBackendRoles = [...(input.access?.adminBackendRoles ?? [])];
  const reconcileBackendRoles = [...(input.access?.reconcileBackendRoles ?? [])];
  for (const [field, values] of [
    ['access.readerBackendRoles', readerBackendRoles],
    ['access.readerUsers', readerUsers],
    ['access.adminBackendRoles', adminBackendRoles],
    ['access.reconcileBackendRoles', reconcileBackendRoles],
  ] as const) {
    if (values.some((v) => typeof v !== 'string' || v.length === 0)) {
      throw new OpenSearchSpecError(`${field} must hold non-empty strings, got ${JSON.stringify(values)}.`);
    }
  }

  return {
    name,
    indexPrefix: input.indexPrefix,
    indexPattern: `${input.indexPrefix}-*`,
    indexTemplate: {
      shards,
      replicas,
      totalFieldsLimit,
      refreshSeconds,
      ...slowLogThresholds(input.indexTemplate ?? {}),
      ...(aggregatableFields.length === 0 ? {} : { aggregatableFields }),
    },
    retention: warmAfterDays === undefined ? { deleteAfterDays } : { deleteAfterDays, warmAfterDays },
    auditLogs: input.auditLogs ?? true,
    access: {
      ...(input.access?.firehoseRoleArn === undefined
        ? {}
        : { firehoseRoleArn: input.access.firehoseRoleArn }),
      ...((input.access?.writerBackendRoles ?? []).length === 0
        ? {}
        : { writerBackendRoles: [...(input.access?.writerBackendRoles ?? [])] }),
      readerBackendRoles,
      readerUsers,
      adminBackendRoles,
      reconcileBackendRoles,
    },
    names: {
      ...familyNames(name, input.indexPrefix),
      // The name stays `...-document-id` now that the pipeline also routes: every existing index names it as its
      // `index.default_pipeline`, so a new name would leave those indices without one.
      ingestPipeline: `${name}-${input.indexPrefix}-document-id`,
      writerRole: `${name}_writer`,
      readerRole: `${name}_reader`,
      reconcileRole: `${name}_reconcile`,
    },
    routes: resolveRouteSpecs(name, input.indexPrefix, input.routes ?? []),
    keepRetiredHours,
  };
}

/** The default route's indices as an {@link IndexFamily}. */
export function defaultFamily(spec: OpenSearchSpec): IndexFamily {
  return {
    stem: spec.indexPrefix,
    indexPattern: spec.indexPattern,
    retention: spec.retention,
    names: { indexTemplate: spec.names.indexTemplate, ismPolicy: spec.names.ismPolicy },
  };
}

/** Every family of indices the spec manages: the default route's, then each route's. */
export function indexFamilies(spec: OpenSearchSpec): readonly IndexFamily[] {
  return [defaultFamily(spec), ...spec.routes];
}

/** Canonical JSON (sorted keys) so equal content always hashes equal: the one function, core/canonical-json.ts. */
export { canonicalJson };

/** SHA-256 (hex) of the canonical JSON of a value. */
export function contentHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** `indexTemplate.aggregatableFields`, by the rule the config reads it with (core/opensearch/mappings.ts). */
function checkAggregatableFields(paths: readonly unknown[]): void {
  const problems = aggregatableFieldsProblems('indexTemplate.aggregatableFields', paths);
  if (problems.length > 0) throw new OpenSearchSpecError(problems.join(' '));
}

/**
 * The template settings as a spec input carries them: without an empty `aggregatableFields`, so the provisioner's
 * Spec property stays what it was for every profile that names none (adding the setting to kfek does not update
 * every deployed provisioner). The CDK app and {@link openSearchSpecInputOf} both pass settings through it.
 */
export function templateSettingsInput(settings: IndexTemplateSettings): IndexTemplateSettings {
  const { aggregatableFields, ...rest } = settings;
  return aggregatableFields === undefined || aggregatableFields.length === 0 ? rest : settings;
}

/** The backend roles of kfek's writer role: the delivery's role and any {@link AccessSettings.writerBackendRoles}. */
export function writerBackendRolesOf(spec: Pick<OpenSearchSpec, 'access'>): string[] {
  const own = spec.access.firehoseRoleArn === undefined ? [] : [spec.access.firehoseRoleArn];
  return [...own, ...(spec.access.writerBackendRoles ?? [])];
}
