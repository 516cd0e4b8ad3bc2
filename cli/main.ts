/**
 * The `kfek` command: parses argv, runs one command, prints, returns the exit code. bin/kfek-cli.js calls
 * {@link run}; tests call it in-process with their own streams and environment.
 */
import { type CliArgs, USAGE, commandHelp, parseCliArgs } from './args';
import { CliError, UsageError } from './errors';
import { GeneratorError } from '../core/log-generator';
import type { ProgressOutput } from '../core/progress';
// The version users see is package.json's; esbuild inlines it into the CLI bundle.
import packageJson from '../package.json';

export interface CliIo {
  readonly stdout: ProgressOutput;
  readonly stderr: ProgressOutput;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Ends long-running commands (`proxy`) when aborted; tests abort it instead of sending SIGINT.
   * @default - SIGINT (Ctrl-C) or SIGTERM
   */
  readonly stop?: AbortSignal;
}

const processIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

type SelfParsedCommand = (argv: readonly string[], io: CliIo) => Promise<number>;

/** Commands with their own parser and help, by name. */
const SELF_PARSED: Readonly<Record<string, () => Promise<SelfParsedCommand>>> = {
  replay: async () => (await import('./replay/command')).replayCommand,
  backfill: async () => (await import('./backfill/command')).backfillCommand,
};

/** Runs one command; never throws: errors become a one-line message on stderr and a non-zero exit code. */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  try {
    // replay and backfill parse their own options and print their own help (cli/replay/args.ts,
    // cli/backfill/args.ts), so `kfek help replay` goes there too; loaded only when they run, like the runners.
    const own = argv[0] === 'help' ? argv[1] : argv[0];
    if (own !== undefined && Object.hasOwn(SELF_PARSED, own)) {
      const command = await SELF_PARSED[own]();
      return await command(argv[0] === 'help' ? ['--help'] : argv.slice(1), io);
    }
    const args = parseCliArgs(argv, io.env);
    switch (args.command) {
      case 'help':
        io.stdout.write(`${args.topic === undefined ? USAGE : commandHelp(args.topic)}\n`);
        return 0;
      case 'version':
        io.stdout.write(`kfek ${packageJson.version}\n`);
        return 0;
      default:
        return await runCommand(args, io);
    }
  } catch (error) {
    const cliError =
      error instanceof CliError
        ? error
        : error instanceof GeneratorError
          ? new UsageError(error.message)
          : undefined;
    if (cliError !== undefined) {
      io.stderr.write(`kfek: ${cliError.message}\n`);
      return cliError.exitCode;
    }
    io.stderr.write(
      `kfek: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}

/** Loads the command runners (and with them the AWS SDK) only now that a command runs. */
async function runCommand(
  args: Exclude<CliArgs, { command: 'help' | 'version' }>,
  io: CliIo,
): Promise<number> {
  const runners = await import('./runners');
  switch (args.command) {
    case 'send':
      return runners.send(args, io);
    case 'verify':
      return runners.verify(args, io);
    case 'query':
      return runners.query(args, io);
    case 'proxy':
      return runners.proxy(args, io);
    case 'doctor':
      return runners.doctor(args, io);
  }
}
