/**
 * The reconcile's own errors (habit 9): operator errors whose message says what is wrong, the bad value and the fix.
 */
import { OperatorError } from '../errors';

/**
 * The window asked for has nothing that can be judged: every second of it is newer than now minus the delivery lag
 * (a window in the future, or one that ends before its events can have arrived). Saying `missing 0` for it would
 * report a success nobody measured, so it is refused as a bad command line (exit 2).
 */
export class UnjudgeableWindowError extends OperatorError {
  override readonly exitCode = 2;

  constructor(message: string) {
    super(message);
    this.name = 'UnjudgeableWindowError';
  }
}

/**
 * `--heal` asked for log groups whose events the heal cannot send as live sent them (a route takes them by source
 * account): refused before anything is sent, as `kfek backfill` refuses them, with the same reason.
 */
export class HealRefusedError extends OperatorError {
  override readonly exitCode = 2;

  constructor(message: string) {
    super(message);
    this.name = 'HealRefusedError';
  }
}
