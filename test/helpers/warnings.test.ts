/**
 * The warning filter of every test file (test/helpers/jest-setup.ts): it drops the AWS SDK's Node version warning,
 * which the SDK emits as a plain string (so its name is `Warning`, not `NodeVersionSupportWarning`), and nothing else.
 */
import { dropNodeVersionSupportWarning, isNodeVersionSupportWarning } from './warnings';

/** The text @aws-sdk/core's emitWarningIfUnsupportedVersion passes to process.emitWarning, as one string. */
const SDK_WARNING =
  'NodeVersionSupportWarning: The AWS SDK for JavaScript (v3)\nversions published after the first week of January 2027\nwill require node >=22. You are running node v20.20.2.';

describe('isNodeVersionSupportWarning', () => {
  test.each([
    ['the SDK string, no type', SDK_WARNING, undefined],
    ['a string with that type', 'later releases need Node 22', 'NodeVersionSupportWarning'],
    [
      'a string with that type in options',
      'later releases need Node 22',
      { type: 'NodeVersionSupportWarning' },
    ],
    [
      'an Error of that name',
      Object.assign(new Error('x'), { name: 'NodeVersionSupportWarning' }),
      undefined,
    ],
  ])('drops %s', (_, warning, type) => {
    expect(isNodeVersionSupportWarning(warning, type)).toBe(true);
  });

  test.each([
    ['another string warning', 'something else happened', undefined],
    ['a deprecation', 'Buffer() is deprecated', 'DeprecationWarning'],
    ['a warning that only mentions it', `see ${SDK_WARNING}`, undefined],
    [
      'an Error of another name',
      Object.assign(new Error(SDK_WARNING.slice(27)), { name: 'Warning' }),
      undefined,
    ],
  ])('keeps %s', (_, warning, type) => {
    expect(isNodeVersionSupportWarning(warning, type)).toBe(false);
  });
});

describe('dropNodeVersionSupportWarning', () => {
  test('passes every other warning on to the original emitWarning, with its arguments', () => {
    // GIVEN a process whose emitWarning records its calls
    const calls: unknown[][] = [];
    const target = {
      emitWarning: (...args: unknown[]): void => {
        calls.push(args);
      },
    };
    // WHEN the filter is installed and three warnings are emitted
    dropNodeVersionSupportWarning(target);
    target.emitWarning(SDK_WARNING);
    target.emitWarning('kept', 'DeprecationWarning');
    target.emitWarning('also kept', { type: 'Warning', code: 'X1' });
    // THEN only the SDK's is gone
    expect(calls).toEqual([
      ['kept', 'DeprecationWarning'],
      ['also kept', { type: 'Warning', code: 'X1' }],
    ]);
  });
});
