/**
 * What a command gets from the process: its output streams, its environment and a stop signal (with the one reader
 * of Ctrl-C). Its own file so that main.ts, the command table and every runner import it from one place and none
 * imports another back.
 */
import type { ProgressOutput } from '../core/progress';

export interface CliIo {
  readonly stdout: ProgressOutput;
  readonly stderr: ProgressOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Ends long-running commands (`proxy`) when aborted; tests abort it instead of sending SIGINT.
   * @default - SIGINT (Ctrl-C) or SIGTERM
   */
  readonly stop?: AbortSignal;
  /**
   * The cdk.json profiles are read from (tests point commands at a profile of their own).
   * @default the project's cdk.json (cli/profile.ts PROJECT_CDK_JSON)
   */
  readonly cdkJson?: string;
  /**
   * The working directory relative paths are read from (`replay --local-dir`, `backfill --state-dir`).
   * @default process.cwd()
   */
  readonly cwd?: string;
  /**
   * The clock commands that judge time read (`reconcile`'s lag, `backfill`'s window): tests pin when a run starts.
   * @default Date.now
   */
  readonly now?: () => number;
}

/** `stop`, or a signal that Ctrl-C / SIGTERM aborts; `dispose` removes the process listeners it added. */
export function stopSignal(given: AbortSignal | undefined): { signal: AbortSignal; dispose: () => void } {
  if (given !== undefined) return { signal: given, dispose: () => undefined };
  const controller = new AbortController();
  const stop = (): void => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    },
  };
}

/** Resolves once `stop` aborts, or on Ctrl-C / SIGTERM without it, removing its listeners afterwards. */
export async function untilStopped(given: AbortSignal | undefined): Promise<void> {
  const { signal, dispose } = stopSignal(given);
  if (!signal.aborted)
    await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
  dispose();
}
