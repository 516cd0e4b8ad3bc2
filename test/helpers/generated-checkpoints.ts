/**
 * Generated inputs for the properties over times and checkpoints (test/cli/backfill/checkpoint-read.test.ts,
 * test/cli/bad-input-sweep.test.ts): checkpoints as kfek writes them with fields replaced by generated JSON, odd
 * numbers and time texts, or cut short; and time option values of every shape people type or paste.
 */
import fc from 'fast-check';
import { LATEST_TIME_MILLIS } from '../../core/contracts/value-rules';

export const SINCE = Date.parse('2026-11-16T12:00:00.000Z');
export const UNTIL = Date.parse('2026-11-23T12:00:00.000Z');

/** A checkpoint as kfek writes it. */
export const validCheckpoint = (): Record<string, unknown> => ({
  version: 1,
  job: {
    logGroups: ['/a', '/b'],
    since: new Date(SINCE).toISOString(),
    until: new Date(UNTIL).toISOString(),
    rawStream: 'kfek-sandbox-raw',
  },
  profile: 'sandbox',
  typed: { since: '7d' },
  groups: { '/a': { done: false, from: SINCE + 86_400_000, writtenAtFrom: ['1'] }, '/b': { done: true } },
  counts: { read: 3, written: 2 },
  estimatedEvents: 10,
  runs: 2,
  startedAt: '2026-11-23T12:00:00.000Z',
  updatedAt: '2026-11-23T12:05:00.000Z',
});

/** `valid()` with the value at `path` replaced (`undefined` removes it). */
export function withValue(path: readonly string[], value: unknown): Record<string, unknown> {
  const doc = validCheckpoint();
  let parent: Record<string, unknown> = doc;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  const last = path[path.length - 1];
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return doc;
}

/** The paths a generated checkpoint replaces a value at. */
const PATHS: readonly (readonly string[])[] = [
  ['version'],
  ['job'],
  ['job', 'since'],
  ['job', 'until'],
  ['job', 'logGroups'],
  ['job', 'rawStream'],
  ['job', 'filterPattern'],
  ['profile'],
  ['typed'],
  ['typed', 'since'],
  ['typed', 'until'],
  ['groups'],
  ['groups', '/a'],
  ['groups', '/a', 'from'],
  ['groups', '/a', 'done'],
  ['groups', '/a', 'writtenAtFrom'],
  ['groups', '/c'],
  ['counts'],
  ['counts', 'read'],
  ['estimatedEvents'],
  ['runs'],
  ['startedAt'],
  ['updatedAt'],
];

/** Numbers at and past every edge a time or a count has. */
const ODD_NUMBERS = [
  1e300,
  -1e300,
  -1,
  -0.5,
  0,
  0.5,
  1e21,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  8.64e15,
  8.64e15 + 1,
  -8.64e15,
  LATEST_TIME_MILLIS,
  LATEST_TIME_MILLIS + 1,
  SINCE - 1,
  SINCE,
  UNTIL,
  UNTIL + 1,
];
export const TIME_TEXTS = [
  '5',
  'Tuesday',
  '',
  ' ',
  '2026-02-31',
  '2026-11-20T25:00:00Z',
  '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00Z',
  '1969-12-31T23:59:59.999Z',
  '2026-11-20T00:00:00Z junk',
  '9999-12-31T23:59:59.999Z',
  '2026-11-20T00:00:00+99:99',
  '2026-11-20',
  '2026-11-20 08:00',
  '7d',
  '1e300',
];

/** Values a time field might hold after a hand edit or another version: edge numbers, odd texts, any instant. */
const timeValue = fc.oneof(
  fc.constantFrom(...ODD_NUMBERS),
  fc.constantFrom(...TIME_TEXTS),
  fc.integer({ min: SINCE - 1e9, max: UNTIL + 1e9 }),
  fc.double(),
  fc
    .date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true })
    .map((d) => d.toISOString()),
);

const generatedValue = fc.oneof(fc.jsonValue(), timeValue, fc.constant(undefined));

/** The fields that hold a time: changed more often than the others. */
const TIME_PATHS: readonly (readonly string[])[] = [
  ['job', 'since'],
  ['job', 'until'],
  ['groups', '/a', 'from'],
  ['startedAt'],
  ['updatedAt'],
  ['typed', 'since'],
];

const change = fc.oneof(
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...PATHS), generatedValue) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...TIME_PATHS), timeValue) },
);

/** Where a checkpoint is cut short (a full disk), one time in ten. */
const cutAt = fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.nat() });

export const generatedCheckpoint = fc
  .tuple(fc.array(change, { minLength: 1, maxLength: 3 }), cutAt)
  .map(([changes, cut]) => {
    let doc: unknown = validCheckpoint();
    for (const [path, value] of changes) {
      // A change under a value an earlier change replaced applies to a fresh checkpoint instead.
      try {
        doc = withValueIn(doc as Record<string, unknown>, path, value);
      } catch {
        doc = withValue(path, value);
      }
    }
    const text = JSON.stringify(doc) ?? '';
    return cut === undefined ? text : text.slice(0, cut % (text.length + 1));
  });

function withValueIn(doc: Record<string, unknown>, path: readonly string[], value: unknown): unknown {
  let parent = doc;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  if (typeof parent !== 'object' || parent === null) throw new Error('no parent');
  if (value === undefined) delete parent[path[path.length - 1]];
  else parent[path[path.length - 1]] = value;
  return doc;
}

/** A number as text in the ways a time option might get one: whole, decimal, exponent, huge. */
const numberText = fc.oneof(
  fc.integer().map(String),
  fc.double().map(String),
  fc.bigInt({ min: 0n, max: 10n ** 400n }).map(String),
);

/** Durations of every unit kfek knows and some it does not, signed or not. */
const durationText = fc
  .tuple(
    fc.constantFrom('', '+', '-', ' '),
    numberText,
    fc.constantFrom('', 'ms', 's', 'm', 'h', 'd', 'w', 'y', 'D', 'H', ' d', 'd ', 'dd'),
  )
  .map(([sign, n, unit]) => `${sign}${n.replace(/^-/, '')}${unit}`);

const pad = (n: number, width: number): string =>
  n < 0 ? `-${String(-n).padStart(width, '0')}` : String(n).padStart(width, '0');

/** ISO-8601-shaped times, each part from well inside to far outside its range, with and without zones. */
const isoText = fc
  .record({
    year: fc.oneof(fc.integer({ min: 1960, max: 2100 }), fc.integer({ min: -300_000, max: 300_000 })),
    month: fc.integer({ min: 0, max: 13 }),
    day: fc.integer({ min: 0, max: 32 }),
    hour: fc.integer({ min: 0, max: 25 }),
    minute: fc.integer({ min: 0, max: 61 }),
    second: fc.integer({ min: 0, max: 61 }),
    fraction: fc.constantFrom('', '.5', '.123', '.123456789'),
    zone: fc.constantFrom('', 'Z', 'z', '+01:00', '-14:00', '+99:99', '+0530', ' UTC'),
    shape: fc.constantFrom('date', 'minutes', 'seconds', 'expanded'),
    junk: fc.constantFrom('', '', '', ' ', 'x', ' tomorrow', '\n'),
  })
  .map((t) => {
    const date =
      t.shape === 'expanded'
        ? `${t.year < 0 ? '-' : '+'}${String(Math.abs(t.year)).padStart(6, '0')}-${pad(t.month, 2)}-${pad(t.day, 2)}`
        : `${pad(t.year, 4)}-${pad(t.month, 2)}-${pad(t.day, 2)}`;
    if (t.shape === 'date') return `${date}${t.junk}`;
    const time =
      t.shape === 'minutes'
        ? `${pad(t.hour, 2)}:${pad(t.minute, 2)}`
        : `${pad(t.hour, 2)}:${pad(t.minute, 2)}:${pad(t.second, 2)}${t.fraction}`;
    return `${date}T${time}${t.zone}${t.junk}`;
  });

/** Times kfek takes, mostly: a duration before now or an ISO time, near the edges of the range too. */
const validTimeText = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 100_000 }), fc.constantFrom('ms', 's', 'm', 'h', 'd'))
    .map(([n, unit]) => `${n}${unit}`),
  fc
    .date({ min: new Date(0), max: new Date(LATEST_TIME_MILLIS), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc
    .date({
      min: new Date('2026-01-01T00:00:00Z'),
      max: new Date('2026-12-31T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString().slice(0, 19)),
);

/** Time option values: durations, ISO times, numbers, the odd texts above, and any text at all. */
export const generatedTimeText = fc.oneof(
  validTimeText,
  validTimeText,
  durationText,
  isoText,
  numberText,
  fc.constantFrom(...TIME_TEXTS, 'NaN', 'Infinity', '-Infinity', '+1d', '1e300', '100000d', '0s', '0'),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
