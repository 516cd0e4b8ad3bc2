/**
 * `kfek replay`'s own command line, parsed here so the command stays self-contained (cli/main.ts only dispatches
 * to it). Pure: argv and the clock in, typed options out.
 */
import { parseArgs } from 'node:util';
import { parseDuration, parseRate } from '../args';
import { UsageError } from '../errors';
import { EVENTS_WINDOW_KIND, KEPT_KINDS, type KeptKind } from './model';

export const REPLAY_USAGE = `kfek replay - list what kfek kept when something failed, and re-send a chosen set to where it belongs

Usage:
  kfek replay [--local [--local-dir DIR]] [--bucket NAME] [--queue-url URL] [--profile NAME]
              [--kind KIND ...] [--since 24h|ISO-TIME] [--until ISO-TIME] [--reason TEXT] [--limit N]
              [--raw-stream NAME|ARN] [--events-stream NAME|ARN] [--rate N/s] [--dry-run] [--delete-after]
              [--endpoint URL] [--region R] [--json]

Kinds (default: all): dead-letter (poison raw records), discarded-batch (Lambda's on-failure records under
aws/lambda/), failed-document (Firehose's failed documents), pipes-dlq (the pipe's dead-letter queue).
Raw records go back to the raw stream, documents to the events stream. Batches kept as metadata only are read back
from the raw stream by sequence number while its retention lasts. Re-sent events overwrite their documents (ids
are derived from log group, stream and event id), so running a replay twice is harmless.
--kind events-window (alone, never in the default) re-puts the events stream's own records that arrived from
--since to --until (default: the replay's start), every shard, unchanged, for a delivery stream created after
them (a recreated Pipeline stack): kfek replay --kind events-window --since ISO-TIME [--until ISO-TIME]
[--events-stream NAME|ARN | --profile NAME] [--limit N] [--rate N/s] [--dry-run].
--local reads npm start's folders (.kfek/local/), and dead letters from --bucket (moto's) when given; --profile reads prefixes from cdk.json and finds the bucket,
streams and queue of the deployed stack kfek-<profile>-search. Nothing is deleted unless --delete-after is given.`;

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

/** `24h` (before now) or an ISO-8601 time. */
function parseTime(text: string, option: string, now: Date): Date {
  if (/^\d+(\.\d+)?(ms|s|m|h|d)$/.test(text.trim())) {
    return new Date(now.getTime() - parseDuration(text, option));
  }
  const date = new Date(text);
  if (!Number.isFinite(date.getTime())) {
    throw new UsageError(
      `replay: ${option} ${JSON.stringify(text)} is neither a duration (24h) nor an ISO time`,
    );
  }
  return date;
}

export function parseReplayArgs(argv: readonly string[], now: Date): ParsedReplay {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        local: { type: 'boolean', default: false },
        'local-dir': { type: 'string' },
        bucket: { type: 'string' },
        'queue-url': { type: 'string' },
        profile: { type: 'string' },
        kind: { type: 'string', multiple: true },
        since: { type: 'string' },
        until: { type: 'string' },
        reason: { type: 'string' },
        limit: { type: 'string' },
        'raw-stream': { type: 'string' },
        'events-stream': { type: 'string' },
        rate: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
        'delete-after': { type: 'boolean', default: false },
        endpoint: { type: 'string' },
        region: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new UsageError(`replay: ${message.replace(/^TypeError \[[A-Z_]+\]: /, '')}`);
  }
  if (values.help) return { command: 'replay-help' };
  const named = (values.kind ?? []).flatMap((k) => k.split(',')).map((k) => k.trim());
  const eventsWindow = named.includes(EVENTS_WINDOW_KIND);
  const kinds = named.filter((k) => k !== EVENTS_WINDOW_KIND);
  for (const kind of kinds) {
    if (!(KEPT_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(
        `replay: --kind ${JSON.stringify(kind)} is not one of ${[...KEPT_KINDS, EVENTS_WINDOW_KIND].join(', ')}`,
      );
    }
  }
  if (values['local-dir'] !== undefined && !values.local) {
    throw new UsageError('replay: --local-dir needs --local');
  }
  if (values.endpoint !== undefined && !/^https?:\/\/[^\s]+$/.test(values.endpoint)) {
    throw new UsageError(`replay: --endpoint ${JSON.stringify(values.endpoint)} is not an http(s) URL`);
  }
  let limit: number | undefined;
  if (values.limit !== undefined) {
    limit = Number(values.limit);
    if (!/^\d+$/.test(values.limit) || !Number.isSafeInteger(limit) || limit < 1) {
      throw new UsageError(`replay: --limit ${JSON.stringify(values.limit)} is not a whole number >= 1`);
    }
  }
  const since = values.since === undefined ? undefined : parseTime(values.since, '--since', now);
  const until = values.until === undefined ? undefined : parseTime(values.until, '--until', now);
  if (since !== undefined && until !== undefined && since > until) {
    throw new UsageError('replay: --since is after --until');
  }
  if (eventsWindow) checkEventsWindow(values, kinds, since, now);
  const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
    (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
  return {
    command: 'replay',
    ...optional('localDir', values.local ? (values['local-dir'] ?? '.kfek/local') : undefined),
    ...optional('bucket', values.bucket),
    ...optional('queueUrl', values['queue-url']),
    ...optional('profile', values.profile),
    kinds: kinds.length === 0 ? KEPT_KINDS : [...new Set(kinds as KeptKind[])],
    eventsWindow,
    ...optional('since', since),
    ...optional('until', until),
    ...optional('reason', values.reason),
    ...optional('limit', limit),
    ...optional('rawStream', values['raw-stream']),
    ...optional('eventsStream', values['events-stream']),
    ...optional('ratePerSecond', values.rate === undefined ? undefined : parseRate(values.rate)),
    dryRun: values['dry-run'],
    deleteAfter: values['delete-after'],
    ...optional('endpoint', values.endpoint),
    ...optional('region', values.region),
    json: values.json,
  };
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
      `replay: --kind ${EVENTS_WINDOW_KIND} reads the events stream itself and is run alone, not with ` +
        `${otherKinds.join(', ')}: run two replays`,
    );
  }
  const kept = ['local', 'local-dir', 'bucket', 'queue-url', 'reason', 'raw-stream', 'delete-after'].filter(
    (option) => values[option] !== undefined && values[option] !== false,
  );
  if (kept.length > 0) {
    throw new UsageError(
      `replay: ${kept.map((o) => `--${o}`).join(', ')} ${kept.length === 1 ? 'does' : 'do'} not apply to ` +
        `--kind ${EVENTS_WINDOW_KIND}, which reads the events stream (--events-stream or --profile)`,
    );
  }
  if (since === undefined) {
    throw new UsageError(
      `replay: --kind ${EVENTS_WINDOW_KIND} needs --since: the time (ISO) or the duration before now (24h) from ` +
        'which to re-put, e.g. shortly before the old delivery stream stopped; a time before the retention starts ' +
        "at the stream's oldest record",
    );
  }
  if (since.getTime() >= now.getTime()) {
    throw new UsageError(`replay: --since ${since.toISOString()} is not in the past`);
  }
}
