/** Runs `kfek` in this process as bin/kfek-cli.js would (cli/main.ts `run`), with its output captured. */
import { run } from '../../cli/main';

export interface CliOutcome {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * `kfek <argv>` with `env` as its environment (none by default), reading profiles from `cdkJson` (the project's
 * cdk.json by default): its exit code, stdout and stderr.
 */
export async function runKfek(
  argv: readonly string[],
  env: Record<string, string> = {},
  cdkJson?: string,
): Promise<CliOutcome> {
  let out = '';
  let err = '';
  const code = await run(argv, {
    stdout: { write: (text: string) => ((out += text), true) },
    stderr: { write: (text: string) => ((err += text), true) },
    env,
    ...(cdkJson === undefined ? {} : { cdkJson }),
  });
  return { code, out, err };
}
