/**
 * The CLI's errors. Each message is one line that says what went wrong and what to do; `main` prints it and
 * exits non-zero with the error's exit code.
 */
import { OperatorError } from '../core/errors';

/** Base class of the CLI's own errors (the AWS calls' errors are core/aws/errors.ts'). */
export class CliError extends OperatorError {
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

/** `kfek query --name` names no built-in and no saved query. */
export class UnknownQueryError extends CliError {
  constructor(name: string, known: readonly string[]) {
    super(
      `No saved query named ${JSON.stringify(name)}: use one of ${known.join(', ')} or a saved query's full name.`,
    );
    this.name = 'UnknownQueryError';
  }
}

// OpenSearch's request error is core/errors.ts' (the reconcile's search side, in core/, throws it too).
export { OpenSearchRequestError } from '../core/errors';

// cli/doctor (changed by issue 30 as this is written) still imports this one from here; its owner is core/aws.
export { MissingRegionError } from '../core/aws/errors';
