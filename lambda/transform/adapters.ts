/**
 * The transform's adapters, built once per container from its configuration: the Kinesis implementation of the
 * events-stream writer port and the S3 implementation of the dead-letter store port (the ports are in ports.ts).
 * Both entry points (Kinesis handler, Pipes enrichment) use the same ones.
 */
import { createKinesisClient, createS3Client } from './aws-clients';
import { S3DeadLetterStore } from './dead-letter';
import type { TransformEnv } from './env';
import { KinesisWriter } from './kinesis-writer';

export interface TransformAdapters {
  readonly writer: KinesisWriter;
  readonly deadLetters: S3DeadLetterStore;
}

export function createTransformAdapters(env: TransformEnv): TransformAdapters {
  return {
    writer: new KinesisWriter({
      client: createKinesisClient(),
      streamArn: env.eventsStreamArn,
      aggregate: env.aggregation,
    }),
    deadLetters: new S3DeadLetterStore({
      client: createS3Client(env),
      bucket: env.deadLetterBucket,
      prefix: env.deadLetterPrefix,
    }),
  };
}
