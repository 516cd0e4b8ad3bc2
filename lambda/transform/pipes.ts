/**
 * Entry point for an EventBridge Pipes enrichment on the raw stream: Pipes hands over the batch of Kinesis
 * records as a JSON array, and whatever array this returns goes to the pipe's target.
 *
 * Pipes' Kinesis records are flat: `data` (base64), `partitionKey`, `sequenceNumber`, `eventSourceARN`,
 * `approximateArrivalTimestamp` ... at the top level, not under `kinesis` as in a Lambda event source mapping
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-kinesis.html).
 *
 * A thin adapter, like `handler.ts`: configuration, adapters (adapters.ts), logger and metrics are created once per
 * container; `processPipesBatch` (pipes-batch.ts), handed them and the pure core (transform.ts), does the work:
 * poison records go to the dead-letter bucket, and an answer too large for the pipe is written to the events stream
 * here.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, KinesisStreamEvent } from 'aws-lambda';
import { remainingBudget } from './budget';
import { RouteTable } from '../../core/transform/routing';
import { readTransformEnv } from './env';
import { createMetrics, logDrops, publishCounters } from './metrics';
import { createTransformAdapters } from './adapters';
import { processPipesBatch, type PipesItem } from './pipes-batch';
import { deadLetterData, toErrorDocument, transformRecord } from '../../core/transform/transform';

export {
  PIPES_MAX_ANSWER_BYTES,
  processPipesBatch,
  type PipesItem,
  type PipesKinesisRecord,
} from './pipes-batch';

/** An event source mapping's event (`KinesisStreamEvent`), not a pipe's array of records. */
function isKinesisEvent(event: unknown): event is KinesisStreamEvent {
  const records = (event as { Records?: unknown } | null)?.Records;
  return (
    !Array.isArray(event) &&
    Array.isArray(records) &&
    records.every((r) => (r as { eventSource?: unknown })?.eventSource === 'aws:kinesis')
  );
}

const env = readTransformEnv();
const logger = new Logger({ serviceName: env.serviceName });
const metrics = createMetrics(env);
const { writer, deadLetters } = createTransformAdapters(env);
// The routes, compiled once per container (routing.ts).
const routes = new RouteTable(env.routes);

export async function handler(event: unknown, context: Context): Promise<PipesItem[]> {
  // An event source mapping calls with `{ Records: [...] }`: during a switch from `lambda` to `pipes` the mapping
  // being removed calls this function until CloudFormation's cleanup (issue 30.5). It gets the answer the mapping's
  // handler gives (loaded only then), instead of one poison record for the whole event.
  if (isKinesisEvent(event))
    return (await import('./kinesis-handler')).handleMappingEvent(event, context) as never;
  logger.addContext(context);
  try {
    const outcome = await processPipesBatch(event, {
      transform: (data, options) =>
        transformRecord(data, { ...options, sourceRegions: env.sourceRegions, routes }),
      // With masking on, a poison record's raw data (which could not be decoded, so not masked either) is kept
      // only in the dead-letter bucket: its error document names the object but previews nothing.
      errorDocument: routes.masks
        ? (_data, reason, at, deadLetter) => toErrorDocument('', reason, at, deadLetter)
        : toErrorDocument,
      writer,
      deadLetters,
      // With masking on, a dead letter that decodes is kept with its events masked (transform.ts `deadLetterData`).
      deadLetterData: (data) => deadLetterData(data, routes),
      deadLetterBucket: env.deadLetterBucket,
      logger,
      remainingMs: remainingBudget(context),
    });
    publishCounters(metrics, outcome.counters, outcome.droppedByRule);
    logDrops(logger, outcome.droppedByRule);
    return outcome.items;
  } catch (error) {
    // Failing the invocation is the point (Pipes retries the batch); the log says why.
    logger.error('Pipes batch failed; Pipes will retry it', { error });
    throw error;
  } finally {
    logger.resetKeys();
  }
}
