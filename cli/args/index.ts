/**
 * Command-line parsing: argv in, a typed command out. Pure (the environment is passed in), so every rule is
 * unit-testable. types.ts holds what a command line parses into, options.ts each command's option table (with its
 * help) and the one reader of options, values.ts the single-value parsers, help.ts the help texts, commands.ts,
 * proxy-doctor.ts, reconcile.ts and events-window.ts the commands' parsers; cli/commands.ts puts them in one table.
 */
import { COMMAND_TABLE, commandNamed, parseRow } from '../commands';
import { UsageError } from '../errors';
import { type CliArgs, COMMAND_NAMES, type CommandName } from './types';

export { commandHelp, USAGE } from '../commands';
export * from './types';
export { parseDuration, parseRate, regionFromHost } from './values';

const isCommand = (name: string | undefined): name is CommandName =>
  (COMMAND_NAMES as readonly (string | undefined)[]).includes(name);

/** `kfek --help`, `-h`, `help [COMMAND]`; `--version`, `-v`, `version`; else undefined. */
export function helpOrVersion(argv: readonly string[]): CliArgs | undefined {
  const [command, topic] = argv;
  if (command === undefined || command === '--help' || command === '-h') return { command: 'help' };
  if (command === 'help') return isCommand(topic) ? { command: 'help', topic } : { command: 'help' };
  if (command === '--version' || command === '-v' || command === 'version') return { command: 'version' };
  return undefined;
}

/** The refusal of a first word that names no command. */
export function unknownCommand(name: string): UsageError {
  const names = COMMAND_TABLE.map((c) => c.name);
  return new UsageError(`unknown command ${JSON.stringify(name)}; expected ${names.join(', ')} or help`);
}

/**
 * Parses `argv` (without `node` and the script) of a command parsed into {@link CliArgs} (replay and backfill parse
 * into their own: cli/replay/args.ts, cli/backfill/args.ts).
 */
export function parseCliArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): CliArgs {
  const asked = helpOrVersion(argv);
  if (asked !== undefined) return asked;
  const [name, ...rest] = argv;
  const command = isCommand(name) ? commandNamed(name) : undefined;
  if (command === undefined) throw unknownCommand(name);
  const parsed = parseRow(command, rest, { env, now: new Date() });
  return parsed.help ? { command: 'help', topic: name as CommandName } : (parsed.args as CliArgs);
}
