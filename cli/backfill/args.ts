/**
 * `kfek backfill`'s command line: its options are in the one table (cli/args/options.ts), which makes its help's
 * option list; the checks between options and the window's times (read against the clock) are here. Pure: argv and
 * the clock in, typed options out.
 */
import { type HelpSpec, helpPage } from '../args/help';
import { BACKFILL_OPTIONS, type OptionValues, readOptions } from '../args/options';
import {
  forCommand,
  optional,
  parseLogGroupName,
  parseName,
  parseRate,
  parseRegion,
  parseStreamName,
  parseUrl,
} from '../args/values';
import { parseTimeWindow } from '../args/time-window';
import { UsageError } from '../errors';

export const DEFAULT_RATE_PER_SECOND = 1000;
export const DEFAULT_STATE_DIR = '.kfek/backfill';

/** What the help says about backfill (the command table's row, cli/commands.ts, adds its parser and runner). */
export const BACKFILL_HELP: HelpSpec = {
  name: 'backfill',
  synopsis: `backfill (--log-group G ... | --profile NAME) --since 7d [--until T] [--filter-pattern P] [--rate N/s]
              [--dry-run] [--resume] [--json]   (kfek backfill --help for all options)`,
  summary: `backfill sends the history of log groups (from before their subscription, or an outage window) through the
pipeline, as subscription envelopes on the raw stream; --dry-run estimates events, bytes, time and cost first.`,
  options: BACKFILL_OPTIONS,
  page: {
    title: `send the history of log groups through the pipeline: the logs from before their subscription
existed, or from an outage window, searchable once`,
    usage: `  kfek backfill (--log-group G ... | --profile NAME) --since 7d|ISO-TIME [--until ISO-TIME|DURATION]
                [--filter-pattern P] [--rate N/s] [--dry-run] [--resume] [--state-dir DIR]
                [--raw-stream NAME|ARN] [--endpoint URL] [--region R] [--json]`,
    prose: `Reads the window with FilterLogEvents (the events' real ids, times, groups and streams), writes them to the raw
stream as CloudWatch Logs subscription envelopes (gzip DATA_MESSAGE, one log stream each), and the deployed
transform handles them like live data. A document's id comes from log group, stream and event id, so events the
live subscription also delivered overwrite themselves: overlap is harmless.`,
    footer: `Records Kinesis still refuses after 20 attempts are kept in <state dir>/dead-letter/: re-send them with
kfek replay --local --local-dir <state dir> --kind dead-letter --raw-stream <stream>.`,
  },
};

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

/** `kfek backfill`'s options as the command table reads them (tests call it with argv). */
export function parseBackfillArgs(argv: readonly string[], now: Date): ParsedBackfill {
  const values = readOptions('backfill', argv, BACKFILL_OPTIONS);
  return values.help ? { command: 'backfill-help' } : parseBackfill(values, now);
}

/** Backfill's option values in, typed arguments out; every message starts `backfill:`. */
export function parseBackfill(values: OptionValues<typeof BACKFILL_OPTIONS>, now: Date): BackfillArgs {
  return forCommand('backfill', () => {
    // A blank or malformed name is refused, never dropped (dropping it would backfill the profile's groups instead).
    const logGroups = (values['log-group'] ?? [])
      .flatMap((g) => g.split(','))
      .map((g) => parseLogGroupName(g.trim(), '--log-group'));
    if (values.resume && values['dry-run']) {
      throw new UsageError('--dry-run estimates a new backfill; it does not go with --resume');
    }
    if (!values.resume && values.since === undefined) {
      throw new UsageError(
        '--since is required: a duration before now (7d, 36h) or an ISO time where the window starts',
      );
    }
    const endpoint = optional('endpoint', values.endpoint, (v) => parseUrl(v, '--endpoint'));
    const region = optional('region', values.region, (v) => parseRegion(v, '--region'));
    const rawStream = optional('rawStream', values['raw-stream'], (v) => parseStreamName(v, '--raw-stream'));
    const stateDir =
      values['state-dir'] === undefined ? DEFAULT_STATE_DIR : parseName(values['state-dir'], '--state-dir');
    const { since, until } = parseTimeWindow('backfill', { since: values.since, until: values.until }, now);
    const given = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
      (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
    return {
      command: 'backfill',
      logGroups: [...new Set(logGroups)],
      ...given('profile', values.profile),
      ...given('sinceText', values.since),
      ...given('since', since),
      ...given('untilText', values.until),
      ...given('until', until),
      ...given('filterPattern', values['filter-pattern']),
      ratePerSecond: values.rate === undefined ? DEFAULT_RATE_PER_SECOND : parseRate(values.rate),
      dryRun: values['dry-run'],
      resume: values.resume,
      stateDir,
      ...rawStream,
      ...endpoint,
      ...region,
      json: values.json,
    };
  });
}

/** `kfek backfill --help`. */
export const BACKFILL_USAGE = helpPage(BACKFILL_HELP);
