/**
 * `kfek backfill`'s command line: its options are in the one table (cli/args/options.ts), which makes its help's
 * option list; the checks between options and the window's times (read against the clock) are here. Pure: argv and
 * the clock in, typed options out.
 */
import { parseRate } from '../args';
import { optionsHelp } from '../args/help';
import { BACKFILL_OPTIONS, parseCommandOptions } from '../args/options';
import {
  forCommand,
  parseLogGroupName,
  parseName,
  parseRegion,
  parseStreamName,
  parseUrl,
} from '../args/values';
import { parseTimeWindow } from '../args/time-window';
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

${optionsHelp(BACKFILL_OPTIONS)}

Records Kinesis still refuses after 20 attempts are kept in <state dir>/dead-letter/: re-send them with
kfek replay --local --local-dir <state dir> --kind dead-letter --raw-stream <stream>.`;

export { BACKFILL_OPTIONS };

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
  const values = parseCommandOptions('backfill', argv, BACKFILL_OPTIONS);
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
  const { since, until } = parseTimeWindow('backfill', { since: values.since, until: values.until }, now);
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
