/**
 * The `kfek` command: parses argv, runs one command, prints, returns the exit code. bin/kfek-cli.js calls
 * {@link run}; tests call it in-process with their own streams and environment. Every command runs the same way,
 * from its row of the command table (cli/commands.ts): its options read, --help answered from the table, its
 * arguments parsed, one context made for the run (cli/context.ts), its runner run, the context closed.
 */
import { helpOrVersion, unknownCommand } from './args';
import { type CommandSpec, commandHelp, commandNamed, parseRow, USAGE } from './commands';
import type { GivenTarget } from './context';
import { UsageError } from './errors';
import { OperatorError } from '../core/errors';
import type { CliIo } from './io';
import { GeneratorError } from '../core/log-generator';
// The version users see is package.json's; esbuild inlines it into the CLI bundle.
import packageJson from '../package.json';

/** The process's own streams and environment (main.ts is the CLI's one reader of process.env). */
const processIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

/** Runs one command; never throws: errors become a one-line message on stderr and a non-zero exit code. */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  try {
    // `kfek COMMAND ...` and `kfek help COMMAND` go to the command table.
    const [first, ...rest] = argv;
    const command = commandNamed(first === 'help' ? rest[0] : first);
    if (command !== undefined) return await runCommand(command, first === 'help' ? ['--help'] : rest, io);
    const asked = helpOrVersion(argv);
    if (asked === undefined) throw unknownCommand(first);
    io.stdout.write(asked.command === 'version' ? `kfek ${packageJson.version}\n` : `${USAGE}\n`);
    return 0;
  } catch (error) {
    return failed(error, io);
  }
}

/** One command from its row; errors are thrown (tests of one command call it through its own entry). */
export async function runCommand(command: CommandSpec, argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseRow(command, argv, { env: io.env, now: new Date((io.now ?? Date.now)()) });
  if (parsed.help) {
    io.stdout.write(`${commandHelp(command.name)}\n`);
    return 0;
  }
  const { args } = parsed;
  // Loaded only now: the runner and the context bring the AWS SDK.
  const [runner, { openContext }] = await Promise.all([command.run(), import('./context')]);
  const context = openContext(command.name, command.target?.(args) ?? (args as GivenTarget), io);
  try {
    return await runner(args, context);
  } finally {
    context.close();
  }
}

/** An error as the one line the operator reads, and its exit code. */
function failed(error: unknown, io: CliIo): number {
  const known =
    error instanceof OperatorError
      ? error
      : error instanceof GeneratorError
        ? new UsageError(error.message)
        : undefined;
  if (known !== undefined) {
    io.stderr.write(`kfek: ${known.message}\n`);
    return known.exitCode;
  }
  // A bug, not a bad input: one line still, and the stack trace only when asked for (KFEK_DEBUG=1).
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  const stack = io.env.KFEK_DEBUG === '1' && error instanceof Error ? `\n${error.stack ?? ''}` : '';
  io.stderr.write(
    `kfek: unexpected error: ${message} (a bug in kfek: run again with KFEK_DEBUG=1 for the stack trace and report it)${stack}\n`,
  );
  return 1;
}
