/**
 * The transform's counters and how they reach CloudWatch: Powertools Metrics writes them in embedded metric
 * format (EMF) to stdout, and CloudWatch Logs extracts them; no PutMetricData call on the hot path.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { DOCUMENTS_PER_RECORD_METRIC, MetricName } from '../../core/contracts/metrics';
import type { CommonEnv } from './env';
import type { ProcessingCounts } from '../../core/transform/types';

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
    OverflowDocuments: 0,
    MaskedValues: 0,
    DroppedEvents: 0,
    JoinedLines: 0,
  };
}

/** Adds what a record's route processing did (masked, dropped, joined) to the counters. */
export function countProcessing(counters: TransformCounters, processing: ProcessingCounts | undefined): void {
  if (processing === undefined) return;
  counters.MaskedValues += processing.maskedValues;
  counters.JoinedLines += processing.joinedLines;
  for (const n of Object.values(processing.droppedByRule)) counters.DroppedEvents += n;
}

/** One Metrics instance per container, as Powertools recommends. */
export function createMetrics(env: CommonEnv): Metrics {
  return new Metrics({ namespace: env.metricsNamespace, serviceName: env.serviceName });
}

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
