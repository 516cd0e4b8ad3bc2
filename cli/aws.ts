/**
 * The CloudWatch Logs client the CLI uses, and the translation of SDK errors into the CLI's typed errors.
 */
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import {
  AccessDeniedError,
  CliError,
  MissingCredentialsError,
  MissingRegionError,
  ThrottledError,
  UnknownLogGroupError,
} from './errors';

export interface AwsTarget {
  /**
   * Endpoint override, e.g. `http://127.0.0.1:5000` for moto.
   * @default - `AWS_ENDPOINT_URL_CLOUDWATCH_LOGS` / `AWS_ENDPOINT_URL` if set (the SDK reads them), else AWS
   */
  readonly endpoint?: string;
  /** @default - the SDK's chain (AWS_REGION, profile); `us-east-1` when only an endpoint override is set */
  readonly region?: string;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where a command's AWS clients go: `--endpoint` or `AWS_ENDPOINT_URL`, and `--region`, `AWS_REGION`,
 * `AWS_DEFAULT_REGION`, or us-east-1 when an endpoint override is set (any region works against a local emulator).
 * An empty variable is an unset one (the SDK would throw "Region is missing" from a client's constructor).
 */
export function resolveAwsTarget(
  given: { readonly endpoint?: string; readonly region?: string },
  env: Env,
): { readonly endpoint?: string; readonly region?: string } {
  const fromEnv = (name: string): string | undefined => env[name]?.trim() || undefined;
  const endpoint = given.endpoint ?? fromEnv('AWS_ENDPOINT_URL');
  const region =
    given.region ??
    fromEnv('AWS_REGION') ??
    fromEnv('AWS_DEFAULT_REGION') ??
    (endpoint !== undefined ? 'us-east-1' : undefined);
  return { ...(endpoint !== undefined ? { endpoint } : {}), ...(region !== undefined ? { region } : {}) };
}

/** One client per command. Retries are ours ({@link withRetries}), so the SDK makes a single attempt per call. */
export function createLogsClient(target: AwsTarget, env: Env): CloudWatchLogsClient {
  // An empty variable (`AWS_REGION=`) is no setting: the SDK would take it for a region and refuse it.
  const set = (value: string | undefined): string | undefined => (value?.trim() === '' ? undefined : value);
  const endpointFromEnv = set(env.AWS_ENDPOINT_URL_CLOUDWATCH_LOGS) ?? set(env.AWS_ENDPOINT_URL);
  const region =
    set(target.region) ??
    set(env.AWS_REGION) ??
    set(env.AWS_DEFAULT_REGION) ??
    (target.endpoint !== undefined || endpointFromEnv !== undefined ? 'us-east-1' : undefined);
  try {
    return new CloudWatchLogsClient({
      ...(region !== undefined ? { region } : {}),
      ...(target.endpoint !== undefined ? { endpoint: target.endpoint } : {}),
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler({ connectionTimeout: 5_000, requestTimeout: 60_000 }),
    });
  } catch (error) {
    // The SDK checks some settings as it builds the client ("Region is missing"), outside any call.
    throw translateAwsError(error, 'Creating the CloudWatch Logs client');
  }
}

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

export const sleep = (millis: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, millis));

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
export function translateAwsError(error: unknown, operation: string, context: ErrorContext = {}): CliError {
  if (error instanceof CliError) return error;
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
    return new CliError(
      `${operation} could not connect to ${where} (${code}): check --endpoint, the network, and that it is running.`,
      { cause: error },
    );
  }
  // A service's error name says what went wrong (ValidationException); a bare `Error` says nothing.
  const named = name !== '' && name !== 'Error' ? `${name}: ` : '';
  return new CliError(`${operation} failed: ${named}${message}`, { cause: error });
}
