/**
 * Captures what code under test prints with console.error, so that a test asserts it instead of letting it reach
 * the run's output (a passing run prints nothing: test/helpers/jest-setup.ts).
 */
import { format } from 'node:util';

/** Runs `work` with console.error captured; returns its result and everything printed, one call per line. */
export function captureConsoleError<T>(work: () => T): { readonly result: T; readonly printed: string } {
  const printed: string[] = [];
  const spy = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    printed.push(format(...args));
  });
  try {
    const result = work();
    return { result, printed: printed.join('\n') };
  } finally {
    spy.mockRestore();
  }
}
