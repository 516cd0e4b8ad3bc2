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

const TEXT_NUMERIC: Readonly<Record<string, NumericKey>> = {
  Duration: 'durationMs',
  'Billed Duration': 'billedDurationMs',
  'Memory Size': 'memorySizeMb',
  'Max Memory Used': 'maxMemoryUsedMb',
  'Init Duration': 'initDurationMs',
  'Restore Duration': 'restoreDurationMs',
  'Billed Restore Duration': 'billedRestoreDurationMs',
};
const TEXT_STRING: Readonly<Record<string, StringKey>> = {
  RequestId: 'requestId',
  Version: 'version',
  Status: 'status',
  'Error Type': 'errorType',
  TraceId: 'xrayTraceId',
  'Runtime Version': 'runtimeVersion',
  'Runtime Version ARN': 'runtimeVersionArn',
};

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

function setField(fields: LambdaFields, label: string, value: string): boolean {
  const numeric = TEXT_NUMERIC[label];
  if (numeric !== undefined) {
    const n = Number(value);
    if (Number.isFinite(n)) fields[numeric] = n;
    return true;
  }
  const key = TEXT_STRING[label];
  if (key === undefined) return false;
  fields[key] = value;
  return true;
}

/**
 * Real platform lines separate fields with tabs (`Duration: 9.14 ms\tBilled Duration: 10 ms\t...`,
 * then `\nXRAY TraceId: ...`): split on tabs and read `Label: value` with indexOf, much cheaper
 * than running the pattern over the line.
 */
const TAB_OR_NEWLINE = /[\t\n]/;

function scanTabbed(rest: string, fields: LambdaFields): boolean {
  let found = false;
  for (let part of rest.split(TAB_OR_NEWLINE)) {
    if (part.startsWith('XRAY ')) part = part.slice(5);
    const colon = part.indexOf(': ');
    if (colon <= 0) continue;
    let value = part.slice(colon + 2);
    const blank = value.search(/\s/);
    if (blank >= 0) value = value.slice(0, blank);
    if (value.length > 0 && setField(fields, part.slice(0, colon), value)) found = true;
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
