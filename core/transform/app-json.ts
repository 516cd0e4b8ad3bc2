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
 * `appMemberList` (app-json-rewrite.ts) rewrites any text JSON.parse accepted, member by member (pretty-printed or
 * escaped text, and the general rules of document.ts: collisions, the field budget). Pure: no SDK, no environment, no I/O.
 *
 * Both read the text token by token with json-tokens.ts, where a string or a number ends and how it is written.
 */
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  DIGIT_0,
  DIGIT_9,
  escapesAsStringify,
  keyCount,
  LOWER_F,
  LOWER_N,
  LOWER_T,
  MINUS,
  nextBackslash,
  numberForm,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  scanNumber,
  stringEnd,
} from './json-tokens';

export { isArrayIndex, keyCount, MAX_NUMBER_CHARS, stringEnd } from './json-tokens';
export {
  appMemberList,
  type AppMember,
  type AppMemberList,
  MAX_NESTING,
  NestingTooDeepError,
} from './app-json-rewrite';

/** Deepest nesting the one-pass check accepts (structured loggers write a few levels); deeper text is rewritten. */
export const MAX_TEXT_DEPTH = 32;

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
 * then uses `appMemberList`, app-json-rewrite.ts). One pass, no allocation for a text that qualifies, except the slice.
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
  return SCAN.run(text, close, parsed, dropMessage);
}

/**
 * One pass of {@link canonicalMembersText}: its position state in fields, so that each kind of token is read by its own
 * method. One instance serves every call (the transform is single-threaded and a scan never re-enters), so a scan
 * allocates nothing.
 */
class CanonicalScan {
  private colons = 0;
  private depth = 0;
  private topMembers = 0;
  private numbersAsWritten = false;
  /** The comma before the current top-level member. */
  private lastTopComma = -1;
  private expectKey = false;
  private lastString = -1;
  /** The bounds of the `message` member. */
  private messageFrom = -1;
  private messageCommaBefore = -1;
  private messageCommaAfter = -1;
  /** The next backslash at or after the current string (text.length when none): one search per backslash. */
  private backslash = -1;

  public run(
    text: string,
    close: number,
    parsed: Record<string, unknown>,
    dropMessage: boolean,
  ): MembersText | undefined {
    this.reset();
    let i = 0;
    while (i < close) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) i = this.string(text, i, dropMessage);
      else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) i = this.number(text, i);
      else i = this.punctuation(text, c, i);
      if (i < 0) return undefined;
    }
    if (this.colons !== keyCount(parsed) || !text.isWellFormed()) return undefined;
    return this.members(text, close, dropMessage);
  }

  private reset(): void {
    this.colons = 0;
    this.depth = 0;
    this.topMembers = 0;
    this.numbersAsWritten = false;
    this.lastTopComma = -1;
    this.expectKey = false;
    this.lastString = -1;
    this.messageFrom = -1;
    this.messageCommaBefore = -1;
    this.messageCommaAfter = -1;
    this.backslash = -1;
  }

  /** The string at `i`: the position after it, or -1 when it is not in the document's form. */
  private string(text: string, i: number, dropMessage: boolean): number {
    const end = stringEnd(text, i);
    // Not for text JSON.parse accepted; a caller's mistake must not loop forever.
    if (end < 0) return -1;
    if (this.backslash < i) this.backslash = nextBackslash(text, i);
    if (this.backslash < end && !escapesAsStringify(text, this.backslash, end)) return -1;
    this.lastString = i;
    if (this.expectKey) {
      this.expectKey = false;
      this.topMembers++;
      // `"message"` as written; an escaped spelling is not found, and the text is then not used.
      if (dropMessage && end - i === 8 && text.startsWith('message', i + 1)) {
        if (this.messageFrom >= 0) return -1;
        this.messageFrom = i;
        this.messageCommaBefore = this.lastTopComma;
      }
    }
    return end + 1;
  }

  /** The number at `i`: the position after it, or -1 when the document writes it otherwise. */
  private number(text: string, i: number): number {
    const scanned = scanNumber(text, i);
    if (scanned >= 0) return scanned;
    const end = -scanned;
    const form = numberForm(text.slice(i, end));
    if (form.text !== text.slice(i, end)) return -1;
    if (form.asWritten) this.numbersAsWritten = true;
    return end;
  }

  /** The structural character or literal `c` at `i`: the position after it, or -1 when not in the document's form. */
  private punctuation(text: string, c: number, i: number): number {
    switch (c) {
      case COLON: {
        this.colons++;
        // A key that starts with a digit may be an array index, which JavaScript orders first.
        const first = text.charCodeAt(this.lastString + 1);
        return first >= DIGIT_0 && first <= DIGIT_9 ? -1 : i + 1;
      }
      case COMMA:
        if (this.depth === 1) {
          if (this.messageFrom >= 0 && this.messageCommaAfter < 0) this.messageCommaAfter = i;
          this.lastTopComma = i;
          this.expectKey = true;
        }
        return i + 1;
      case OPEN_BRACE:
      case OPEN_BRACKET:
        if (++this.depth > MAX_TEXT_DEPTH) return -1;
        if (this.depth === 1 && c === OPEN_BRACE) this.expectKey = true;
        return i + 1;
      case CLOSE_BRACE:
      case CLOSE_BRACKET:
        this.depth--;
        return i + 1;
      case LOWER_T:
      case LOWER_N:
        return i + 4; // true, null
      case LOWER_F:
        return i + 5; // false
      default:
        // Whitespace between tokens: not the document's form.
        return -1;
    }
  }

  /** The members text of a scanned object, without `message` when `dropMessage`. */
  private members(text: string, close: number, dropMessage: boolean): MembersText | undefined {
    const numbersAsWritten = this.numbersAsWritten;
    if (!dropMessage) return { text: this.topMembers === 0 ? '' : text.slice(1, close), numbersAsWritten };
    if (this.messageFrom < 0) return undefined;
    if (this.topMembers === 1) return { text: '', numbersAsWritten };
    // Cut the member with the comma after it, or with the comma before it when it is the last one.
    return {
      text:
        this.messageCommaAfter >= 0
          ? text.slice(1, this.messageFrom) + text.slice(this.messageCommaAfter + 1, close)
          : text.slice(1, this.messageCommaBefore),
      numbersAsWritten,
    };
  }
}

const SCAN = new CanonicalScan();
