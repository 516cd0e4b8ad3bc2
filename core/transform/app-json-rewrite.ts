/**
 * The rewrite of app-json.ts: every top-level member of any JSON object text JSON.parse accepted, in the document's
 * canonical form (app-json.ts' module comment), for the text the one-pass check did not take as it stands
 * (pretty-printed or escaped text) and for the general rules of app-layout.ts (collisions, the field budget), which
 * place members one by one. Iterative, so any depth JSON.parse reads is rewritten without recursion. Pure: no SDK, no
 * environment, no I/O.
 */
import { TransformError } from './errors';
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  DIGIT_0,
  DIGIT_9,
  isArrayIndex,
  LOWER_F,
  LOWER_N,
  LOWER_T,
  MINUS,
  numberEnd,
  numberForm,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  stringEnd,
} from './json-tokens';

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

/** Adds a finished value to the innermost frame: an array's next element, or the value of the pending key. */
function addValue(stack: readonly Frame[], value: string): void {
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
}

/** The string token at `i` (a key, or a value in the document's form): the position after it. */
function addString(text: string, i: number, stack: readonly Frame[], wellFormed: boolean): number {
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
    addValue(stack, escaped || !wellFormed ? JSON.stringify(decoded) : token);
  }
  return end + 1;
}

/** A frame's text once closed: an array's elements, or an object's members in JavaScript's key order. */
function frameText(frame: Frame): string {
  return frame.array
    ? `[${frame.values.join(',')}]`
    : `{${orderedMembers(frame)
        .map((m) => m.json)
        .join(',')}}`;
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
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = addString(text, i, stack, wellFormed);
    } else if (c === MINUS || (c >= DIGIT_0 && c <= DIGIT_9)) {
      const end = numberEnd(text, i);
      const form = numberForm(text.slice(i, end));
      if (form.asWritten) numbersAsWritten = true;
      addValue(stack, form.text);
      i = end;
    } else if (c === LOWER_T || c === LOWER_N || c === LOWER_F) {
      const word = c === LOWER_T ? 'true' : c === LOWER_N ? 'null' : 'false';
      addValue(stack, word);
      i += word.length;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (stack.length >= MAX_NESTING) throw new NestingTooDeepError();
      stack.push({
        array: c === OPEN_BRACKET,
        keys: [],
        values: [],
        positions: c === OPEN_BRACE ? new Map() : undefined,
        expectKey: true,
        pendingKey: '',
      });
      i++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      const frame = stack.pop() as Frame;
      if (stack.length === 0) return { members: orderedMembers(frame), numbersAsWritten };
      addValue(stack, frameText(frame));
      i++;
    } else {
      // `:` and `,` (the structure is known), whitespace
      i++;
    }
  }
  throw new TypeError('appMemberList: text is not a JSON object');
}
