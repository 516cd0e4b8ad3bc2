/**
 * Reading JSON text token by token, for the two writers of an app's members (app-json.ts): where a string ends, whether
 * its escapes are the ones JSON.stringify writes, where a number ends and how it is written into a document, the keys
 * JavaScript orders first, and how many keys a parsed value holds. Each reads one token at a position and allocates
 * nothing (but `numberForm`'s slice); what a document makes of the tokens is app-json.ts'. Pure: no SDK, no I/O.
 */

export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_BRACE = 0x7b;
export const CLOSE_BRACE = 0x7d;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACKET = 0x5d;
export const MINUS = 0x2d;
export const DIGIT_0 = 0x30;
export const DIGIT_9 = 0x39;
export const LOWER_T = 0x74;
export const LOWER_F = 0x66;
export const LOWER_N = 0x6e;
export const LOWER_U = 0x75;

/** Keys of `value` and of everything nested in it (an array's elements included). */
export function keyCount(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) count += keyCount(value[i]);
    return count;
  }
  // for...in, not Object.keys: no array per object (a parsed JSON object has no inherited enumerable keys).
  for (const key in value) count += 1 + keyCount((value as Record<string, unknown>)[key]);
  return count;
}

/** Index of the quote that closes the string whose opening quote is at `open`; -1 when none does. */
export function stringEnd(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  for (;;) {
    if (end < 0) return -1;
    // A quote preceded by an odd number of backslashes is escaped.
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/** Index of the first backslash at or after `from`, or the text's length when none. */
export function nextBackslash(text: string, from: number): number {
  const at = text.indexOf('\\', from);
  return at < 0 ? text.length : at;
}

/** Whether the escapes between `from` and the closing quote at `end` are the ones JSON.stringify writes. */
export function escapesAsStringify(text: string, from: number, end: number): boolean {
  let b = text.indexOf('\\', from);
  while (b >= 0 && b < end) {
    const next = text.charCodeAt(b + 1);
    if (next === LOWER_U) {
      // JSON.stringify writes \u00xx only for the control characters without a short escape.
      if (text.charCodeAt(b + 2) !== DIGIT_0 || text.charCodeAt(b + 3) !== DIGIT_0) return false;
      const high = text.charCodeAt(b + 4);
      const low = text.charCodeAt(b + 5);
      if (high !== DIGIT_0 && high !== DIGIT_0 + 1) return false;
      const lowValue =
        low >= DIGIT_0 && low <= DIGIT_9 ? low - DIGIT_0 : low >= 0x61 && low <= 0x66 ? low - 0x61 + 10 : -1;
      if (lowValue < 0) return false;
      const code = (high - DIGIT_0) * 16 + lowValue;
      if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return false;
      b = text.indexOf('\\', b + 6);
    } else {
      // " \ b f n r t are JSON.stringify's short escapes; `\/` is not one.
      if (next === 0x2f) return false;
      b = text.indexOf('\\', b + 2);
    }
  }
  return true;
}

/** End (exclusive) of the number token that starts at `start`. */
export function numberEnd(text: string, start: number): number {
  let end = start + 1;
  for (;;) {
    const c = text.charCodeAt(end);
    if (
      (c >= DIGIT_0 && c <= DIGIT_9) ||
      c === 0x2e ||
      c === 0x65 ||
      c === 0x45 ||
      c === 0x2b ||
      c === MINUS
    ) {
      end++;
    } else {
      return end;
    }
  }
}

/**
 * The longest number token OpenSearch parses: its JSON parser (Jackson's StreamReadConstraints) refuses a longer
 * one, and with an ingest pipeline that refusal fails every document of the bulk, not only this one (issue 31;
 * docs/opensearch.md, "One bad document").
 */
export const MAX_NUMBER_CHARS = 1000;

/**
 * How a number token is written into the document: `null` when JSON.parse reads it as Infinity (what
 * JSON.stringify writes), a string of its digits when it is longer than OpenSearch parses
 * ({@link MAX_NUMBER_CHARS}: nothing is lost, and the document is indexed), else as written. `asWritten` tells
 * whether that form differs from JavaScript's own (`String(Number(token))`), which a consumer that parses and
 * re-serializes the document must keep.
 */
export function numberForm(token: string): { readonly text: string; readonly asWritten: boolean } {
  const value = Number(token);
  if (!Number.isFinite(value)) return { text: 'null', asWritten: false };
  // A number token holds only digits, signs, `.` and `e`: quoting it needs no escape.
  if (token.length > MAX_NUMBER_CHARS) return { text: `"${token}"`, asWritten: false };
  return { text: token, asWritten: String(value) !== token };
}

/**
 * Scans the number token at `start` in one pass: its end (exclusive), negated when the token may be written
 * differently by JavaScript and must be checked exactly. A token is surely written as JavaScript writes it when it
 * is an integer of at most 15 digits other than `-0`, or a decimal of at most 15 digits whose fraction does not end
 * in 0 and that is not below 0.00001 (JavaScript writes 1e-7 with an exponent); anything else, an exponent
 * included, is checked.
 */
export function scanNumber(text: string, start: number): number {
  let i = start;
  if (text.charCodeAt(i) === MINUS) i++;
  const first = i;
  let point = -1;
  let plain = true;
  for (; ; i++) {
    const c = text.charCodeAt(i);
    if (c >= DIGIT_0 && c <= DIGIT_9) continue;
    if (c === 0x2e) {
      point = i;
    } else if (c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS) {
      plain = false;
    } else {
      break;
    }
  }
  const end = i;
  if (!plain || end - first > 16) return -end;
  if (point < 0) {
    // An integer: `-0` is the one JavaScript writes otherwise (as 0).
    return end - first > 15 || (first > start && end - first === 1 && text.charCodeAt(first) === DIGIT_0)
      ? -end
      : end;
  }
  if (text.charCodeAt(end - 1) === DIGIT_0) return -end;
  if (text.charCodeAt(first) === DIGIT_0 && text.startsWith('0000', point + 1)) return -end;
  return end;
}

/** True for a key JavaScript keeps as an array index: ordered first, ascending. */
export function isArrayIndex(key: string): boolean {
  if (key.length === 0) return false;
  const first = key.charCodeAt(0);
  if (first < DIGIT_0 || first > DIGIT_9 || (first === DIGIT_0 && key.length > 1) || key.length > 10)
    return false;
  for (let i = 1; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < DIGIT_0 || c > DIGIT_9) return false;
  }
  return Number(key) < 4_294_967_295;
}
