/**
 * Every bad `kfek replay` command line gets one line that starts with `kfek`, names what is wrong, and a non-zero
 * exit: never a stack trace, Node's parser text or a silent success (issue 22 item 7). The cases are generated
 * from replay's option table, so an option added later is swept too. Nothing here reaches AWS: the endpoint is a
 * closed port and there are no credentials.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { run } from '../../../cli/main';
import { REPLAY_OPTIONS } from '../../../cli/replay/args';

const dir = mkdtempSync(path.join(tmpdir(), 'kfek-replay-bad-input-'));
const file = path.join(dir, 'a-file');
writeFileSync(file, 'not a folder');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What makes each option that takes a value run at all (`--local-dir` needs `--local`). */
const NEEDS: Readonly<Record<string, readonly string[]>> = { 'local-dir': ['--local'] };

/** Values each option that takes one refuses, with what the message must say. Every such option has some. */
const BAD_VALUES: Readonly<Record<string, readonly (readonly [string, RegExp])[]>> = {
  'local-dir': [
    ['/no/such/dir', /--local-dir \/no\/such\/dir does not exist/],
    [file, /is not a folder/],
  ],
  bucket: [
    ['s3://kfek-failed/dead-letter/', /is not a bucket name: give the name alone/],
    ['my bucket', /is not a bucket name/],
  ],
  'queue-url': [
    ['kfek-failures', /--queue-url "kfek-failures" is not an http\(s\) URL/],
    ['http://u:%zz@127.0.0.1:2/1/q', /broken %-escape/],
  ],
  profile: [
    ['no-such-profile', /unknown config profile "no-such-profile": cdk.json defines/],
    ['../x', /--profile "..\/x" is not a profile name of cdk.json/],
  ],
  kind: [['everything', /--kind "everything" is not one of/]],
  since: [
    ['-1h', /--since "-1h" is neither a duration \(24h\) nor an ISO time/],
    ['5', /--since "5" is neither/],
    ['yesterday', /is neither/],
    ['2026-02-31', /--since "2026-02-31" is neither/],
    ['99999999999h', /--since "99999999999h" is not a time a date can hold/],
    ['1e30h', /is neither/],
  ],
  until: [
    ['-5', /--until "-5" is neither/],
    ['99999999999h', /--until "99999999999h" is not a time a date can hold/],
    ['2026-13-01', /is neither/],
  ],
  reason: [],
  limit: [
    ['-1', /--limit "-1" must be a whole number >= 1/],
    ['0', /--limit "0" must be a whole number >= 1/],
    ['1.5', /must be a whole number/],
    ['99999999999999999999', /must be a whole number/],
  ],
  'raw-stream': [['kfek raw', /--raw-stream "kfek raw" is neither a Kinesis stream name nor its ARN/]],
  'events-stream': [
    ['arn:aws:sqs:eu-west-1:123456789012:q', /--events-stream ".*" is neither a Kinesis stream/],
  ],
  rate: [
    ['-5', /--rate "-5" is not a rate/],
    ['0', /--rate "0" is not a rate/],
    ['fast', /--rate "fast" is not a rate/],
    ['0.0000001', /--rate "0.0000001" is slower than one per 24 days/],
  ],
  endpoint: [
    ['ftp://127.0.0.1', /--endpoint "ftp:\/\/127.0.0.1" is not an http\(s\) URL/],
    ['http://[bad', /is not an http\(s\) URL/],
    ['http://127.0.0.1:2/?q=1', /has a query or a fragment/],
  ],
  region: [
    ['eu west 1', /--region "eu west 1" is not an AWS region such as us-east-1/],
    ['EU-WEST-1', /is not an AWS region/],
  ],
};

const valued = Object.entries(REPLAY_OPTIONS)
  .filter(([, spec]) => spec.type === 'string')
  .map(([name]) => name);

const cases: (readonly [string, readonly string[], RegExp])[] = [
  ...valued.flatMap((name) => {
    const needs = NEEDS[name] ?? [];
    const other = name === 'dry-run' ? '--json' : '--dry-run';
    return [
      [`--${name} without its value`, [...needs, `--${name}`], new RegExp(`--${name} needs a value`)],
      [`--${name} with an empty value`, [...needs, `--${name}`, ''], new RegExp(`--${name} needs a value`)],
      [
        `--${name} followed by another option`,
        [...needs, `--${name}`, other],
        new RegExp(`--${name} needs a value`),
      ],
      ...(name === 'kind'
        ? []
        : [
            [
              `--${name} given twice`,
              [...needs, `--${name}`, 'a', `--${name}`, 'b'],
              new RegExp(`--${name} is given more than once`),
            ] as const,
          ]),
      ...(BAD_VALUES[name] ?? []).map(
        ([value, message]) =>
          [`--${name} ${JSON.stringify(value)}`, [...needs, `--${name}`, value], message] as const,
      ),
    ] as const;
  }),
  ['a positional argument', ['dead-letter'], /unexpected argument "dead-letter": replay takes options only/],
  ['an unknown option', ['--bogus'], /unknown option --bogus/],
  ['an unknown short option', ['-x'], /unknown option -x/],
  ['a value for a flag', ['--dry-run=yes'], /--dry-run takes no value/],
  ['--local-dir without --local', ['--local-dir', dir], /--local-dir needs --local/],
  ['--local without npm start having run here', ['--local'], /--local-dir \.kfek\/local does not exist/],
  ['--since after --until', ['--since', '1h', '--until', '2h'], /--since \S+ is not before --until/],
  ['nothing to read', ['--dry-run'], /nothing to read: pass --local/],
];

describe('kfek replay refuses bad input in one line', () => {
  test('every option that takes a value has bad values in the sweep', () => {
    expect(valued.filter((name) => BAD_VALUES[name] === undefined)).toEqual([]);
  });

  test.each(cases)('%s', async (_what, argv, message) => {
    // GIVEN no credentials, a closed port as the endpoint unless the case sets one, and an empty working folder
    let stdout = '';
    let stderr = '';
    const endpoint = argv.includes('--endpoint') ? [] : ['--endpoint', 'http://127.0.0.1:9'];
    const region = argv.includes('--region') ? [] : ['--region', 'eu-west-1'];
    // (main hands its io to replay as it is, so replay sees the working folder: cli/replay/command.ts ReplayIo)
    const io = {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: {},
      cwd: dir,
    };
    // WHEN
    const code = await run(['replay', ...argv, ...endpoint, ...region], io);
    // THEN
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^kfek: replay: /)]);
    expect(stderr).toMatch(message);
  });
});
