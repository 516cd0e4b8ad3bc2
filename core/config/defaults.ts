/** Defaults as data (docs/settings.md lists the same values), and the keys a profile may add or no longer use. */

import { DEFAULT_DEAD_LETTER_PREFIX, DEFAULT_EVENTS_AGGREGATION } from '../contracts/transform-env';

/** The context key holding `{ profiles: { NAME: PartialConfig } }`. */
export const CONTEXT_KEY = 'kfek';
/** The context key selecting a profile (`-c profile=NAME`). */
export const PROFILE_CONTEXT_KEY = 'profile';
export const DEFAULT_PROFILE = 'sandbox';

/** The event source function defaults the transform and the direct-delivery indexer share. */
const KINESIS_FUNCTION = {
  memoryMb: 512,
  timeoutSeconds: 60,
  batchSize: 100,
  // Realtime sandbox (docs/latency.md): invoke as soon as a poll returns records. Kinesis event sources accept a
  // 0 s window with any batch size (the ">10 needs >=1 s" rule is SQS's).
  maxBatchingWindowSeconds: 0,
  parallelizationFactor: 1,
  retryAttempts: 3,
  maxRecordAgeSeconds: 3600,
} as const;

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
    // Cross-account (docs/multi-account.md): off while both `accounts` and `organizationId` are unset.
    accounts: [],
    regions: [],
    remote: {
      logGroups: [],
      filterPattern: '',
      accountPolicy: { enabled: false, filterPattern: '', excludeLogGroups: [] },
    },
  },
  streams: {
    raw: { mode: 'PROVISIONED', shardCount: 1, retentionHours: 24 },
    events: { mode: 'PROVISIONED', shardCount: 1, retentionHours: 24 },
  },
  transform: {
    ...KINESIS_FUNCTION,
    logRetentionDays: 14,
    deadLetterPrefix: DEFAULT_DEAD_LETTER_PREFIX,
  },
  delivery: {
    mode: 'firehose',
    // The indexer of mode `direct` (docs/delivery.md), with the transform's event source settings: a realtime 0 s
    // window, 100 records (each may hold many documents with aggregation). Its record age must outlast Firehose's
    // retry duration and buffering (core/config/delivery.ts); `bulkMaxBytes` and `concurrency` are optional: left
    // out, the indexer uses its own measured defaults.
    direct: KINESIS_FUNCTION,
    // Zero buffering: Firehose delivers within seconds instead of waiting up to 60 s (docs/latency.md says what the
    // smaller bulk requests cost). Allowed for an OpenSearch destination (0..900 s), not for the S3 backup.
    bufferingIntervalSeconds: 0,
    bufferingSizeMb: 5,
    indexPrefix: 'logs',
    indexRotation: 'OneDay',
    retryDurationSeconds: 300,
    failedDocumentsPrefix: 'failed-documents/',
    logRetentionDays: 14,
    aggregation: DEFAULT_EVENTS_AGGREGATION,
  },
  openSearch: {
    kind: 'domain',
    // Used with kind "serverless" (docs/serverless.md): a SEARCH collection (the one type that keeps kfek's ids) in a
    // NextGen group that scales to zero when idle, without standby replicas (a sandbox's choice; production doubles).
    serverless: {
      collectionType: 'SEARCH',
      standbyReplicas: false,
      capacity: { minIndexingOcu: 0, maxIndexingOcu: 4, minSearchOcu: 0, maxSearchOcu: 4 },
    },
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
      refreshSeconds: 1,
      slowSearchWarnMs: 5000,
      slowSearchInfoMs: 2000,
      slowIndexWarnMs: 5000,
      slowIndexInfoMs: 2000,
      aggregatableFields: [],
    },
    retention: { deleteAfterDays: 14 },
    access: {},
  },
  // 90 days: well past the default (14) and production (30) index retention, so someone who notices a gap in the
  // indexed logs while they are still searchable can replay what was kept; after that nobody replays into indices
  // ISM has already deleted, and keeping failed records forever only keeps their (possibly sensitive) content.
  failedRecords: { expireAfterDays: 90 },
  // No routes: every event goes to the default route (docs/teams-and-routes.md).
  routes: [],
  // Off by default (the production profile turns it on): it reads every subscribed log group four times an hour.
  reconcile: { enabled: false, everyMinutes: 15, lagMinutes: 15, heal: true, memoryMb: 512 },
  alarms: {
    iteratorAgeMs: 60_000,
    poisonRecords: 1,
    firehoseFreshnessSeconds: 900,
    freeStorageMb: 2048,
    jvmMemoryPressurePercent: 85,
  },
} as const;

/** Keys that may appear in input although {@link DEFAULTS} leaves them unset (optional settings). */
export const OPTIONAL_KEYS: Readonly<Record<string, readonly string[]>> = {
  '': ['account', 'region'],
  'openSearch.retention': ['warmAfterDays'],
  sources: ['organizationId'],
  'openSearch.access': ['adminBackendRoles', 'readerBackendRoles'],
  alarms: ['email'],
  'delivery.direct': ['bulkMaxBytes', 'concurrency'],
};

/**
 * Settings that existed once and were removed, with what replaces them: a profile that still sets one gets this
 * message instead of a bare "unknown setting", so nobody deploys believing a knob still works.
 */
export const REMOVED_KEYS: Readonly<Record<string, string>> = {
  'openSearch.access.masterUserName':
    "the domain master user is now kfek's IAM admin role (no internal users, no password); " +
    'to give people full access, use openSearch.access.adminBackendRoles (IAM role/user ARNs)',
  'openSearch.access.allowedCidrs':
    'the access policy admits only requests signed by IAM principals of the account (unsigned requests would be ' +
    'anonymous and refused by fine-grained access control anyway); use openSearch.access.adminBackendRoles ' +
    '(or readerBackendRoles) for your IAM role and sign your requests (docs/deploy.md, step 1)',
};
