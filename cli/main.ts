/**
 * The `kfek` command: parses argv, runs one command, prints, returns the exit code. bin/kfek-cli.js calls
 * {@link run}; tests call it in-process with their own streams and environment.
 */
import { parseCliArgs } from './args';
import { COMMANDS } from './commands';
import { UsageError } from './errors';
import { OperatorError } from '../core/errors';
import { showHelpOrVersion } from './help-output';
import type { CliIo } from './io';
import { GeneratorError } from '../core/log-generator';

/** The process's own streams and environment (main.ts is the CLI's one reader of process.env). */
const processIo = (): CliIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });

/** Runs one command; never throws: errors become a one-line message on stderr and a non-zero exit code. */
export async function run(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  try {
    // `kfek COMMAND ...` and `kfek help COMMAND` go to the command table (cli/commands.ts).
    const [first, ...rest] = argv;
    const name = first === 'help' ? rest[0] : first;
    if (name !== undefined && Object.hasOwn(COMMANDS, name)) {
      const command = await COMMANDS[name]();
      return await command(first === 'help' ? ['--help'] : rest, io);
    }
    // Anything else is help, the version or an unknown command (a usage error).
    const args = parseCliArgs(argv, io.env);
    if (args.command === 'help' || args.command === 'version') return showHelpOrVersion(args, io);
    throw new UsageError(`${args.command}: not in the command table (cli/commands.ts)`);
  } catch (error) {
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
}
