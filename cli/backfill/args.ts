/**
 * `kfek backfill`'s own command line, parsed here so the command stays self-contained (cli/main.ts only dispatches
 * to it, as it does for replay). Pure: argv and the clock in, typed options out.
 */
import { parseArgs } from 'node:util';
import { parseRate } from '../args';
import {
  forCommand,
  parseLogGroupName,
  parseName,
  parseRegion,
  parseStreamName,
  parseTimeBeforeNow,
  parseUrl,
} from '../args/values';
import { UsageError } from '../errors';

export const DEFAULT_RATE_PER_SECOND = 1000;
export const DEFAULT_STATE_DIR = '.kfek/backfill';

export const BACKFILL_USAGE = `kfek backfill - send the history of log groups through the pipeline: the logs from before their subscription
existed, or from an outage window, searchable once

Usage:
  kfek backfill (--log-group G ... | --profile NAME) --since 7d|ISO-TIME [--until ISO-TIME|DURATION]
                [--filter-pattern P] [--rate N/s] [--dry-run] [--resume] [--state-dir DIR]
                [--raw-stream NAME|ARN] [--endpoint URL] [--region R] [--json]

Reads the window with FilterLogEvents (the events' real ids, times, groups and streams), writes them to the raw
stream as CloudWatch Logs subscription envelopes (gzip DATA_MESSAGE, one log stream each), and the deployed
transform handles them like live data. A document's id comes from log group, stream and event id, so events the
live subscription also delivered overwrite themselves: overlap is harmless.

Options:
  --log-group G        log group to backfill (repeatable, or comma-separated)
  --profile NAME       the cdk.json profile: its log groups unless --log-group, and its raw stream kfek-<profile>-raw
  --since T            window start: a duration before now (7d, 36h) or an ISO time (required, except with --resume)
  --until T            window end (inclusive): an ISO time or a duration before now (default: now)
  --filter-pattern P   FilterLogEvents pattern (default: the log group's subscription pattern, else every event)
  --rate N             events per second to the raw stream: 1000, 1000/s or 60000/m (default: ${DEFAULT_RATE_PER_SECOND}/s)
  --dry-run            estimate events, bytes, time and cost from a sampled read; write nothing
  --resume             go on with the backfill in the checkpoint (after Ctrl-C or a failure)
  --state-dir DIR      checkpoint.json and refused records (dead-letter/) (default: ${DEFAULT_STATE_DIR})
  --raw-stream S       the raw stream's name or ARN (default: kfek-<profile>-raw)
  --endpoint URL       AWS endpoint for CloudWatch Logs and Kinesis (e.g. moto's); default AWS_ENDPOINT_URL or AWS
  --region R           default AWS_REGION, or us-east-1 with an endpoint
  --json               print the result as JSON on stdout
  --help, -h           this text

Records Kinesis still refuses after 20 attempts are kept in <state dir>/dead-letter/: re-send them with
kfek replay --local --local-dir <state dir> --kind dead-letter --raw-stream <stream>.`;

/** What `util.parseArgs` accepts; BACKFILL_USAGE describes each (a test holds the two together). */
export const BACKFILL_OPTIONS = {
  'log-group': { type: 'string', multiple: true },
  profile: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  'filter-pattern': { type: 'string' },
  rate: { type: 'string' },
  'dry-run': { type: 'boolean', default: false },
  resume: { type: 'boolean', default: false },
  'state-dir': { type: 'string' },
  'raw-stream': { type: 'string' },
  endpoint: { type: 'string' },
  region: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

export interface BackfillArgs {
  readonly command: 'backfill';
  readonly logGroups: readonly string[];
  /** @default - cdk.json's default profile (for the stream, and the groups when none is given) */
  readonly profile?: string;
  /** As typed (a resumed run compares it with the checkpoint's). */
  readonly sinceText?: string;
  readonly since?: Date;
  readonly untilText?: string;
  readonly until?: Date;
  readonly filterPattern?: string;
  /** Events per second. */
  readonly ratePerSecond: number;
  readonly dryRun: boolean;
  readonly resume: boolean;
  readonly stateDir: string;
  readonly rawStream?: string;
  readonly endpoint?: string;
  readonly region?: string;
  readonly json: boolean;
}

export type ParsedBackfill = BackfillArgs | { readonly command: 'backfill-help' };

/** A shared value parser, its message starting `backfill:` as backfill's other messages do. */
const asBackfill = <T>(parse: () => T): T => forCommand('backfill', parse);

export function parseBackfillArgs(argv: readonly string[], now: Date): ParsedBackfill {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: BACKFILL_OPTIONS,
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`backfill: ${message.split('\n')[0].replace(/^TypeError \[[A-Z_]+\]: /, '')}`);
  }
  if (values.help) return { command: 'backfill-help' };
  // A blank or malformed name is refused, never dropped (dropping it would backfill the profile's groups instead).
  const logGroups = [
    ...new Set(
      (values['log-group'] ?? [])
        .flatMap((g) => g.split(','))
        .map((g) => asBackfill(() => parseLogGroupName(g.trim(), '--log-group'))),
    ),
  ];
  if (values.resume && values['dry-run']) {
    throw new UsageError('backfill: --dry-run estimates a new backfill; it does not go with --resume');
  }
  if (!values.resume && values.since === undefined) {
    throw new UsageError(
      'backfill: --since is required: a duration before now (7d, 36h) or an ISO time where the window starts',
    );
  }
  const checked = <T>(value: string | undefined, parse: (text: string) => T): T | undefined =>
    value === undefined ? undefined : asBackfill(() => parse(value));
  const endpoint = checked(values.endpoint, (v) => parseUrl(v, '--endpoint'));
  const region = checked(values.region, (v) => parseRegion(v, '--region'));
  const rawStream = checked(values['raw-stream'], (v) => parseStreamName(v, '--raw-stream'));
  const stateDir = checked(values['state-dir'], (v) => parseName(v, '--state-dir'));
  const since = checked(values.since, (v) => parseTimeBeforeNow(v, '--since', now));
  const until = checked(values.until, (v) => parseTimeBeforeNow(v, '--until', now));
  if (since !== undefined && since.getTime() >= (until ?? now).getTime()) {
    throw new UsageError(
      `backfill: --since ${since.toISOString()} is not before ${until === undefined ? 'now' : `--until ${until.toISOString()}`}`,
    );
  }
  const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
    (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
  return {
    command: 'backfill',
    logGroups,
    ...optional('profile', values.profile),
    ...optional('sinceText', values.since),
    ...optional('since', since),
    ...optional('untilText', values.until),
    ...optional('until', until),
    ...optional('filterPattern', values['filter-pattern']),
    ratePerSecond: values.rate === undefined ? DEFAULT_RATE_PER_SECOND : parseRate(values.rate),
    dryRun: values['dry-run'],
    resume: values.resume,
    stateDir: stateDir ?? DEFAULT_STATE_DIR,
    ...optional('rawStream', rawStream),
    ...optional('endpoint', endpoint),
    ...optional('region', region),
    json: values.json,
  };
}
