/** Errors of `kfek replay`; each says what went wrong and what to do. */
import { CliError } from '../errors';

/** Base class of replay errors. */
export class ReplayError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ReplayError';
  }
}

/** Kept data that cannot be read as what its place says it is (core/kept/errors.ts, replay's name for it). */
export { KeptParseError as ReplayParseError } from '../../core/kept/errors';

/** The stream no longer holds a kept range: its retention passed (or the shard or stream is gone). */
export class RangeExpiredError extends ReplayError {
  constructor(
    readonly location: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(
      `${location}: the stream no longer holds these records (${detail}); they expired with the stream's ` +
        'retention and cannot be replayed. Raise streams.raw.retentionHours (streams.events.retentionHours for a ' +
        'batch of the events stream) to have more time next time.',
      options,
    );
    this.name = 'RangeExpiredError';
  }
}

/** Nothing says where to re-send (no stream given and none found). */
export class MissingTargetError extends ReplayError {
  constructor(target: 'raw' | 'events') {
    super(
      `nowhere to re-send ${target === 'raw' ? 'raw records' : 'documents'}: pass --${target}-stream NAME|ARN ` +
        '(or --profile NAME to look the stream up in the deployed Search stack), or use --dry-run to only list',
    );
    this.name = 'MissingTargetError';
  }
}

/** Kinesis kept refusing some records after every retry. */
export class PutRecordsFailedError extends ReplayError {
  constructor(stream: string, failed: number, detail: string) {
    super(
      `${failed} record(s) could not be put on ${stream} after retries (${detail}): nothing was deleted; ` +
        'lower --rate and run the same replay again (re-sent documents overwrite themselves)',
    );
    this.name = 'PutRecordsFailedError';
  }
}
