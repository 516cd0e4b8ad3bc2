/**
 * The transform function's error root and the core's own errors. Every error class of core/transform and
 * lambda/transform extends `TransformError`: the core's (here), KPL aggregation's (kpl-aggregation.ts), and in
 * lambda/transform the writer's (kinesis-writer-errors.ts), the dead-letter store's (dead-letter.ts), the
 * configuration's (env.ts) and the Pipes batch's (pipes-batch.ts). Each subclass sets its own `name`, and its message tells an operator what to do.
 *
 * The core's errors never escape `transformRecord`: it turns them into a `poison` outcome whose reason is the error
 * message, so the message must tell an operator what was wrong with the record.
 */

/** Base class of every error the transform function raises. */
export class TransformError extends Error {
  public constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TransformError';
  }
}

/** `Name: message` of anything thrown, for logs and for messages that wrap another error. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * A record that can never be decoded, however often it is retried (not base64, broken gzip,
 * not JSON, not a CloudWatch Logs envelope...). The handlers dead-letter it with `message` as the
 * reason.
 */
export class PoisonRecordError extends TransformError {
  public constructor(reason: string) {
    super(reason);
    this.name = 'PoisonRecordError';
  }
}

/** The decompressed envelope is larger than `DecodeLimits.maxDecompressedBytes` (a gzip bomb or worse). */
export class DecompressedSizeError extends PoisonRecordError {
  public constructor(public readonly maxDecompressedBytes: number) {
    super(`decompressed size exceeds ${formatBytes(maxDecompressedBytes)}`);
    this.name = 'DecompressedSizeError';
  }
}

/** `64 MiB`, `512 KiB` or `1000 bytes`: limits read better in binary units when they are round. */
export function formatBytes(bytes: number): string {
  const MiB = 1024 * 1024;
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
