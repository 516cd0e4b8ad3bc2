/**
 * Every `kfek` command in one table: its name and how it is loaded. A command is loaded only when it runs (and
 * with it the AWS SDK), so `kfek --help` stays fast. Each runs as `(argv after its name, io) => exit code`:
 * send, verify, query, proxy, doctor, reconcile and events-window are parsed by cli/args/ and run by cli/runners.ts;
 * replay and backfill read their options from the same table (cli/args/options.ts) but check them and print their
 * help (its option list made from the table) themselves (cli/replay/args.ts, cli/backfill/args.ts).
 */
import { parseCliArgs } from './args';
import type { CommandName } from './args';
import { showHelpOrVersion } from './help-output';
import type { CliIo } from './io';

/** A command: the arguments after its name in, the exit code out. */
export type Command = (argv: readonly string[], io: CliIo) => Promise<number>;

/** A command parsed by cli/args/: `--help` and its options become typed arguments for its runner. */
const parsedBy = (name: CommandName) => async (): Promise<Command> => {
  const { runParsed } = await import('./runners');
  return async (argv, io) => {
    const args = parseCliArgs([name, ...argv], io.env);
    return args.command === 'help' || args.command === 'version'
      ? showHelpOrVersion(args, io)
      : runParsed(args, io);
  };
};

export const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  send: parsedBy('send'),
  verify: parsedBy('verify'),
  query: parsedBy('query'),
  proxy: parsedBy('proxy'),
  doctor: parsedBy('doctor'),
  reconcile: parsedBy('reconcile'),
  'events-window': parsedBy('events-window'),
  replay: async () => (await import('./replay/command')).replayCommand,
  backfill: async () => (await import('./backfill/command')).backfillCommand,
};
