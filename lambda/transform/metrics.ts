/**
 * The transform's counters and how they reach CloudWatch: Powertools Metrics writes them in embedded metric
 * format (EMF) to stdout, and CloudWatch Logs extracts them; no PutMetricData call on the hot path.
 */
import type { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import {
  DOCUMENTS_PER_RECORD_METRIC,
  DROP_RULE_DIMENSION,
  DROPPED_BY_RULE_METRIC,
  MetricName,
} from '../../core/contracts/metrics';
import type { CommonEnv } from './env';
import type { ProcessingCounts } from '../../core/transform/types';

/** What one invocation counted. */
export type TransformCounters = Record<MetricName, number>;

/** Documents each drop rule kept out in one invocation, by rule name (the rule names drop-rules.ts promises). */
export type DropCounts = Record<string, number>;

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

/**
 * Adds what a record's route processing did (masked, dropped, joined) to the counters, and its drops by rule to
 * `dropped` (the total `DroppedEvents` is their sum).
 */
export function countProcessing(
  counters: TransformCounters,
  processing: ProcessingCounts | undefined,
  dropped: DropCounts,
): void {
  if (processing === undefined) return;
  counters.MaskedValues += processing.maskedValues;
  counters.JoinedLines += processing.joinedLines;
  for (const [rule, n] of Object.entries(processing.droppedByRule)) {
    counters.DroppedEvents += n;
    dropped[rule] = (dropped[rule] ?? 0) + n;
  }
}

/** One Metrics instance per container, as Powertools recommends. */
export function createMetrics(env: CommonEnv): Metrics {
  return new Metrics({ namespace: env.metricsNamespace, serviceName: env.serviceName });
}

/**
 * Adds every counter (zeros included, so dashboards show a flat line rather than a gap), the documents per
 * record when any record was written, and flushes one EMF line; then one EMF line per drop rule that dropped
 * something ({@link DROPPED_BY_RULE_METRIC} with the rule in {@link DROP_RULE_DIMENSION}), which an invocation without
 * drops does not write.
 */
export function publishCounters(
  metrics: Metrics,
  counters: TransformCounters,
  dropped: DropCounts = {},
): void {
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
  for (const [rule, n] of Object.entries(dropped)) {
    const single = metrics.singleMetric();
    single.addDimension(DROP_RULE_DIMENSION, rule);
    single.addMetric(DROPPED_BY_RULE_METRIC, MetricUnit.Count, n);
  }
}

/** The invocation's drops by rule, in one log line (none when nothing was dropped). */
export function logDrops(logger: Pick<Logger, 'info'>, dropped: DropCounts): void {
  if (Object.keys(dropped).length > 0)
    logger.info('Events kept out by drop rules', { droppedByRule: dropped });
}
