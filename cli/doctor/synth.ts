/**
 * Runs `cdk synth` for one profile as a child process, bounded in time, into a fresh directory. A child process
 * rather than an import: the CLI must not load the CDK app, and this is exactly what `cdk deploy` will run.
 */
import { spawn } from 'node:child_process';
import { CliError } from '../errors';

/** `cdk synth` failed, timed out or could not start. */
export class SynthError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SynthError';
  }
}

export interface SynthOptions {
  readonly profile: string;
  /** Directory the assembly is written to (`-o`). */
  readonly outdir: string;
  /** Project directory (holds cdk.json). */
  readonly cwd: string;
  /** Environment of the child (the region and account it should synthesize for). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** @default 300000 (a busy 2-core machine takes a minute) */
  readonly timeoutInMillis?: number;
  /**
   * The command and its leading arguments; `synth --quiet -c profile=<p> -o <dir>` is appended.
   * @default ['npx', 'cdk']
   */
  readonly command?: readonly string[];
}

/** Last lines of the child's output: enough to show cdk's own error without flooding the report. */
const TAIL_LINES = 8;

/** Synthesizes; resolves when the assembly is written, rejects with a {@link SynthError} otherwise. */
export function synthesize(options: SynthOptions): Promise<void> {
  const [bin, ...lead] = options.command ?? ['npx', 'cdk'];
  const timeout = options.timeoutInMillis ?? 300_000;
  const args = [...lead, 'synth', '--quiet', '-c', `profile=${options.profile}`, '-o', options.outdir];
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: options.cwd,
      env: { ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a timeout ends npx, ts-node and esbuild together.
      detached: true,
    });
    let output = '';
    const collect = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-20_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, timeout);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new SynthError(`Cannot run ${bin} (${error.message}): run \`npm ci\` in the project first.`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      const tail = output.trim().split('\n').slice(-TAIL_LINES).join(' | ');
      if (timedOut) {
        reject(
          new SynthError(
            `cdk synth did not finish within ${Math.round(timeout / 1000)} s: run it yourself to see why, ` +
              'or raise --synth-timeout',
          ),
        );
      } else if (code !== 0) {
        reject(new SynthError(`cdk synth -c profile=${options.profile} exited with ${code}: ${tail}`));
      } else {
        resolve();
      }
    });
  });
}
