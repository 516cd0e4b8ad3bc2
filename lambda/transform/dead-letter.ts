/**
 * The dead-letter place for poison records: one JSON object per record in the stack's S3 bucket.
 *
 * S3 rather than SQS because a raw Kinesis record can be 1 MiB (base64 makes it 1.4 MB) and SQS stops at 256 KiB.
 * The key is derived from the record alone (arrival time, stream, shard, sequence number), so a redelivered
 * poison record overwrites its own object instead of piling up copies.
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  buildDeadLetterObject,
  type DeadLetterPutOptions,
  type DeadLetterSource,
  deadLetterKey,
} from './dead-letter-object';
import { describeError, TransformError } from '../../core/transform/errors';
import type { DeadLetterStore } from './ports';

/** Base class of dead-letter errors. */
export class DeadLetterError extends TransformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DeadLetterError';
  }
}

/** Storing a dead-letter object failed; the source record is not handled and must be retried. */
export class DeadLetterWriteError extends DeadLetterError {
  constructor(
    readonly bucket: string,
    readonly key: string,
    options?: ErrorOptions,
  ) {
    super(
      `Could not store dead-letter object s3://${bucket}/${key}: ${describeError(options?.cause)}. ` +
        'Check that the bucket exists and the function role may s3:PutObject under the dead-letter prefix.',
      options,
    );
    this.name = 'DeadLetterWriteError';
  }
}

export interface S3DeadLetterStoreProps {
  readonly client: S3Client;
  readonly bucket: string;
  /** Key prefix ending in `/`. */
  readonly prefix: string;
  /**
   * Clock; injected by tests.
   * @default () => new Date()
   */
  readonly now?: () => Date;
}

/** Stores poison records in S3. */
export class S3DeadLetterStore implements DeadLetterStore {
  private readonly now: () => Date;

  constructor(private readonly props: S3DeadLetterStoreProps) {
    this.now = props.now ?? (() => new Date());
  }

  /** Stores one poison record; resolves with its key once S3 has it, rejects with `DeadLetterWriteError`. */
  async put(
    source: DeadLetterSource,
    data: string,
    reason: string,
    options: DeadLetterPutOptions = {},
  ): Promise<string> {
    const receivedAt = this.now();
    const key = deadLetterKey(this.props.prefix, source, receivedAt);
    const body = JSON.stringify(buildDeadLetterObject(source, data, reason, receivedAt));
    try {
      await this.props.client.send(
        new PutObjectCommand({
          Bucket: this.props.bucket,
          Key: key,
          Body: body,
          ContentType: 'application/json',
        }),
        { abortSignal: options.abortSignal },
      );
    } catch (error) {
      throw new DeadLetterWriteError(this.props.bucket, key, { cause: error });
    }
    return key;
  }
}
