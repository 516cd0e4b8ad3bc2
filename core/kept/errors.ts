/** What goes wrong reading what kfek keeps (replay and the reconcile read it). */
import { OperatorError } from '../errors';

/** Kept data that cannot be read as what its place says it is. It is reported and left where it is. */
export class KeptParseError extends OperatorError {
  constructor(
    readonly location: string,
    detail: string,
  ) {
    super(`${location} ${detail}: it was left where it is; read it by hand`);
    this.name = 'KeptParseError';
  }
}
