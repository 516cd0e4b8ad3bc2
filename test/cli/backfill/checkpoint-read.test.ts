/**
 * Reading a checkpoint back (core/backfill/checkpoint-read.ts): every checkpoint is either a state whose every time
 * is a real one inside its window, or one line that names the file, the field and the bad value, with exit code 2.
 * One test per kind of bad field, then a property over generated checkpoints (a valid one with fields replaced by
 * generated JSON, odd numbers and time texts, or cut short).
 */
import fc from 'fast-check';
import { InvalidCheckpointError, parseCheckpoint } from '../../../core/backfill/checkpoint-read';
import type { CheckpointState } from '../../../core/backfill/model';
import { LATEST_TIME_MILLIS } from '../../../core/contracts/value-rules';
import {
  generatedCheckpoint,
  SINCE,
  validCheckpoint as valid,
  withValue,
} from '../../helpers/generated-checkpoints';

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
