/**
 * Masking for a route (issue 24, docs/teams-and-routes.md "Masking"): personal data and secrets in an event's text
 * are replaced by a marker that says what was there, `[masked:email]`, before anything else reads the event, so the
 * original never reaches a document, an error document or a log line. Only the app's text is masked: kfek's own
 * fields (`cloudwatch.*`, ids, timestamps) come from the envelope, not from the text.
 *
 * A JSON object message is masked value by value: every string value is decoded, masked and written back as JSON,
 * keys are never touched, so the message still parses to the same structure. Any other message is masked as text.
 *
 * Each detector has a cheap check on the whole text first (an `@` for e-mail, a run of digits for card numbers,
 * `eyJ` for JWTs...), so a line with nothing to mask costs a few string searches. Every pattern is bounded (no
 * unbounded repetition next to another), so no input makes a detector backtrack for long. Pure: no SDK, no I/O.
 */
import { isIPv6 } from 'node:net';
import { stringEnd } from './app-json';
import { compileRoutePattern, type MaskDetector, type MaskSettings } from '../../core/contracts/routes';

/** The marker that replaces a masked value. */
export function maskMarker(name: string): string {
  return `[masked:${name}]`;
}

/** One way of finding values to mask. */
interface Detector {
  readonly name: string;
  /** The {@link features} bit a text needs for this detector to find anything in it; 0: always look. */
  readonly feature: number;
  /** The text with every match masked; `count` is told how many. */
  mask(text: string, count: (n: number) => void): string;
}

/** A detector that replaces every match of `pattern` for which `accept` (default: every match) says yes. */
function patternDetector(
  name: string,
  pattern: RegExp,
  feature: number,
  accept?: (match: string) => boolean,
): Detector {
  const marker = maskMarker(name);
  return {
    name,
    feature,
    mask(text, count) {
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

/** The Luhn checksum over the digits of `text` (separators ignored). */
export function luhnValid(text: string): boolean {
  let sum = 0;
  let digits = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const c = text.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) continue;
    const doubled = digits % 2 === 1 ? c * 2 : c;
    sum += doubled > 9 ? doubled - 9 : doubled;
    digits++;
  }
  return digits >= 13 && digits <= 19 && sum % 10 === 0;
}

const F_AT = 1;
const F_CARD_DIGITS = 2;
const F_BASE64_RUN = 4;
const F_EYJ = 8;
const F_DOTTED = 16;
const F_COLONS = 32;
const F_KEY_ID_RUN = 64;

/**
 * What a text has that a detector needs, as bits, in one pass over it: an `@` (e-mail); 13 digits with single
 * spaces or dashes between them (card numbers); 40 characters of the base64 alphabet in a row (secret keys, named
 * or not); `eyJ` (JWTs); three dots among digits (IPv4); `::` or seven colons among hex digits (IPv6); 20 upper-case
 * letters and digits in a row (access key ids). One loop instead of a search per detector: these checks run on
 * every event of a masking route, and most events have none of these.
 */
export function features(text: string): number {
  let f = 0;
  let digits = 0;
  let separatorAllowed = false;
  let base64 = 0;
  let upper = 0;
  let dots = 0;
  let colons = 0;
  let lastColon = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const digit = c >= 0x30 && c <= 0x39;
    const upperCase = c >= 0x41 && c <= 0x5a;
    const lowerCase = c >= 0x61 && c <= 0x7a;
    if (digit) {
      if (++digits >= 13) f |= F_CARD_DIGITS;
      separatorAllowed = true;
    } else if ((c === 0x20 || c === 0x2d) && separatorAllowed) {
      separatorAllowed = false;
    } else {
      digits = 0;
      separatorAllowed = false;
    }
    if (digit || upperCase || lowerCase || c === 0x2f || c === 0x2b) {
      if (++base64 >= 40) f |= F_BASE64_RUN;
    } else {
      base64 = 0;
    }
    if (digit || upperCase) {
      if (++upper >= 20) f |= F_KEY_ID_RUN;
    } else {
      upper = 0;
    }
    if (c === 0x2e) {
      if (++dots >= 3) f |= F_DOTTED;
    } else if (!digit) {
      dots = 0;
    }
    if (c === 0x3a) {
      if (lastColon || ++colons >= 7) f |= F_COLONS;
      lastColon = true;
    } else {
      lastColon = false;
      if (!digit && !((c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46))) colons = 0;
    }
    if (c === 0x40) f |= F_AT;
    else if (c === 0x4a && i >= 2 && text.charCodeAt(i - 1) === 0x79 && text.charCodeAt(i - 2) === 0x65)
      f |= F_EYJ;
  }
  return f;
}

const EMAIL = /[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,24}(?![A-Za-z0-9-])/g;
/** 13 to 19 digits, single spaces or dashes between them; checked with Luhn. */
const CARD = /(?<![0-9])[0-9](?:[ -]?[0-9]){12,18}(?![0-9])/g;
/** The prefixes AWS gives access key ids (and other unique ids of the same shape). */
const ACCESS_KEY_ID =
  /(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA|APKA)[A-Z0-9]{16}(?![A-Z0-9])/g;
/** A secret access key named as one: `aws_secret_access_key = ...`, `"SecretAccessKey": "..."`. */
const NAMED_SECRET =
  /((?:aws_?)?secret_?access_?key["']?\s{0,4}[:=]\s{0,4}["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi;
/** Forty characters of the base64 alphabet standing alone, with upper, lower, digit and `/` or `+` (see below). */
const BARE_SECRET = /(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/g;
const JWT = /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,8192}\.[A-Za-z0-9_-]{2,65536}\.[A-Za-z0-9_-]{0,8192}/g;
const IPV4 =
  /(?<![0-9.])(?:(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(?![0-9]|\.[0-9])/g;
/** Candidates for IPv6 addresses; each is checked with node:net `isIPv6`. */
const IPV6 = /(?<![0-9A-Fa-f:])[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?![0-9A-Fa-f:])/g;

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

const BUILT_IN: Readonly<Record<MaskDetector, () => Detector>> = {
  email: () => patternDetector('email', EMAIL, F_AT),
  creditCard: () => patternDetector('creditCard', CARD, F_CARD_DIGITS, luhnValid),
  awsAccessKeyId: () => patternDetector('awsAccessKeyId', ACCESS_KEY_ID, F_KEY_ID_RUN),
  awsSecretKey: () => {
    const marker = maskMarker('awsSecretKey');
    return {
      name: 'awsSecretKey',
      // A secret key, named or bare, is 40 characters of the base64 alphabet in a row.
      feature: F_BASE64_RUN,
      mask(text, count) {
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
  },
  jwt: () => patternDetector('jwt', JWT, F_EYJ),
  ipv4: () => patternDetector('ipv4', IPV4, F_DOTTED),
  ipv6: () => patternDetector('ipv6', IPV6, F_COLONS, (m) => isIPv6(m)),
};

/** Counts of masked values, by detector name; the caller reads and resets them per batch. */
export type MaskCounts = Record<string, number>;

/** A route's masking, compiled once per container. */
export class Masker {
  private readonly detectors: readonly Detector[];
  /** Some detector (a custom pattern) has no cheap check. */
  private readonly alwaysLook: boolean;
  private readonly featureMask: number;
  /** What this masker masked since the last `takeCounts`. */
  private counts: MaskCounts = {};

  public constructor(settings: MaskSettings) {
    const builtIn = settings.detectors.map((d) => BUILT_IN[d]());
    const custom = settings.custom.map((c) =>
      patternDetector(c.name, compileRoutePattern(c.pattern, 'g'), 0),
    );
    // Built-in detectors first: a custom pattern then sees their markers, not the values.
    this.detectors = [...builtIn, ...custom];
    this.alwaysLook = this.detectors.some((d) => d.feature === 0);
    this.featureMask = this.detectors.reduce((bits, d) => bits | d.feature, 0);
  }

  /** The text with every detected value replaced by its marker; undefined when nothing was masked. */
  public mask(text: string, found: number = features(text)): string | undefined {
    let out = text;
    for (const detector of this.detectors) {
      // A marker adds no feature, so what the original text lacks the masked one lacks too.
      if (detector.feature !== 0 && (found & detector.feature) === 0) continue;
      out = detector.mask(out, (n) => {
        this.counts[detector.name] = (this.counts[detector.name] ?? 0) + n;
      });
    }
    return out === text ? undefined : out;
  }

  /** True when some detector may find something in `text` (the cheap checks only). */
  public mayMatch(text: string): boolean {
    if (this.alwaysLook) return true;
    return (features(text) & this.featureMask) !== 0;
  }

  /** The masked text as {@link mask} gives it, when some detector may find something; else undefined at once. */
  public maskIfLikely(text: string): string | undefined {
    const found = features(text);
    if (!this.alwaysLook && (found & this.featureMask) === 0) return undefined;
    return this.mask(text, found);
  }

  /** The counts since the last call, by detector; resets them. */
  public takeCounts(): MaskCounts {
    const counts = this.counts;
    this.counts = {};
    return counts;
  }
}

/**
 * An event's message with its values masked (module comment): a message that starts like a JSON object value by
 * value, any other as text. Undefined when nothing was masked. The caller parses the result; when a message that
 * starts like a JSON object turns out not to be one, it masks the original as text instead ({@link Masker.mask}),
 * so nothing outside a string escapes the detectors.
 */
export function maskMessage(message: string, masker: Masker): string | undefined {
  if (!looksLikeJsonObject(message)) return masker.maskIfLikely(message);
  return masker.mayMatch(message) ? maskJsonStrings(message, masker) : undefined;
}

/** True when the text's first non-blank character is `{` (what parsers/ tries as JSON). */
export function looksLikeJsonObject(text: string): boolean {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) <= 0x20) i++;
  return text.charCodeAt(i) === 0x7b;
}

/**
 * The JSON object text with every string value masked and written back with JSON.stringify;
 * keys, numbers and structure as they were (a number is not masked: a card number logged as a JSON number stays).
 * Undefined when nothing was masked. In JSON every `"` outside a string opens one, so the scan goes from string to
 * string; a string is a key when `:` follows it.
 */
export function maskJsonStrings(text: string, masker: Masker): string | undefined {
  let out = '';
  let copiedTo = 0;
  let i = text.indexOf('"');
  while (i >= 0) {
    const end = stringEnd(text, i);
    if (end < 0) break;
    let next = end + 1;
    while (next < text.length && text.charCodeAt(next) <= 0x20) next++;
    if (text.charCodeAt(next) !== 0x3a) {
      const token = text.slice(i, end + 1);
      const value = token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
      const masked = masker.mask(value);
      if (masked !== undefined) {
        out += text.slice(copiedTo, i) + JSON.stringify(masked);
        copiedTo = end + 1;
      }
    }
    i = text.indexOf('"', end + 1);
  }
  return copiedTo === 0 ? undefined : out + text.slice(copiedTo);
}
