/**
 * What `kfek replay` gets from the process: the CLI's streams and environment, plus the working directory and
 * clock its tests set. Its own file, so command.ts and window-command.ts both take it from here.
 */
import type { CliIo } from '../io';

export interface ReplayIo extends Pick<CliIo, 'stdout' | 'stderr' | 'env'> {
  /** Working directory `--local-dir` is relative to. @default process.cwd() */
  readonly cwd?: string;
  /** @default Date.now */
  readonly now?: () => number;
}
