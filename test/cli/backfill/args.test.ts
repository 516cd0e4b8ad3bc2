/** `kfek backfill`'s command line: what it accepts, its defaults, and the message for each mistake. */
import {
  BACKFILL_OPTIONS,
  BACKFILL_USAGE,
  type BackfillArgs,
  DEFAULT_RATE_PER_SECOND,
  parseBackfillArgs,
} from '../../../cli/backfill/args';
import { resumedJob } from '../../../cli/backfill/job';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileCheckpointStore } from '../../../cli/backfill/checkpoint';
import { parseCheckpoint } from '../../../core/backfill/checkpoint-read';
import { type CheckpointState, NO_COUNTS } from '../../../core/backfill/model';
import { UsageError } from '../../../cli/errors';
import { testTempDir } from '../../helpers/temp-dirs';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const parse = (...argv: string[]) => parseBackfillArgs(argv, NOW);

describe('parseBackfillArgs', () => {
  test('log groups (repeated or comma-separated), a relative --since, and the defaults', () => {
    expect(parse('--log-group', '/a,/b', '--log-group', '/c', '--log-group', '/a', '--since', '7d')).toEqual({
      command: 'backfill',
      logGroups: ['/a', '/b', '/c'],
      sinceText: '7d',
      since: new Date('2026-11-16T12:00:00.000Z'),
      ratePerSecond: DEFAULT_RATE_PER_SECOND,
      dryRun: false,
      resume: false,
      stateDir: '.kfek/backfill',
      json: false,
    });
  });

  test('every option', () => {
    expect(
      parse(
        '--profile',
        'sandbox',
        '--since',
        '2026-11-20T00:00:00Z',
        '--until',
        '1h',
        '--filter-pattern',
        'ERROR',
        '--rate',
        '60000/m',
        '--dry-run',
        '--state-dir',
        '/tmp/x',
        '--raw-stream',
        'kfek-sandbox-raw',
        '--endpoint',
        'http://127.0.0.1:5000',
        '--region',
        'eu-west-1',
        '--json',
      ),
    ).toMatchObject({
      profile: 'sandbox',
      since: new Date('2026-11-20T00:00:00Z'),
      untilText: '1h',
      until: new Date('2026-11-23T11:00:00.000Z'),
      filterPattern: 'ERROR',
      ratePerSecond: 1000,
      dryRun: true,
      stateDir: '/tmp/x',
      rawStream: 'kfek-sandbox-raw',
      endpoint: 'http://127.0.0.1:5000',
      region: 'eu-west-1',
      json: true,
    });
    expect(parse('--resume')).toMatchObject({ resume: true, logGroups: [] });
    expect(parse('--help')).toEqual({ command: 'backfill-help' });
  });

  test('the help describes every option the parser accepts', () => {
    for (const option of Object.keys(BACKFILL_OPTIONS)) {
      expect(BACKFILL_USAGE).toMatch(new RegExp(`^ {2}--${option}\\b`, 'm'));
    }
  });

  test.each([
    [['--log-group', '/a'], /--since is required/],
    [['--since', 'yesterday'], /--since "yesterday" is neither a duration \(24h\) nor an ISO time/],
    [['--since', '1h', '--until', '2h'], /--since .* is not before --until/],
    [['--since', '2026-11-24T00:00:00Z'], /is not before now/],
    [['--since', '1h', '--rate', 'fast'], /--rate "fast" is not a rate/],
    [['--resume', '--dry-run'], /--dry-run estimates a new backfill/],
    [
      ['--since', '1h', '--endpoint', 'localhost:5000'],
      /--endpoint "localhost:5000" is not an http\(s\) URL/,
    ],
    [['--since', '1h', '--bogus'], /backfill: unknown option --bogus \(kfek backfill --help lists them\)/],
  ])('fails when %j', (argv, message) => {
    expect(() => parse(...argv)).toThrow(UsageError);
    expect(() => parse(...argv)).toThrow(message);
  });
});

describe('parseCheckpoint', () => {
  const job = {
    logGroups: ['/a'],
    since: '2026-11-16T12:00:00.000Z',
    until: '2026-11-23T12:00:00.000Z',
    rawStream: 'kfek-sandbox-raw',
  };
  const checkpoint = (over: Record<string, unknown>, groups: Record<string, unknown> = {}): string =>
    JSON.stringify({ version: 1, job: { ...job, ...over }, typed: { since: '7d' }, groups, runs: 1 });

  test.each([
    [
      'a window that ends before it starts',
      checkpoint({ since: job.until, until: job.since }),
      /ends .* before it starts/,
    ],
    [
      'a position past the window',
      checkpoint({}, { '/a': { done: false, from: Date.parse('2026-12-01T00:00:00Z'), writtenAtFrom: [] } }),
      /says \/a goes on at 2026-12-01T00:00:00.000Z, outside its window/,
    ],
    [
      'a stream name --raw-stream refuses',
      checkpoint({ rawStream: 'bad name/x' }),
      /names "bad name\/x", which backfill refuses/,
    ],
    [
      'a log group name --log-group refuses',
      checkpoint({ logGroups: ['bad group*'] }),
      /names "bad group\*", which backfill refuses/,
    ],
    ['no log groups', checkpoint({ logGroups: [] }), /has no readable job/],
    [
      'progress for a group that is not its own',
      checkpoint({}, { '/other': { done: true, writtenAtFrom: [] } }),
      /has progress for "\/other", which is not one of its log groups/,
    ],
  ])('fails with exit code 2 for %s', (_, text, message) => {
    let error: unknown;
    try {
      parseCheckpoint(text, 'f');
    } catch (e) {
      error = e;
    }
    expect((error as Error).message).toMatch(message);
    expect((error as { exitCode?: number }).exitCode).toBe(2);
  });

  test('fails on anything but a version 1 checkpoint, saying which file and what to do', () => {
    expect(() => parseCheckpoint('{', '/s/checkpoint.json')).toThrow(
      /the checkpoint \/s\/checkpoint.json is not JSON: delete it to start over .* or pass --state-dir/,
    );
    expect(() => parseCheckpoint('{"version":2}', 'f')).toThrow(
      /is not a version 1 kfek backfill checkpoint/,
    );
    expect(() => parseCheckpoint('{"version":1,"job":{},"groups":{}}', 'f')).toThrow(/has no readable job/);
  });

  test('reads back what it wrote, dates as dates', () => {
    const state = parseCheckpoint(
      JSON.stringify({
        version: 1,
        job: {
          logGroups: ['/a'],
          since: '2026-11-16T12:00:00.000Z',
          until: '2026-11-23T12:00:00.000Z',
          rawStream: 'r',
        },
        typed: { since: '7d' },
        groups: { '/a': { done: false, from: Date.parse('2026-11-17T00:00:00.005Z'), writtenAtFrom: ['1'] } },
        counts: { read: 3, written: 2 },
        runs: 2,
      }),
      'f',
    );
    expect(state.job.since).toEqual(new Date('2026-11-16T12:00:00.000Z'));
    expect(state.groups['/a']).toEqual({
      done: false,
      from: Date.parse('2026-11-17T00:00:00.005Z'),
      writtenAtFrom: ['1'],
    });
    expect(state.counts).toMatchObject({ read: 3, written: 2, failed: 0 });
    expect(state.typed).toEqual({ since: '7d' });
    expect(state.runs).toBe(2);
  });

  test('a file checkpoint is written whole and read back; one that cannot be written says so', async () => {
    const dir = testTempDir('kfek-backfill-checkpoint-');
    const state: CheckpointState = {
      version: 1,
      job: {
        logGroups: ['/a'],
        since: new Date(1_000),
        until: new Date(2_000),
        rawStream: 'r',
        filterPattern: 'ERROR',
      },
      typed: { since: '1970-01-01T00:00:01Z' },
      groups: { '/a': { done: false, from: 1_500, writtenAtFrom: ['7'] } },
      counts: { ...NO_COUNTS, read: 10, written: 9, skipped: 1 },
      estimatedEvents: 12,
      runs: 1,
      startedAt: '2026-11-23T12:00:00.000Z',
      updatedAt: '2026-11-23T12:00:00.000Z',
    };
    const store = fileCheckpointStore(path.join(dir, 'nested', 'checkpoint.json'));
    await store.save(state);
    await expect(store.load()).resolves.toEqual(state);
    const file = path.join(dir, 'a-file');
    writeFileSync(file, '');
    await expect(fileCheckpointStore(path.join(file, 'checkpoint.json')).save(state)).rejects.toThrow(
      /^backfill: cannot write the checkpoint .*a-file\/checkpoint.json \(.*\): pass a --state-dir you can write to$/,
    );
  });
});

describe('resumedJob', () => {
  const state = (profile?: string): CheckpointState => ({
    version: 1,
    job: { logGroups: ['/a'], since: new Date(1_000), until: new Date(2_000), rawStream: 'kfek-teama-raw' },
    ...(profile !== undefined ? { profile } : {}),
    typed: { since: '1970-01-01T00:00:01Z' },
    groups: {},
    counts: NO_COUNTS,
    runs: 1,
    startedAt: '2026-11-23T12:00:00.000Z',
    updatedAt: '2026-11-23T12:00:00.000Z',
  });
  const resume = parse('--resume') as BackfillArgs;

  test('fails with exit code 2 when the checkpoint was written for another profile', () => {
    // GIVEN a checkpoint of profile teama WHEN resumed with the profile sandbox
    let error: unknown;
    try {
      resumedJob(resume, state('teama'), '/s/checkpoint.json', 'sandbox');
    } catch (e) {
      error = e;
    }
    // THEN it is refused, saying which profile to give
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(
      /^backfill: --resume found a backfill of profile teama in \/s\/checkpoint.json, not of profile sandbox: add --profile teama/,
    );
  });

  test('goes on with the profile it was written for, and with a checkpoint that names none (an earlier kfek)', () => {
    expect(resumedJob(resume, state('teama'), 'f', 'teama').rawStream).toBe('kfek-teama-raw');
    expect(resumedJob(resume, state(), 'f', 'sandbox').rawStream).toBe('kfek-teama-raw');
  });
});
