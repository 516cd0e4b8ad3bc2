/**
 * The app's own JSON text, reused in the document instead of stringifying the parsed object again.
 *
 * A JSON app log is parsed once (the transform needs its fields: `message`, collisions, the field budget, platform
 * records). Writing the parsed object back out with JSON.stringify was the dearest step of the transform for such
 * events (about 0.8 µs for a 320-character Powertools line on Node 20, more than parsing it). The text JSON.parse
 * accepted already says the same thing, so the document copies its members from there, minus the `message` member
 * that became the document's `message`.
 *
 * The text is reused only when it means exactly what the parsed object holds; otherwise the caller stringifies
 * the object as before:
 * - no key appears twice in one object, at any depth (JSON.parse keeps the last value, OpenSearch refuses the
 *   document): every member has one `:` outside strings, so the text has no duplicate key exactly when it has as
 *   many such colons as the parsed object has keys in all;
 * - no number has an exponent (`1e400` parses to Infinity, which JSON.stringify writes as `null`);
 * - the text is well-formed UTF-16 (JSON.stringify escapes a lone surrogate; written raw it would become U+FFFD);
 * - it nests at most {@link MAX_TEXT_DEPTH} levels, so counting the parsed object's keys stays a short recursion, and
 *   an object nested thousands of levels deep meets JSON.stringify as before (transform.ts keeps it as text).
 *
 * What differs from JSON.stringify is form, not meaning: whitespace between tokens, escapes such as `\u00e9` or
 * `\/`, and numbers as written (`1.0` stays `1.0`, so OpenSearch maps the field as the app meant it).
 * Pure: no SDK, no environment, no I/O.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const LOWER_E = 0x65;
const UPPER_E = 0x45;
const LOWER_T = 0x74;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;

/** Deepest nesting of objects and arrays whose text is reused (structured loggers write a few levels). */
export const MAX_TEXT_DEPTH = 32;

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
function stringEnd(text: string, open: number): number {
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

/**
 * The members of the JSON object `text` as JSON text without the braces (`"a":1,"b":[2]`), leaving out the
 * top-level `message` member when `dropMessage`; '' when no member is left. Undefined when the text cannot stand
 * for the parsed object (see the module comment): the caller then stringifies it.
 *
 * @param text a JSON object's text that JSON.parse accepted, `{` first
 * @param close the index of its closing `}` (only whitespace may follow)
 * @param parsed what JSON.parse returned for it
 * @param dropMessage whether the top-level `message` member (a string, written `"message"`) is left out
 */
export function appMembersText(
  text: string,
  close: number,
  parsed: Record<string, unknown>,
  dropMessage: boolean,
): string | undefined {
  let colons = 0;
  let depth = 0;
  let topMembers = 0;
  // The comma before the current top-level member, and the bounds of the `message` member.
  let lastTopComma = -1;
  let expectKey = false;
  let messageFrom = -1;
  let messageCommaBefore = -1;
  let messageCommaAfter = -1;
  let i = 0;
  while (i < close) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      // Not for text JSON.parse accepted; a caller's mistake must not loop forever.
      if (end < 0) return undefined;
      if (expectKey) {
        expectKey = false;
        topMembers++;
        // `"message"` as written; an escaped spelling is not found, and the text is then not used.
        if (dropMessage && end - i === 8 && text.startsWith('message', i + 1)) {
          if (messageFrom >= 0) return undefined;
          messageFrom = i;
          messageCommaBefore = lastTopComma;
        }
      }
      i = end + 1;
      continue;
    }
    switch (c) {
      case COLON:
        colons++;
        break;
      case COMMA:
        if (depth === 1) {
          if (messageFrom >= 0 && messageCommaAfter < 0) messageCommaAfter = i;
          lastTopComma = i;
          expectKey = true;
        }
        break;
      case OPEN_BRACE:
        if (++depth > MAX_TEXT_DEPTH) return undefined;
        if (depth === 1) expectKey = true;
        break;
      case OPEN_BRACKET:
        if (++depth > MAX_TEXT_DEPTH) return undefined;
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        depth--;
        break;
      case LOWER_T:
      case LOWER_N:
        i += 4; // true, null
        continue;
      case LOWER_F:
        i += 5; // false
        continue;
      case LOWER_E:
      case UPPER_E:
        return undefined; // only a number's exponent is left to have an `e` here
      default:
      // digits, signs, points and whitespace
    }
    i++;
  }
  if (colons !== keyCount(parsed) || !text.isWellFormed()) return undefined;
  if (!dropMessage) return topMembers === 0 ? '' : text.slice(1, close);
  if (messageFrom < 0) return undefined;
  if (topMembers === 1) return '';
  // Cut the member with the comma after it, or with the comma before it when it is the last one.
  return messageCommaAfter >= 0
    ? text.slice(1, messageFrom) + text.slice(messageCommaAfter + 1, close)
    : text.slice(1, messageCommaBefore);
}
