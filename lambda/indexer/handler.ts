/**
 * The direct-delivery indexer (config `delivery.mode: direct`, issue 41): the Kinesis event source mapping on the
 * events stream calls it (enable `ReportBatchItemFailures`), and it writes each document to OpenSearch with the
 * `_index`, `_id` and `routing` the ingest pipeline would have given it (deliver.ts). A thin adapter: the settings
 * are read and the clients created once per container; the batch logic sees only its ports.
 */
import { randomUUID } from 'node:crypto';
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { SYSTEM_CLOCK } from '../../core/clock';
import { createS3Client, s3FailedDocumentStore, signedBulkPort } from './adapters';
import { deliverBatch, type DeliveryPorts, type DeliveryResult } from './deliver';
import { readIndexerEnv } from './env';
import { createMetrics, publishCounts } from './metrics';
import type { IndexerRecord } from './ports';
import { signedRouteSource } from './routes';

/**
 * Time kept back from the invocation's remaining time: enough to keep the refused documents in S3, flush the
 * metrics and answer before Lambda's timeout, which would otherwise give the whole batch again.
 */
export const INDEXER_SAFETY_MARGIN_MS = 3_000;

const env = readIndexerEnv();
const logger = new Logger({ serviceName: env.serviceName });
const metrics = createMetrics(env);
const signing = { endpoint: env.endpoint, region: env.region, service: env.signingService };
const ports: DeliveryPorts = {
  bulk: signedBulkPort(signing),
  store: s3FailedDocumentStore(createS3Client(env.s3ForcePathStyle), env.failedDocumentsBucket),
  clock: SYSTEM_CLOCK,
  random: Math.random,
  objectName: () => `kfek-indexer-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}`,
  log: { warn: (message, details) => logger.warn(message, details ?? {}) },
};
const routes = signedRouteSource(env, signing, SYSTEM_CLOCK, ports.log);

/**
 * Listeners of each invocation's result: the local runner's accounting (`npm start -- --delivery direct` runs this
 * module in its own process, where EMF lines reach no CloudWatch). Lambda never registers one.
 */
const observers: Array<(result: DeliveryResult) => void> = [];

/** Registers a listener of every invocation's result (see {@link observers}). */
export function observeDeliveries(listener: (result: DeliveryResult) => void): void {
  observers.push(listener);
}

/** The batch's records as the batch logic takes them. */
export function indexerRecords(event: KinesisStreamEvent): IndexerRecord[] {
  return event.Records.map((r) => ({
    sequenceNumber: r.kinesis.sequenceNumber,
    data: Buffer.from(r.kinesis.data, 'base64'),
    arrival: Math.round(r.kinesis.approximateArrivalTimestamp * 1000),
  }));
}

export async function handler(
  event: KinesisStreamEvent,
  context: Context,
): Promise<KinesisStreamBatchResponse> {
  const remaining = context.getRemainingTimeInMillis();
  // Half the time at most goes to the margin, so a short timeout still leaves time to send.
  const deadline = SYSTEM_CLOCK.now() + remaining - Math.min(INDEXER_SAFETY_MARGIN_MS, remaining / 2);
  const result = await deliverBatch(
    indexerRecords(event),
    { ...env, target: await routes.target() },
    ports,
    deadline,
  );
  publishCounts(metrics, result.counts);
  for (const observe of observers) observe(result);
  if (result.failures.length > 0) {
    logger.warn('records given back to Lambda: documents not yet indexed or kept', {
      records: result.failures.length,
      firstSequenceNumber: result.failures[0],
    });
  }
  return { batchItemFailures: result.failures.map((itemIdentifier) => ({ itemIdentifier })) };
}
