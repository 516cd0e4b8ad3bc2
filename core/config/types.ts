/** The configuration's types: what a resolved profile looks like (see ./index.ts for the whole model). */

import type { IndexRotation } from '../contracts/index-naming';
import type { TransformRoute } from '../contracts/routes';
import type { Transport } from '../contracts/transform-env';
import type { RouteSpecInput } from '../opensearch/route-spec';

// The config uses the contracts' vocabulary; the contracts never import the config (lint enforces the direction).
export type { IndexRotation, Transport, TransformRoute };

/** Where the logs are kept: an OpenSearch Service domain (the default) or an OpenSearch Serverless collection. */
export type OpenSearchKind = 'domain' | 'serverless';
export const OPENSEARCH_KINDS: readonly OpenSearchKind[] = ['domain', 'serverless'];

/**
 * Collection types kfek reads, the one it accepts first. Only SEARCH keeps the `_id` kfek sends: Classic TIMESERIES
 * accepts `PUT <index>/_doc/<id>` for "search collection types only"
 * (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-genref.html), and NextGen
 * TIMESERIES and VECTORSEARCH use "Server-generated IDs (source document IDs are not preserved)"
 * (https://docs.aws.amazon.com/solutions/latest/migration-assistant-for-amazon-opensearch-service/mts-collection-types.html).
 */
export type CollectionType = 'SEARCH' | 'TIMESERIES' | 'VECTORSEARCH';
export const COLLECTION_TYPES: readonly CollectionType[] = ['SEARCH', 'TIMESERIES', 'VECTORSEARCH'];

/** The collection and its NextGen collection group (config `openSearch.serverless`). */
export interface ServerlessConfig {
  /** Always SEARCH once validated (the others are refused: they drop kfek's ids). */
  readonly collectionType: CollectionType;
  /** Standby replicas in a second Availability Zone: double the OCUs while active. */
  readonly standbyReplicas: boolean;
  /**
   * The collection group's capacity limits (OCU). Minimum 0 lets the group scale to zero after 10 idle minutes
   * (https://docs.aws.amazon.com/opensearch-service/latest/developerguide/serverless-scale-to-zero.html); the first
   * request after that waits 10-30 s.
   */
  readonly capacity: {
    readonly minIndexingOcu: number;
    readonly maxIndexingOcu: number;
    readonly minSearchOcu: number;
    readonly maxSearchOcu: number;
  };
}

/** Kinesis capacity mode. */
export type StreamMode = 'PROVISIONED' | 'ON_DEMAND';
/** What happens to data-bearing resources when their stack is deleted or they are replaced. */
export type RemovalPolicyName = 'destroy' | 'retain';

export const TRANSPORTS: readonly Transport[] = ['lambda', 'pipes'];
/** How documents reach OpenSearch (docs/delivery.md, "Choosing a delivery"). */
export type DeliveryMode = 'firehose' | 'direct';
/** The default first (what an unreadable value falls back to while its problem is reported). */
export const DELIVERY_MODES: readonly DeliveryMode[] = ['firehose', 'direct'];
export const STREAM_MODES: readonly StreamMode[] = ['PROVISIONED', 'ON_DEMAND'];
/**
 * Firehose's rotations, the default first (what an unreadable value falls back to while its problem is reported).
 * `NoRotation` is read only to be refused with its reason (core/config/opensearch-budget.ts).
 */
export const INDEX_ROTATIONS: readonly IndexRotation[] = [
  'OneDay',
  'OneHour',
  'OneWeek',
  'OneMonth',
  'NoRotation',
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
  /**
   * Other accounts whose logs this pipeline receives through CloudWatch Logs destinations (docs/multi-account.md).
   * Empty (and no {@link organizationId}): single-account, nothing cross-account is synthesized.
   */
  readonly accounts: readonly string[];
  /** AWS Organization id (`o-...`): every account of the organization is admitted (`aws:PrincipalOrgID`). */
  readonly organizationId?: string;
  /**
   * Regions with source log groups: one destination (central account) and one source stack each. Resolved to the
   * profile's `region` when the profile leaves it empty; always empty when nothing is cross-account.
   */
  readonly regions: readonly string[];
  /** What the source-account stack subscribes in every source account and region. */
  readonly remote: RemoteSourcesConfig;
}

/** The source-account side of a cross-account profile: the same in every source account and region. */
export interface RemoteSourcesConfig {
  /** Existing log groups to subscribe to the destination (source stacks never create or delete log groups). */
  readonly logGroups: readonly string[];
  /** Filter pattern of those subscriptions (`''` = all events). */
  readonly filterPattern: string;
  /** Account-level subscription filter policy in each source account and region. */
  readonly accountPolicy: {
    readonly enabled: boolean;
    readonly filterPattern: string;
    /** Log groups of the source account to leave out (kfek owns none there). */
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

/** A function invoked by a Kinesis event source mapping (or a pipe): the transform, the direct-delivery indexer. */
export interface KinesisFunctionConfig {
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
}

export interface TransformConfig extends KinesisFunctionConfig {
  /** Retention of the function's log group (days). */
  readonly logRetentionDays: number;
  /** S3 key prefix of dead-lettered poison records (ends with `/`). */
  readonly deadLetterPrefix: string;
}

/**
 * The indexer function of `delivery.mode: direct` and its event source mapping on the events stream. Its record age
 * must cover Firehose's delivery bound (core/config/delivery.ts): on a switch from Firehose the indexer re-reads the
 * events stream, and what Firehose may still have held must be indexed, not set aside.
 */
export interface DirectDeliveryConfig extends KinesisFunctionConfig {
  /** Most bytes of one `_bulk` body. @default - the indexer's own default (lambda/indexer) */
  readonly bulkMaxBytes?: number;
  /** `_bulk` requests in flight at once per invocation. @default - the indexer's own default (lambda/indexer) */
  readonly concurrency?: number;
}

export interface DeliveryConfig {
  /**
   * `firehose`: the Firehose delivery stream and the domain's ingest pipeline. `direct`: kfek's indexer function
   * reads the events stream and writes each document's index, id and routing itself (docs/delivery.md).
   */
  readonly mode: DeliveryMode;
  /** The indexer function (mode `direct`; read in either mode so a switch is a one-word change). */
  readonly direct: DirectDeliveryConfig;
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
  /** Retention of the Firehose error log group, or of the indexer's log group with mode `direct` (days). */
  readonly logRetentionDays: number;
  /**
   * The transform packs documents into KPL aggregated records, which Firehose de-aggregates. Always false with
   * the Pipes transport (a pipe writes each item its enrichment returns as one record).
   */
  readonly aggregation: boolean;
}

export interface OpenSearchConfig {
  /**
   * Where the logs are kept: an OpenSearch Service domain, or an OpenSearch Serverless collection (docs/serverless.md;
   * the domain's instance, volume, zone and master settings are then unused).
   */
  readonly kind: OpenSearchKind;
  /** The collection and its collection group; read whatever the kind, used when `kind` is `serverless`. */
  readonly serverless: ServerlessConfig;
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
    /**
     * `index.refresh_interval` (s): how long an indexed document waits before searches see it, the last stage of
     * ingest-to-searchable latency (docs/latency.md). Lower costs more segment refreshes and merges.
     */
    readonly refreshSeconds: number;
    /** Slow-log thresholds (ms): queries / indexing operations slower than these are logged at WARN / INFO. */
    readonly slowSearchWarnMs: number;
    readonly slowSearchInfoMs: number;
    readonly slowIndexWarnMs: number;
    readonly slowIndexInfoMs: number;
    /**
     * App string fields kept aggregatable (dotted paths, `*` as in OpenSearch's `path_match`); every other app string
     * is searchable but has no doc values (docs/costs.md).
     */
    readonly aggregatableFields: readonly string[];
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

/**
 * The scheduled reconcile function (issue 32, docs/operations.md "Reconcile"): every `everyMinutes` it compares the
 * window of that length that ended `lagMinutes` ago, log group by log group and minute by minute, between CloudWatch
 * Logs and OpenSearch, heals what is missing and publishes `MissingEvents` and `HealedEvents`.
 */
export interface ReconcileConfig {
  /** Deploy the function (Pipeline stack) and its alarm and dashboard widgets (Monitoring stack). */
  readonly enabled: boolean;
  /** How often it runs, and the length of the window each run judges (5..60 minutes). */
  readonly everyMinutes: number;
  /**
   * How long the pipeline may take to make an event searchable: a minute newer than this is not judged, and an event
   * CloudWatch Logs took in more recently is late, never missing (1..1440 minutes). Also `kfek reconcile`'s default
   * `--lag`. Must cover Firehose's retry duration and buffering.
   */
  readonly lagMinutes: number;
  /** Send the missing events through the raw stream, as `kfek reconcile --heal` does. */
  readonly heal: boolean;
  /** Memory of the function (MB). */
  readonly memoryMb: number;
}

/**
 * One route of a profile (docs/teams-and-routes.md): what the transform needs (name, match, static fields,
 * processing; core/contracts/routes.ts) and where its documents are kept (index stem, retention, readers: the
 * provisioner's route spec, core/opensearch/route-spec.ts), composed from the two so neither is declared twice.
 */
export interface RouteConfig extends TransformRoute, Required<RouteSpecInput> {
  /** Required here: a profile's route always has one (the transform marks it, issue 39). */
  readonly indexStem: string;
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
  /**
   * Routes, in order: an event goes to the first route it matches, or to the default route (`delivery.indexPrefix`,
   * `openSearch.retention`, `openSearch.access.readerBackendRoles`) when it matches none.
   */
  readonly routes: readonly RouteConfig[];
  readonly reconcile: ReconcileConfig;
}
