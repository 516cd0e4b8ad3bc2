import { createHash } from 'node:crypto';
import {
  CONFIG_RULES as RULES,
  type IntRule,
  intProblem,
  type MembersRule,
  membersProblems,
  type PatternRule,
  patternProblem,
  slowLogOrderProblems,
  specForm,
} from '../contracts/config-rules';
import { Problems } from '../contracts/route-problems';
import { OpenSearchSpecError } from './errors';
import { aggregatableFieldsProblems, totalFieldsLimitProblem } from './mappings';
import {
  type IndexFamily,
  type RouteSpec,
  type RouteSpecInput,
  familyNames,
  ingestPipelineName,
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

// The name stem of kfek's objects in OpenSearch: a spec-only setting (the CDK app passes its own).
const NAME: PatternRule = {
  kind: 'pattern',
  specPath: 'name',
  pattern: /^[a-z][a-z0-9_-]{0,60}$/,
  expected: "lowercase letters, digits, '-' or '_' starting with a letter, at most 61 characters",
  hint: 'Use e.g. "kfek".',
};
/**
 * The default when a setting is left out. Only when left out: the spec travels as JSON, and a `null` there is a bad
 * value (as the config reads it), not "use the default".
 */
const orDefault = <T>(value: T | undefined, fallback: T): T => (value === undefined ? fallback : value);
/** The problem of a spec value by its rule, named by the spec's path. */
const specIntProblem = (rule: IntRule, value: number, max?: number): string | undefined =>
  intProblem(rule, rule.specPath ?? '', value, max);
const SLOW_LOG_KEYS = ['slowSearchWarnMs', 'slowSearchInfoMs', 'slowIndexWarnMs', 'slowIndexInfoMs'] as const;

/** The spec's index template settings with defaults applied, each checked by its rule. */
function templateSettings(input: IndexTemplateSettings, problems: Problems): OpenSearchSpec['indexTemplate'] {
  const value = (key: 'shards' | 'replicas' | 'refreshSeconds' | (typeof SLOW_LOG_KEYS)[number]): number => {
    const v = orDefault<number>(input[key], OPENSEARCH_SPEC_DEFAULTS[key]);
    problems.add(specIntProblem(RULES[key], v));
    return v;
  };
  const totalFieldsLimit = orDefault(input.totalFieldsLimit, OPENSEARCH_SPEC_DEFAULTS.totalFieldsLimit);
  problems.add(totalFieldsLimitProblem('indexTemplate.totalFieldsLimit', totalFieldsLimit));
  const aggregatableFields = [...(input.aggregatableFields ?? [])];
  aggregatableFieldsProblems('indexTemplate.aggregatableFields', aggregatableFields).forEach((m) =>
    problems.add(m),
  );
  const slowLog = Object.fromEntries(SLOW_LOG_KEYS.map((key) => [key, value(key)])) as Record<
    (typeof SLOW_LOG_KEYS)[number],
    number
  >;
  slowLogOrderProblems('indexTemplate', slowLog).forEach((m) => problems.add(m));
  return {
    shards: value('shards'),
    replicas: value('replicas'),
    totalFieldsLimit,
    refreshSeconds: value('refreshSeconds'),
    ...slowLog,
    ...(aggregatableFields.length === 0 ? {} : { aggregatableFields }),
  };
}

/** The access lists, each by the rule the config reads it with (in its spec form: any backend role). */
function accessLists(
  input: AccessSettings,
  name: string,
  problems: Problems,
): Omit<OpenSearchSpec['access'], 'firehoseRoleArn'> {
  const list = (
    key: keyof Omit<AccessSettings, 'firehoseRoleArn'>,
    rule: MembersRule,
    role: string,
  ): string[] => {
    const read = membersProblems(specForm(rule), `access.${key}`, input[key] ?? [], role);
    read.problems.forEach((m) => problems.add(m));
    return [...(input[key] ?? [])];
  };
  return {
    readerBackendRoles: list('readerBackendRoles', RULES.readerBackendRoles, `${name}_reader`),
    readerUsers: list('readerUsers', RULES.readerBackendRoles, `${name}_reader`),
    adminBackendRoles: list('adminBackendRoles', RULES.adminBackendRoles, 'all_access'),
    reconcileBackendRoles: list('reconcileBackendRoles', RULES.readerBackendRoles, `${name}_reconcile`),
  };
}

/**
 * Applies defaults and validates, by the rules the config reads the same settings with
 * (core/contracts/config-rules.ts), in the same words.
 * @throws OpenSearchSpecError naming every problem: the field, the value and the fix
 */
export function resolveOpenSearchSpec(input: OpenSearchSpecInput): OpenSearchSpec {
  const problems = new Problems([]);
  const name = input.name ?? OPENSEARCH_SPEC_DEFAULTS.name;
  problems.add(patternProblem(NAME, 'name', name));
  problems.add(patternProblem(RULES.indexPrefix, 'indexPrefix', input.indexPrefix));
  const indexTemplate = templateSettings(input.indexTemplate ?? {}, problems);
  const deleteAfterDays = orDefault(
    input.retention?.deleteAfterDays,
    OPENSEARCH_SPEC_DEFAULTS.deleteAfterDays,
  );
  problems.add(specIntProblem(RULES.deleteAfterDays, deleteAfterDays));
  const warmAfterDays = input.retention?.warmAfterDays;
  if (warmAfterDays !== undefined) {
    const rule = RULES.warmAfterDays;
    problems.add(specIntProblem(rule, warmAfterDays, Math.min(rule.max, deleteAfterDays - 1)));
  }
  const keepRetiredHours = orDefault(input.keepRetiredHours, 0);
  problems.add(specIntProblem(RULES.keepRetiredHours, keepRetiredHours));
  const access = accessLists(input.access ?? {}, name, problems);
  const routes = resolveRouteSpecs(name, input.indexPrefix, input.routes ?? [], problems.list);
  if (problems.list.length > 0) throw new OpenSearchSpecError(problems.list);

  return {
    name,
    indexPrefix: input.indexPrefix,
    indexPattern: `${input.indexPrefix}-*`,
    indexTemplate,
    retention: warmAfterDays === undefined ? { deleteAfterDays } : { deleteAfterDays, warmAfterDays },
    auditLogs: input.auditLogs ?? true,
    access: {
      ...(input.access?.firehoseRoleArn === undefined
        ? {}
        : { firehoseRoleArn: input.access.firehoseRoleArn }),
      ...((input.access?.writerBackendRoles ?? []).length === 0
        ? {}
        : { writerBackendRoles: [...(input.access?.writerBackendRoles ?? [])] }),
      ...access,
    },
    names: {
      ...familyNames(name, input.indexPrefix),
      ingestPipeline: ingestPipelineName(name, input.indexPrefix),
      writerRole: `${name}_writer`,
      readerRole: `${name}_reader`,
      reconcileRole: `${name}_reconcile`,
    },
    routes,
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
