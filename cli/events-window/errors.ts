/**
 * Errors of `kfek events-window`. It began as `kfek replay --kind events-window` and is still run by that alias, so
 * its errors are replay errors too (a caller that catches ReplayError catches them).
 */
import { ReplayError } from '../replay/errors';

/** Base class of events-window errors: the events stream cannot be read or written as the window needs. */
export class EventsWindowError extends ReplayError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EventsWindowError';
  }
}

/** Kinesis kept refusing some re-put records after every retry. */
export class WindowPutFailedError extends EventsWindowError {
  constructor(stream: string, failed: number, detail: string) {
    super(
      `${failed} record(s) could not be put on ${stream} after retries (${detail}): lower --rate and run the same ` +
        'events-window again (re-put documents overwrite themselves)',
    );
    this.name = 'WindowPutFailedError';
  }
}
