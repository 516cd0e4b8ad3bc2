/**
 * Errors of the local runner (`npm start` and the end-to-end tests). One base class, so callers can tell
 * "the local stand-in failed" from an error of the code under test.
 */
export class LocalRunError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'LocalRunError';
  }
}

/** The event-source loop could not read the raw stream or gave up on a batch in a way it cannot record. */
export class EventSourceError extends LocalRunError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EventSourceError';
  }
}

/** The delivery loop (the local stand-in for Firehose) could not talk to OpenSearch or write a failed document. */
export class DeliveryError extends LocalRunError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DeliveryError';
  }
}

/** An HTTP call to the local OpenSearch node answered with an error status. */
export class SearchRequestError extends LocalRunError {
  constructor(
    message: string,
    /** HTTP status code, or 0 when no response arrived (connection refused, reset). */
    readonly statusCode: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'SearchRequestError';
  }
}

/** The pipeline did not settle (every written event indexed or accounted for) within the time allowed. */
export class DrainTimeoutError extends LocalRunError {
  constructor(message: string) {
    super(message);
    this.name = 'DrainTimeoutError';
  }
}

/**
 * An option of `npm start` is missing, unknown or malformed. (The operator CLI's usage error is cli/errors.ts
 * `UsageError`, with its exit code; this one belongs to the local runner's family.)
 */
export class StartOptionsError extends LocalRunError {
  constructor(message: string) {
    super(message);
    this.name = 'StartOptionsError';
  }
}

/** The transform's child process died (or could not load its handler) during an invocation: a function error. */
export class TransformProcessError extends LocalRunError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TransformProcessError';
  }
}

/** The pipe stand-in (EventBridge Pipes) could not read the raw stream or record a batch it gave up on. */
export class PipeError extends LocalRunError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PipeError';
  }
}

/**
 * The pipe's target could not take the enrichment's answer (too many items, an item without its partition key, a
 * failed PutRecords): the pipe retries the batch, as for an enrichment error.
 */
export class PipeTargetError extends PipeError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PipeTargetError';
  }
}
