/**
 * The built-in masking detectors (docs/teams-and-routes.md "Masking"). masking.ts runs them; this file only knows
 * what a secret looks like.
 *
 * Every detector is bounded: each regular expression here can only match a bounded number of characters from a
 * start position (no unbounded repetition), so a line costs time linear in its length whatever it holds
 * (bench/processing.bench.ts measures the worst lines we could construct). A token may follow a URL-encoded separator
 * (`Bearer%20eyJ...`, `key%3DAKIA...`): every left boundary accepts `%XX` as well as a separator character.
 * Pure: no SDK, no I/O.
 *
 * Each detector needs a bit of the one-pass pre-check (mask-features.ts `features`), which is only sound while every
 * detector's bit says exactly what that detector needs: a change to a detector here is a change to its bit there.
 * The card number detector is a scan of its own (mask-card.ts).
 */
import { isIPv6 } from 'node:net';
import { cardDetector, isDigitCode } from './mask-card';
import { type Detector, F_AT, F_BASE64_RUN, F_COLONS, F_DOTTED, F_EYJ, F_KEY_ID_RUN } from './mask-features';

export { luhnValid } from './mask-card';
export { type Detector, escapedChar, F_INVISIBLE, features } from './mask-features';

/** A left boundary: the start, a character of none of `chars`, or a URL-encoded separator (`%20`). */
function boundary(chars: string): string {
  return `(?:(?<=%[0-9A-Fa-f]{2})|(?<![${chars}]))`;
}

const EMAIL = /[A-Za-z0-9._%+-]{1,64}(?:@|%40)(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])/g;
/** The prefixes AWS gives access key ids (and other unique ids of the same shape). */
const ACCESS_KEY_ID = new RegExp(
  `${boundary('A-Z0-9')}(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA|APKA)[A-Z0-9]{16}(?![A-Z0-9])`,
  'g',
);
/** A name a secret access key goes by: `aws_secret_access_key`, `SecretAccessKey`, `secret-key`, `AWS_SECRET_KEY`. */
const SECRET_NAME = '(?:aws[_-]?)?secret[_-]?(?:access[_-]?)?key';
/** A secret access key named in text: `aws_secret_access_key = ...`, `"SecretAccessKey": "..."`, `secret_key%3D...`. */
const NAMED_SECRET = new RegExp(
  `(${SECRET_NAME}["']?\\s{0,4}(?:[:=]|%3[AaDd])\\s{0,4}["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
  'gi',
);
/** A JSON member name that names a secret access key (the whole name, any case). */
const SECRET_KEY_NAME = new RegExp(`^${SECRET_NAME}$`, 'i');
/** Forty characters of the base64 alphabet standing alone, with upper, lower, digit and `/` or `+` (see below). */
const BARE_SECRET = new RegExp(`${boundary('A-Za-z0-9/+=')}[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])`, 'g');
/** A value that is a secret access key when its name says so. */
const SECRET_VALUE = /^\s{0,4}[A-Za-z0-9/+]{40}\s{0,4}$/;
const JWT = new RegExp(
  `${boundary('A-Za-z0-9_-')}eyJ[A-Za-z0-9_-]{4,8192}\\.[A-Za-z0-9_-]{2,65536}\\.[A-Za-z0-9_-]{0,8192}`,
  'g',
);
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = new RegExp(`${boundary('0-9.')}(?:${OCTET}\\.){3}${OCTET}(?![0-9]|\\.[0-9])`, 'g');
/**
 * Candidates for IPv6 addresses, each checked with node:net `isIPv6`. Not next to a letter, digit, `_` or colon, so
 * the `::` of a namespace (`Foo::Bar`, `std::vector`) is no candidate.
 */
const IPV6 = new RegExp(
  `${boundary('0-9A-Za-z_:')}[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![0-9A-Za-z_:])`,
  'g',
);

/** A detector that replaces every match of `pattern` for which `accept` (default: every match) says yes. */
function patternDetector(
  name: string,
  pattern: RegExp,
  feature: number,
  accept?: (match: string) => boolean,
): Detector {
  return {
    name,
    feature,
    mask(text, marker, count) {
      let n = 0;
      const out = text.replace(pattern, (match: string) => {
        if (accept !== undefined && !accept(match)) return match;
        n++;
        return marker;
      });
      if (n > 0) count(n);
      return out;
    },
  };
}

function bareSecretLike(match: string): boolean {
  let upper = false;
  let lower = false;
  let digit = false;
  let symbol = false;
  for (let i = 0; i < match.length; i++) {
    const c = match.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) upper = true;
    else if (c >= 0x61 && c <= 0x7a) lower = true;
    else if (c >= 0x30 && c <= 0x39) digit = true;
    else symbol = true;
  }
  return upper && lower && digit && symbol;
}

/**
 * A secret access key: named in the text (`aws_secret_access_key = ...`), the value of a JSON member whose name
 * names one (`{"SecretAccessKey": "..."}` at any depth, whatever characters the key has), or 40 base64 characters
 * standing alone with upper case, lower case, digits and `/` or `+` (a bare key without `/` or `+` is too like any
 * other 40-character id to mask by its look alone).
 */
function secretKeyDetector(): Detector {
  return {
    name: 'awsSecretKey',
    // A secret key, named or bare, is 40 characters of the base64 alphabet in a row.
    feature: F_BASE64_RUN,
    mask(text, marker, count, key) {
      if (key !== undefined && SECRET_KEY_NAME.test(key) && SECRET_VALUE.test(text)) {
        count(1);
        return marker;
      }
      let n = 0;
      let out = text.replace(NAMED_SECRET, (_m: string, name: string) => {
        n++;
        return `${name}${marker}`;
      });
      out = out.replace(BARE_SECRET, (match: string) => {
        if (!bareSecretLike(match)) return match;
        n++;
        return marker;
      });
      if (n > 0) count(n);
      return out;
    },
  };
}

function hasDigit(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (isDigitCode(text.charCodeAt(i))) return true;
  return false;
}

/**
 * An IPv6 candidate that is an address: `isIPv6`, and a digit or at least three groups, so that two hex-letter words
 * around `::` (`a::b`, `dead::beef`) stay text.
 */
function ipv6Like(match: string): boolean {
  if (!isIPv6(match)) return false;
  if (hasDigit(match)) return true;
  return match.split(':').filter((group) => group.length > 0).length >= 3;
}

/** The built-in detectors, by the name a profile lists them under. */
export const BUILT_IN_DETECTORS = {
  email: (): Detector => patternDetector('email', EMAIL, F_AT),
  creditCard: cardDetector,
  awsAccessKeyId: (): Detector => patternDetector('awsAccessKeyId', ACCESS_KEY_ID, F_KEY_ID_RUN),
  awsSecretKey: secretKeyDetector,
  jwt: (): Detector => patternDetector('jwt', JWT, F_EYJ),
  ipv4: (): Detector => patternDetector('ipv4', IPV4, F_DOTTED),
  ipv6: (): Detector => patternDetector('ipv6', IPV6, F_COLONS, ipv6Like),
} as const;
