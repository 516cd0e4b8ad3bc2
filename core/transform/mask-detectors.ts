/**
 * The built-in masking detectors (docs/teams-and-routes.md "Masking") and the one-pass pre-check that tells which of
 * them can find anything in a text. masking.ts runs them; this file only knows what a secret looks like.
 *
 * Every detector is bounded: each regular expression here can only match a bounded number of characters from a
 * start position (no unbounded repetition), so a line costs time linear in its length whatever it holds
 * (bench/processing.bench.ts measures the worst lines we could construct). A token may follow a URL-encoded separator
 * (`Bearer%20eyJ...`, `key%3DAKIA...`): every left boundary accepts `%XX` as well as a separator character.
 * Pure: no SDK, no I/O.
 *
 * Why one file of about 400 lines: each detector needs a bit of the one-pass pre-check (`features`), and the pre-check
 * is only sound while every detector's bit says exactly what that detector needs; kept side by side, a change to one
 * is seen beside the other.
 */
import { isIPv6 } from 'node:net';
import { INVISIBLE_BMP, invisibleAt } from './invisible';

/** One way of finding values to mask. */
export interface Detector {
  readonly name: string;
  /** The {@link features} bit a text needs for this detector to find anything in it; 0: always look. */
  readonly feature: number;
  /**
   * The text with every match masked by `marker`; `count` is told how many. `key` is the name of the JSON member
   * the text is the value of (at any depth), when it is one: a secret can be named by its key.
   */
  mask(text: string, marker: string, count: (n: number) => void, key?: string): string;
}

export const F_AT = 1;
export const F_CARD_DIGITS = 2;
export const F_BASE64_RUN = 4;
export const F_EYJ = 8;
export const F_DOTTED = 16;
export const F_COLONS = 32;
export const F_KEY_ID_RUN = 64;
/** An invisible format character (invisible.ts): masking looks at the text without them. */
export const F_INVISIBLE = 128;

/** The code unit of a hex digit, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

const C_DIGIT = 1;
/** The base64 alphabet: letters, digits, `/` and `+`. */
const C_BASE64 = 2;
/** Upper-case letters and digits (access key ids). */
const C_KEY_ID = 4;
const C_HEX = 8;
/** The last character of `@`, `%40` and `eyJ`. */
const C_MARK = 16;

/** The classes above of each ASCII code unit (every other code unit is in none). */
const CHAR_CLASS = ((): Uint8Array => {
  const table = new Uint8Array(0x80);
  for (let c = 0; c < 0x80; c++) {
    const digit = c >= 0x30 && c <= 0x39;
    const upperCase = c >= 0x41 && c <= 0x5a;
    const lowerCase = c >= 0x61 && c <= 0x7a;
    table[c] =
      (digit ? C_DIGIT : 0) |
      (digit || upperCase || lowerCase || c === 0x2f || c === 0x2b ? C_BASE64 : 0) |
      (digit || upperCase ? C_KEY_ID : 0) |
      (hexValue(c) >= 0 ? C_HEX : 0) |
      (c === 0x40 || c === 0x30 || c === 0x4a ? C_MARK : 0);
  }
  return table;
})();

/**
 * What a text has that a detector needs, as bits, in one pass: an `@` or `%40` (e-mail); 13 digits with single
 * spaces or dashes between them (card numbers); 40 characters of the base64 alphabet in a row (secret keys, named or
 * not); `eyJ` (JWTs); three dots among digits (IPv4); `::` or seven colons among hex digits (IPv6); 20 upper-case
 * letters and digits in a row (access key ids). One loop instead of a search per detector: these checks run on every
 * event of a masking route, and most events have none of these.
 *
 * With `jsonEscapes`, a JSON escape (`\u0040`, `\/`, `\n`...) counts as the character it stands for, which is what a
 * JSON string value holds once decoded: the bits of every string value of a JSON text are then among the bits of the
 * whole text (each counter below only grows along a longer run, so a run inside a value is a run of the text), and a
 * text without a bit holds no value with it. That is the one promise the pre-check makes: it may say "look" for
 * nothing, never "skip" for something.
 */
export function features(text: string, jsonEscapes = false): number {
  let f = 0;
  let digits = 0;
  let separatorAllowed = false;
  let base64 = 0;
  let upper = 0;
  let dots = 0;
  let colons = 0;
  let lastColon = false;
  let prev1 = 0;
  let prev2 = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c === 0x5c && jsonEscapes) {
      const decoded = escapedChar(text, i);
      if (decoded >= 0) {
        c = decoded;
        i += text.charCodeAt(i + 1) === 0x75 ? 5 : 1;
      }
    }
    // Invisible format characters are not there for the detectors (masking.ts removes them before they look), so
    // they neither count nor break a run here.
    if (c >= 0xad && INVISIBLE_BMP[c] !== 0) {
      f |= F_INVISIBLE;
      if (INVISIBLE_BMP[c] === 1) continue;
      if (text.charCodeAt(i) === c && invisibleAt(text, i)) {
        i++;
        continue;
      }
    }
    // One table lookup instead of a range test per class: this loop runs over every character of a masking route.
    const k = c < 0x80 ? CHAR_CLASS[c] : 0;
    if ((k & C_DIGIT) !== 0) {
      if (++digits >= 13) f |= F_CARD_DIGITS;
      separatorAllowed = true;
    } else if ((c === 0x20 || c === 0x2d) && separatorAllowed) {
      separatorAllowed = false;
    } else {
      digits = 0;
      separatorAllowed = false;
    }
    if ((k & C_BASE64) !== 0) {
      if (++base64 >= 40) f |= F_BASE64_RUN;
    } else {
      base64 = 0;
    }
    if ((k & C_KEY_ID) !== 0) {
      if (++upper >= 20) f |= F_KEY_ID_RUN;
    } else {
      upper = 0;
    }
    if (c === 0x2e) {
      if (++dots >= 3) f |= F_DOTTED;
    } else if ((k & C_DIGIT) === 0) {
      dots = 0;
    }
    if (c === 0x3a) {
      if (lastColon || ++colons >= 7) f |= F_COLONS;
      lastColon = true;
    } else {
      lastColon = false;
      if ((k & C_HEX) === 0) colons = 0;
    }
    if ((k & C_MARK) !== 0) {
      if (c === 0x40) f |= F_AT;
      else if (c === 0x30 && prev1 === 0x34 && prev2 === 0x25)
        f |= F_AT; // `%40`
      else if (c === 0x4a && prev1 === 0x79 && prev2 === 0x65) f |= F_EYJ;
    }
    prev2 = prev1;
    prev1 = c;
  }
  return f;
}

/** The code unit a JSON escape at `i` (a backslash) stands for, or -1 when it is not a valid escape. */
export function escapedChar(text: string, i: number): number {
  const next = text.charCodeAt(i + 1);
  switch (next) {
    case 0x22: // "
    case 0x5c: // \
    case 0x2f: // /
      return next;
    case 0x62:
      return 0x08;
    case 0x66:
      return 0x0c;
    case 0x6e:
      return 0x0a;
    case 0x72:
      return 0x0d;
    case 0x74:
      return 0x09;
    case 0x75: {
      let code = 0;
      for (let k = 2; k < 6; k++) {
        const h = hexValue(text.charCodeAt(i + k));
        if (h < 0) return -1;
        code = code * 16 + h;
      }
      return code;
    }
    default:
      return -1;
  }
}

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

/** The Luhn checksum over the digits of `text` (separators ignored): 13 to 19 digits that check. */
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

function isDigitCode(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** A run of digit groups: each group is `[start, end)` of digits; groups are one space or dash apart. */
type Groups = Array<readonly [number, number]>;

/**
 * Card numbers: runs of digit groups (one space or dash between groups; `%XX` before a group is a separator, not
 * digits), and in each run the windows of whole consecutive groups with 13 to 19 digits that pass Luhn, longest
 * first from the left. A card number never starts or ends inside a group, so an order number glued to a card by a
 * space (`order 12 4111 1111 1111 1111`) does not hide it, and a long id of 20 or more digits is no card.
 */
function cardDetector(): Detector {
  return {
    name: 'creditCard',
    feature: F_CARD_DIGITS,
    mask(text, marker, count) {
      const spans: Array<readonly [number, number]> = [];
      let i = 0;
      while (i < text.length) {
        if (!isDigitCode(text.charCodeAt(i))) {
          i++;
          continue;
        }
        // `%20` before digits: the two hex digits are the separator's, not the number's.
        let start = i;
        if (i >= 1 && text.charCodeAt(i - 1) === 0x25 && hexValue(text.charCodeAt(i + 1)) >= 0) {
          start = i + 2;
          if (start >= text.length || !isDigitCode(text.charCodeAt(start))) {
            i = start;
            continue;
          }
        } else if (i >= 1 && isDigitCode(text.charCodeAt(i - 1))) {
          i++;
          continue;
        }
        const groups: Groups = [];
        let j = start;
        for (;;) {
          const groupStart = j;
          while (j < text.length && isDigitCode(text.charCodeAt(j))) j++;
          groups.push([groupStart, j]);
          const sep = text.charCodeAt(j);
          if ((sep === 0x20 || sep === 0x2d) && isDigitCode(text.charCodeAt(j + 1))) j++;
          else break;
        }
        cardWindows(text, groups, spans);
        i = j;
      }
      if (spans.length === 0) return text;
      count(spans.length);
      let out = '';
      let copiedTo = 0;
      for (const [s, e] of spans) {
        out += text.slice(copiedTo, s) + marker;
        copiedTo = e;
      }
      return out + text.slice(copiedTo);
    },
  };
}

/** `d` doubled as Luhn doubles it (digits over 9 summed). */
function luhnDouble(d: number): number {
  return d * 2 > 9 ? d * 2 - 9 : d * 2;
}

/**
 * Adds to `spans` the card numbers among the windows of whole groups of one run (see {@link cardDetector}). The Luhn
 * sums of a window grow digit by digit (the sum with the last digit not doubled, and the sum with it doubled, swap as
 * a digit is appended), so a run costs at most 19 steps per digit whatever it holds.
 */
function cardWindows(text: string, groups: Groups, spans: Array<readonly [number, number]>): void {
  let g = 0;
  while (g < groups.length) {
    let found = -1;
    let digits = 0;
    let plain = 0; // the Luhn sum with the last digit appended not doubled
    let doubled = 0; // the same digits with the other parity
    for (let k = g; k < groups.length && digits <= 19; k++) {
      for (let i = groups[k][0]; i < groups[k][1] && digits <= 19; i++) {
        const d = text.charCodeAt(i) - 0x30;
        const nextPlain = doubled + d;
        doubled = plain + luhnDouble(d);
        plain = nextPlain;
        digits++;
      }
      if (digits > 19) break;
      if (digits >= 13 && plain % 10 === 0) found = k;
    }
    if (found >= 0) {
      spans.push([groups[g][0], groups[found][1]]);
      g = found + 1;
    } else {
      g++;
    }
  }
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
