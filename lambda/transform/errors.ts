/**
 * Errors of the pure transform core. They never escape `transformRecord`: it turns them into a
 * `poison` outcome whose reason is the error message, so the message must tell an operator what
 * was wrong with the record.
 */

/** Base class of every error the transform core raises internally. */
export class TransformError extends Error {
  public constructor(message: string) {
    super(message);
    this.name = 'TransformError';
  }
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
