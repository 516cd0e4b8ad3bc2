/**
 * The pipe stand-in's dead-letter queue: a real SQS queue in moto, as the Search stack's `FailureQueue` is the
 * pipe's in AWS, and the message the stand-in sends there for a batch it gives up on.
 *
 * AWS documents that a Kinesis-source pipe's dead-letter target gets the batch's metadata, not its data (SQS and
 * SNS destinations of stream sources get metadata only; docs/guarantees.md), but not the message's JSON layout for
 * Pipes. So the stand-in writes the layout Lambda documents for a stream source's SQS on-failure destination
 * (`requestContext`, `responseContext`, `KinesisBatchInfo` with shard and sequence-number range;
 * https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html), which is what `kfek replay`
 * parses (cli/replay/parse.ts `parseDiscardedBatch` takes the range from whichever object names it). Whether
 * Pipes' real message uses these field names is not confirmed here.
 */
import { randomUUID } from 'node:crypto';
import type { _Record } from '@aws-sdk/client-kinesis';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { PipeError } from './errors';
import { sequenceNumberOf } from './lambda-invocation';

/** Why the pipe gave up on a batch (Lambda's condition names for stream sources). */
export type PipeDeadLetterCondition = 'RetryAttemptsExhausted' | 'RecordAgeExceeded';

export interface PipeDeadLetterMessage {
  readonly requestContext: {
    readonly requestId: string;
    readonly pipeArn: string;
    readonly condition: PipeDeadLetterCondition;
    readonly approximateInvokeCount: number;
  };
  readonly responseContext: { readonly statusCode: number; readonly functionError?: string };
  readonly version: '1.0';
  readonly timestamp: string;
  readonly KinesisBatchInfo: {
    readonly shardId: string;
    readonly startSequenceNumber: string;
    readonly endSequenceNumber: string;
    readonly approximateArrivalOfFirstRecord?: string;
    readonly approximateArrivalOfLastRecord?: string;
    readonly batchSize: number;
    readonly streamArn: string;
  };
  /** The stand-in's own note: the last error (an enrichment error, or what the target refused). */
  readonly kfekReason: string;
}

export interface PipeDeadLetterBatch {
  readonly pipeArn: string;
  readonly streamArn: string;
  readonly shardId: string;
  readonly records: readonly _Record[];
  readonly condition: PipeDeadLetterCondition;
  /** Invocations of these records that failed (0 for records that expired before any). */
  readonly attempts: number;
  /** True when the last failure was the enrichment's (a function error), not the target's. */
  readonly functionError: boolean;
  readonly reason: string;
  readonly at: Date;
}

/** The message for a batch given up on: metadata only, the data stays in the raw stream. */
export function pipeDeadLetterMessage(batch: PipeDeadLetterBatch): PipeDeadLetterMessage {
  const first = batch.records[0];
  const last = batch.records[batch.records.length - 1];
  return {
    requestContext: {
      requestId: randomUUID(),
      pipeArn: batch.pipeArn,
      condition: batch.condition,
      approximateInvokeCount: batch.attempts,
    },
    responseContext: {
      statusCode: 200,
      ...(batch.functionError ? { functionError: 'Unhandled' } : {}),
    },
    version: '1.0',
    timestamp: batch.at.toISOString(),
    KinesisBatchInfo: {
      shardId: batch.shardId,
      startSequenceNumber: sequenceNumberOf(first),
      endSequenceNumber: sequenceNumberOf(last),
      approximateArrivalOfFirstRecord: first?.ApproximateArrivalTimestamp?.toISOString(),
      approximateArrivalOfLastRecord: last?.ApproximateArrivalTimestamp?.toISOString(),
      batchSize: batch.records.length,
      streamArn: batch.streamArn,
    },
    kfekReason: batch.reason,
  };
}

/** Sends a batch's message; throws {@link PipeError} when it cannot (the loop must not move past the batch). */
export async function sendPipeDeadLetter(
  sqs: SQSClient,
  queueUrl: string,
  message: PipeDeadLetterMessage,
): Promise<void> {
  try {
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
  } catch (error) {
    throw new PipeError(
      `could not send the dead-letter message of ${message.KinesisBatchInfo.batchSize} record(s) ` +
        `(${message.KinesisBatchInfo.shardId} from ${message.KinesisBatchInfo.startSequenceNumber}) to ` +
        `${queueUrl}: ${String(error)}`,
      { cause: error },
    );
  }
}

/** The queue's URL and ARN. */
export interface LocalQueue {
  readonly url: string;
  readonly arn: string;
}

/** Creates the dead-letter queue (idempotent: CreateQueue with the same name returns the existing queue). */
export async function createDeadLetterQueue(sqs: SQSClient, name: string): Promise<LocalQueue> {
  const created = await sqs.send(new CreateQueueCommand({ QueueName: name }));
  const url = created.QueueUrl;
  if (url === undefined) throw new PipeError(`CreateQueue ${name} answered without a queue URL`);
  const attributes = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }),
  );
  const arn = attributes.Attributes?.QueueArn;
  if (arn === undefined) throw new PipeError(`queue ${url} has no QueueArn attribute`);
  return { url, arn };
}
