/**
 * `kfek replay`'s option values: each parser takes the text as typed and returns the value, or throws a
 * {@link UsageError} that starts `replay:`, names the option and the bad value, and says what it should be. The
 * checks every command shares come from cli/args/values.ts; what is replay's own is here. Pure (the clock is
 * passed in).
 */
import {
  forCommand,
  parseCount,
  parseProfileName,
  parseRate,
  parseRegion,
  parseStreamName,
  parseUrl,
  quote,
} from '../args/values';
import { UsageError } from '../errors';

/** A shared value parser, its message starting `replay:` as replay's other messages do. */
const asReplay = <T>(parse: () => T): T => forCommand('replay', parse);

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

/** A Kinesis stream's name or ARN (cli/args/values.ts), its message starting `replay:`. */
export const parseStream = (text: string, option: string): string =>
  asReplay(() => parseStreamName(text, option));
