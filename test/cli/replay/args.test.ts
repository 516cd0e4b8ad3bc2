import { parseReplayArgs } from '../../../cli/replay/args';
import { UsageError } from '../../../cli/errors';

const NOW = new Date('2026-11-23T12:00:00Z');

describe('parseReplayArgs', () => {
  test('defaults: every kind, nothing filtered, not a dry run, nothing deleted', () => {
    expect(parseReplayArgs(['--bucket', 'kfek-failed'], NOW)).toEqual({
      command: 'replay',
      bucket: 'kfek-failed',
      kinds: ['dead-letter', 'discarded-batch', 'failed-document', 'pipes-dlq'],
      eventsWindow: false,
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
      eventsWindow: false,
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
    [
      ['--kind', 'everything'],
      /--kind "everything" is not one of dead-letter, discarded-batch, failed-document, pipes-dlq, events-window/,
    ],
    [['--limit', '0'], /--limit "0" must be a whole number >= 1/],
    [['--since', 'yesterday'], /--since "yesterday" is neither a duration \(24h\) nor an ISO time/],
    [['--since', '1h', '--until', '2h'], /--since \S+ is not before --until/],
    [['--rate', 'fast'], /--rate "fast" is not a rate/],
    [['--local-dir', 'x'], /--local-dir needs --local/],
    [['--bogus'], /replay: unknown option --bogus \(kfek replay --help lists them\)/],
  ])('fails with a usage error for %j', (argv, message) => {
    expect(() => parseReplayArgs(argv, NOW)).toThrow(UsageError);
    expect(() => parseReplayArgs(argv, NOW)).toThrow(message);
  });

  describe('--kind events-window', () => {
    test('reads the events stream from --since, with --until, --limit, --rate and --dry-run', () => {
      expect(
        parseReplayArgs(
          [
            '--kind',
            'events-window',
            '--since',
            '2026-11-23T08:00:00Z',
            '--until',
            '2h',
            '--events-stream',
            'kfek-sandbox-events',
            '--limit',
            '100',
            '--rate',
            '50',
            '--dry-run',
          ],
          NOW,
        ),
      ).toMatchObject({
        eventsWindow: true,
        since: new Date('2026-11-23T08:00:00Z'),
        until: new Date('2026-11-23T10:00:00Z'),
        eventsStream: 'kfek-sandbox-events',
        limit: 100,
        ratePerSecond: 50,
        dryRun: true,
      });
      expect(
        parseReplayArgs(['--kind', 'events-window', '--since', '6h', '--profile', 'sandbox'], NOW),
      ).toMatchObject({ eventsWindow: true, profile: 'sandbox', since: new Date('2026-11-23T06:00:00Z') });
    });

    test.each([
      [['--kind', 'events-window'], /--kind events-window needs --since: the time \(ISO\) or the duration/],
      [
        ['--kind', 'events-window,failed-document', '--since', '1h'],
        /--kind events-window reads the events stream itself and is run alone, not with failed-document: run two replays/,
      ],
      [
        ['--kind', 'events-window', '--since', '1h', '--bucket', 'b', '--delete-after'],
        /--bucket, --delete-after do not apply to --kind events-window, which reads the events stream/,
      ],
      [
        ['--kind', 'events-window', '--since', '1h', '--local'],
        /--local does not apply to --kind events-window/,
      ],
      [['--kind', 'events-window', '--since', '1h', '--reason', 'x'], /--reason does not apply/],
      [
        ['--kind', 'events-window', '--since', '2026-11-24T00:00:00Z'],
        /--since 2026-11-24T00:00:00.000Z is not before now/,
      ],
    ])('fails with a usage error for %j', (argv, message) => {
      expect(() => parseReplayArgs(argv, NOW)).toThrow(UsageError);
      expect(() => parseReplayArgs(argv, NOW)).toThrow(message);
    });
  });
});
