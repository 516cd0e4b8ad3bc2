/**
 * The members of a JSON object text, found without parsing their values, so the direct path edits a document the
 * way the ingest pipeline does (remove `kfek.arrival`, rewrite `kfek.route`, drop `kfek` when empty) while every
 * other byte stays as the transform wrote it: numbers in the form they were written (`1.0`, integers beyond 2^53,
 * core/transform/app-json.ts), which JSON.parse then JSON.stringify would change. Only for text JSON.parse has
 * already accepted: it does not validate.
 */

/** One member of an object text: `text.slice(start, end)` is `"key":value`. */
export interface JsonMember {
  readonly key: string;
  readonly start: number;
  readonly valueStart: number;
  readonly end: number;
}

const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWhitespace(text: string, at: number): number {
  while (at < text.length && WHITESPACE.has(text.charCodeAt(at))) at += 1;
  return at;
}

/** The index after the string that starts at `at` (a `"`). */
function skipString(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i += 1;
    else if (c === 0x22) return i + 1;
  }
  return text.length;
}

/** The index after the value that starts at `at`. */
function skipValue(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === 0x22) return skipString(text, at);
  if (first !== 0x7b && first !== 0x5b) {
    let i = at;
    while (i < text.length && !',}] \t\n\r'.includes(text[i])) i += 1;
    return i;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) i = skipString(text, i) - 1;
    else if (c === 0x7b || c === 0x5b) depth += 1;
    else if ((c === 0x7d || c === 0x5d) && --depth === 0) return i + 1;
  }
  return text.length;
}

/** The members of the object text `text` (which JSON.parse accepted as an object), in written order. */
export function objectMembers(text: string): JsonMember[] {
  const members: JsonMember[] = [];
  let at = skipWhitespace(text, text.indexOf('{') + 1);
  while (at < text.length && text.charCodeAt(at) === 0x22) {
    const keyEnd = skipString(text, at);
    const key = JSON.parse(text.slice(at, keyEnd)) as string;
    const valueStart = skipWhitespace(text, skipWhitespace(text, keyEnd) + 1);
    const end = skipValue(text, valueStart);
    members.push({ key, start: at, valueStart, end });
    at = skipWhitespace(text, end);
    if (text.charCodeAt(at) === 0x2c) at = skipWhitespace(text, at + 1);
  }
  return members;
}

/**
 * The object text with the members named in `replace` given new value texts (undefined: removed), and `append`
 * (`[key, valueText]`) added at the end. Kept members keep their text; the result has no whitespace between them.
 */
export function rewriteMembers(
  text: string,
  replace: ReadonlyMap<string, string | undefined>,
  append: ReadonlyArray<readonly [string, string]> = [],
): string {
  const parts: string[] = [];
  for (const member of objectMembers(text)) {
    if (!replace.has(member.key)) {
      parts.push(text.slice(member.start, member.end));
      continue;
    }
    const value = replace.get(member.key);
    if (value !== undefined) parts.push(`${JSON.stringify(member.key)}:${value}`);
  }
  for (const [key, value] of append) parts.push(`${JSON.stringify(key)}:${value}`);
  return `{${parts.join(',')}}`;
}
