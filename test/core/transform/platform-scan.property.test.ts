/**
 * Property: the in-place scanner of tab-separated platform lines (`parsePlatformText`, issue 9's throughput work)
 * reads exactly what the former split-and-regex reading did, for any line made of known and unknown labels,
 * values, tabs, newlines, `XRAY ` prefixes and every kind of whitespace `\s` matches. The former reading is kept
 * here, verbatim, as the reference.
 */
import fc from 'fast-check';
import { parsePlatformText } from '../../../core/transform/parsers/platform';
import type { LambdaFields } from '../../../core/transform/parsers/types';

const NUMERIC: Readonly<Record<string, keyof LambdaFields>> = {
  Duration: 'durationMs',
  'Billed Duration': 'billedDurationMs',
  'Memory Size': 'memorySizeMb',
  'Max Memory Used': 'maxMemoryUsedMb',
  'Init Duration': 'initDurationMs',
  'Restore Duration': 'restoreDurationMs',
  'Billed Restore Duration': 'billedRestoreDurationMs',
};
const STRING: Readonly<Record<string, keyof LambdaFields>> = {
  RequestId: 'requestId',
  Version: 'version',
  Status: 'status',
  'Error Type': 'errorType',
  TraceId: 'xrayTraceId',
  'Runtime Version': 'runtimeVersion',
  'Runtime Version ARN': 'runtimeVersionArn',
};

/** The former `scanTabbed` (split on tabs and newlines, `search(/\s/)`), with the same field rules. */
function referenceScanTabbed(rest: string, fields: Record<string, unknown>): boolean {
  let found = false;
  for (let part of rest.split(/[\t\n]/)) {
    if (part.startsWith('XRAY ')) part = part.slice(5);
    const colon = part.indexOf(': ');
    if (colon <= 0) continue;
    let value = part.slice(colon + 2);
    const blank = value.search(/\s/);
    if (blank >= 0) value = value.slice(0, blank);
    if (value.length === 0) continue;
    const label = part.slice(0, colon);
    if (Object.hasOwn(NUMERIC, label)) {
      const n = Number(value);
      if (Number.isFinite(n)) fields[NUMERIC[label]] = n;
      found = true;
    } else if (Object.hasOwn(STRING, label)) {
      fields[STRING[label]] = value;
      found = true;
    }
  }
  return found;
}

const KEYWORDS = ['START', 'END', 'REPORT', 'INIT_START', 'INIT_REPORT', 'RESTORE_START', 'RESTORE_REPORT'];

/** The fields the former reading found (without `type`, which the scanner does not decide), or undefined. */
function reference(keyword: string, rest: string): Record<string, unknown> | undefined {
  const fields: Record<string, unknown> = {};
  if (!referenceScanTabbed(rest, fields)) return undefined;
  if (['START', 'END', 'REPORT'].includes(keyword) && !fields.requestId) return undefined;
  return fields;
}

const label = fc.oneof(
  fc.constantFrom(...Object.keys(NUMERIC), ...Object.keys(STRING)),
  fc.constantFrom('Phase', 'XRAY TraceId', 'Duration ', ' Duration', 'duration', 'Max Memory', 'R', ''),
);
const space = fc.constantFrom(
  ' ',
  '  ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\f',
  '\u00a0',
  '\u2003',
  '\u2028',
  '\ufeff',
);
const value = fc.oneof(
  fc.constantFrom('9.14', '10', '1e3', 'fast', '$LATEST', 'timeout', '-1', 'Infinity', '0x10', ''),
  fc.string({ maxLength: 6 }),
);
const unit = fc.constantFrom('', ' ms', ' MB', '\u00a0ms', ' x y');
const pair = fc
  .tuple(fc.boolean(), label, fc.constantFrom(': ', ':', ': : '), value, unit)
  .map(([xray, l, sep, v, u]) => `${xray ? 'XRAY ' : ''}${l}${sep}${v}${u}`);
const line = fc.tuple(
  fc.constantFrom(...KEYWORDS),
  fc.array(fc.tuple(pair, space), { minLength: 1, maxLength: 8 }),
);

test('the in-place tab scanner reads every tab-separated platform line as the split-and-regex reading did', () => {
  fc.assert(
    fc.property(line, ([keyword, parts]) => {
      // A tab anywhere makes the line tab-separated (what parsePlatformText checks).
      const rest = `${parts.map(([p, s]) => `${p}${s}`).join('')}\t`;
      const parsed = parsePlatformText(`${keyword} ${rest}`);
      const { type, ...fields } = parsed ?? { type: undefined };
      expect(parsed === undefined ? undefined : fields).toEqual(reference(keyword, rest));
      expect(parsed === undefined || /^platform\./.test(type ?? '')).toBe(true);
    }),
    { numRuns: 3000 },
  );
});
