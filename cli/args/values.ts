/** Parsers for single option values: each says which option was wrong, the bad value, and what it should be. */
import {
  type OpenSearchTarget,
  OpenSearchTargetError,
  resolveOpenSearchTarget,
  type TargetHints,
} from '../../core/opensearch/target';
import {
  isoTimeOrProblem,
  logGroupNameProblem,
  NOT_ISO,
  profileNameProblem,
  quote,
  streamNameProblem,
  timeProblem,
} from '../../core/contracts/value-rules';
import { UsageError } from '../errors';

export { quote };

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/;
const UNIT_MILLIS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * The longest wait a Node.js timer takes, 2^31 - 1 ms (about 24.8 days): a longer one fires at once
 * (https://nodejs.org/api/timers.html#settimeoutcallback-delay-args), so a wait past it would not be a wait at all.
 */
export const MAX_WAIT_MILLIS = 2 ** 31 - 1;

/** `90`, `90s`, `15m`, `1h`, `2d`, `500ms` to milliseconds; a bare number is in `bareUnit`. */
export function parseDuration(text: string, option: string, bareUnit: 's' | 'ms' = 's'): number {
  const m = DURATION.exec(text.trim());
  const millis = m === null ? Number.NaN : Math.round(Number(m[1]) * UNIT_MILLIS[m[2] ?? bareUnit]);
  // Digits enough to overflow a number are no duration either.
  if (!Number.isSafeInteger(millis))
    throw new UsageError(`${option} ${quote(text)} is not a duration such as 30s, 15m or 1h`);
  return millis;
}

/**
 * A timeout or an interval: a duration something waits, so at most {@link MAX_WAIT_MILLIS}; with `positive`, also
 * longer than 0.
 */
export function parseWait(text: string, option: string, { positive }: { positive: boolean }): number {
  const millis = parseDuration(text, option);
  if (millis > MAX_WAIT_MILLIS) {
    throw new UsageError(`${option} ${quote(text)} is longer than 24 days, the longest wait kfek can time`);
  }
  if (positive && millis <= 0) throw new UsageError(`${option} ${quote(text)} must be longer than 0`);
  return millis;
}

/** `50`, `50/s`, `3000/m` to events per second. */
export function parseRate(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(?:\/(s|m))?$/.exec(text.trim());
  const value = m === null ? Number.NaN : Number(m[1]) / (m[2] === 'm' ? 60 : 1);
  if (!(value > 0) || !Number.isFinite(value)) {
    throw new UsageError(`--rate ${quote(text)} is not a rate such as 50, 50/s or 3000/m`);
  }
  // Pacing waits 1/rate seconds between two events at the most.
  if (1000 / value > MAX_WAIT_MILLIS) {
    throw new UsageError(
      `--rate ${quote(text)} is slower than one per 24 days, the longest wait kfek can time`,
    );
  }
  return value;
}

/** A whole number of at least `min`, e.g. `--count`. */
export function parseCount(text: string, option: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${option} ${quote(text)} must be a whole number >= ${min}`);
  }
  return value;
}

/** An http(s) URL of a server (no query, no fragment; user:password %-escaped right), returned as given. */
export function parseUrl(text: string, option: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  const problem =
    url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')
      ? 'is not an http(s) URL'
      : url.search !== '' || url.hash !== ''
        ? 'has a query or a fragment: give the server URL only'
        : !isDecodable(url.username) || !isDecodable(url.password)
          ? 'has a user name or password with a broken %-escape (write % as %25)'
          : undefined;
  if (problem !== undefined) throw new UsageError(`${option} ${quote(text)} ${problem}`);
  return text;
}

function isDecodable(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** An AWS region name: `us-east-1`, `eu-central-2`, `us-gov-west-1`, `cn-north-1`. */
export function parseRegion(text: string, option: string): string {
  if (!/^[a-z]{2,4}(?:-[a-z]+)+-\d{1,2}$/.test(text)) {
    throw new UsageError(`${option} ${quote(text)} is not an AWS region such as us-east-1`);
  }
  return text;
}

/** A profile name of cdk.json (letters, digits and dashes), for `command`'s --profile. */
export function parseProfileName(text: string, command: string): string {
  return checked(text, `${command}: --profile`, profileNameProblem);
}

/** A free-form name (a field, a saved query, a folder): anything but blank, at most `maxLength` characters. */
export function parseName(text: string, option: string, maxLength = 512): string {
  if (text.trim() === '') throw new UsageError(`${option} is blank`);
  if (text.length > maxLength) {
    throw new UsageError(`${option} is ${text.length} characters long; at most ${maxLength} are allowed`);
  }
  return text;
}

/** A CloudWatch Logs log group name (see {@link logGroupNameProblem}). */
export function parseLogGroupName(text: string, option: string): string {
  return checked(text, option, logGroupNameProblem);
}

/** A log stream name: 1-512 characters, none of them `:` or `*` (API_CreateLogStream.html). */
export function parseLogStreamName(text: string, option: string): string {
  if (!/^[^:*]{1,512}$/.test(text) || text.trim() === '') {
    throw new UsageError(
      `${option} ${quote(text)} is not a log stream name (1-512 characters, not blank, no : or *)`,
    );
  }
  return text;
}

/** Region of an Amazon OpenSearch Service endpoint (`search-x-abc.eu-west-1.es.amazonaws.com`). */
export function regionFromHost(host: string): string | undefined {
  return /\.([a-z]{2}(?:-[a-z]+)+-\d)\.(?:es|aoss)\.amazonaws\.com(?:\.cn)?$/.exec(host)?.[1];
}

/** `24h`, `90m`, `30s`, `2d`, `500ms`: a duration before now. */
const DURATION_BEFORE_NOW = /^\d+(\.\d+)?(ms|s|m|h|d)$/;

const NEITHER = 'is neither a duration (24h) nor an ISO time (2026-11-23T08:00:00Z)';

/** `24h` (before now) or an ISO-8601 time, from 1970 to 9999 (see {@link timeProblem}). */
export function parseTimeBeforeNow(text: string, option: string, now: Date): Date {
  const trimmed = text.trim();
  let date: Date | string;
  if (DURATION_BEFORE_NOW.test(trimmed)) {
    let millis: number;
    try {
      millis = parseDuration(trimmed, option);
    } catch {
      millis = Number.NaN; // digits enough to overflow a number
    }
    date = new Date(now.getTime() - millis);
    date = timeProblem(date.getTime()) ?? date;
  } else {
    // What is no ISO time is said as for any other text: it may have been meant as a duration.
    date = isoTimeOrProblem(trimmed);
    if (date === NOT_ISO) date = NEITHER;
  }
  if (typeof date === 'string') throw new UsageError(`${option} ${quote(text)} ${date}`);
  return date;
}

/** A Kinesis stream's name or ARN (see {@link streamNameProblem}). */
export function parseStreamName(text: string, option: string): string {
  return checked(text, option, streamNameProblem);
}

/** `text` when `problemOf` finds nothing wrong with it, else the usage error naming `option` and the value. */
function checked(text: string, option: string, problemOf: (text: string) => string | undefined): string {
  const problem = problemOf(text);
  if (problem !== undefined) throw new UsageError(`${option} ${quote(text)} ${problem}`);
  return text;
}

/** What UsageError adds to every message; a command's wrapper below would add it again. */
const USAGE_HINT = / \(run `kfek help` for usage\)$/;

/**
 * Runs `parse` so that its usage errors start `<command>:` (replay's and backfill's messages all do; one that
 * already starts so is passed on as it is).
 */
export function forCommand<T>(command: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof UsageError) || error.message.startsWith(`${command}: `)) throw error;
    throw new UsageError(`${command}: ${error.message.replace(USAGE_HINT, '')}`);
  }
}

/**
 * `{ [key]: parse(text) }` for an option that was given, `{}` for one that was not: how a parser spreads its optional
 * values into typed arguments (which leave out what is unset rather than hold `undefined`).
 */
export function optional<K extends string, V>(
  key: K,
  text: string | undefined,
  parse: (text: string) => V,
): { [P in K]?: V } {
  return (text === undefined ? {} : { [key]: parse(text) }) as { [P in K]?: V };
}

/**
 * An S3 bucket name (S3's rules, with the legacy ones: 3 to 255 of letters, digits, `.`, `_`, `-`), so `s3://b/prefix`
 * or a path fails here with what to give instead.
 */
export function parseBucketName(command: string, text: string): string {
  if (!/^[A-Za-z0-9._-]{3,255}$/.test(text)) {
    throw new UsageError(
      `${command}: --bucket ${quote(text)} is not a bucket name: give the name alone, without s3:// or a prefix`,
    );
  }
  return text;
}

/**
 * What the tool's hints say it talks to (core/opensearch/target.ts): a refusal (a wrong `--service`) is a usage
 * error of `command`.
 */
export function openSearchTargetOf(command: string, hints: TargetHints): OpenSearchTarget {
  try {
    return resolveOpenSearchTarget(hints);
  } catch (error) {
    if (error instanceof OpenSearchTargetError) throw new UsageError(`${command}: ${error.message}`);
    throw error;
  }
}
