/**
 * What an AWS call that failed means to the person running kfek: {@link translateAwsError} (retry.ts) turns the SDK's
 * errors into these, each one line that says what to do. Every runtime that calls AWS on a person's behalf uses them:
 * the CLI prints them, the scheduled reconcile function logs them.
 */
import { OperatorError } from '../errors';

/** An error's `name` (the SDK's exception name, e.g. ResourceNotFoundException), or '' when it has none. */
export function errorName(error: unknown): string {
  const name = (error as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : '';
}

/** Base class of the AWS calls' errors. */
export class AwsError extends OperatorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AwsError';
  }
}

/** The SDK found no credentials in any provider. */
export class MissingCredentialsError extends AwsError {
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
export class MissingRegionError extends AwsError {
  constructor(options?: { cause?: unknown }) {
    super(
      'No AWS region set: pass --region or set AWS_REGION (any region works against a local endpoint).',
      options,
    );
    this.name = 'MissingRegionError';
  }
}

/** The log group does not exist (in this account and region, or on this endpoint). */
export class UnknownLogGroupError extends AwsError {
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
export class ThrottledError extends AwsError {
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
export class AccessDeniedError extends AwsError {
  constructor(operation: string, detail: string, options?: { cause?: unknown }) {
    super(`${operation} was denied (${detail}): use credentials whose policy allows it.`, options);
    this.name = 'AccessDeniedError';
  }
}

/** Logs Insights ended a query with Failed, Cancelled or Timeout, or it ran past its timeout. */
export class QueryFailedError extends AwsError {
  constructor(status: string, hint: string) {
    super(`The Logs Insights query ended with status ${status}: ${hint}`);
    this.name = 'QueryFailedError';
  }
}
