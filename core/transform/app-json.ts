/**
 * The app's own JSON text, written into the document in one canonical form on every path (issue 22, item 3).
 *
 * A JSON app log is parsed once (the transform needs its fields: `message`, collisions, the field budget, platform
 * records), but the document never writes the parsed object back with JSON.stringify: that would turn `1.0` into
 * `1`, `-0` into `0` and round integers beyond 2^53, and only some paths did it, so one log line gave different
 * documents depending on the path. Instead the app's members are copied from its text, in the form
 * `JSON.stringify(JSON.parse(text))` would write, except that every number keeps the form it was written in:
 * - no whitespace between tokens; strings escaped as JSON.stringify escapes them (`\u00e9` becomes `é`, `\/`
 *   becomes `/`, a lone surrogate becomes `\udxxx`);
 * - keys in the order JavaScript keeps them: array-index keys (`"0"`, `"17"`) first, ascending, then the others as
 *   written; a key written twice keeps its first place and its last value, as JSON.parse does;
 * - a number too large for a double (`1e400`, which JSON.parse reads as Infinity) is `null`, as JSON.stringify
 *   writes it; one longer than OpenSearch parses (over {@link MAX_NUMBER_CHARS} characters) is a string of its
 *   digits; every other number stays as written (`1.0`, `-0`, `12345678901234567890`).
 * So the document is text whose `JSON.parse` then `JSON.stringify` gives it back, numbers aside: the Pipes path
 * hands the same document to the Lambda runtime as an object and gets the same text out (pipes-batch.ts).
 *
 * Two ways to the same result: {@link canonicalMembersText} checks in one pass, without allocating, that the text
 * already is in that form (what JSON loggers write: Powertools, pino, Log4j's JSON layouts) and then copies it;
 * {@link appMemberList} rewrites any text JSON.parse accepted, member by member (pretty-printed or escaped text,
 * and the general rules of document.ts: collisions, the field budget). Pure: no SDK, no environment, no I/O.
 *
 * Why one file of about 475 lines: the scanner, the canonical writer and the collision rules read the same
 * positions of one text in one pass; split, each part would re-scan or hand positions across files.
 */
import { TransformError } from './errors';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const LOWER_T = 0x74;
const LOWER_F = 0x66;
const LOWER_N = 0x6e;
const LOWER_U = 0x75;

/** Deepest nesting the one-pass check accepts (structured loggers write a few levels); deeper text is rewritten. */
export const MAX_TEXT_DEPTH = 32;

/**
 * Deepest nesting of objects and arrays a document may carry. JSON.parse reads any depth, but JSON.stringify
 * recurses and overflows the stack a few thousand levels down, and the Pipes path's runtime stringifies every
 * document: a deeper message is kept as text (document.ts), with this reason, on every path.
 */
export const MAX_NESTING = 1_000;

/** An app JSON object nests deeper than {@link MAX_NESTING}. */
export class NestingTooDeepError extends TransformError {
  constructor() {
    super(`the JSON message nests deeper than ${MAX_NESTING} levels; it is kept as text`);
    this.name = 'NestingTooDeepError';
  }
}

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
function nextBackslash(text: string, from: number): number {
  const at = text.indexOf('\\', from);
  return at < 0 ? text.length : at;
}

/** Whether the escapes between `from` and the closing quote at `end` are the ones JSON.stringify writes. */
function escapesAsStringify(text: string, from: number, end: number): boolean {
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
function numberEnd(text: string, start: number): number {
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
function numberForm(token: string): { readonly text: string; readonly asWritten: boolean } {
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
function scanNumber(text: string, start: number): number {
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

/** The members text of an app object, ready to be written into a document. */
export interface MembersText {
  /** The members as JSON without braces (`"a":1,"b":[2]`), '' when none is left. */
  readonly text: string;
  /** True when a number is written in a form JavaScript writes differently (`1.0`, `-0`, beyond 2^53). */
  readonly numbersAsWritten: boolean;
}

/**
 * The members of the JSON object `text` without the braces, leaving out the top-level `message` member when
 * `dropMessage`, when the text is already in the document's form (module comment); undefined otherwise (the caller
 * then uses {@link appMemberList}). One pass, no allocation for a text that qualifies, except the slice.
 *
 * @param text a JSON object's text that JSON.parse accepted, `{` first
 * @param close the index of its closing `}` (only whitespace may follow)
 * @param parsed what JSON.parse returned for it
 * @param dropMessage whether the top-level `message` member (a string, written `"message"`) is left out
 */
export function canonicalMembersText(
  text: string,
  close: number,
  parsed: Record<string, unknown>,
  dropMessage: boolean,
): MembersText | undefined {
  let colons = 0;
  let depth = 0;
  let topMembers = 0;
  let numbersAsWritten = false;
  // The comma before the current top-level member, and the bounds of the `message` member.
  let lastTopComma = -1;
  let expectKey = false;
  let lastString = -1;
  let messageFrom = -1;
  let messageCommaBefore = -1;
  let messageCommaAfter = -1;
  // The next backslash at or after the current string (text.length when none): one search per backslash, not one
  // per string.
  let backslash = -1;
  let i = 0;
  while (i < close) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      // Not for text JSON.parse accepted; a caller's mistake must not loop forever.
      if (end < 0) return undefined;
      if (backslash < i) backslash = nextBackslash(text, i);
      if (backslash < end && !escapesAsStringify(text, backslash, end)) return undefined;
      lastString = i;
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
    if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      const scanned = scanNumber(text, i);
      const end = scanned < 0 ? -scanned : scanned;
      if (scanned < 0) {
        const form = numberForm(text.slice(i, end));
        if (form.text !== text.slice(i, end)) return undefined;
        if (form.asWritten) numbersAsWritten = true;
      }
      i = end;
      continue;
    }
    switch (c) {
      case COLON: {
        colons++;
        // A key that starts with a digit may be an array index, which JavaScript orders first.
        const first = text.charCodeAt(lastString + 1);
        if (first >= DIGIT_0 && first <= DIGIT_9) return undefined;
        break;
      }
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
      default:
        // Whitespace between tokens: not the document's form.
        return undefined;
    }
    i++;
  }
  if (colons !== keyCount(parsed) || !text.isWellFormed()) return undefined;
  if (!dropMessage) return { text: topMembers === 0 ? '' : text.slice(1, close), numbersAsWritten };
  if (messageFrom < 0) return undefined;
  if (topMembers === 1) return { text: '', numbersAsWritten };
  // Cut the member with the comma after it, or with the comma before it when it is the last one.
  return {
    text:
      messageCommaAfter >= 0
        ? text.slice(1, messageFrom) + text.slice(messageCommaAfter + 1, close)
        : text.slice(1, messageCommaBefore),
    numbersAsWritten,
  };
}

/** One top-level member of an app object, in the document's form. */
export interface AppMember {
  /** The key, as JSON.parse reads it. */
  readonly key: string;
  /** `"key":value`, in the document's form. */
  readonly json: string;
}

/** Every top-level member of an app object, in the order JavaScript keeps them. */
export interface AppMemberList {
  readonly members: readonly AppMember[];
  /** As {@link MembersText.numbersAsWritten}. */
  readonly numbersAsWritten: boolean;
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

/** An object or array being rewritten. */
interface Frame {
  readonly array: boolean;
  readonly keys: string[];
  readonly values: string[];
  readonly positions: Map<string, number> | undefined;
  /** In an object: whether the next string is a key. */
  expectKey: boolean;
  pendingKey: string;
}

/** The members of a finished object frame, in JavaScript's key order. */
function orderedMembers(frame: Frame): AppMember[] {
  const indexed: number[] = [];
  const named: number[] = [];
  for (let i = 0; i < frame.keys.length; i++) (isArrayIndex(frame.keys[i]) ? indexed : named).push(i);
  if (indexed.length > 1) indexed.sort((a, b) => Number(frame.keys[a]) - Number(frame.keys[b]));
  const members: AppMember[] = [];
  for (const i of indexed.length === 0 ? named : [...indexed, ...named]) {
    members.push({ key: frame.keys[i], json: `${JSON.stringify(frame.keys[i])}:${frame.values[i]}` });
  }
  return members;
}

/**
 * Every top-level member of the JSON object `text` in the document's form (module comment), in JavaScript's key
 * order. Iterative, so any depth JSON.parse reads is rewritten without recursion.
 *
 * @param text a JSON object's text that JSON.parse accepted (leading and trailing whitespace allowed)
 * @throws NestingTooDeepError when objects and arrays nest deeper than {@link MAX_NESTING}
 */
export function appMemberList(text: string): AppMemberList {
  const wellFormed = text.isWellFormed();
  const stack: Frame[] = [];
  let numbersAsWritten = false;
  let top: AppMember[] | undefined;
  const addValue = (value: string): void => {
    const frame = stack[stack.length - 1];
    if (frame.array) {
      frame.values.push(value);
      return;
    }
    const key = frame.pendingKey;
    const at = frame.positions?.get(key);
    if (at === undefined) {
      frame.positions?.set(key, frame.keys.length);
      frame.keys.push(key);
      frame.values.push(value);
    } else {
      frame.values[at] = value;
    }
    frame.expectKey = true;
  };
  let i = 0;
  while (i < text.length && top === undefined) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (end < 0)
        throw new TypeError('appMemberList: an unterminated string in text JSON.parse should have refused');
      const token = text.slice(i, end + 1);
      const escaped = token.indexOf('\\') >= 0;
      const decoded = escaped ? (JSON.parse(token) as string) : token.slice(1, -1);
      const frame = stack[stack.length - 1];
      // A string right after `{` or `,` in an object is a key.
      if (!frame.array && frame.expectKey) {
        frame.pendingKey = decoded;
        frame.expectKey = false;
      } else {
        addValue(escaped || !wellFormed ? JSON.stringify(decoded) : token);
      }
      i = end + 1;
      continue;
    }
    if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      const end = numberEnd(text, i);
      const form = numberForm(text.slice(i, end));
      if (form.asWritten) numbersAsWritten = true;
      addValue(form.text);
      i = end;
      continue;
    }
    switch (c) {
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (stack.length >= MAX_NESTING) throw new NestingTooDeepError();
        stack.push({
          array: c === OPEN_BRACKET,
          keys: [],
          values: [],
          positions: c === OPEN_BRACE ? new Map() : undefined,
          expectKey: true,
          pendingKey: '',
        });
        break;
      case CLOSE_BRACE:
      case CLOSE_BRACKET: {
        const frame = stack.pop() as Frame;
        if (stack.length === 0) {
          top = orderedMembers(frame);
          break;
        }
        const value = frame.array
          ? `[${frame.values.join(',')}]`
          : `{${orderedMembers(frame)
              .map((m) => m.json)
              .join(',')}}`;
        addValue(value);
        break;
      }
      case LOWER_T:
      case LOWER_N:
      case LOWER_F: {
        const word = c === LOWER_T ? 'true' : c === LOWER_N ? 'null' : 'false';
        addValue(word);
        i += word.length;
        continue;
      }
      default:
      // `:` and `,` (the structure is known), whitespace
    }
    i++;
  }
  if (top === undefined) throw new TypeError('appMemberList: text is not a JSON object');
  return { members: top, numbersAsWritten };
}
