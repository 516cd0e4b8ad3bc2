/**
 * Message parsing: picks the layout of one log event's text with cheap first-character checks,
 * then runs at most one or two layout parsers. Never throws, for any string.
 */
import { parsePlatformJson, parsePlatformText } from './platform';
import { parseLog4jLine, parseNodeLine, parsePythonLine } from './runtime';
import { ParsedMessage } from './types';

export type { DerivedFields, LambdaFields, ParsedMessage } from './types';

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;

/** Removes exactly one trailing newline (`\n` or `\r\n`): loggers end lines with one; more is content. */
export function stripOneNewline(text: string): string {
  if (text.charCodeAt(text.length - 1) !== 0x0a) return text;
  return text.charCodeAt(text.length - 2) === 0x0d ? text.slice(0, -2) : text.slice(0, -1);
}

export function parseMessage(raw: string): ParsedMessage {
  const text = stripOneNewline(raw);
  if (text.length === 0) return { message: text };
  const first = text.charCodeAt(0);
  if (first === OPEN_BRACE) return parseJsonObject(text) ?? { message: text };
  if (first === OPEN_BRACKET) {
    const python = parsePythonLine(text);
    return python ?? { message: text };
  }
  if (first >= 0x30 && first <= 0x39) {
    const line = parseNodeLine(text) ?? parseLog4jLine(text);
    return line ?? { message: text };
  }
  if (first >= 0x41 && first <= 0x5a) {
    const lambda = parsePlatformText(text);
    return lambda ? { message: text, derived: { lambda } } : { message: text };
  }
  return { message: text };
}

/**
 * JSON.parse runs only when the text looks like an object (first `{`, last non-blank `}`), and
 * only an object (not an array or scalar) becomes fields.
 */
function parseJsonObject(text: string): ParsedMessage | undefined {
  let last = text.length - 1;
  while (last > 0 && isJsonBlank(text.charCodeAt(last))) last--;
  if (text.charCodeAt(last) !== CLOSE_BRACE) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const appFields = value as Record<string, unknown>;
  const lambda = parsePlatformJson(appFields);
  const message = appFields.message;
  const fromApp = typeof message === 'string';
  // Two literals rather than a conditional spread: spreading builds the object the slow way, per event.
  return lambda
    ? {
        message: fromApp ? message : text,
        appFields,
        messageFromApp: fromApp,
        appText: text,
        appTextClose: last,
        derived: { lambda },
      }
    : {
        message: fromApp ? message : text,
        appFields,
        messageFromApp: fromApp,
        appText: text,
        appTextClose: last,
      };
}

function isJsonBlank(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}
