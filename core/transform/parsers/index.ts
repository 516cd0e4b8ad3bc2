/**
 * Message parsing: picks the layout of one log event's text with cheap first-character checks,
 * then runs at most one or two layout parsers. Never throws, for any string.
 */
import { parsePlatformJson, parsePlatformText } from './platform';
import { parseLog4jLine, parseNodeLine, parsePythonLine } from './runtime';
import { ParsedMessage } from './types';
import { stripOneNewline } from '../../contracts/multiline';

export { stripOneNewline } from '../../contracts/multiline';

export type { DerivedFields, LambdaFields, ParsedMessage } from './types';

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;

/**
 * Parses one event's text. `fromLambda` says whether the event is in a Lambda function's log group (the caller
 * knows: `/aws/lambda/...`, set by CloudWatch Logs, not by the line): only then do Lambda platform lines (`START`,
 * `REPORT`, `platform.*` records) and runtime prefixes give `lambda.*` fields, so an app elsewhere cannot forge
 * Lambda metrics by writing such text (issue 22, item 4). Elsewhere the same text stays the app's: a platform line
 * is plain text, a platform JSON record keeps its fields as app fields, a runtime prefix gives `level` only.
 *
 * @param fromLambda @default true (the parsers' own tests); the document writer always says
 */
export function parseMessage(raw: string, fromLambda = true): ParsedMessage {
  const text = stripOneNewline(raw);
  if (text.length === 0) return { message: text };
  const first = text.charCodeAt(0);
  if (first === OPEN_BRACE) return parseJsonObject(text, fromLambda) ?? { message: text };
  if (first === OPEN_BRACKET) {
    const python = parsePythonLine(text);
    return (fromLambda ? python : withoutLambda(python)) ?? { message: text };
  }
  if (first >= 0x30 && first <= 0x39) {
    const line = parseNodeLine(text) ?? parseLog4jLine(text);
    return (fromLambda ? line : withoutLambda(line)) ?? { message: text };
  }
  if (fromLambda && first >= 0x41 && first <= 0x5a) {
    const lambda = parsePlatformText(text);
    return lambda ? { message: text, derived: { lambda } } : { message: text };
  }
  return { message: text };
}

/** A runtime-prefixed line outside a Lambda log group: its level and text, not its request id. */
function withoutLambda(line: ParsedMessage | undefined): ParsedMessage | undefined {
  const derived = line?.derived;
  if (line === undefined || derived?.lambda === undefined) return line;
  const { lambda: _lambda, ...rest } = derived;
  return Object.keys(rest).length > 0 ? { ...line, derived: rest } : { message: line.message };
}

/**
 * JSON.parse runs only when the text looks like an object (first `{`, last non-blank `}`), and
 * only an object (not an array or scalar) becomes fields.
 */
function parseJsonObject(text: string, fromLambda: boolean): ParsedMessage | undefined {
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
  const lambda = fromLambda ? parsePlatformJson(appFields) : undefined;
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
