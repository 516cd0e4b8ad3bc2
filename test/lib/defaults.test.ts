import { Duration } from 'aws-cdk-lib';
import { withDefaults } from '../../lib/defaults';

interface Props {
  readonly name: string;
  readonly batchSize?: number;
  readonly window?: Duration;
}

const DEFAULTS = { batchSize: 10, window: Duration.seconds(1) };

test('given props win over defaults, and missing ones take the default', () => {
  // GIVEN
  const given: Props = { name: 'x', batchSize: 5 };
  // WHEN
  const p = withDefaults(DEFAULTS, given);
  // THEN
  expect(p.name).toBe('x');
  expect(p.batchSize).toBe(5);
  expect(p.window.toSeconds()).toBe(1);
});

test('a prop passed as undefined does not hide its default', () => {
  // GIVEN
  const given: Props = { name: 'x', batchSize: undefined };
  // WHEN
  const p = withDefaults(DEFAULTS, given);
  // THEN
  expect(p.batchSize).toBe(10);
});

test('falsy values that are set (0, false, empty string) are kept', () => {
  const p = withDefaults({ count: 3, on: true, label: 'a' }, { count: 0, on: false, label: '' });
  expect(p).toEqual({ count: 0, on: false, label: '' });
});
