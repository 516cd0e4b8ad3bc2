/**
 * Text prefixes the Lambda runtimes and common loggers put in front of each line. Each parser
 * checks fixed character positions before doing anything costlier, because most lines are not of
 * its layout, and returns undefined for a line that is not exactly of its layout.
 *
 * - Node.js: `<iso>\t<requestId>\t<LEVEL>\t<text>` (and the runtime's own space-separated
 *   `<iso> <requestId> Task timed out after 3.00 seconds`)
 *   https://docs.aws.amazon.com/lambda/latest/dg/nodejs-logging.html
 * - Python: `[LEVEL]\t<iso>\t<requestId>\t<text>`; the request id is empty outside an invocation
 *   https://docs.aws.amazon.com/lambda/latest/dg/python-logging.html
 * - Log4J default pattern: `2022-12-24 08:24:38,929 DEBUG [thread] logger - text`
 *
 * Everything after the prefix, including the lines of a multi-line stack trace, is the message.
 */
import { DerivedFields } from './types';

export interface PrefixedLine {
  readonly message: string;
  readonly derived: DerivedFields;
}

const CH_0 = 0x30;
const CH_9 = 0x39;
const CH_A = 0x41;
const CH_Z = 0x5a;
const TAB = 0x09;
const SPACE = 0x20;

function isDigit(c: number): boolean {
  return c >= CH_0 && c <= CH_9;
}

function digitsAt(text: string, start: number, count: number): boolean {
  for (let i = start; i < start + count; i++) if (!isDigit(text.charCodeAt(i))) return false;
  return true;
}

/**
 * If an ISO-8601 UTC timestamp `YYYY-MM-DDTHH:MM:SS[.fff]Z` starts at `start`, returns the index
 * just after its `Z`, else -1. Python's logger prints 2-digit fractions (`17:35:02.42Z`), so the
 * fraction has any length from 1 to 9.
 */
export function isoEnd(text: string, start: number): number {
  if (text.length < start + 20) return -1;
  if (
    !digitsAt(text, start, 4) ||
    text[start + 4] !== '-' ||
    !digitsAt(text, start + 5, 2) ||
    text[start + 7] !== '-' ||
    !digitsAt(text, start + 8, 2) ||
    text[start + 10] !== 'T' ||
    !digitsAt(text, start + 11, 2) ||
    text[start + 13] !== ':' ||
    !digitsAt(text, start + 14, 2) ||
    text[start + 16] !== ':' ||
    !digitsAt(text, start + 17, 2)
  ) {
    return -1;
  }
  let i = start + 19;
  if (text[i] === '.') {
    const fractionStart = ++i;
    while (i < text.length && i - fractionStart < 9 && isDigit(text.charCodeAt(i))) i++;
    if (i === fractionStart) return -1;
  }
  return text[i] === 'Z' ? i + 1 : -1;
}

/** Log levels are short upper-case words (INFO, WARN, WARNING, CRITICAL...). */
function isLevel(text: string, start: number, end: number): boolean {
  const length = end - start;
  if (length < 3 || length > 8) return false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < CH_A || c > CH_Z) return false;
  }
  return true;
}

/** Request ids are UUIDs; we accept any short token without whitespace, and not the literal `undefined`. */
const MAX_REQUEST_ID_LENGTH = 64;

function withRequestId(derived: DerivedFields, requestId: string): DerivedFields {
  // Node prints `undefined` and Python an empty string for lines logged outside an invocation.
  if (requestId.length > 0 && requestId !== 'undefined') derived.lambda = { requestId };
  return derived;
}

function isUuid(text: string, start: number): boolean {
  if (text.length < start + 36) return false;
  for (let i = start; i < start + 36; i++) {
    const c = text.charCodeAt(i);
    const offset = i - start;
    if (offset === 8 || offset === 13 || offset === 18 || offset === 23) {
      if (c !== 0x2d) return false;
    } else if (!(isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= CH_A && c <= 0x46))) {
      return false;
    }
  }
  return true;
}

/** Node.js: `<iso>\t<requestId>\t<LEVEL>\t<text>`, or `<iso> <uuid> <text>` from the runtime itself. */
export function parseNodeLine(text: string): PrefixedLine | undefined {
  const end = isoEnd(text, 0);
  if (end < 0) return undefined;
  const sep = text.charCodeAt(end);
  if (sep === TAB) {
    const t2 = text.indexOf('\t', end + 1);
    if (t2 < 0 || t2 - end - 1 > MAX_REQUEST_ID_LENGTH) return undefined;
    const t3 = text.indexOf('\t', t2 + 1);
    if (t3 < 0 || !isLevel(text, t2 + 1, t3)) return undefined;
    const requestId = text.slice(end + 1, t2);
    if (/\s/.test(requestId)) return undefined;
    return {
      message: text.slice(t3 + 1),
      derived: withRequestId({ level: text.slice(t2 + 1, t3) }, requestId),
    };
  }
  if (sep === SPACE && isUuid(text, end + 1) && text.charCodeAt(end + 37) === SPACE) {
    return { message: text.slice(end + 38), derived: withRequestId({}, text.slice(end + 1, end + 37)) };
  }
  return undefined;
}

/** Python: `[LEVEL]\t<iso>\t<requestId>\t<text>` (request id possibly empty). */
export function parsePythonLine(text: string): PrefixedLine | undefined {
  const close = text.indexOf(']');
  if (close < 4 || close > 9 || !isLevel(text, 1, close) || text.charCodeAt(close + 1) !== TAB)
    return undefined;
  const end = isoEnd(text, close + 2);
  if (end < 0 || text.charCodeAt(end) !== TAB) return undefined;
  const t3 = text.indexOf('\t', end + 1);
  if (t3 < 0 || t3 - end - 1 > MAX_REQUEST_ID_LENGTH) return undefined;
  const requestId = text.slice(end + 1, t3);
  if (/\s/.test(requestId)) return undefined;
  return { message: text.slice(t3 + 1), derived: withRequestId({ level: text.slice(1, close) }, requestId) };
}

/**
 * The Log4J default layout prefix. Anchored, and every repeated part is followed by a character
 * it cannot contain, so the regex runs in linear time on any input.
 */
const LOG4J = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[,.]\d{3} +([A-Z]{3,8}) +\[([^\]\n]*)\] +([^\s]+) - /;

/** Log4J: `2022-12-24 08:24:38,929 DEBUG [thread] logger - text`. */
export function parseLog4jLine(text: string): PrefixedLine | undefined {
  if (text.length < 30 || text.charCodeAt(10) !== SPACE || text[13] !== ':' || text[4] !== '-')
    return undefined;
  const m = LOG4J.exec(text);
  if (m === null) return undefined;
  return { message: text.slice(m[0].length), derived: { level: m[1], thread: m[2], logger: m[3] } };
}
