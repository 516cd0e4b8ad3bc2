/**
 * Errors of the events-stream writer (`kinesis-writer.ts`, which re-exports them) and of its record planning
 * (`record-plan.ts`); a file of their own so both can use them without importing each other.
 */
import { MAX_KINESIS_RECORD_BYTES } from '../../core/contracts/aws-limits';
import { TransformError } from '../../core/transform/errors';
import type { WriteResult } from './ports';

/** Base class of every error the Kinesis writer throws. */
export class KinesisWriterError extends TransformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KinesisWriterError';
  }
}

/** A document that can never fit in one Kinesis record was handed to the writer (a bug in the core). */
export class OversizedDocumentError extends KinesisWriterError {
  constructor(
    readonly index: number,
    readonly recordBytes: number,
  ) {
    super(
      `Document ${index} needs ${recordBytes} bytes with its partition key; a Kinesis record holds at most ` +
        `${MAX_KINESIS_RECORD_BYTES}. The transform core must truncate documents before they reach the writer.`,
    );
    this.name = 'OversizedDocumentError';
  }
}

/**
 * PutRecords failed in a way retrying cannot fix (access denied, stream not found, validation). `progress` tells
 * which documents were written before the failure, so the caller can still report an exact resume point.
 */
export class KinesisWriteRejectedError extends KinesisWriterError {
  constructor(
    message: string,
    readonly progress: WriteResult,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'KinesisWriteRejectedError';
  }
}
