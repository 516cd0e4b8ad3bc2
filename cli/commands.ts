/**
 * Every `kfek` command in one table: its name, its options (cli/args/options.ts), what the help says about it, the
 * parser of its options (pure) and its runner. The overview and every help page are made from this table
 * (cli/args/help.ts), and cli/main.ts runs every command the same way: read its options, answer --help, parse, make
 * the run's context (cli/context.ts), run, close. A runner is loaded only when its command runs (and with it the AWS
 * SDK), so `kfek --help` stays fast.
 */
import { parseQuery, parseSend, parseVerify } from './args/commands';
import { parseEventsWindow } from './args/events-window';
import { type HelpSpec, helpPage, overview } from './args/help';
import {
  BACKFILL_OPTIONS,
  DOCTOR_OPTIONS,
  EVENTS_WINDOW_OPTIONS,
  type OptionTable,
  type OptionValues,
  PROXY_OPTIONS,
  QUERY_OPTIONS,
  type ReadRules,
  readOptions,
  RECONCILE_OPTIONS,
  REPLAY_OPTIONS,
  SEND_OPTIONS,
  usageErrorOf,
  VERIFY_OPTIONS,
} from './args/options';
import { parseDoctor, parseProxy } from './args/proxy-doctor';
import { parseReconcile } from './args/reconcile';
import { BACKFILL_HELP, parseBackfill } from './backfill/args';
import type { GivenTarget, RunContext } from './context';
import { parseReplay, REPLAY_HELP } from './replay/args';

type Env = Readonly<Record<string, string | undefined>>;

/** What a parser may read besides the options: the environment and the time the command started. */
export interface ParseContext {
  readonly env: Env;
  readonly now: Date;
}

/** One row of the table. */
export interface CommandSpec<T extends OptionTable = OptionTable, A = unknown> extends HelpSpec {
  readonly options: T;
  /** @default - the plain rules (options.ts readOptions) */
  readonly rules?: ReadRules;
  /** The options' values in, the typed arguments of its runner out; throws a UsageError for a bad command line. */
  readonly parse: (values: OptionValues<T>, context: ParseContext) => A;
  /**
   * Where the run's AWS calls go (cli/context.ts).
   * @default - the arguments' own `endpoint` and `region` (`--endpoint`, `--region`)
   */
  readonly target?: (args: A) => GivenTarget;
  /** Loads the runner: arguments and the run's context in, the exit code out. */
  readonly run: () => Promise<(args: A, context: RunContext) => Promise<number>>;
}

/** A row, its parser and runner checked against its own options and arguments. */
const row = <T extends OptionTable, A>(spec: CommandSpec<T, A>): CommandSpec =>
  spec as unknown as CommandSpec;

const runners = async (): Promise<typeof import('./runners')> => import('./runners');

/** In the order the overview lists them. */
export const COMMAND_TABLE: readonly CommandSpec[] = [
  row({
    name: 'send',
    synopsis: 'send   --log-group G [--count N] [--rate R/s] [--run-id ID] [--log-stream S] [--seed N]',
    summary: `send writes N realistic events (JSON app logs with some ERRORs, Lambda START/END/REPORT lines, Log4J lines), each
carrying "kfek_run=<ID> kfek_seq=<n>", at most R per second; the run id is printed at the end.`,
    options: SEND_OPTIONS,
    parse: parseSend,
    run: async () => (await runners()).send,
  }),
  row({
    name: 'verify',
    synopsis: `verify --run-id ID --opensearch URL [--index PATTERN] [--expect N] [--timeout S] [--interval S]
              [--ingest-field F] [--sigv4]`,
    summary: `verify searches OpenSearch (URL may carry user:password for basic auth) for that run and reports delivered,
missing and latency percentiles; it keeps polling until --expect events are found or --timeout passes.`,
    options: VERIFY_OPTIONS,
    // It reads OpenSearch only; it took --endpoint once and never used it.
    rules: {
      refused: { endpoint: 'is not an option of verify: it reads OpenSearch only, at --opensearch URL' },
    },
    parse: (values, { env }) => parseVerify(values, env),
    run: async () => (await runners()).verify,
  }),
  row({
    name: 'query',
    synopsis: `query  --name NAME [--log-group G ...] [--profile NAME] [--since 1h] [--timeout S]
  kfek query  --list`,
    summary: `query runs a built-in query (errors-by-15m, latest-errors, lambda-report-stats; without --log-group on the log
groups of the cdk.json profile, default sandbox) or a saved definition by its full name, over --since, and prints
a table.`,
    options: QUERY_OPTIONS,
    parse: parseQuery,
    run: async () => (await runners()).query,
  }),
  row({
    name: 'proxy',
    synopsis: `proxy  --endpoint DOMAIN-ENDPOINT [--port 9200] [--region R] [--max-buffered-mib 256] [--max-bodies 8]
              [--headers-timeout 20s] [--request-timeout 120s] [--upstream-timeout 300s]`,
    summary: `proxy listens on 127.0.0.1 only and relays every request to the OpenSearch domain signed with SigV4 (your AWS
credentials, service es), so a browser can open http://127.0.0.1:9200/_dashboards; Ctrl-C stops it. The region
defaults to --region, AWS_REGION, or the one in the endpoint host name. It refuses requests other web pages make
(foreign Host or Origin, Sec-Fetch-Site cross-site or same-site) with 403; request bodies are buffered to be signed,
at most 100 MiB each and --max-buffered-mib in total for at most --max-bodies requests at once (more get 503 with
Retry-After); a client slower than --headers-timeout / --request-timeout gets 408, a silent domain 504 after
--upstream-timeout.`,
    options: PROXY_OPTIONS,
    parse: (values, { env }) => parseProxy(values, env),
    // Its --endpoint is the OpenSearch domain it relays to, not where AWS calls go.
    target: (args) => ({ ...(args.region !== undefined ? { region: args.region } : {}) }),
    run: async () => (await runners()).proxy,
  }),
  row({
    name: 'doctor',
    synopsis:
      'doctor [--profile sandbox] [--region R] [--skip-synth | --cdk-out DIR] [--synth-timeout 300s] [--json]',
    summary: `doctor checks, before \`cdk deploy\`, that your credentials work (and the backend role OpenSearch will see), the
region is set, the account is bootstrapped there, the profile synthesizes, the Lambda concurrency quota and the
OpenSearch instance type fit, and no existing resource holds a name the profile wants; against stacks already
deployed, what the deploy will update, replace and refuse (exports in use, replaced resources, data at risk), read
from their deployed templates; once deployed, that the stacks are complete, the log groups are subscribed to the raw stream and you are mapped in OpenSearch. Each finding
comes with its fix; the exit code is 1 when a check failed.`,
    options: DOCTOR_OPTIONS,
    parse: parseDoctor,
    run: async () => (await runners()).doctor,
  }),
  row({
    ...REPLAY_HELP,
    options: REPLAY_OPTIONS,
    // Its values are names, texts and places: an empty one is a typing mistake (options.ts ReadRules).
    rules: { strictValues: true },
    parse: (values, { now }) => parseReplay(values, now),
    run: async () => (await import('./replay/command')).replay,
  }),
  row({
    name: 'events-window',
    synopsis: `events-window --since T [--until T] (--events-stream NAME|ARN | --profile NAME) [--limit N] [--rate R/s]
              [--dry-run] [--json]`,
    summary: `events-window puts the events stream's own records that arrived from --since to --until (default: the command's
start) back on it, every shard, unchanged, so a delivery stream created after them (a recreated Pipeline stack)
delivers them too: closed parent shards before their children, each shard paced to its read limits, throttled
reads retried. Re-put documents overwrite themselves (ids come from log group, stream and event id). --dry-run only
counts. \`kfek replay --kind events-window\` is the same command.`,
    options: EVENTS_WINDOW_OPTIONS,
    parse: (values, { now }) => parseEventsWindow(values, now),
    run: async () => (await import('./events-window/command')).eventsWindow,
  }),
  row({
    ...BACKFILL_HELP,
    options: BACKFILL_OPTIONS,
    parse: (values, { now }) => parseBackfill(values, now),
    run: async () => (await import('./backfill/command')).backfill,
  }),
  row({
    name: 'reconcile',
    synopsis: `reconcile (--profile NAME | --log-group G ...) --since T [--until T] --opensearch URL [--sigv4] [--heal]
              [--lag D] [--count insights|scan] [--bucket NAME | --local-dir DIR] [--json]`,
    summary: `reconcile proves that nothing was lost: for each log group and minute of the window older than --lag, it compares
what CloudWatch Logs holds (after the subscription's filter pattern) with what OpenSearch holds; where the counts
differ it reads the events, computes each document id as the ingest pipeline does, looks them up and says for every
event: searchable, dropped by a rule, joined into another, kept (dead letter, discarded batch, failed document, with
where), late, or missing. --heal sends the missing ones through the raw stream as kfek backfill does and waits for
them. Prints a table per log group (or --json); the exit code is 1 while anything is missing.`,
    options: RECONCILE_OPTIONS,
    parse: parseReconcile,
    run: async () => (await import('./reconcile/command')).reconcile,
  }),
];

/** The row of `name`, if it is a command. */
export function commandNamed(name: string | undefined): CommandSpec | undefined {
  return COMMAND_TABLE.find((command) => command.name === name);
}

/**
 * A row's options read and parsed: its runner's arguments, or `help` when --help was given. What the command line
 * does wrong is a usage error in one line starting with the command's name.
 */
export function parseRow(
  command: CommandSpec,
  argv: readonly string[],
  context: ParseContext,
): { readonly help: true } | { readonly help: false; readonly args: unknown } {
  const values = readOptions(command.name, argv, command.options, command.rules);
  if (values.help === true) return { help: true };
  try {
    return { help: false, args: command.parse(values, context) };
  } catch (error) {
    throw usageErrorOf(command.name, error);
  }
}

/** `kfek --help`. */
export const USAGE = overview(COMMAND_TABLE);

/** `kfek <name> --help`. */
export function commandHelp(name: string): string {
  const command = commandNamed(name);
  if (command === undefined) throw new Error(`${name}: not in the command table (cli/commands.ts)`);
  return helpPage(command);
}
