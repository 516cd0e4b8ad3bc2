/**
 * One error root for the transform function: every error class extends TransformError and keeps its own name.
 */
import { DeadLetterError, DeadLetterWriteError } from '../../../lambda/transform/dead-letter';
import {
  InvalidEnvironmentVariableError,
  MissingEnvironmentVariableError,
  TransformEnvError,
} from '../../../lambda/transform/env';
import {
  DecompressedSizeError,
  describeError,
  PoisonRecordError,
  TransformError,
} from '../../../core/transform/errors';
import {
  KinesisWriteRejectedError,
  KinesisWriterError,
  OversizedDocumentError,
} from '../../../lambda/transform/kinesis-writer-errors';
import { KplAggregationError } from '../../../core/transform/kpl-aggregation';
import {
  PipesBatchError,
  PipesDeadLetterError,
  PipesOverflowWriteError,
} from '../../../lambda/transform/pipes-batch';
import { completeWrite } from '../../helpers/write-results';

const cause = new Error('boom');

test.each<[string, Error, abstract new (...args: never[]) => Error]>([
  ['PoisonRecordError', new PoisonRecordError('bad'), PoisonRecordError],
  ['DecompressedSizeError', new DecompressedSizeError(1024), PoisonRecordError],
  ['KinesisWriterError', new KinesisWriterError('bad'), KinesisWriterError],
  ['OversizedDocumentError', new OversizedDocumentError(0, 2_000_000), KinesisWriterError],
  ['KinesisWriteRejectedError', new KinesisWriteRejectedError('bad', completeWrite([])), KinesisWriterError],
  ['DeadLetterError', new DeadLetterError('bad'), DeadLetterError],
  ['DeadLetterWriteError', new DeadLetterWriteError('bucket', 'key', { cause }), DeadLetterError],
  ['TransformEnvError', new TransformEnvError('bad'), TransformEnvError],
  ['MissingEnvironmentVariableError', new MissingEnvironmentVariableError('X'), TransformEnvError],
  ['InvalidEnvironmentVariableError', new InvalidEnvironmentVariableError('X', 'y', 'z'), TransformEnvError],
  ['KplAggregationError', new KplAggregationError('bad'), KplAggregationError],
  ['PipesBatchError', new PipesBatchError('bad'), PipesBatchError],
  ['PipesDeadLetterError', new PipesDeadLetterError('1'), PipesBatchError],
  ['PipesOverflowWriteError', new PipesOverflowWriteError(3), PipesBatchError],
])('%s extends TransformError and its family, and keeps its name', (name, error, family) => {
  expect(error).toBeInstanceOf(TransformError);
  expect(error).toBeInstanceOf(family);
  expect(error.name).toBe(name);
});

test('describeError names the error class, and stringifies anything else', () => {
  expect(describeError(new PoisonRecordError('not JSON'))).toBe('PoisonRecordError: not JSON');
  expect(describeError(cause)).toBe('Error: boom');
  expect(describeError('plain')).toBe('plain');
  expect(describeError(undefined)).toBe('undefined');
});

test('DeadLetterWriteError names its cause with describeError', () => {
  expect(new DeadLetterWriteError('bucket', 'key', { cause }).message).toMatch(
    /^Could not store dead-letter object s3:\/\/bucket\/key: Error: boom\. /,
  );
});
