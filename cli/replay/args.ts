/**
 * `kfek replay`'s command line: its options are in the one table (cli/args/options.ts), which makes its help's
 * option list; replay reads them strictly (an option given twice, an empty value: see readOptions) and checks what
 * goes together here. Pure: argv and the clock in, typed options out.
 */
import { parseArgs } from 'node:util';
import { UsageError } from '../errors';
import { optionsHelp } from '../args/help';
import { REPLAY_OPTIONS, usageErrorOf } from '../args/options';
import { quote } from '../args/values';
import { parseTimeWindow } from '../args/time-window';
import {
  parseBucket,
  parseHttpUrl,
  parseLimit,
  parseProfile,
  parseReplayRate,
  parseReplayRegion,
  parseStream,
} from './arg-values';
import { EVENTS_WINDOW_KIND, KEPT_KINDS, type KeptKind } from '../../core/kept/model';

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
--kind events-window (alone, never in the default) runs \`kfek events-window\` (its own command now: kfek
events-window --help): it re-puts the events stream's own records that arrived from --since to --until, unchanged,
for a delivery stream created after them (a recreated Pipeline stack).
--local reads npm start's folders (.kfek/local/), and dead letters from --bucket (moto's) when given; --profile reads prefixes from cdk.json and finds the bucket,
streams and queue of the deployed stack kfek-<profile>-search. Nothing is deleted unless --delete-after is given.
Only the raw stream is read: an object naming another stream, a record Kinesis would refuse (partition key not 1 to
256 characters, data and key over 1 MiB) and an unreadable object are listed by key and kept; the exit code is then 1.

${optionsHelp(REPLAY_OPTIONS)}`;

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

type ReplayValues = ReturnType<typeof parseArgs<{ options: typeof REPLAY_OPTIONS; strict: true }>>['values'];

/**
 * `util.parseArgs` with replay's options, and replay's own one-line messages for what it refuses (Node's are
 * several lines and speak of positionals replay does not take). A value that starts with a single dash
 * (`--limit -1`) is the option's value, so the value's own check says what is wrong with it; an option followed
 * by another option (`--since --dry-run`) has no value. An option that takes one value is given once.
 */
function readOptions(argv: readonly string[]): ReplayValues {
  const args: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const [arg, next] = [argv[i], argv[i + 1]];
    const name = arg.startsWith('--') && !arg.includes('=') ? arg.slice(2) : undefined;
    const spec = name === undefined ? undefined : (REPLAY_OPTIONS as Record<string, { type: string }>)[name];
    if (spec?.type === 'string' && next !== undefined && /^-[^-]/.test(next) && next !== '-h') {
      args.push(`${arg}=${next}`);
      i += 1;
    } else {
      args.push(arg);
    }
  }
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: REPLAY_OPTIONS,
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
  } catch (error) {
    throw usageErrorOf('replay', error);
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens) {
    if (token.kind !== 'option') continue;
    if (token.value !== undefined && token.value.trim() === '') {
      throw new UsageError(`replay: --${token.name} needs a value (it is empty)`);
    }
    if (seen.has(token.name) && token.name !== 'kind') {
      throw new UsageError(`replay: --${token.name} is given more than once`);
    }
    seen.add(token.name);
  }
  return parsed.values;
}

export function parseReplayArgs(argv: readonly string[], now: Date): ParsedReplay {
  const values = readOptions(argv);
  if (values.help) return { command: 'replay-help' };
  const named = (values.kind ?? []).flatMap((k) => k.split(',')).map((k) => k.trim());
  const eventsWindow = named.includes(EVENTS_WINDOW_KIND);
  const kinds = named.filter((k) => k !== EVENTS_WINDOW_KIND);
  for (const kind of kinds) {
    if (!(KEPT_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(
        `replay: --kind ${quote(kind)} is not one of ${[...KEPT_KINDS, EVENTS_WINDOW_KIND].join(', ')}`,
      );
    }
  }
  if (values['local-dir'] !== undefined && !values.local) {
    throw new UsageError('replay: --local-dir needs --local');
  }
  const endpoint = values.endpoint === undefined ? undefined : parseHttpUrl(values.endpoint, '--endpoint');
  const queueUrl =
    values['queue-url'] === undefined ? undefined : parseHttpUrl(values['queue-url'], '--queue-url');
  const region = values.region === undefined ? undefined : parseReplayRegion(values.region);
  const limit = values.limit === undefined ? undefined : parseLimit(values.limit);
  const { since, until } = parseTimeWindow('replay', { since: values.since, until: values.until }, now);
  if (eventsWindow) checkEventsWindow(values, kinds, since, now);
  const stream = (option: 'raw-stream' | 'events-stream'): string | undefined =>
    values[option] === undefined ? undefined : parseStream(values[option], `--${option}`);
  const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } =>
    (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
  return {
    command: 'replay',
    ...optional('localDir', values.local ? (values['local-dir'] ?? '.kfek/local') : undefined),
    ...optional('bucket', values.bucket === undefined ? undefined : parseBucket(values.bucket)),
    ...optional('queueUrl', queueUrl),
    ...optional('profile', values.profile === undefined ? undefined : parseProfile(values.profile)),
    kinds: kinds.length === 0 ? KEPT_KINDS : [...new Set(kinds as KeptKind[])],
    eventsWindow,
    ...optional('since', since),
    ...optional('until', until),
    ...optional('reason', values.reason),
    ...optional('limit', limit),
    ...optional('rawStream', stream('raw-stream')),
    ...optional('eventsStream', stream('events-stream')),
    ...optional('ratePerSecond', values.rate === undefined ? undefined : parseReplayRate(values.rate)),
    dryRun: values['dry-run'],
    deleteAfter: values['delete-after'],
    ...optional('endpoint', endpoint),
    ...optional('region', region),
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
