/**
 * The base of every error whose message is written for the person running kfek: one line that says what went wrong
 * and what to do. The CLI prints it as `kfek: <message>` and exits with {@link OperatorError.exitCode} (cli/main.ts);
 * a Lambda function logs it and fails the invocation. Each family extends it: the AWS calls' errors (core/aws), the
 * Kinesis reader's (core/kinesis), kept data's (core/kept), the CLI's own (cli/errors.ts).
 */
export class OperatorError extends Error {
  /** The CLI's exit code when it stops on this error: 2 for a bad command line, 1 for everything else. */
  readonly exitCode: number = 1;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OperatorError';
  }
}

/** OpenSearch could not be reached or answered with an error (verify, the reconcile's search side). */
export class OpenSearchRequestError extends OperatorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OpenSearchRequestError';
  }
}

/** The message of anything thrown (duck-typed for the reason given below). */
export function messageOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'message' in error
    ? String(error.message)
    : String(error);
}

/**
 * `code: message` of a network error. Duck-typed rather than `instanceof Error`: fetch's errors come from
 * undici's realm, which is not the caller's in some hosts (jest's VM contexts).
 */
export function describeNetworkError(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const message = String(error.message);
    const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
    return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}
