/** The indexer's errors: one base class, so a caller can tell the indexer's failures from anything else. */
export class IndexerError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IndexerError';
  }
}

/** An environment variable is missing or holds a value the indexer cannot use. */
export class IndexerEnvError extends IndexerError {
  constructor(
    readonly variable: string,
    value: string | undefined,
    expected: string,
  ) {
    super(
      `Environment variable ${variable} is ${value === undefined ? 'not set' : JSON.stringify(value)}; expected ` +
        `${expected}. The Pipeline stack (or the local runner) writes it from the config: redeploy rather than ` +
        'edit it by hand.',
    );
    this.name = 'IndexerEnvError';
  }
}

/** OpenSearch answered `_bulk` with something that is not a bulk answer for the documents sent. */
export class BulkAnswerError extends IndexerError {
  constructor(message: string) {
    super(message);
    this.name = 'BulkAnswerError';
  }
}

/** The `Name: message` text of any thrown value, for logs and kept reasons. */
export function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
