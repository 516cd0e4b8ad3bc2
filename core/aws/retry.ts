/**
 * Calls to AWS on a person's behalf: which failures are worth another attempt ({@link isRetryable}), the one retry
 * loop (capped exponential backoff, full jitter: {@link withRetries}), and what a failure means to the person
 * ({@link translateAwsError}). The CLI's commands and the scheduled reconcile function share them.
 */
import { sleep } from '../clock';
import { OperatorError } from '../errors';
import {
  AccessDeniedError,
  AwsError,
  MissingCredentialsError,
  MissingRegionError,
  ThrottledError,
  UnknownLogGroupError,
} from './errors';

/** Error names the SDK uses for "slow down" and for transient server trouble. */
const RETRYABLE = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'LimitExceededException',
  'ServiceUnavailableException',
  'ServiceUnavailable',
  'InternalFailure',
  'RequestTimeout',
  'RequestTimeoutException',
]);
const THROTTLING = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'LimitExceededException',
]);
const NETWORK_CODES = new Set(['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ECONNREFUSED', 'EAI_AGAIN', 'ENOTFOUND']);

interface SdkLikeError {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly code?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: number };
}

function asSdkError(error: unknown): SdkLikeError {
  return typeof error === 'object' && error !== null ? error : {};
}

/**
 * The socket error code of a network failure. The SDK wraps those ("AWS SDK error wrapper for Error: connect
 * ECONNREFUSED ..."), keeping the code on the error, its cause, or only in the message.
 */
function networkCode(error: unknown): string | undefined {
  const e = asSdkError(error);
  const cause = asSdkError((error as { cause?: unknown } | undefined)?.cause);
  for (const code of [e.code, cause.code]) {
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
  }
  const m = /\b(ECONNRESET|ETIMEDOUT|EPIPE|ECONNREFUSED|EAI_AGAIN|ENOTFOUND)\b/.exec(
    typeof e.message === 'string' ? e.message : '',
  );
  return m?.[1];
}

/** True for throttling, 5xx and dropped connections: worth another attempt after a pause. */
export function isRetryable(error: unknown): boolean {
  const e = asSdkError(error);
  if (typeof e.name === 'string' && RETRYABLE.has(e.name)) return true;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined && (status === 429 || status >= 500)) return true;
  // A refused connection or an unknown host will not fix itself in a few seconds; a reset or timeout might.
  const code = networkCode(error);
  return code !== undefined && code !== 'ECONNREFUSED' && code !== 'ENOTFOUND';
}

export interface RetryOptions {
  /** @default 8 */
  readonly maxAttempts?: number;
  /** @default 200 */
  readonly baseDelayInMillis?: number;
  /** @default 10000 */
  readonly maxDelayInMillis?: number;
  /** Injected by tests. @default setTimeout */
  readonly sleep?: (millis: number) => Promise<void>;
  /** Injected by tests. @default Math.random */
  readonly random?: () => number;
  /** Called before each pause (the progress bar shows it). */
  readonly onRetry?: (attempt: number, error: unknown, delayInMillis: number) => void;
}

/**
 * Runs `call`, retrying retryable failures with capped exponential backoff and full jitter (the AWS
 * Architecture Blog's "Exponential Backoff And Jitter"). Anything else, and the last failure, is translated by
 * {@link translateAwsError}.
 */
export async function withRetries<T>(
  operation: string,
  call: () => Promise<T>,
  context: ErrorContext,
  options: RetryOptions = {},
): Promise<T> {
  const maxAttempts = options.maxAttempts ?? 8;
  const base = options.baseDelayInMillis ?? 200;
  const cap = options.maxDelayInMillis ?? 10_000;
  const pause = options.sleep ?? sleep;
  const random = options.random ?? Math.random;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if (!isRetryable(error) || attempt >= maxAttempts) {
        throw translateAwsError(error, operation, { ...context, attempts: attempt });
      }
      const delay = Math.floor(random() * Math.min(cap, base * 2 ** (attempt - 1)));
      options.onRetry?.(attempt, error, delay);
      await pause(delay);
    }
  }
}

export interface ErrorContext {
  /** The log group the call was about, for "does not exist" messages. */
  readonly logGroupName?: string;
  /** The endpoint override, for "cannot connect" messages. */
  readonly endpoint?: string;
  readonly attempts?: number;
}

/** Maps an SDK (or network) error to the CLI error that tells the user what to do. */
export function translateAwsError(
  error: unknown,
  operation: string,
  context: ErrorContext = {},
): OperatorError {
  if (error instanceof OperatorError) return error;
  const e = asSdkError(error);
  const name = typeof e.name === 'string' ? e.name : '';
  const message = typeof e.message === 'string' ? e.message : String(error);
  if (name === 'CredentialsProviderError' || /Could not load credentials/i.test(message)) {
    return new MissingCredentialsError({ cause: error });
  }
  // An empty AWS_REGION reaches the SDK as the region "": "Region not accepted: region="" is not a valid ...".
  if (/Region is missing|Region not accepted: region="\s*"/i.test(message)) {
    return new MissingRegionError({ cause: error });
  }
  if (
    name === 'ResourceNotFoundException' &&
    context.logGroupName !== undefined &&
    !/log stream/i.test(message)
  ) {
    return new UnknownLogGroupError(context.logGroupName, { cause: error });
  }
  if (THROTTLING.has(name) || e.$metadata?.httpStatusCode === 429) {
    return new ThrottledError(operation, context.attempts ?? 1, { cause: error });
  }
  if (
    [
      'AccessDeniedException',
      'UnrecognizedClientException',
      'InvalidSignatureException',
      'ExpiredTokenException',
    ].includes(name)
  ) {
    return new AccessDeniedError(operation, `${name}: ${message}`, { cause: error });
  }
  const code = networkCode(error);
  if (code !== undefined) {
    const where = context.endpoint ?? 'the AWS endpoint';
    return new AwsError(
      `${operation} could not connect to ${where} (${code}): check --endpoint, the network, and that it is running.`,
      { cause: error },
    );
  }
  // A service's error name says what went wrong (ValidationException); a bare `Error` says nothing.
  const named = name !== '' && name !== 'Error' ? `${name}: ` : '';
  return new AwsError(`${operation} failed: ${named}${message}`, { cause: error });
}
