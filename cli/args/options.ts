/**
 * Every command's options, once: the table `util.parseArgs` reads (type, default) carries the help text too, so
 * `kfek <command> --help` prints exactly the defaults the parser applies. `value` names an option's argument in the
 * help, `help` says what it does, `shownDefault` describes a default the command computes itself.
 *
 * Longer than 300 lines on purpose: it is the one table of every command's options (issue 33), data more than code,
 * and splitting it per command would bring back one option system per command.
 */
import { parseArgs } from 'node:util';
import { UsageError } from '../errors';
import type { CommandName } from './types';
import { quote } from './values';

/** One option: what `util.parseArgs` needs, plus its help. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  readonly default?: string | boolean;
  /** Name of the argument in the help, e.g. `N` in `--count N`. */
  readonly value?: string;
  readonly help: string;
  /**
   * The default as the help prints it when the command computes it (it depends on other options).
   * @default - `default`, when it is a string
   */
  readonly shownDefault?: string;
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

// The four kinds of option, each in one line of a table. Their types say what parseArgs gives back: a string or
// undefined, a string (it has a default), a list or undefined, a boolean.
type One = OptionSpec & {
  readonly type: 'string';
  readonly default?: undefined;
  readonly multiple?: undefined;
};

/** An option that takes a value named `value` in the help; `shownDefault` is what the command does without it. */
const text = (value: string, help: string, shownDefault?: string): One => ({
  type: 'string',
  value,
  help,
  ...(shownDefault !== undefined ? { shownDefault } : {}),
});
/** An option with a value and a default the parser applies (the help shows it). */
const withDefault = (
  value: string,
  fallback: string,
  help: string,
): OptionSpec & { readonly type: 'string'; readonly default: string; readonly multiple?: undefined } => ({
  type: 'string',
  value,
  default: fallback,
  help,
});
/** A repeatable option. */
const list = (
  value: string,
  help: string,
  shownDefault: string,
): OptionSpec & { readonly type: 'string'; readonly multiple: true; readonly default?: undefined } => ({
  ...text(value, help, shownDefault),
  multiple: true,
});
/** An option without a value, false unless given. */
const flag = (
  help: string,
): OptionSpec & { readonly type: 'boolean'; readonly default: false; readonly multiple?: undefined } => ({
  type: 'boolean',
  default: false,
  help,
});

const HELP = { ...flag("this command's options"), short: 'h' };
const JSON_OUTPUT = flag('print the result as JSON on stdout');
const REGION_SHOWN = 'AWS_REGION, or us-east-1 with an endpoint override';
const region = (shownDefault = REGION_SHOWN): One => text('R', 'AWS region', shownDefault);
/** `--endpoint`: where the command's AWS calls go (cli/aws-target.ts), `services` named in the help. */
const endpoint = (services: string): One =>
  text('URL', `${services} endpoint (e.g. http://127.0.0.1:5000 for moto)`, 'AWS_ENDPOINT_URL, else AWS');
const OPENSEARCH_URL = 'KFEK_OPENSEARCH_URL';
/** `--service`: the SigV4 service (core/opensearch/target.ts); `aoss` signs every request for a collection. */
const SERVICE = text(
  'es|aoss',
  'SigV4 service: aoss for a Serverless collection',
  "the profile's kind or the host's, else es",
);

export const SEND_OPTIONS = {
  'log-group': text('G', 'log group to write to (required)'),
  count: withDefault('N', '100', 'events to write'),
  rate: text('R/s', 'at most this many events per second (50, 50/s, 3000/m)'),
  'run-id': text('ID', 'run id the events carry', 'a new one'),
  'log-stream': text('S', 'log stream to write to', 'kfek-cli/<run id>'),
  seed: text('N', 'seed of the event generator, for repeatable runs', '1'),
  endpoint: endpoint('CloudWatch Logs'),
  region: region(),
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const VERIFY_OPTIONS = {
  'run-id': text('ID', 'run to look for (required)'),
  opensearch: text('URL', 'OpenSearch URL, may carry user:password for basic auth', OPENSEARCH_URL),
  index: withDefault('PATTERN', '*', 'index pattern to search'),
  expect: text('N', 'keep polling until N events are found'),
  timeout: text('S', 'give up after this long', '300s with --expect, else 0: one search'),
  interval: withDefault('S', '2s', 'time between searches'),
  'ingest-field': text(
    'F',
    'document field holding the index time, for latency',
    'latency to the poll that saw the event',
  ),
  sigv4: flag('sign requests with SigV4 (Amazon OpenSearch Service)'),
  service: SERVICE,
  region: region('AWS_REGION, or the one in the --opensearch host name'),
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const QUERY_OPTIONS = {
  name: text('NAME', 'built-in query or saved definition name (required)'),
  list: flag('list the built-in queries'),
  'log-group': list('G', 'log group to query (repeatable)', "the cdk.json profile's log groups"),
  profile: text('NAME', 'cdk.json profile', 'sandbox'),
  since: withDefault('D', '1h', 'how far back to query'),
  timeout: withDefault('S', '120s', 'give up after this long'),
  endpoint: endpoint('CloudWatch Logs'),
  region: region(),
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const PROXY_OPTIONS = {
  endpoint: text(
    'DOMAIN-ENDPOINT',
    'domain endpoint from the Search stack outputs, or an http(s) URL (required)',
  ),
  port: withDefault('P', '9200', 'port on 127.0.0.1 (0 picks a free one)'),
  region: region('AWS_REGION, or the one in the endpoint host name'),
  service: SERVICE,
  'max-buffered-mib': text('N', 'most request-body MiB buffered for signing, all requests together', '256'),
  'max-bodies': text('N', 'most requests with a body at once (more get 503)', '8'),
  'headers-timeout': text('S', 'time a client has to send its headers (408 after)', '20s'),
  'request-timeout': text('S', 'time a client has to send a whole request (408 after)', '120s'),
  'upstream-timeout': text('S', 'time the domain may stay silent (504 after)', '300s'),
  help: HELP,
} as const;

export const DOCTOR_OPTIONS = {
  profile: withDefault('NAME', 'sandbox', 'cdk.json profile to check'),
  region: region('AWS_REGION'),
  'skip-synth': flag('do not run cdk synth (fewer checks)'),
  'cdk-out': text('DIR', 'read this synthesized assembly instead of running cdk synth'),
  'synth-timeout': withDefault('S', '300s', 'give up on cdk synth after this long'),
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const RECONCILE_OPTIONS = {
  'log-group': list('G', 'log group to reconcile (repeatable)', "the cdk.json profile's log groups"),
  profile: text(
    'NAME',
    'cdk.json profile: its log groups, raw stream, routes, index names and lag',
    'sandbox',
  ),
  since: text('T', 'window start: a duration before now (1h) or an ISO time (required)'),
  until: text('T', 'window end: an ISO time or a duration before now', 'now'),
  lag: text(
    'D',
    'minutes newer than this are not judged; events ingested since are late, never missing',
    "the profile's reconcile.lagMinutes, 15m",
  ),
  heal: flag('send the missing events through the raw stream as kfek backfill does, and wait for them'),
  'heal-timeout': withDefault('D', '5m', 'how long --heal waits for the healed events to become searchable'),
  count: text(
    'MODE',
    'insights (Logs Insights, AWS) or scan (FilterLogEvents, anywhere) for the CloudWatch counts',
    'insights; scan with an endpoint override',
  ),
  opensearch: text('URL', "OpenSearch URL (the domain endpoint, or npm start's node)", OPENSEARCH_URL),
  sigv4: flag('sign OpenSearch requests with SigV4 (Amazon OpenSearch Service)'),
  service: SERVICE,
  'raw-stream': text(
    'NAME|ARN',
    'the raw stream: whose subscriptions to compare, where --heal sends',
    'kfek-<profile>-raw',
  ),
  bucket: text(
    'NAME',
    'the failed-records bucket (dead letters, discarded batches, failed documents)',
    "the profile's Search stack's",
  ),
  'local-dir': text('DIR', "npm start's work folder (its kept folders stand in for the bucket's prefixes)"),
  'join-lookback': withDefault(
    'D',
    '60s',
    'events read before a minute that differs, so a multi-line trace is joined as the transform joined it',
  ),
  endpoint: endpoint('CloudWatch Logs, Kinesis, S3 and CloudFormation'),
  region: region(),
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const EVENTS_WINDOW_OPTIONS = {
  since: text(
    'T',
    'window start: an ISO time or a duration before now (24h), by arrival in the stream (required)',
  ),
  until: text(
    'T',
    'window end: an ISO time or a duration before now',
    "the command's start by Kinesis' clock",
  ),
  'events-stream': text(
    'NAME|ARN',
    'the events stream to read and re-put to',
    'kfek-<profile>-events with --profile',
  ),
  profile: text('NAME', 'cdk.json profile whose events stream to use'),
  limit: text('N', 'most records to re-put (or count), shard by shard', 'all'),
  rate: text('R/s', 'at most this many records per second', 'as fast as Kinesis takes them'),
  'dry-run': flag('read and count only; put nothing'),
  endpoint: endpoint('Kinesis'),
  region: region(),
  json: JSON_OUTPUT,
  help: HELP,
} as const;

const SEARCH_STACKS = "with --profile, the Search stack's";

export const REPLAY_OPTIONS = {
  local: flag("read npm start's folders (.kfek/local/)"),
  'local-dir': text('DIR', "npm start's work folder (needs --local)", '.kfek/local'),
  bucket: text('NAME', 'the failed-records bucket', SEARCH_STACKS),
  'queue-url': text('URL', "the pipe's dead-letter queue", SEARCH_STACKS),
  profile: text(
    'NAME',
    "cdk.json profile: its key prefixes, and the deployed Search stack's bucket, streams and queue",
    "cdk.json's default profile, for prefixes only",
  ),
  kind: list(
    'KIND',
    'dead-letter, discarded-batch, failed-document, pipes-dlq (repeatable, or comma-separated); events-window: kfek events-window',
    'every kept kind',
  ),
  since: text('T', 'kept at or after: a duration before now (24h) or an ISO time'),
  until: text('T', 'kept at or before: an ISO time or a duration before now'),
  reason: text('TEXT', 'only what failed for a reason containing this text'),
  limit: text('N', 'most items to choose'),
  'raw-stream': text(
    'NAME|ARN',
    'where raw records go back to; the only stream ranges are read from',
    SEARCH_STACKS,
  ),
  'events-stream': text('NAME|ARN', 'where documents go back to', SEARCH_STACKS),
  rate: text('N/s', 'at most this many records per second', 'as fast as Kinesis takes them'),
  'dry-run': flag('list and count only; send and delete nothing'),
  'delete-after': flag('delete each object or message once all it holds was re-sent'),
  endpoint: endpoint('S3, SQS, Kinesis and CloudFormation'),
  region: region(),
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const BACKFILL_OPTIONS = {
  'log-group': list(
    'G',
    'log group to backfill (repeatable, or comma-separated)',
    "the profile's log groups",
  ),
  profile: text(
    'NAME',
    'the cdk.json profile: its log groups unless --log-group, and its raw stream kfek-<profile>-raw',
  ),
  since: text(
    'T',
    'window start: a duration before now (7d, 36h) or an ISO time (required, except with --resume)',
  ),
  until: text('T', 'window end (inclusive): an ISO time or a duration before now', 'now'),
  'filter-pattern': text(
    'P',
    'FilterLogEvents pattern',
    "the log group's subscription pattern, else every event",
  ),
  rate: text('N/s', 'events per second to the raw stream: 1000, 1000/s or 60000/m', '1000/s'),
  'dry-run': flag('estimate events, bytes, time and cost from a sampled read; write nothing'),
  resume: flag('go on with the backfill in the checkpoint (after Ctrl-C or a failure)'),
  'state-dir': text('DIR', 'checkpoint.json and refused records (dead-letter/)', '.kfek/backfill'),
  'raw-stream': text('NAME|ARN', "the raw stream's name or ARN", 'kfek-<profile>-raw'),
  endpoint: endpoint('CloudWatch Logs and Kinesis'),
  region: region('AWS_REGION, or us-east-1 with an endpoint'),
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const OPTIONS: Readonly<Record<CommandName, OptionTable>> = {
  send: SEND_OPTIONS,
  verify: VERIFY_OPTIONS,
  query: QUERY_OPTIONS,
  proxy: PROXY_OPTIONS,
  doctor: DOCTOR_OPTIONS,
  reconcile: RECONCILE_OPTIONS,
  'events-window': EVENTS_WINDOW_OPTIONS,
};

/**
 * The tables of the commands whose help is their own text with a table-made option list (replay and backfill: their
 * help starts `kfek <command> - `), and every table by command: what the bad-input sweep reads.
 */
export const ALL_OPTIONS: Readonly<Record<CommandName | 'replay' | 'backfill', OptionTable>> = {
  ...OPTIONS,
  replay: REPLAY_OPTIONS,
  backfill: BACKFILL_OPTIONS,
};

/** How a command reads its options, beyond its table. */
export interface ReadRules {
  /**
   * Any value starting with one dash is the option's value (`-h` aside), and an empty one is refused: replay's
   * values are texts, names and places, where an empty one is always a typing mistake.
   * @default false
   */
  readonly strictValues?: boolean;
  /**
   * Options the command once took and takes no more, each with why and what to give instead.
   * @default - none
   */
  readonly refused?: Readonly<Record<string, string>>;
}

/** What `util.parseArgs` makes of a table's options: a string, a list or a boolean per option. */
export type OptionValues<T extends OptionTable> = ReturnType<
  typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: false }>
>['values'];

/**
 * `util.parseArgs` with `command`'s table, strict and without positionals; whatever it refuses is a usage error in
 * one line starting `<command>:`. An option that takes one value is given once: a second one would silently win.
 * A negative number after an option that takes a value (`--count -5`) is that option's value: parseArgs would
 * refuse it as "ambiguous", and kfek's own check of the value says what is wrong with it instead.
 */
export function readOptions<T extends OptionTable>(
  command: string,
  args: readonly string[],
  options: T,
  { strictValues = false, refused = {} }: ReadRules = {},
): OptionValues<T> {
  try {
    for (const arg of args) {
      const name = /^--([^=]+)/.exec(arg)?.[1];
      if (name !== undefined && Object.hasOwn(refused, name)) {
        throw new UsageError(`${command}: --${name} ${refused[name]}`);
      }
    }
    const parsed = parseArgs({
      args: joinDashValues(args, options, strictValues ? /^-[^-]/ : /^-\d/),
      options,
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
    const seen = new Set<string>();
    for (const token of parsed.tokens) {
      if (token.kind !== 'option') continue;
      if (strictValues && token.value !== undefined && token.value.trim() === '') {
        throw new UsageError(`${command}: --${token.name} needs a value (it is empty)`);
      }
      if (seen.has(token.name) && options[token.name]?.multiple !== true) {
        throw new UsageError(`${command}: --${token.name} is given more than once`);
      }
      seen.add(token.name);
    }
    return parsed.values;
  } catch (error) {
    throw usageErrorOf(command, error);
  }
}

/**
 * What the command line of `command` did wrong, in one line: parseArgs throws TypeErrors with codes such as
 * ERR_PARSE_ARGS_UNKNOWN_OPTION, and a value's own check a UsageError (passed on as it is).
 */
export function usageErrorOf(command: string, error: unknown): unknown {
  if (error instanceof UsageError) return error;
  return new UsageError(`${command}: ${parseArgsMessage(command, error)}`);
}

/** Node's parseArgs error in one line of kfek's words, the same for every command. */
function parseArgsMessage(command: string, error: unknown): string {
  // Under some runners the message starts with the error's name and code (`TypeError [ERR_PARSE_ARGS_...]: `).
  const message = (error instanceof Error ? error.message : String(error))
    .split('\n')[0]
    .replace(/^TypeError \[[A-Z_]+\]: /, '');
  // Node's three-line "argument is ambiguous" (an option followed by another option instead of its value).
  const ambiguous = /^Option '(-[^' ]+)[^']*' argument is ambiguous/.exec(message);
  if (ambiguous !== null) {
    return `${ambiguous[1]} needs a value (one starting with a dash is written ${ambiguous[1]}=VALUE)`;
  }
  const option = /^Option '(-[^' ]+)/.exec(message)?.[1];
  if (option !== undefined && /argument missing/.test(message)) return `${option} needs a value`;
  if (option !== undefined && /does not take an argument/.test(message)) return `${option} takes no value`;
  const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
  if (unknown !== undefined) return `unknown option ${unknown} (kfek ${command} --help lists them)`;
  const positional = /^Unexpected argument '([^']*)'/.exec(message)?.[1];
  if (positional !== undefined)
    return `unexpected argument ${quote(positional)}: ${command} takes options only, no positional argument`;
  return message;
}

function joinDashValues(args: readonly string[], options: OptionTable, value: RegExp): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const next = args[i + 1];
    const spec = arg.startsWith('--') && !arg.includes('=') ? options[arg.slice(2)] : undefined;
    if (spec?.type === 'string' && next !== undefined && value.test(next) && next !== '-h') {
      joined.push(`${arg}=${next}`);
      i++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}
