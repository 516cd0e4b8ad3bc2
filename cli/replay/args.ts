/**
 * `kfek replay`'s command line: its options are in the one table (cli/args/options.ts), which makes its help's
 * option list; replay reads them strictly (an option given twice, an empty value: see readOptions) and checks what
 * goes together here. Pure: argv and the clock in, typed options out.
 */
import { UsageError } from '../errors';
import type { HelpSpec } from '../args/help';
import { type OptionValues, readOptions, REPLAY_OPTIONS } from '../args/options';
import {
  forCommand,
  optional,
  parseBucketName,
  parseCount,
  parseProfileName,
  parseRate,
  parseRegion,
  parseStreamName,
  parseUrl,
  quote,
} from '../args/values';
import { parseTimeWindow } from '../args/time-window';
import { EVENTS_WINDOW_KIND, KEPT_KINDS, type KeptKind } from '../../core/kept/model';

/** What the help says about replay (the command table's row, cli/commands.ts, adds its parser and runner). */
export const REPLAY_HELP: HelpSpec = {
  name: 'replay',
  synopsis: `replay [--profile NAME | --local] [--kind K ...] [--since T] [--until T] [--reason R] [--limit N]
              [--rate R/s] [--dry-run] [--delete-after] [--json]   (kfek replay --help for all options)`,
  summary: `replay lists what kfek kept when something failed (dead letters, discarded batches, failed documents, the pipe's
dead-letter queue) and re-sends a chosen set to where it belongs.`,
  options: REPLAY_OPTIONS,
  page: {
    title: 'list what kfek kept when something failed, and re-send a chosen set to where it belongs',
    usage: `  kfek replay [--local [--local-dir DIR]] [--bucket NAME] [--queue-url URL] [--profile NAME]
              [--kind KIND ...] [--since 24h|ISO-TIME] [--until ISO-TIME] [--reason TEXT] [--limit N]
              [--raw-stream NAME|ARN] [--events-stream NAME|ARN] [--rate N/s] [--dry-run] [--delete-after]
              [--endpoint URL] [--region R] [--json]`,
    prose: `Kinds (default: all): dead-letter (poison raw records), discarded-batch (Lambda's on-failure records under
aws/lambda/), failed-document (Firehose's failed documents), pipes-dlq (the pipe's dead-letter queue).
Raw records go back to the raw stream, documents to the events stream, a discarded batch to the stream it names (the
raw one, or the events one for the direct path's indexer). Batches kept as metadata only are read back from that
stream by sequence number while its retention lasts. Re-sent events overwrite their documents (ids
are derived from log group, stream and event id), so running a replay twice is harmless.
--kind events-window (alone, never in the default) runs \`kfek events-window\` (its own command now: kfek
events-window --help): it re-puts the events stream's own records that arrived from --since to --until, unchanged,
for a delivery stream created after them (a recreated Pipeline stack).
--local reads npm start's folders (.kfek/local/), and dead letters from --bucket (moto's) when given; --profile reads prefixes from cdk.json and finds the bucket,
streams and queue of the deployed stack kfek-<profile>-search. Nothing is deleted unless --delete-after is given.
Only those two streams are read: an object naming another stream, a record Kinesis would refuse (partition key not 1 to
256 characters, data and key over 1 MiB) and an unreadable object are listed by key and kept; the exit code is then 1.`,
  },
};

export interface ReplayArgs {
  readonly command: 'replay';
  /** Read `npm start`'s folders instead of S3. */
  readonly localDir?: string;
  readonly bucket?: string;
  readonly queueUrl?: string;
  /**
   * cdk.json profile: key prefixes, and the deployed Search stack's resources for what is not given.
   * @default - cdk.json's default profile, for prefixes only
   */
  readonly profile?: string;
  readonly kinds: readonly KeptKind[];
  /**
   * `--kind events-window`: re-put the events stream's records of `since`..`until` instead of what is kept
   * (then `kinds` is unused).
   */
  readonly eventsWindow: boolean;
  readonly since?: Date;
  readonly until?: Date;
  readonly reason?: string;
  readonly limit?: number;
  readonly rawStream?: string;
  readonly eventsStream?: string;
  /** Records per second. @default - as fast as Kinesis takes them */
  readonly ratePerSecond?: number;
  readonly dryRun: boolean;
  readonly deleteAfter: boolean;
  readonly endpoint?: string;
  readonly region?: string;
  readonly json: boolean;
}

export type ParsedReplay = ReplayArgs | { readonly command: 'replay-help' };

export { REPLAY_OPTIONS };

/** `kfek replay`'s options, read strictly (options.ts `strictValues`): the command table's reader of them. */
export function parseReplayArgs(argv: readonly string[], now: Date): ParsedReplay {
  const values = readOptions('replay', argv, REPLAY_OPTIONS, { strictValues: true });
  return values.help ? { command: 'replay-help' } : parseReplay(values, now);
}

/** Replay's option values in, typed arguments out; every message starts `replay:`. */
export function parseReplay(values: OptionValues<typeof REPLAY_OPTIONS>, now: Date): ReplayArgs {
  return forCommand('replay', () => {
    const named = (values.kind ?? []).flatMap((k) => k.split(',')).map((k) => k.trim());
    const eventsWindow = named.includes(EVENTS_WINDOW_KIND);
    const kinds = named.filter((k) => k !== EVENTS_WINDOW_KIND);
    for (const kind of kinds) {
      if (!(KEPT_KINDS as readonly string[]).includes(kind)) {
        throw new UsageError(
          `--kind ${quote(kind)} is not one of ${[...KEPT_KINDS, EVENTS_WINDOW_KIND].join(', ')}`,
        );
      }
    }
    if (values['local-dir'] !== undefined && !values.local) throw new UsageError('--local-dir needs --local');
    const endpoint = optional('endpoint', values.endpoint, (v) => parseUrl(v, '--endpoint'));
    const queueUrl = optional('queueUrl', values['queue-url'], (v) => parseUrl(v, '--queue-url'));
    const region = optional('region', values.region, (v) => parseRegion(v, '--region'));
    const limit = optional('limit', values.limit, (v) => parseCount(v, '--limit', 1));
    const window = parseTimeWindow('replay', { since: values.since, until: values.until }, now);
    if (eventsWindow) checkEventsWindow(values, kinds, window.since, now);
    return {
      command: 'replay',
      ...(values.local ? { localDir: values['local-dir'] ?? '.kfek/local' } : {}),
      ...optional('bucket', values.bucket, (v) => parseBucketName('replay', v)),
      ...queueUrl,
      ...optional('profile', values.profile, (v) => parseProfileName(v, 'replay')),
      kinds: kinds.length === 0 ? KEPT_KINDS : [...new Set(kinds as KeptKind[])],
      eventsWindow,
      ...window,
      ...optional('reason', values.reason, (v) => v),
      ...limit,
      ...optional('rawStream', values['raw-stream'], (v) => parseStreamName(v, '--raw-stream')),
      ...optional('eventsStream', values['events-stream'], (v) => parseStreamName(v, '--events-stream')),
      ...optional('ratePerSecond', values.rate, parseRate),
      dryRun: values['dry-run'],
      deleteAfter: values['delete-after'],
      ...endpoint,
      ...region,
      json: values.json,
    };
  });
}

/**
 * `--kind events-window` reads the events stream, not kept data: it takes no other kind and none of the options
 * about kept data, and needs --since (where its reading starts; a time before the stream's retention starts at the
 * stream's oldest record).
 */
function checkEventsWindow(
  values: Readonly<Record<string, unknown>>,
  otherKinds: readonly string[],
  since: Date | undefined,
  now: Date,
): void {
  if (otherKinds.length > 0) {
    throw new UsageError(
      `--kind ${EVENTS_WINDOW_KIND} reads the events stream itself and is run alone, not with ` +
        `${otherKinds.join(', ')}: run two replays`,
    );
  }
  const kept = ['local', 'local-dir', 'bucket', 'queue-url', 'reason', 'raw-stream', 'delete-after'].filter(
    (option) => values[option] !== undefined && values[option] !== false,
  );
  if (kept.length > 0) {
    throw new UsageError(
      `${kept.map((o) => `--${o}`).join(', ')} ${kept.length === 1 ? 'does' : 'do'} not apply to ` +
        `--kind ${EVENTS_WINDOW_KIND}, which reads the events stream (--events-stream or --profile)`,
    );
  }
  if (since === undefined) {
    throw new UsageError(
      `--kind ${EVENTS_WINDOW_KIND} needs --since: the time (ISO) or the duration before now (24h) from ` +
        'which to re-put, e.g. shortly before the old delivery stream stopped; a time before the retention starts ' +
        "at the stream's oldest record",
    );
  }
  if (since.getTime() >= now.getTime()) {
    throw new UsageError(`--since ${since.toISOString()} is not in the past`);
  }
}
