/**
 * The CLI's errors. Each message is one line that says what went wrong and what to do; `main` prints it and
 * exits non-zero with {@link CliError.exitCode}.
 */

/** Base class of every error the CLI reports to its user. */
export class CliError extends Error {
  /** Process exit code: 2 for bad usage, 1 for everything else. */
  readonly exitCode: number = 1;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CliError';
  }
}

/** The command line itself is wrong (unknown option, missing value, bad number). */
export class UsageError extends CliError {
  override readonly exitCode = 2;

  constructor(message: string) {
    super(`${message} (run \`kfek help\` for usage)`);
    this.name = 'UsageError';
  }
}

/** The SDK found no credentials in any provider. */
export class MissingCredentialsError extends CliError {
  constructor(options?: { cause?: unknown }) {
    super(
      'No AWS credentials found: set AWS_PROFILE (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); against a local ' +
        'endpoint any non-empty values work.',
      options,
    );
    this.name = 'MissingCredentialsError';
  }
}

/** No region configured. */
export class MissingRegionError extends CliError {
  constructor(options?: { cause?: unknown }) {
    super(
      'No AWS region set: pass --region or set AWS_REGION (any region works against a local endpoint).',
      options,
    );
    this.name = 'MissingRegionError';
  }
}

/** The log group does not exist (in this account and region, or on this endpoint). */
export class UnknownLogGroupError extends CliError {
  constructor(
    readonly logGroupName: string,
    options?: { cause?: unknown },
  ) {
    super(
      `Log group ${logGroupName} does not exist in this account/region: check --region and the name ` +
        '(`aws logs describe-log-groups --log-group-name-prefix ...`), or create it (the sources stack does for ' +
        'configured groups).',
      options,
    );
    this.name = 'UnknownLogGroupError';
  }
}

/** AWS kept throttling after every retry. */
export class ThrottledError extends CliError {
  constructor(
    readonly operation: string,
    attempts: number,
    options?: { cause?: unknown },
  ) {
    super(
      `${operation} was throttled ${attempts} times in a row: lower --rate, wait a minute and retry, or ask for a ` +
        'higher CloudWatch Logs quota.',
      options,
    );
    this.name = 'ThrottledError';
  }
}

/** The credentials were rejected or lack a permission. */
export class AccessDeniedError extends CliError {
  constructor(operation: string, detail: string, options?: { cause?: unknown }) {
    super(`${operation} was denied (${detail}): use credentials whose policy allows it.`, options);
    this.name = 'AccessDeniedError';
  }
}

/** `kfek query --name` names no built-in and no saved query. */
export class UnknownQueryError extends CliError {
  constructor(name: string, known: readonly string[]) {
    super(
      `No saved query named ${JSON.stringify(name)}: use one of ${known.join(', ')} or a saved query's full name.`,
    );
    this.name = 'UnknownQueryError';
  }
}

/** Logs Insights ended a query with Failed, Cancelled or Timeout, or it ran past --timeout. */
export class QueryFailedError extends CliError {
  constructor(status: string, hint: string) {
    super(`The Logs Insights query ended with status ${status}: ${hint}`);
    this.name = 'QueryFailedError';
  }
}

/** OpenSearch could not be reached or answered with an error. */
export class OpenSearchRequestError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OpenSearchRequestError';
  }
}
