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

const HELP = { type: 'boolean', short: 'h', default: false, help: "this command's options" } as const;
const REGION = {
  type: 'string',
  value: 'R',
  help: 'AWS region',
  shownDefault: 'AWS_REGION, or us-east-1 with an endpoint override',
} as const;
const JSON_OUTPUT = { type: 'boolean', default: false, help: 'print the result as JSON on stdout' } as const;

const COMMON_OPTIONS = {
  endpoint: {
    type: 'string',
    value: 'URL',
    help: 'CloudWatch Logs endpoint (e.g. http://127.0.0.1:5000 for moto)',
    shownDefault: 'AWS_ENDPOINT_URL, else AWS',
  },
  region: REGION,
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const SEND_OPTIONS = {
  'log-group': { type: 'string', value: 'G', help: 'log group to write to (required)' },
  count: { type: 'string', value: 'N', default: '100', help: 'events to write' },
  rate: { type: 'string', value: 'R/s', help: 'at most this many events per second (50, 50/s, 3000/m)' },
  'run-id': { type: 'string', value: 'ID', help: 'run id the events carry', shownDefault: 'a new one' },
  'log-stream': {
    type: 'string',
    value: 'S',
    help: 'log stream to write to',
    shownDefault: 'kfek-cli/<run id>',
  },
  seed: {
    type: 'string',
    value: 'N',
    help: 'seed of the event generator, for repeatable runs',
    shownDefault: '1',
  },
  ...COMMON_OPTIONS,
} as const;

export const VERIFY_OPTIONS = {
  'run-id': { type: 'string', value: 'ID', help: 'run to look for (required)' },
  opensearch: {
    type: 'string',
    value: 'URL',
    help: 'OpenSearch URL, may carry user:password for basic auth',
    shownDefault: 'KFEK_OPENSEARCH_URL',
  },
  index: { type: 'string', value: 'PATTERN', default: '*', help: 'index pattern to search' },
  expect: { type: 'string', value: 'N', help: 'keep polling until N events are found' },
  timeout: {
    type: 'string',
    value: 'S',
    help: 'give up after this long',
    shownDefault: '300s with --expect, else 0: one search',
  },
  interval: { type: 'string', value: 'S', default: '2s', help: 'time between searches' },
  'ingest-field': {
    type: 'string',
    value: 'F',
    help: 'document field holding the index time, for latency',
    shownDefault: 'latency to the poll that saw the event',
  },
  sigv4: { type: 'boolean', default: false, help: 'sign requests with SigV4 (Amazon OpenSearch Service)' },
  ...COMMON_OPTIONS,
} as const;

export const QUERY_OPTIONS = {
  name: { type: 'string', value: 'NAME', help: 'built-in query or saved definition name (required)' },
  list: { type: 'boolean', default: false, help: 'list the built-in queries' },
  'log-group': {
    type: 'string',
    value: 'G',
    multiple: true,
    help: 'log group to query (repeatable)',
    shownDefault: "the cdk.json profile's log groups",
  },
  profile: { type: 'string', value: 'NAME', help: 'cdk.json profile', shownDefault: 'sandbox' },
  since: { type: 'string', value: 'D', default: '1h', help: 'how far back to query' },
  timeout: { type: 'string', value: 'S', default: '120s', help: 'give up after this long' },
  ...COMMON_OPTIONS,
} as const;

export const PROXY_OPTIONS = {
  endpoint: {
    type: 'string',
    value: 'DOMAIN-ENDPOINT',
    help: 'domain endpoint from the Search stack outputs, or an http(s) URL (required)',
  },
  port: { type: 'string', value: 'P', default: '9200', help: 'port on 127.0.0.1 (0 picks a free one)' },
  region: { ...REGION, shownDefault: 'AWS_REGION, or the one in the endpoint host name' },
  'max-buffered-mib': {
    type: 'string',
    value: 'N',
    help: 'most request-body MiB buffered for signing, all requests together',
    shownDefault: '256',
  },
  'max-bodies': {
    type: 'string',
    value: 'N',
    help: 'most requests with a body at once (more get 503)',
    shownDefault: '8',
  },
  'headers-timeout': {
    type: 'string',
    value: 'S',
    help: 'time a client has to send its headers (408 after)',
    shownDefault: '20s',
  },
  'request-timeout': {
    type: 'string',
    value: 'S',
    help: 'time a client has to send a whole request (408 after)',
    shownDefault: '120s',
  },
  'upstream-timeout': {
    type: 'string',
    value: 'S',
    help: 'time the domain may stay silent (504 after)',
    shownDefault: '300s',
  },
  help: HELP,
} as const;

export const DOCTOR_OPTIONS = {
  profile: { type: 'string', value: 'NAME', default: 'sandbox', help: 'cdk.json profile to check' },
  region: { ...REGION, shownDefault: 'AWS_REGION' },
  'skip-synth': { type: 'boolean', default: false, help: 'do not run cdk synth (fewer checks)' },
  'cdk-out': {
    type: 'string',
    value: 'DIR',
    help: 'read this synthesized assembly instead of running cdk synth',
  },
  'synth-timeout': {
    type: 'string',
    value: 'S',
    default: '300s',
    help: 'give up on cdk synth after this long',
  },
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const RECONCILE_OPTIONS = {
  'log-group': {
    type: 'string',
    value: 'G',
    multiple: true,
    help: 'log group to reconcile (repeatable)',
    shownDefault: "the cdk.json profile's log groups",
  },
  profile: {
    type: 'string',
    value: 'NAME',
    help: 'cdk.json profile: its log groups, raw stream, routes, index names and lag',
    shownDefault: 'sandbox',
  },
  since: {
    type: 'string',
    value: 'T',
    help: 'window start: a duration before now (1h) or an ISO time (required)',
  },
  until: {
    type: 'string',
    value: 'T',
    help: 'window end: an ISO time or a duration before now',
    shownDefault: 'now',
  },
  lag: {
    type: 'string',
    value: 'D',
    help: 'minutes newer than this are not judged; events ingested since are late, never missing',
    shownDefault: "the profile's reconcile.lagMinutes, 15m",
  },
  heal: {
    type: 'boolean',
    default: false,
    help: 'send the missing events through the raw stream as kfek backfill does, and wait for them',
  },
  'heal-timeout': {
    type: 'string',
    value: 'D',
    default: '5m',
    help: 'how long --heal waits for the healed events to become searchable',
  },
  count: {
    type: 'string',
    value: 'MODE',
    help: 'insights (Logs Insights, AWS) or scan (FilterLogEvents, anywhere) for the CloudWatch counts',
    shownDefault: 'insights; scan with an endpoint override',
  },
  opensearch: {
    type: 'string',
    value: 'URL',
    help: "OpenSearch URL (the domain endpoint, or npm start's node)",
    shownDefault: 'KFEK_OPENSEARCH_URL',
  },
  sigv4: {
    type: 'boolean',
    default: false,
    help: 'sign OpenSearch requests with SigV4 (Amazon OpenSearch Service)',
  },
  'raw-stream': {
    type: 'string',
    value: 'NAME|ARN',
    help: 'the raw stream: whose subscriptions to compare, where --heal sends',
    shownDefault: 'kfek-<profile>-raw',
  },
  bucket: {
    type: 'string',
    value: 'NAME',
    help: 'the failed-records bucket (dead letters, discarded batches, failed documents)',
    shownDefault: "the profile's Search stack's",
  },
  'local-dir': {
    type: 'string',
    value: 'DIR',
    help: "npm start's work folder (its kept folders stand in for the bucket's prefixes)",
  },
  'join-lookback': {
    type: 'string',
    value: 'D',
    default: '60s',
    help: 'events read before a minute that differs, so a multi-line trace is joined as the transform joined it',
  },
  endpoint: {
    type: 'string',
    value: 'URL',
    help: "AWS endpoint for CloudWatch Logs, Kinesis, S3 and CloudFormation (e.g. moto's)",
    shownDefault: 'AWS_ENDPOINT_URL, else AWS',
  },
  region: REGION,
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const EVENTS_WINDOW_OPTIONS = {
  since: {
    type: 'string',
    value: 'T',
    help: 'window start: an ISO time or a duration before now (24h), by arrival in the stream (required)',
  },
  until: {
    type: 'string',
    value: 'T',
    help: 'window end: an ISO time or a duration before now',
    shownDefault: "the command's start by Kinesis' clock",
  },
  'events-stream': {
    type: 'string',
    value: 'NAME|ARN',
    help: 'the events stream to read and re-put to',
    shownDefault: 'kfek-<profile>-events with --profile',
  },
  profile: { type: 'string', value: 'NAME', help: 'cdk.json profile whose events stream to use' },
  limit: {
    type: 'string',
    value: 'N',
    help: 'most records to re-put (or count), shard by shard',
    shownDefault: 'all',
  },
  rate: {
    type: 'string',
    value: 'R/s',
    help: 'at most this many records per second',
    shownDefault: 'as fast as Kinesis takes them',
  },
  'dry-run': { type: 'boolean', default: false, help: 'read and count only; put nothing' },
  endpoint: {
    type: 'string',
    value: 'URL',
    help: "Kinesis endpoint (e.g. moto's http://127.0.0.1:5000)",
    shownDefault: 'AWS_ENDPOINT_URL, else AWS',
  },
  region: REGION,
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const REPLAY_OPTIONS = {
  local: { type: 'boolean', default: false, help: "read npm start's folders (.kfek/local/)" },
  'local-dir': {
    type: 'string',
    value: 'DIR',
    help: "npm start's work folder (needs --local)",
    shownDefault: '.kfek/local',
  },
  bucket: {
    type: 'string',
    value: 'NAME',
    help: 'the failed-records bucket',
    shownDefault: "with --profile, the Search stack's",
  },
  'queue-url': {
    type: 'string',
    value: 'URL',
    help: "the pipe's dead-letter queue",
    shownDefault: "with --profile, the Search stack's",
  },
  profile: {
    type: 'string',
    value: 'NAME',
    help: "cdk.json profile: its key prefixes, and the deployed Search stack's bucket, streams and queue",
    shownDefault: "cdk.json's default profile, for prefixes only",
  },
  kind: {
    type: 'string',
    value: 'KIND',
    multiple: true,
    help: 'dead-letter, discarded-batch, failed-document, pipes-dlq (repeatable, or comma-separated); events-window: kfek events-window',
    shownDefault: 'every kept kind',
  },
  since: { type: 'string', value: 'T', help: 'kept at or after: a duration before now (24h) or an ISO time' },
  until: { type: 'string', value: 'T', help: 'kept at or before: an ISO time or a duration before now' },
  reason: { type: 'string', value: 'TEXT', help: 'only what failed for a reason containing this text' },
  limit: { type: 'string', value: 'N', help: 'most items to choose' },
  'raw-stream': {
    type: 'string',
    value: 'NAME|ARN',
    help: 'where raw records go back to; the only stream ranges are read from',
    shownDefault: "with --profile, the Search stack's",
  },
  'events-stream': {
    type: 'string',
    value: 'NAME|ARN',
    help: 'where documents go back to',
    shownDefault: "with --profile, the Search stack's",
  },
  rate: {
    type: 'string',
    value: 'N/s',
    help: 'at most this many records per second',
    shownDefault: 'as fast as Kinesis takes them',
  },
  'dry-run': { type: 'boolean', default: false, help: 'list and count only; send and delete nothing' },
  'delete-after': {
    type: 'boolean',
    default: false,
    help: 'delete each object or message once all it holds was re-sent',
  },
  endpoint: {
    type: 'string',
    value: 'URL',
    help: "AWS endpoint for S3, SQS, Kinesis and CloudFormation (e.g. moto's)",
    shownDefault: 'AWS_ENDPOINT_URL, else AWS',
  },
  region: REGION,
  json: JSON_OUTPUT,
  help: HELP,
} as const;

export const BACKFILL_OPTIONS = {
  'log-group': {
    type: 'string',
    value: 'G',
    multiple: true,
    help: 'log group to backfill (repeatable, or comma-separated)',
    shownDefault: "the profile's log groups",
  },
  profile: {
    type: 'string',
    value: 'NAME',
    help: 'the cdk.json profile: its log groups unless --log-group, and its raw stream kfek-<profile>-raw',
  },
  since: {
    type: 'string',
    value: 'T',
    help: 'window start: a duration before now (7d, 36h) or an ISO time (required, except with --resume)',
  },
  until: {
    type: 'string',
    value: 'T',
    help: 'window end (inclusive): an ISO time or a duration before now',
    shownDefault: 'now',
  },
  'filter-pattern': {
    type: 'string',
    value: 'P',
    help: 'FilterLogEvents pattern',
    shownDefault: "the log group's subscription pattern, else every event",
  },
  rate: {
    type: 'string',
    value: 'N/s',
    help: 'events per second to the raw stream: 1000, 1000/s or 60000/m',
    shownDefault: '1000/s',
  },
  'dry-run': {
    type: 'boolean',
    default: false,
    help: 'estimate events, bytes, time and cost from a sampled read; write nothing',
  },
  resume: {
    type: 'boolean',
    default: false,
    help: 'go on with the backfill in the checkpoint (after Ctrl-C or a failure)',
  },
  'state-dir': {
    type: 'string',
    value: 'DIR',
    help: 'checkpoint.json and refused records (dead-letter/)',
    shownDefault: '.kfek/backfill',
  },
  'raw-stream': {
    type: 'string',
    value: 'NAME|ARN',
    help: "the raw stream's name or ARN",
    shownDefault: 'kfek-<profile>-raw',
  },
  endpoint: {
    type: 'string',
    value: 'URL',
    help: "AWS endpoint for CloudWatch Logs and Kinesis (e.g. moto's)",
    shownDefault: 'AWS_ENDPOINT_URL, else AWS',
  },
  region: { ...REGION, shownDefault: 'AWS_REGION, or us-east-1 with an endpoint' },
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

/**
 * `util.parseArgs` with kfek's table, strict and without positionals. A negative number after an option that takes
 * a value (`--count -5`) is that option's value: parseArgs would refuse it as "ambiguous", and kfek's own check of
 * the value says what is wrong with it instead.
 */
export function parseOptions<T extends OptionTable>(
  args: readonly string[],
  options: T,
): ReturnType<
  typeof parseArgs<{ args: string[]; options: T; strict: true; allowPositionals: false }>
>['values'] {
  const parsed = parseArgs({
    args: joinNegativeValues(args, options),
    options,
    strict: true,
    allowPositionals: false,
    tokens: true,
  });
  // An option that takes one value is given once: a second one would silently win.
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name) && options[token.name]?.multiple !== true) {
      throw new Error(`--${token.name} is given more than once`);
    }
    seen.add(token.name);
  }
  return parsed.values;
}

/** {@link parseOptions} for `command`, whose refusals are usage errors in one line starting `<command>:`. */
export function parseCommandOptions<T extends OptionTable>(
  command: string,
  args: readonly string[],
  options: T,
): ReturnType<typeof parseOptions<T>> {
  try {
    return parseOptions(args, options);
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

function joinNegativeValues(args: readonly string[], options: OptionTable): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const next = args[i + 1];
    const spec = arg.startsWith('--') && !arg.includes('=') ? options[arg.slice(2)] : undefined;
    if (spec?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      joined.push(`${arg}=${next}`);
      i++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}
