/**
 * Command-line parsing: argv in, a typed command out. Pure (the environment is passed in), so every rule is
 * unit-testable. types.ts holds what a command line parses into, options.ts each command's option table (with its
 * help), values.ts the single-value parsers, help.ts the help texts, commands.ts and proxy-doctor.ts the commands.
 */
import { UsageError } from '../errors';
import { usageErrorOf } from './options';
import { type Env, parseQuery, parseSend, parseVerify } from './commands';
import { parseEventsWindow } from './events-window';
import { parseDoctor, parseProxy } from './proxy-doctor';
import { parseReconcile } from './reconcile';
import { type CliArgs, COMMAND_NAMES, type CommandName } from './types';

export { USAGE, commandHelp } from './help';
export * from './types';
export { parseDuration, parseRate, regionFromHost } from './values';

const isCommand = (name: string | undefined): name is CommandName =>
  (COMMAND_NAMES as readonly (string | undefined)[]).includes(name);

/** Parses `argv` (without `node` and the script). */
export function parseCliArgs(argv: readonly string[], env: Env = {}): CliArgs {
  const [command, ...rest] = argv;
  if (command === undefined || command === '--help' || command === '-h') return { command: 'help' };
  if (command === 'help')
    return isCommand(rest[0]) ? { command: 'help', topic: rest[0] } : { command: 'help' };
  if (command === '--version' || command === '-v' || command === 'version') return { command: 'version' };
  try {
    switch (command) {
      case 'send':
        return parseSend(rest);
      case 'verify':
        return parseVerify(rest, env);
      case 'query':
        return parseQuery(rest);
      case 'proxy':
        return parseProxy(rest, env);
      case 'doctor':
        return parseDoctor(rest);
      case 'reconcile':
        return parseReconcile(rest, env);
      case 'events-window':
        return parseEventsWindow(rest);
      default:
        throw new UsageError(
          `unknown command ${JSON.stringify(command)}; expected send, verify, query, proxy, doctor, replay, events-window, backfill, reconcile or help`,
        );
    }
  } catch (error) {
    throw usageErrorOf(command, error);
  }
}
