/**
 * What kfek takes as a time, a log group, a Kinesis stream or a profile name, wherever the value comes from: the
 * command line (cli/args/values.ts turns a problem into the usage error) or a file kfek wrote and reads back (a
 * backfill checkpoint, core/backfill/checkpoint-read.ts). Each rule says why a value is not one, in words a message
 * continues after the value, or undefined when it is one.
 */

/** A value as a message shows it: quoted, and cut short when long (a pasted blob should not fill the screen). */
export function quote(text: string): string {
  return text.length <= 64
    ? JSON.stringify(text)
    : `${JSON.stringify(text.slice(0, 48))}... (${text.length} characters)`;
}

/** ISO 8601 as `Date` reads it: a date, optionally a time, optionally a zone (`Z` or `+01:00`). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * The times kfek reads, 1970-01-01 to the end of 9999: CloudWatch Logs and Kinesis count milliseconds since 1970 (an
 * earlier one is a negative startTime they refuse), and ISO 8601's four-digit year, which every message writes a
 * time in, ends with 9999 (JavaScript's `Date` goes on to 275760, where toISOString() writes `+275760-...`).
 */
export const EARLIEST_TIME_MILLIS = 0;
export const LATEST_TIME_MILLIS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** Why `millis` is no time kfek reads, or undefined when it is one: a whole number of ms in the range above. */
export function timeProblem(millis: number): string | undefined {
  if (!Number.isFinite(millis)) return 'is not a time a date can hold';
  if (!Number.isInteger(millis)) return 'is not a whole number of milliseconds';
  if (millis < EARLIEST_TIME_MILLIS) return 'is before 1970-01-01T00:00:00Z, the earliest time kfek reads';
  if (millis > LATEST_TIME_MILLIS) return 'is after 9999-12-31T23:59:59.999Z, the latest time kfek reads';
  return undefined;
}

export const NOT_ISO = 'is not an ISO time (2026-11-23T08:00:00Z)';

/**
 * An absolute ISO-8601 time (`2026-11-23T08:00:00Z`) in kfek's range, or why it is none; never a date `Date` would
 * guess from other text (`5` is May 2001, `2026-02-31` March 3rd).
 */
export function isoTimeOrProblem(text: string): Date | string {
  const trimmed = text.trim();
  const date = ISO_TIME.test(trimmed) && dayExists(trimmed) ? new Date(trimmed) : undefined;
  // 25:00 or a zone of +99:99 pass the pattern and make no date.
  if (date === undefined || Number.isNaN(date.getTime())) return NOT_ISO;
  return timeProblem(date.getTime()) ?? date;
}

/** `Date` reads 2026-02-31 as March 3rd: a day the month does not have is refused instead. */
function dayExists(iso: string): boolean {
  const [year, month, day] = iso.slice(0, 10).split('-').map(Number);
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * A CloudWatch Logs log group name: 1-512 letters, digits and `. - _ / #`
 * (https://docs.aws.amazon.com/AmazonCloudWatchLogs/latest/APIReference/API_CreateLogGroup.html).
 */
export function logGroupNameProblem(text: string): string | undefined {
  return /^[.\-_/#A-Za-z0-9]{1,512}$/.test(text)
    ? undefined
    : 'is not a log group name (1-512 letters, digits and . - _ / #)';
}

/** A Kinesis stream's name (1 to 128 of letters, digits, `_`, `.`, `-`) or ARN. */
export function streamNameProblem(text: string): string | undefined {
  const name = /^[a-zA-Z0-9_.-]{1,128}$/;
  const arn = /^arn:aws[a-z-]*:kinesis:[a-z0-9-]+:\d{12}:stream\/[a-zA-Z0-9_.-]{1,128}$/;
  return name.test(text) || arn.test(text) ? undefined : 'is neither a Kinesis stream name nor its ARN';
}

/** A profile name of cdk.json: letters, digits and dashes. */
export function profileNameProblem(text: string): string | undefined {
  return /^[a-z0-9][a-z0-9-]*$/i.test(text) ? undefined : 'is not a profile name of cdk.json';
}
