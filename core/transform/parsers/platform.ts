/**
 * Lambda platform lines, in both log formats
 * (https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-advanced.html):
 *
 * - text: `START RequestId: <id> Version: <v>`, `END RequestId: <id>`,
 *   `REPORT RequestId: <id>\tDuration: 9.14 ms\tBilled Duration: 10 ms\t...`, `INIT_START Runtime Version: ...`,
 *   `INIT_REPORT Init Duration: ...`, `RESTORE_REPORT Restore Duration: ...`. Fields are separated by
 *   tabs in real logs and by spaces in some copies, so both are accepted.
 * - JSON: `{"time":..., "type":"platform.report", "record":{"requestId":..., "metrics":{...}, "status":...}}`
 *   (https://docs.aws.amazon.com/lambda/latest/dg/telemetry-schema-reference.html).
 */
import { LambdaFields } from './types';

/** Line keyword -> the JSON log format's event type, so both formats share `lambda.type`. */
const TEXT_TYPES: Readonly<Record<string, string>> = {
  START: 'platform.start',
  END: 'platform.end',
  REPORT: 'platform.report',
  INIT_START: 'platform.initStart',
  INIT_REPORT: 'platform.initReport',
  RESTORE_START: 'platform.restoreStart',
  RESTORE_REPORT: 'platform.restoreReport',
};

/**
 * `Label: value` pairs. Longer labels come first in the alternation so `Billed Duration` is not
 * read as `Duration`; the leading separator stops `Version` matching inside `Runtime Version`.
 * Literal alternatives followed by `\S+` cannot backtrack catastrophically.
 */
const PAIR =
  /(?:^|[\t \n])(Billed Restore Duration|Restore Duration|Billed Duration|Init Duration|Max Memory Used|Memory Size|Duration|Runtime Version ARN|Runtime Version|Version|RequestId|Status|Error Type|TraceId|Phase): (\S+)/g;

type NumericKey =
  | 'durationMs'
  | 'billedDurationMs'
  | 'memorySizeMb'
  | 'maxMemoryUsedMb'
  | 'initDurationMs'
  | 'restoreDurationMs'
  | 'billedRestoreDurationMs';
type StringKey =
  'requestId' | 'version' | 'status' | 'errorType' | 'xrayTraceId' | 'runtimeVersion' | 'runtimeVersionArn';

/** The `Label: value` labels of text platform lines; `setField` says which field each sets. */
const TEXT_LABELS: readonly string[] = [
  'Duration',
  'Billed Duration',
  'Memory Size',
  'Max Memory Used',
  'Init Duration',
  'Restore Duration',
  'Billed Restore Duration',
  'RequestId',
  'Version',
  'Status',
  'Error Type',
  'TraceId',
  'Runtime Version',
  'Runtime Version ARN',
];

/**
 * Parses a text-format platform line, or returns undefined when `text` is not one. A line that
 * starts with a keyword but carries none of the fields that identify it (`REPORT invalid report
 * log line`) is not recognised and stays plain text.
 */
export function parsePlatformText(text: string): LambdaFields | undefined {
  const space = text.indexOf(' ');
  // The longest keyword is RESTORE_REPORT (14 characters): a cheap bound before any lookup.
  if (space < 3 || space > 14) return undefined;
  const type = TEXT_TYPES[text.slice(0, space)];
  if (type === undefined) return undefined;
  const fields: LambdaFields = { type };
  const rest = text.slice(space + 1);
  const found = rest.includes('\t') ? scanTabbed(rest, fields) : scanSpaced(rest, fields);
  if (!found) return undefined;
  if (
    (type === 'platform.start' || type === 'platform.end' || type === 'platform.report') &&
    !fields.requestId
  ) {
    return undefined;
  }
  return fields;
}

/**
 * Sets the field a label names; false for a label that names none. One named store per field (not
 * `fields[key] = ...`): the platform lines' fields come in a few orders, and a keyed store with a varying key is
 * several times slower on the hot path.
 */
function setField(fields: LambdaFields, label: string, value: string): boolean {
  switch (label) {
    case 'RequestId':
      fields.requestId = value;
      return true;
    case 'Version':
      fields.version = value;
      return true;
    case 'Status':
      fields.status = value;
      return true;
    case 'Error Type':
      fields.errorType = value;
      return true;
    case 'TraceId':
      fields.xrayTraceId = value;
      return true;
    case 'Runtime Version':
      fields.runtimeVersion = value;
      return true;
    case 'Runtime Version ARN':
      fields.runtimeVersionArn = value;
      return true;
    default:
      break;
  }
  // A numeric label with a value that is not a finite number (`Duration: fast ms`) is recognised but sets nothing.
  const n = Number(value);
  const finite = Number.isFinite(n);
  switch (label) {
    case 'Duration':
      if (finite) fields.durationMs = n;
      return true;
    case 'Billed Duration':
      if (finite) fields.billedDurationMs = n;
      return true;
    case 'Memory Size':
      if (finite) fields.memorySizeMb = n;
      return true;
    case 'Max Memory Used':
      if (finite) fields.maxMemoryUsedMb = n;
      return true;
    case 'Init Duration':
      if (finite) fields.initDurationMs = n;
      return true;
    case 'Restore Duration':
      if (finite) fields.restoreDurationMs = n;
      return true;
    case 'Billed Restore Duration':
      if (finite) fields.billedRestoreDurationMs = n;
      return true;
    default:
      return false;
  }
}

/** `Label: value` labels by first character, so a label is matched in place, without slicing it out. */
const LABELS_BY_FIRST: ReadonlyMap<number, readonly string[]> = (() => {
  const byFirst = new Map<number, string[]>();
  for (const label of TEXT_LABELS) {
    const first = label.charCodeAt(0);
    byFirst.set(first, [...(byFirst.get(first) ?? []), label]);
  }
  return byFirst;
})();

/** The known label that is exactly `text[start, end)`, if any. */
function labelAt(text: string, start: number, end: number): string | undefined {
  const candidates = LABELS_BY_FIRST.get(text.charCodeAt(start));
  if (candidates === undefined) return undefined;
  for (const label of candidates) {
    if (label.length === end - start && text.startsWith(label, start)) return label;
  }
  return undefined;
}

/** Exactly the characters `\s` matches in a JavaScript regular expression. */
function isRegExpSpace(c: number): boolean {
  if (c <= 0x20) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  if (c < 0xa0) return false;
  return (
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/**
 * Real platform lines separate fields with tabs (`Duration: 9.14 ms\tBilled Duration: 10 ms\t...`,
 * then `\nXRAY TraceId: ...`): each tab- or newline-separated part is read as `Label: value` (the value up to
 * its first whitespace) in place, with indexOf and character tests: no split, no regular expression, and no
 * string but the value is cut out (REPORT lines are a tenth of a Lambda account's logs).
 */
function scanTabbed(rest: string, fields: LambdaFields): boolean {
  let found = false;
  const length = rest.length;
  // Newlines are rare (before the XRAY line): found once, and again only when passed.
  let newline = rest.indexOf('\n');
  for (let start = 0; start <= length;) {
    if (newline !== -1 && newline < start) newline = rest.indexOf('\n', start);
    const tab = rest.indexOf('\t', start);
    let end = tab === -1 ? length : tab;
    if (newline !== -1 && newline < end) end = newline;
    const labelStart = rest.startsWith('XRAY ', start) ? start + 5 : start;
    const colon = rest.indexOf(': ', labelStart);
    if (colon > labelStart && colon + 2 <= end) {
      const valueStart = colon + 2;
      let valueEnd = valueStart;
      while (valueEnd < end && !isRegExpSpace(rest.charCodeAt(valueEnd))) valueEnd++;
      const label = valueEnd > valueStart ? labelAt(rest, labelStart, colon) : undefined;
      if (label !== undefined && setField(fields, label, rest.slice(valueStart, valueEnd))) found = true;
    }
    start = end + 1;
  }
  return found;
}

/** Space-separated copies of platform lines (and START, which Lambda writes with spaces). */
function scanSpaced(rest: string, fields: LambdaFields): boolean {
  PAIR.lastIndex = 0;
  let found = false;
  for (let m = PAIR.exec(rest); m !== null; m = PAIR.exec(rest)) {
    setField(fields, m[1], m[2]);
    found = true;
  }
  return found;
}

/**
 * Derives `lambda` fields from a JSON-format platform event, or returns undefined when the
 * object is not one (`type` must start with `platform.` and `record` must be an object).
 */
export function parsePlatformJson(obj: Record<string, unknown>): LambdaFields | undefined {
  const type = obj.type;
  if (typeof type !== 'string' || !type.startsWith('platform.')) return undefined;
  const record = obj.record;
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return undefined;
  const r = record as Record<string, unknown>;
  const fields: LambdaFields = { type };
  copyString(r, 'requestId', fields, 'requestId');
  copyString(r, 'version', fields, 'version');
  copyString(r, 'status', fields, 'status');
  copyString(r, 'errorType', fields, 'errorType');
  copyString(r, 'runtimeVersion', fields, 'runtimeVersion');
  copyString(r, 'runtimeVersionArn', fields, 'runtimeVersionArn');
  const tracing = r.tracing;
  if (typeof tracing === 'object' && tracing !== null) {
    const value = (tracing as Record<string, unknown>).value;
    // `Root=1-...;Parent=...;Sampled=1`: the trace id is the Root part.
    if (typeof value === 'string') {
      const root = /(?:^|;)Root=([^;]+)/.exec(value);
      if (root) fields.xrayTraceId = root[1];
    }
  }
  const metrics = r.metrics;
  if (typeof metrics === 'object' && metrics !== null) {
    const m = metrics as Record<string, unknown>;
    if (type === 'platform.initReport') {
      // initReport's `durationMs` is the init phase's duration, which REPORT calls Init Duration.
      copyNumber(m, 'durationMs', fields, 'initDurationMs');
    } else if (type === 'platform.restoreReport') {
      copyNumber(m, 'durationMs', fields, 'restoreDurationMs');
    } else {
      copyNumber(m, 'durationMs', fields, 'durationMs');
    }
    copyNumber(m, 'billedDurationMs', fields, 'billedDurationMs');
    copyNumber(m, 'memorySizeMB', fields, 'memorySizeMb');
    copyNumber(m, 'maxMemoryUsedMB', fields, 'maxMemoryUsedMb');
    copyNumber(m, 'initDurationMs', fields, 'initDurationMs');
    copyNumber(m, 'restoreDurationMs', fields, 'restoreDurationMs');
    copyNumber(m, 'billedRestoreDurationMs', fields, 'billedRestoreDurationMs');
  }
  return fields;
}

function copyString(from: Record<string, unknown>, key: string, to: LambdaFields, as: StringKey): void {
  const value = from[key];
  if (typeof value === 'string') to[as] = value;
}

function copyNumber(from: Record<string, unknown>, key: string, to: LambdaFields, as: NumericKey): void {
  const value = from[key];
  if (typeof value === 'number' && Number.isFinite(value)) to[as] = value;
}
