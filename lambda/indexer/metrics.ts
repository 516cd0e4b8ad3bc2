/**
 * The indexer's counters in embedded metric format through Powertools (as the transform's), namespace from the
 * config and dimension `service=indexer`: what its alarms and dashboard widgets read.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { IndexerMetricName } from '../../core/contracts/metrics';
import type { DeliveryCounts } from './deliver';
import type { IndexerEnv } from './env';

/** One Metrics instance per container, as Powertools recommends. */
export function createMetrics(env: Pick<IndexerEnv, 'metricsNamespace' | 'serviceName'>): Metrics {
  return new Metrics({ namespace: env.metricsNamespace, serviceName: env.serviceName });
}

/** Adds every counter (zeros included, so dashboards show a line, not a gap) and flushes one EMF line. */
export function publishCounts(metrics: Metrics, counts: DeliveryCounts): void {
  for (const name of Object.values(IndexerMetricName)) {
    metrics.addMetric(name, MetricUnit.Count, counts[name]);
  }
  metrics.publishStoredMetrics();
}
