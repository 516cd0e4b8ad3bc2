/**
 * The transform's two I/O ports, built once per container from its configuration: the events-stream writer and
 * the dead-letter store. Both entry points (Kinesis handler, Pipes enrichment) use the same ones.
 */
import { createKinesisClient, createS3Client } from './aws-clients';
import { S3DeadLetterStore } from './dead-letter';
import type { TransformEnv } from './env';
import { KinesisWriter } from './kinesis-writer';

export interface TransformPorts {
  readonly writer: KinesisWriter;
  readonly deadLetters: S3DeadLetterStore;
}

export function createTransformPorts(env: TransformEnv): TransformPorts {
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
