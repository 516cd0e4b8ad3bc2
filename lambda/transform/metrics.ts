/**
 * The transform's counters and how they reach CloudWatch: Powertools Metrics writes them in embedded metric
 * format (EMF) to stdout, and CloudWatch Logs extracts them; no PutMetricData call on the hot path.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { CommonEnv } from './env';

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
} as const;
export type MetricName = (typeof MetricName)[keyof typeof MetricName];

/** What one invocation counted. */
export type TransformCounters = Record<MetricName, number>;

export function emptyCounters(): TransformCounters {
  return {
    RecordsIn: 0,
    EventsOut: 0,
    RecordsOut: 0,
    ControlMessages: 0,
    PoisonRecords: 0,
    DeadLetteredRecords: 0,
    TruncatedDocuments: 0,
    RetriedEntries: 0,
    Throttles: 0,
    PartialBatchResponses: 0,
  };
}

/** One Metrics instance per container, as Powertools recommends. */
export function createMetrics(env: CommonEnv): Metrics {
  return new Metrics({ namespace: env.metricsNamespace, serviceName: env.serviceName });
}

/**
 * Documents per events-stream record in one invocation; published only when records were written, so an idle
 * or failed invocation does not pull the average towards zero. The dashboard plots the exact ratio of sums
 * (`EventsOut / RecordsOut`); this one also shows the spread (min, max, percentiles) between invocations.
 */
export const DOCUMENTS_PER_RECORD_METRIC = 'DocumentsPerRecord';

/**
 * Adds every counter (zeros included, so dashboards show a flat line rather than a gap), the documents per
 * record when any record was written, and flushes one EMF line.
 */
export function publishCounters(metrics: Metrics, counters: TransformCounters): void {
  for (const name of Object.values(MetricName)) {
    metrics.addMetric(name, MetricUnit.Count, counters[name]);
  }
  if (counters.RecordsOut > 0) {
    metrics.addMetric(
      DOCUMENTS_PER_RECORD_METRIC,
      MetricUnit.NoUnit,
      counters.EventsOut / counters.RecordsOut,
    );
  }
  metrics.publishStoredMetrics();
}
