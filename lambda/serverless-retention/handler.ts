/**
 * The scheduled Serverless retention function (issue 42, docs/serverless.md): a SEARCH collection has no lifecycle
 * policy, so once a day (an EventBridge schedule) this deletes kfek's indices past their family's retention, by name,
 * with core/opensearch/serverless-retention.ts (only names kfek renders for one of the profile's stems; a foreign or
 * look-alike index is never touched). It publishes `RetentionDeletedIndices` and `RetentionFailures` as EMF metrics
 * (core/contracts/retention-env.ts); the Monitoring stack alarms on a failure and on a day without a run.
 *
 * A run never throws for what the collection answered: a refused listing or deletion is a failure it counts, logs
 * with the collection's answer, and the alarm reports. Only an environment it cannot read fails the invocation.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { readRetentionEnvironment, RetentionMetricName } from '../../core/contracts/retention-env';
import { createHttpClient } from '../../core/opensearch/http';
import { deleteExpiredIndices, type RetentionRun } from '../../core/opensearch/serverless-retention';
import { targetOfKind } from '../../core/opensearch/target';

const env = readRetentionEnvironment(process.env);
const logger = new Logger();
const metrics = new Metrics({ namespace: env.metricsNamespace });
const collection = createHttpClient({
  baseUrl: env.collectionUrl,
  // The first request after an idle spell waits while the collection scales up from zero (10-30 s): retried.
  auth: { kind: 'sigv4', region: process.env.AWS_REGION ?? '', service: targetOfKind('serverless').service },
  maxAttempts: 5,
});

export async function handler(event: ScheduledEvent, context: Context): Promise<RetentionRun> {
  logger.addContext(context);
  // Retention counts from the time the run was due, so a retried run deletes what the first one would have.
  const due = Date.parse(event.time);
  let run: RetentionRun;
  try {
    run = await deleteExpiredIndices(collection, {
      families: env.families,
      rotation: env.indexRotation,
      now: Number.isFinite(due) ? due : Date.now(),
    });
  } catch (error) {
    // The collection could not be reached at all: nothing was deleted, and the alarm must say so.
    run = {
      deleted: [],
      failed: [{ index: '*', reason: `${(error as Error).name}: ${(error as Error).message}` }],
    };
  }
  metrics.addMetric(RetentionMetricName.DeletedIndices, MetricUnit.Count, run.deleted.length);
  metrics.addMetric(RetentionMetricName.Failures, MetricUnit.Count, run.failed.length);
  metrics.publishStoredMetrics();
  logger.info('retention run', { deleted: run.deleted, failed: run.failed.length });
  for (const failure of run.failed) {
    logger.error('index past retention not deleted (docs/serverless.md, "Retention")', { ...failure });
  }
  logger.resetKeys();
  return run;
}
