/**
 * Entry point for the Kinesis event source mapping on the raw stream (enable `ReportBatchItemFailures`).
 *
 * A thin adapter: configuration, SDK clients, logger and metrics are created once per container at module
 * scope; each invocation hands its batch to `processKinesisBatch` with a time budget, publishes the counters
 * as EMF, and returns the partial batch response.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { createKinesisClient, createS3Client } from './aws-clients';
import { S3DeadLetterStore } from './dead-letter';
import { readTransformEnv } from './env';
import { processKinesisBatch } from './kinesis-batch';
import { KinesisWriter } from './kinesis-writer';
import { createMetrics, publishCounters } from './metrics';
import { transformRecord } from './transform';

/**
 * Time kept back from the invocation's remaining time: enough to flush metrics and return the partial batch
 * response before Lambda's timeout, which would otherwise retry the whole batch.
 */
export const BUDGET_SAFETY_MARGIN_MS = 1_000;

const env = readTransformEnv();
const logger = new Logger({ serviceName: env.serviceName });
const metrics = createMetrics(env);
const writer = new KinesisWriter({
  client: createKinesisClient(),
  streamArn: env.eventsStreamArn,
  aggregate: env.aggregation,
});
const deadLetters = new S3DeadLetterStore({
  client: createS3Client(env),
  bucket: env.deadLetterBucket,
  prefix: env.deadLetterPrefix,
});

export async function handler(
  event: KinesisStreamEvent,
  context: Context,
): Promise<KinesisStreamBatchResponse> {
  logger.addContext(context);
  const remainingMs = (): number => context.getRemainingTimeInMillis() - BUDGET_SAFETY_MARGIN_MS;
  try {
    const outcome = await processKinesisBatch(event, remainingMs, {
      transform: (data) => transformRecord(data),
      writer,
      deadLetters,
      logger,
    });
    publishCounters(metrics, outcome.counters);
    return outcome.response;
  } finally {
    logger.resetKeys();
  }
}
