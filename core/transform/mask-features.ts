/**
 * What a masking detector is, and the one-pass pre-check that tells which of the built-in detectors (mask-detectors.ts)
 * can find anything in a text (`features`). Each detector needs a bit of the pre-check, and the pre-check is only
 * sound while every detector's bit says exactly what that detector needs: a change to a detector's pattern is a
 * change to its bit here (test/core/transform/mask-precheck.property.test.ts holds them together). Pure: no SDK, no
 * I/O.
 */
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
export function hexValue(c: number): number {
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
  let [prev1, prev2] = [0, 0];
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    // Most characters of a log line are lower-case letters: the steps below for them, without their tests (a letter
    // grows the base64 run and ends every other, but a hex letter keeps a run of colons among hex digits).
    const lower = c < 0x80 ? CHAR_CLASS[c] & ~C_HEX : 0;
    if (lower === C_BASE64) {
      if (++base64 >= 40) f |= F_BASE64_RUN;
      digits = upper = dots = 0;
      if ((CHAR_CLASS[c] & C_HEX) === 0) colons = 0;
      separatorAllowed = lastColon = false;
      prev2 = prev1;
      prev1 = c;
      continue;
    }
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
    if ((k & C_MARK) !== 0) f |= markBit(c, prev1, prev2);
    prev2 = prev1;
    prev1 = c;
  }
  return f;
}

/** The bit of a mark's last character `c` (`@`, `%40`, `eyJ`) after `prev1` and, before it, `prev2`; else 0. */
function markBit(c: number, prev1: number, prev2: number): number {
  if (c === 0x40) return F_AT;
  if (c === 0x30 && prev1 === 0x34 && prev2 === 0x25) return F_AT; // `%40`
  return c === 0x4a && prev1 === 0x79 && prev2 === 0x65 ? F_EYJ : 0;
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
