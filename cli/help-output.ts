/** `kfek help [COMMAND]`, `kfek COMMAND --help` and `kfek --version`, printed. */
import { type CliArgs, USAGE, commandHelp } from './args';
import type { CliIo } from './io';
// The version users see is package.json's; esbuild inlines it into the CLI bundle.
import packageJson from '../package.json';

export function showHelpOrVersion(
  args: Extract<CliArgs, { command: 'help' | 'version' }>,
  io: CliIo,
): number {
  if (args.command === 'version') {
    io.stdout.write(`kfek ${packageJson.version}\n`);
  } else {
    io.stdout.write(`${args.topic === undefined ? USAGE : commandHelp(args.topic)}\n`);
  }
  return 0;
}
