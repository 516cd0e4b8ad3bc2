/**
 * `kfek replay`'s option values: each parser takes the text as typed and returns the value, or throws a
 * {@link UsageError} that starts `replay:`, names the option and the bad value, and says what it should be. The
 * checks every command shares come from cli/args/values.ts; what is replay's own is here. Pure (the clock is
 * passed in).
 */
import { parseDuration } from '../args';
import { parseCount, parseProfileName, parseRate, parseRegion, parseUrl, quote } from '../args/values';
import { UsageError } from '../errors';

/** What UsageError adds to every message; replay's wrapper adds it again. */
const USAGE_HINT = / \(run `kfek help` for usage\)$/;

/** A shared value parser, its message starting `replay:` as replay's other messages do. */
function asReplay<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError(`replay: ${error.message.replace(USAGE_HINT, '')}`);
  }
}

/** `24h`, `90m`, `30s`, `2d`, `500ms`: a duration before now. */
const DURATION_BEFORE_NOW = /^\d+(\.\d+)?(ms|s|m|h|d)$/;
/** ISO 8601 as `Date` reads it: a date, optionally a time, optionally a zone (`Z` or `+01:00`). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/** `24h` (before now) or an ISO-8601 time; never a date `Date` would guess from other text (`5` is May 2001). */
export function parseTime(text: string, option: string, now: Date): Date {
  const trimmed = text.trim();
  let date: Date;
  if (DURATION_BEFORE_NOW.test(trimmed)) {
    let millis: number;
    try {
      millis = parseDuration(trimmed, option);
    } catch {
      millis = Number.NaN; // digits enough to overflow a number
    }
    date = new Date(now.getTime() - millis);
  } else if (ISO_TIME.test(trimmed) && dayExists(trimmed)) {
    date = new Date(trimmed);
  } else {
    throw new UsageError(
      `replay: ${option} ${quote(text)} is neither a duration (24h) nor an ISO time (2026-11-23T08:00:00Z)`,
    );
  }
  // `Date` holds 100,000,000 days either side of 1970; past that it is no time at all.
  if (!Number.isFinite(date.getTime())) {
    throw new UsageError(`replay: ${option} ${quote(text)} is not a time a date can hold`);
  }
  return date;
}

/** `Date` reads 2026-02-31 as March 3rd: a day the month does not have is refused instead. */
function dayExists(iso: string): boolean {
  const [year, month, day] = iso.slice(0, 10).split('-').map(Number);
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export const parseLimit = (text: string): number => asReplay(() => parseCount(text, '--limit', 1));
/** Records per second; at least one per 24 days (a timer waits no longer). */
export const parseReplayRate = (text: string): number => asReplay(() => parseRate(text));
/** `--endpoint` and `--queue-url`: an http(s) URL without a query or fragment. */
export const parseHttpUrl = (text: string, option: string): string => asReplay(() => parseUrl(text, option));
export const parseReplayRegion = (text: string): string => asReplay(() => parseRegion(text, '--region'));
export const parseProfile = (text: string): string => parseProfileName(text, 'replay');

/**
 * A bucket name (S3's rules, with the legacy ones: up to 255 of letters, digits, `.`, `_`, `-`), so `s3://b/prefix`
 * or a path fails here with what to give instead.
 */
export function parseBucket(text: string): string {
  if (!/^[A-Za-z0-9._-]{3,255}$/.test(text)) {
    throw new UsageError(
      `replay: --bucket ${quote(text)} is not a bucket name: give the name alone, without s3:// or a prefix`,
    );
  }
  return text;
}

/** A Kinesis stream's name (1 to 128 of letters, digits, `_`, `.`, `-`) or ARN. */
export function parseStream(text: string, option: string): string {
  const name = /^[a-zA-Z0-9_.-]{1,128}$/;
  const arn = /^arn:aws[a-z-]*:kinesis:[a-z0-9-]+:\d{12}:stream\/[a-zA-Z0-9_.-]{1,128}$/;
  if (!name.test(text) && !arn.test(text)) {
    throw new UsageError(`replay: ${option} ${quote(text)} is neither a Kinesis stream name nor its ARN`);
  }
  return text;
}
