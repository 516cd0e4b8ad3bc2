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
 * Adds every counter (zeros included, so dashboards show a flat line rather than a gap) and flushes one EMF
 * line.
 */
export function publishCounters(metrics: Metrics, counters: TransformCounters): void {
  for (const name of Object.values(MetricName)) {
    metrics.addMetric(name, MetricUnit.Count, counters[name]);
  }
  metrics.publishStoredMetrics();
}
