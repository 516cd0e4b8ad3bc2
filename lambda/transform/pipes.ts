/**
 * Entry point for an EventBridge Pipes enrichment on the raw stream: Pipes hands over the batch of Kinesis
 * records as a JSON array, and whatever array this returns goes to the pipe's target.
 *
 * Pipes' Kinesis records are flat: `data` (base64), `partitionKey`, `sequenceNumber`, `eventSourceARN`,
 * `approximateArrivalTimestamp` ... at the top level, not under `kinesis` as in a Lambda event source mapping
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-kinesis.html).
 *
 * A Kinesis (or Firehose) target takes at most 500 items per invocation and Pipes does not invoke it with more
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-batching-concurrency.html); one CloudWatch
 * envelope can hold up to 10,000 events, so the pipe's batch size must leave room. An oversized answer is logged
 * and counted here; nothing here can split it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { readCommonEnv } from './env';
import { createMetrics, emptyCounters, publishCounters, type TransformCounters } from './metrics';
import { toErrorDocument, transformRecord } from './transform';
import type { LogDocument, RecordOutcome } from './types';

/** One record as EventBridge Pipes delivers it from a Kinesis stream source. */
export interface PipesKinesisRecord {
  readonly kinesisSchemaVersion?: string;
  readonly partitionKey: string;
  readonly sequenceNumber: string;
  /** The record data, base64. */
  readonly data: string;
  /** Seconds since the epoch. */
  readonly approximateArrivalTimestamp?: number;
  readonly eventSource?: string;
  readonly eventVersion?: string;
  readonly eventID?: string;
  readonly eventName?: string;
  readonly invokeIdentityArn?: string;
  readonly awsRegion?: string;
  readonly eventSourceARN?: string;
}

/** Most items a Kinesis stream (or Firehose) target accepts per pipe invocation. */
export const PIPES_KINESIS_TARGET_MAX_ITEMS = 500;

export interface PipesBatchOutcome {
  readonly documents: LogDocument[];
  readonly counters: TransformCounters;
  /** True when there are more documents than a Kinesis target accepts (the pipe will not invoke it). */
  readonly overTargetLimit: boolean;
}

/**
 * Turns the Pipes batch into documents, in order: one per log event, none for a control message, one error
 * document per poison record. Never throws, whatever the input.
 */
export function transformPipesBatch(event: unknown, now: () => Date = () => new Date()): PipesBatchOutcome {
  const counters = emptyCounters();
  const documents: LogDocument[] = [];
  const records: unknown[] = Array.isArray(event) ? event : [event];
  counters.RecordsIn = records.length;
  for (const record of records) {
    const data = dataOf(record);
    const outcome: RecordOutcome =
      data === undefined
        ? { kind: 'poison', reason: 'record has no base64 `data` string' }
        : transformRecord(data);
    switch (outcome.kind) {
      case 'control':
        counters.ControlMessages += 1;
        break;
      case 'poison':
        counters.PoisonRecords += 1;
        documents.push(toErrorDocument(data ?? rawOf(record), outcome.reason, now()));
        break;
      case 'data':
        for (const doc of outcome.documents) {
          // The core serializes once for the Kinesis path; Pipes wants objects, so parse back. JSON.parse of
          // JSON.stringify output is exact for the document shape (strings, numbers, booleans, objects).
          documents.push(JSON.parse(doc.json) as LogDocument);
          if (doc.truncated) counters.TruncatedDocuments += 1;
        }
        break;
    }
  }
  counters.EventsOut = documents.length;
  return { documents, counters, overTargetLimit: documents.length > PIPES_KINESIS_TARGET_MAX_ITEMS };
}

function dataOf(record: unknown): string | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const data = (record as { data?: unknown }).data;
  return typeof data === 'string' ? data : undefined;
}

/** For an error document about input that is not a Pipes Kinesis record at all: its JSON, base64. */
function rawOf(record: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(record) ?? String(record);
  } catch {
    text = String(record);
  }
  return Buffer.from(text, 'utf8').toString('base64');
}

const env = readCommonEnv();
const logger = new Logger({ serviceName: env.serviceName });
const metrics = createMetrics(env);

/** Synchronous work, returned as a promise because the Lambda Node.js runtime wants an async handler. */
export function handler(event: unknown, context: Context): Promise<LogDocument[]> {
  logger.addContext(context);
  try {
    const outcome = transformPipesBatch(event);
    if (outcome.counters.PoisonRecords > 0) {
      logger.warn('Poison records returned as error documents', {
        poisonRecords: outcome.counters.PoisonRecords,
      });
    }
    if (outcome.overTargetLimit) {
      logger.error('More documents than a Kinesis target accepts per invocation; lower the pipe batch size', {
        documents: outcome.documents.length,
        limit: PIPES_KINESIS_TARGET_MAX_ITEMS,
      });
    }
    publishCounters(metrics, outcome.counters);
    return Promise.resolve(outcome.documents);
  } finally {
    logger.resetKeys();
  }
}
