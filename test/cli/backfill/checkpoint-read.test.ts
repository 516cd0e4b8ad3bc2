/**
 * Reading a checkpoint back (cli/backfill/checkpoint-read.ts): every checkpoint is either a state whose every time
 * is a real one inside its window, or one line that names the file, the field and the bad value, with exit code 2.
 * One test per kind of bad field, then a property over generated checkpoints (a valid one with fields replaced by
 * generated JSON, odd numbers and time texts, or cut short).
 */
import fc from 'fast-check';
import { InvalidCheckpointError, parseCheckpoint } from '../../../cli/backfill/checkpoint-read';
import type { CheckpointState } from '../../../cli/backfill/checkpoint';
import { LATEST_TIME_MILLIS } from '../../../cli/args/values';

const SINCE = Date.parse('2026-11-16T12:00:00.000Z');
const UNTIL = Date.parse('2026-11-23T12:00:00.000Z');

/** A checkpoint as kfek writes it. */
const valid = (): Record<string, unknown> => ({
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
function withValue(path: readonly string[], value: unknown): Record<string, unknown> {
  const doc = valid();
  let parent: Record<string, unknown> = doc;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  const last = path[path.length - 1];
  if (value === undefined) delete parent[last];
  else parent[last] = value;
  return doc;
}

/** What parseCheckpoint threw, or undefined. */
function refusal(text: string): unknown {
  try {
    parseCheckpoint(text, '/s/checkpoint.json');
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('a checkpoint backfill cannot use is one line with exit code 2', () => {
  test.each([
    [
      'a position far past the window',
      ['groups', '/a', 'from'],
      1e300,
      /says \/a goes on at 1e\+300, which is after 9999/,
    ],
    ['a position before 1970', ['groups', '/a', 'from'], -1, /says \/a goes on at -1, which is before 1970/],
    [
      'a position between two milliseconds',
      ['groups', '/a', 'from'],
      SINCE + 0.5,
      /not a whole number of milli/,
    ],
    [
      'a position written as text',
      ['groups', '/a', 'from'],
      String(SINCE),
      /goes on at "\d+", which is not a time/,
    ],
    [
      'a position past what a Date holds',
      ['groups', '/a', 'from'],
      8.64e15 + 1,
      /which is not a time a date can hold|after 9999/,
    ],
    [
      'a start Date would guess (5 is May 2001)',
      ['job', 'since'],
      '5',
      /has job.since "5", which is not an ISO time/,
    ],
    ['a start as a number', ['job', 'since'], SINCE, /has job.since \d+, which is not an ISO time/],
    [
      'an end past year 9999',
      ['job', 'until'],
      '+275760-09-13T00:00:00.000Z',
      /job.until .*which is not an ISO time/,
    ],
    [
      'an end with text after it',
      ['job', 'until'],
      '2026-11-23T12:00:00Z tomorrow',
      /job.until .*not an ISO time/,
    ],
    ['an hour 25', ['job', 'until'], '2026-11-23T25:00:00Z', /job.until .*not an ISO time/],
    ['a start before 1970', ['job', 'since'], '1969-12-31T23:59:59Z', /job.since .*before 1970/],
    [
      'a done that is no boolean',
      ['groups', '/a', 'done'],
      'yes',
      /says \/a is done: "yes", which is neither/,
    ],
    ['a negative count', ['counts', 'read'], -1, /has counts.read -1, which is not a whole number >= 0/],
    ['a count as text', ['counts', 'written'], '2', /has counts.written "2"/],
    ['no runs', ['runs'], 0, /has runs 0, which is not a whole number >= 1/],
    ['an estimate of Infinity (null in JSON)', ['estimatedEvents'], null, /has estimatedEvents null/],
    [
      'event ids that are not text',
      ['groups', '/a', 'writtenAtFrom'],
      [1],
      /\[1\] as the events written of \/a/,
    ],
    [
      'a typed --since of two lines',
      ['typed', 'since'],
      '7d\nkfek: all is well',
      /has typed.since "7d\\nkfek/,
    ],
    ['a start time that is no time', ['startedAt'], 'yesterday', /has startedAt "yesterday"/],
    ['a profile name cdk.json cannot hold', ['profile'], '../x', /names "..\/x", which backfill refuses/],
    ['a log group twice', ['job', 'logGroups'], ['/a', '/a'], /lists the log group \/a twice/],
    ['another version', ['version'], 2, /is not a version 1 kfek backfill checkpoint \(version 2\)/],
    ['progress that is no object', ['groups'], [], /has groups \[\], not an object/],
  ])('fails for %s', (_, path, value, message) => {
    // GIVEN a checkpoint with one bad field
    const text = JSON.stringify(withValue(path, value));
    // WHEN it is read
    const error = refusal(text);
    // THEN it is refused in one line that names the file and what to do
    expect(error).toBeInstanceOf(InvalidCheckpointError);
    const { message: said, exitCode } = error as InvalidCheckpointError;
    expect(exitCode).toBe(2);
    expect(said).toMatch(message);
    expect(said).toMatch(/^backfill: the checkpoint \/s\/checkpoint.json .*: delete it to start over/);
    expect(said).not.toMatch(/\n/);
  });

  test('fails for a checkpoint cut short at any byte', () => {
    const text = JSON.stringify(valid(), null, 1);
    for (let end = 0; end < text.length; end++) {
      expect(refusal(text.slice(0, end))).toBeInstanceOf(InvalidCheckpointError);
    }
  });

  test('reads what kfek writes, the profile with it', () => {
    const state = parseCheckpoint(JSON.stringify(valid()), 'f');
    expect(state.profile).toBe('sandbox');
    expect(state.groups['/a'].from).toBe(SINCE + 86_400_000);
    expect(state.runs).toBe(2);
  });
});

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
const TIME_TEXTS = [
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

const generatedValue = fc.oneof(
  fc.jsonValue(),
  fc.constantFrom(...ODD_NUMBERS),
  fc.constantFrom(...TIME_TEXTS),
  fc.integer({ min: SINCE - 1e9, max: UNTIL + 1e9 }),
  fc
    .date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.constant(undefined),
);

const generatedCheckpoint = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...PATHS), generatedValue), { minLength: 1, maxLength: 3 }),
    fc.option(fc.nat(), { nil: undefined }),
  )
  .map(([changes, cut]) => {
    let doc: unknown = valid();
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

/** Every time of a state kfek would use: real, in 1970..9999, positions inside the window. */
function checkState(state: CheckpointState): void {
  const { since, until } = state.job;
  expect(since.getTime()).toBeLessThan(until.getTime());
  for (const t of [since.getTime(), until.getTime()]) {
    expect(Number.isInteger(t) && t >= 0 && t <= LATEST_TIME_MILLIS).toBe(true);
  }
  expect(() => [since, until].map((d) => d.toISOString())).not.toThrow();
  for (const progress of Object.values(state.groups)) {
    if (progress.from === undefined) continue;
    expect(Number.isInteger(progress.from)).toBe(true);
    expect(progress.from).toBeGreaterThanOrEqual(since.getTime());
    expect(progress.from).toBeLessThanOrEqual(until.getTime());
    expect(progress.writtenAtFrom.every((id) => typeof id === 'string')).toBe(true);
  }
  for (const n of [...Object.values(state.counts), state.runs, state.estimatedEvents ?? 0]) {
    expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
  }
  expect(new Date(state.startedAt).toISOString()).toBe(state.startedAt);
  expect(new Date(state.updatedAt).toISOString()).toBe(state.updatedAt);
}

test('every generated checkpoint is a state of real times, or one line with exit code 2', () => {
  fc.assert(
    fc.property(generatedCheckpoint, (text) => {
      const error = refusal(text);
      if (error === undefined) {
        checkState(parseCheckpoint(text, '/s/checkpoint.json'));
        return;
      }
      expect(error).toBeInstanceOf(InvalidCheckpointError);
      const { message, exitCode } = error as InvalidCheckpointError;
      expect(exitCode).toBe(2);
      expect(message).toMatch(/^backfill: the checkpoint \/s\/checkpoint.json /);
      expect(message).not.toMatch(/\n/);
      expect(message.length).toBeLessThan(600);
    }),
    { numRuns: 3000 },
  );
});
