/**
 * The transform's metric names: a contract between the Lambda that publishes them (lambda/transform/metrics.ts)
 * and the alarms and dashboard that read them (lib/constructs/pipeline-monitoring.ts). CDK-free and
 * Powertools-free, so synth does not load the Lambda's dependencies.
 */

/** Metric names: a public contract (alarms and dashboards use them). */
export const MetricName = {
  /** Source records received (Kinesis records or Pipes records). */
  RecordsIn: 'RecordsIn',
  /** Documents produced (written to the events stream, or returned to Pipes). */
  EventsOut: 'EventsOut',
  /**
   * Events-stream records written (Kinesis handler). With aggregation one record holds many documents:
   * `EventsOut / RecordsOut` is the documents per record, which sets the Kinesis and Firehose bill.
   */
  RecordsOut: 'RecordsOut',
  /** CONTROL_MESSAGE envelopes (CloudWatch Logs' reachability checks), which produce no document. */
  ControlMessages: 'ControlMessages',
  /** Records that could not be decoded (stored in S3, or returned as an error document). */
  PoisonRecords: 'PoisonRecords',
  /** Poison records stored in the dead-letter bucket. */
  DeadLetteredRecords: 'DeadLetteredRecords',
  /** Documents whose message was cut to fit one Kinesis record. */
  TruncatedDocuments: 'TruncatedDocuments',
  /** PutRecords entries sent again after a failure. */
  RetriedEntries: 'RetriedEntries',
  /** Throttling answers from Kinesis (per entry or per call). */
  Throttles: 'Throttles',
  /** Invocations that ended with a partial batch response (Lambda retries from the reported record). */
  PartialBatchResponses: 'PartialBatchResponses',
  /**
   * Documents the Pipes enrichment wrote to the events stream itself because its answer would not fit the pipe
   * (more than 500 items for a Kinesis target, or more than the answer size limit). Not a failure: nothing is lost;
   * a steady rate says the pipe's batch size is too large for the log groups it carries.
   */
  OverflowDocuments: 'OverflowDocuments',
  /** Values replaced by a marker by a route's masking (docs/teams-and-routes.md). */
  MaskedValues: 'MaskedValues',
  /** Events a route's drop rule kept out of OpenSearch: counted, never silent. */
  DroppedEvents: 'DroppedEvents',
  /** Continuation lines a route's multi-line rule joined into the event before them. */
  JoinedLines: 'JoinedLines',
} as const;
export type MetricName = (typeof MetricName)[keyof typeof MetricName];

/**
 * Documents per events-stream record in one invocation; published only when records were written, so an idle
 * or failed invocation does not pull the average towards zero. The dashboard plots the exact ratio of sums
 * (`EventsOut / RecordsOut`); this one also shows the spread (min, max, percentiles) between invocations.
 */
export const DOCUMENTS_PER_RECORD_METRIC = 'DocumentsPerRecord';

/**
 * Documents a route's drop rule kept out, per rule (docs/teams-and-routes.md "Drop rules"): published beside the total
 * `DroppedEvents` (which the dashboard plots, unchanged) with the rule's name in the {@link DROP_RULE_DIMENSION}
 * dimension, once per rule that dropped something in the invocation, so an operator sees which rule drops what. A
 * dropped multi-line trace counts once, as in `DroppedEvents`.
 */
export const DROPPED_BY_RULE_METRIC = 'DroppedEventsByRule';
/** The dimension of {@link DROPPED_BY_RULE_METRIC} that names the drop rule. */
export const DROP_RULE_DIMENSION = 'DropRule';

/**
 * The scheduled reconcile function's metrics (lambda/reconcile/handler.ts): per run, in the config's namespace with
 * `service` = `reconcile` (core/contracts/reconcile-env.ts), once for all log groups and once per log group (dimension
 * {@link RECONCILE_LOG_GROUP_DIMENSION}, Missing and Healed only). The Monitoring stack's alarm and dashboard read them.
 */
export const ReconcileMetricName = {
  /** Events CloudWatch Logs holds that are not searchable and kept nowhere, after the heal. */
  MissingEvents: 'MissingEvents',
  /** Events the heal sent through the raw stream that became searchable. */
  HealedEvents: 'HealedEvents',
  /** Events not searchable but kept with their reason (dead letters, discarded batches, failed documents). */
  KeptEvents: 'KeptEvents',
  /** Events of the judged window (the cheap tier's CloudWatch count). */
  JudgedEvents: 'JudgedEvents',
} as const;
export type ReconcileMetricName = (typeof ReconcileMetricName)[keyof typeof ReconcileMetricName];

/** The dimension of the per-log-group reconcile metrics. */
export const RECONCILE_LOG_GROUP_DIMENSION = 'LogGroup';

/**
 * The direct-delivery indexer's metrics (lambda/indexer, config `delivery.mode: direct`): per invocation, in the
 * config's namespace with `service` = `indexer` (core/contracts/indexer-env.ts `INDEXER_SERVICE_NAME`). The Monitoring
 * alarms and dashboard read them as they read Firehose's delivery metrics on the Firehose path.
 */
export const IndexerMetricName = {
  /** Documents read from the events stream (after de-aggregation). */
  DocumentsIn: 'DocumentsIn',
  /** Documents OpenSearch indexed (created or overwritten by id). */
  IndexedDocuments: 'IndexedDocuments',
  /** Documents OpenSearch refused for good, kept in the failed-documents bucket with the reason. */
  RefusedDocuments: 'RefusedDocuments',
  /** `_bulk` requests or items sent again after a 429, a 5xx or a connection error. */
  RetriedRequests: 'RetriedRequests',
  /** Records reported as batch item failures (Lambda retries them; after the retries, the on-failure destination). */
  DeliveryErrors: 'DeliveryErrors',
} as const;
export type IndexerMetricName = (typeof IndexerMetricName)[keyof typeof IndexerMetricName];
