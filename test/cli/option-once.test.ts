/** Every command refuses an option that takes one value given twice (a second one would silently win). */
import { parseCliArgs } from '../../cli/args';
import { parseBackfillArgs } from '../../cli/backfill/args';
import { UsageError } from '../../cli/errors';

const NOW = new Date('2026-11-23T12:00:00Z');

describe('an option given twice', () => {
  test.each([
    [['send', '--log-group', 'g', '--count', '1', '--count', '2'], /^send: --count is given more than once/],
    [
      ['verify', '--run-id', 'a', '--run-id', 'b', '--opensearch', 'http://127.0.0.1:2'],
      /^verify: --run-id is given/,
    ],
    [['events-window', '--since', '1h', '--since', '2h'], /^events-window: --since is given more than once/],
    [['reconcile', '--since', '1h', '--since=2h'], /^reconcile: --since is given more than once/],
  ])('fails for %j', (argv, message) => {
    expect(() => parseCliArgs(argv)).toThrow(UsageError);
    expect(() => parseCliArgs(argv)).toThrow(message);
  });

  test('fails for backfill too, which reads the same table', () => {
    expect(() => parseBackfillArgs(['--since', '1h', '--rate', '5', '--rate', '6'], NOW)).toThrow(
      /^backfill: --rate is given more than once/,
    );
  });

  test('is fine for an option that takes many (--log-group)', () => {
    expect(
      parseCliArgs(['query', '--name', 'latest-errors', '--log-group', 'a', '--log-group', 'b']),
    ).toMatchObject({
      logGroupNames: ['a', 'b'],
    });
  });
});
