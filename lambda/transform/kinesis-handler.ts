/**
 * The Kinesis event source mapping's handler on the raw stream (enable `ReportBatchItemFailures`); the function's
 * entry point is handler.ts, which hands it every event that is not a pipe's.
 *
 * A thin adapter: configuration, SDK clients, logger and metrics are created once per container at module
 * scope; each invocation hands its batch to `processKinesisBatch` with a time budget, publishes the counters
 * as EMF, and returns the partial batch response.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { remainingBudget } from './budget';
import { RouteTable } from '../../core/transform/routing';
import { readTransformEnv } from './env';
import { processKinesisBatch } from './kinesis-batch';
import { createMetrics, logDrops, publishCounters } from './metrics';
import { createTransformAdapters } from './adapters';
import { deadLetterData, transformRecord } from '../../core/transform/transform';

export { BUDGET_SAFETY_MARGIN_MS } from './budget';

const env = readTransformEnv();
const logger = new Logger({ serviceName: env.serviceName });
const metrics = createMetrics(env);
const { writer, deadLetters } = createTransformAdapters(env);
// The routes, compiled once per container (routing.ts).
const routes = new RouteTable(env.routes);

export async function handleMappingEvent(
  event: KinesisStreamEvent,
  context: Context,
): Promise<KinesisStreamBatchResponse> {
  logger.addContext(context);
  const remainingMs = remainingBudget(context);
  try {
    const outcome = await processKinesisBatch(event, remainingMs, {
      transform: (data, options) =>
        transformRecord(data, { ...options, sourceRegions: env.sourceRegions, routes }),
      writer,
      deadLetters,
      // With masking on, a dead letter that decodes is kept with its events masked (transform.ts `deadLetterData`).
      deadLetterData: (data) => deadLetterData(data, routes),
      logger,
    });
    publishCounters(metrics, outcome.counters, outcome.droppedByRule);
    logDrops(logger, outcome.droppedByRule);
    return outcome.response;
  } finally {
    logger.resetKeys();
  }
}
