import { parseReplayArgs } from '../../../cli/replay/args';
import { UsageError } from '../../../cli/errors';

const NOW = new Date('2026-11-23T12:00:00Z');

describe('parseReplayArgs', () => {
  test('defaults: every kind, nothing filtered, not a dry run, nothing deleted', () => {
    expect(parseReplayArgs(['--bucket', 'b'], NOW)).toEqual({
      command: 'replay',
      bucket: 'b',
      kinds: ['dead-letter', 'discarded-batch', 'failed-document', 'pipes-dlq'],
      dryRun: false,
      deleteAfter: false,
      json: false,
    });
  });

  test('every option', () => {
    const args = parseReplayArgs(
      [
        '--local',
        '--local-dir',
        'x/y',
        '--kind',
        'dead-letter,failed-document',
        '--kind',
        'dead-letter',
        '--since',
        '24h',
        '--until',
        '2026-11-23T11:00:00Z',
        '--reason',
        'mapper',
        '--limit',
        '10',
        '--raw-stream',
        'raw',
        '--events-stream',
        'events',
        '--rate',
        '3000/m',
        '--dry-run',
        '--delete-after',
        '--endpoint',
        'http://127.0.0.1:5000',
        '--region',
        'eu-west-1',
        '--profile',
        'sandbox',
        '--queue-url',
        'http://q',
        '--json',
      ],
      NOW,
    );
    expect(args).toEqual({
      command: 'replay',
      localDir: 'x/y',
      queueUrl: 'http://q',
      profile: 'sandbox',
      kinds: ['dead-letter', 'failed-document'],
      since: new Date('2026-11-22T12:00:00Z'),
      until: new Date('2026-11-23T11:00:00Z'),
      reason: 'mapper',
      limit: 10,
      rawStream: 'raw',
      eventsStream: 'events',
      ratePerSecond: 50,
      dryRun: true,
      deleteAfter: true,
      endpoint: 'http://127.0.0.1:5000',
      region: 'eu-west-1',
      json: true,
    });
  });

  test('--local reads .kfek/local by default; --help asks for the usage', () => {
    expect(parseReplayArgs(['--local'], NOW)).toMatchObject({ localDir: '.kfek/local' });
    expect(parseReplayArgs(['-h'], NOW)).toEqual({ command: 'replay-help' });
  });

  test.each([
    [['--kind', 'everything'], /--kind "everything" is not one of dead-letter, discarded-batch/],
    [['--limit', '0'], /--limit "0" is not a whole number >= 1/],
    [['--since', 'yesterday'], /--since "yesterday" is neither a duration \(24h\) nor an ISO time/],
    [['--since', '1h', '--until', '2h'], /--since is after --until/],
    [['--rate', 'fast'], /--rate "fast" is not a rate/],
    [['--local-dir', 'x'], /--local-dir needs --local/],
    [['--bogus'], /replay: Unknown option '--bogus'/],
  ])('fails with a usage error for %j', (argv, message) => {
    expect(() => parseReplayArgs(argv, NOW)).toThrow(UsageError);
    expect(() => parseReplayArgs(argv, NOW)).toThrow(message);
  });
});
