/**
 * The help texts, made from the command table (cli/commands.ts): the overview (`kfek --help`) and one page per
 * command (`kfek <command> --help`), each option listed from its table with its argument and default.
 */
import type { OptionSpec, OptionTable } from './options';

/** What the help says about one command: a row of the command table. */
export interface HelpSpec {
  readonly name: string;
  /** Its lines in the overview's usage, after `kfek ` (a second line indented to line up). */
  readonly synopsis: string;
  /** What it does, starting with its name: a paragraph of the overview, and the text of its page. */
  readonly summary: string;
  readonly options: OptionTable;
  /**
   * A page of its own, for a command with more to say than its summary (replay, backfill).
   * @default - `Usage: kfek <name> [options]`, the summary, the options
   */
  readonly page?: {
    /** What follows `kfek <name> - ` on the page's first line. */
    readonly title: string;
    /** Its whole usage, each line starting `  kfek <name>`. */
    readonly usage: string;
    readonly prose: string;
    /** @default - nothing after the options */
    readonly footer?: string;
  };
}

const OVERVIEW_TITLE = `kfek - send test logs through the pipeline, verify they arrived, run saved Logs Insights queries,
open OpenSearch Dashboards through a local signing proxy, check an account before and after cdk deploy`;

const COMMON_OPTIONS = `Common options:
  --endpoint URL   CloudWatch Logs endpoint (e.g. http://127.0.0.1:5000 for moto); default AWS_ENDPOINT_URL or AWS
  --region R       default AWS_REGION, or us-east-1 with an endpoint override
  --json           print the result as JSON on stdout
  -h, --help       this text`;

/** `kfek --help`: every command's usage, the common options, then what each command does. */
export function overview(commands: readonly HelpSpec[]): string {
  return [
    OVERVIEW_TITLE,
    '',
    'Usage:',
    ...commands.map((c) => `  kfek ${c.synopsis}`),
    "  kfek <command> --help    that command's options with their defaults",
    '  kfek --version           the version of kfek',
    '',
    COMMON_OPTIONS,
    '',
    commands.map((c) => c.summary).join('\n'),
  ].join('\n');
}

/** `kfek <command> --help`: what the command does, then each option with its argument and default. */
export function helpPage(command: HelpSpec): string {
  const { page } = command;
  if (page === undefined) {
    return [
      `Usage: kfek ${command.name} [options]`,
      '',
      command.summary,
      '',
      optionsHelp(command.options),
    ].join('\n');
  }
  return [
    `kfek ${command.name} - ${page.title}`,
    '',
    'Usage:',
    page.usage,
    '',
    page.prose,
    '',
    optionsHelp(command.options),
    ...(page.footer !== undefined ? ['', page.footer] : []),
  ].join('\n');
}

/** `Options:` and one line per option of `table`: its argument, what it does, its default. */
export function optionsHelp(table: OptionTable): string {
  const rows = Object.entries(table).map(([name, spec]) => [optionLabel(name, spec), describe(spec)]);
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return ['Options:', ...rows.map(([label, text]) => `  ${label.padEnd(width)}${text}`)].join('\n');
}

function optionLabel(name: string, spec: OptionSpec): string {
  const long = `--${name}${spec.type === 'string' ? ` ${spec.value ?? 'VALUE'}` : ''}`;
  return spec.short !== undefined ? `${long}, -${spec.short}` : long;
}

function describe(spec: OptionSpec): string {
  const shown = spec.shownDefault ?? (typeof spec.default === 'string' ? spec.default : undefined);
  return shown === undefined ? spec.help : `${spec.help} (default: ${shown})`;
}
