/**
 * A generated sweep of bad command lines. For every command and every option it accepts, it runs `kfek` in-process
 * with values that are wrong for that option: empty, blank, negative, not a number, too large, malformed URLs,
 * regions, durations and times, and the value left out. Each line must end with exit code 2 and one line starting
 * with `kfek`, never a stack trace, and before anything is sent anywhere: every socket connect and
 * child process is refused and recorded, so a value that slips through fails here at once instead of waiting on a
 * network timeout.
 *
 * Where the options come from, so that a new command or option is swept without a change here:
 * - the one option table of cli/args/options.ts: for the commands it parses (send, verify, query, proxy, doctor,
 *   reconcile, events-window) one test per line; for the commands with their own help text and checks (replay,
 *   backfill: the overview names them with "kfek X --help for all options"), one test per command that lists
 *   every line that failed.
 *
 * Each command line is otherwise valid ({@link BASE}), so the value under test is what stops it. A value is only
 * generated where it is wrong: the lists by kind ({@link BAD}) hold what is wrong for every option of that kind, and
 * {@link EXTRA} what is wrong for one option only (0 is a fine --seed, --expect or --port, a bare word a fine name).
 *
 * Then generated values (issue 39): --since/--until texts for every command that reads a window, and checkpoints for
 * `kfek backfill --resume` (test/helpers/generated-checkpoints.ts).
 */
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { USAGE } from '../../cli/args';
import { ALL_OPTIONS, OPTIONS } from '../../cli/args/options';
import { COMMAND_NAMES } from '../../cli/args/types';
import { parseTimeWindow, type TimeWindow } from '../../cli/args/time-window';
import { timeProblem } from '../../core/contracts/value-rules';
import { UsageError } from '../../cli/errors';
import { run } from '../../cli/main';
import { generatedCheckpoint, generatedTimeText } from '../helpers/generated-checkpoints';

// The real module objects (not the test's own import bindings), so what the CLI calls is what is replaced.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const net = require('node:net') as typeof import('node:net');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const childProcess = require('node:child_process') as typeof import('node:child_process');

/**
 * Nothing listens here, and no connection is ever made (connect is refused below before it starts). Port 2, not 1
 * or 9: fetch refuses its "bad ports" before it connects, where the sweep would not see the attempt.
 */
const CLOSED = 'http://127.0.0.1:2';

let scratch: string;
const connects: string[] = [];
const children: string[] = [];
const savedEnv = { ...process.env };

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'kfek-sweep-'));
  // The SDK reads process.env, not the CLI's io.env: dummy credentials, no instance metadata, no profile files.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: 'sweep',
    AWS_SECRET_ACCESS_KEY: 'sweep',
    AWS_REGION: 'us-east-1',
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_ENDPOINT_URL: CLOSED,
    AWS_CONFIG_FILE: join(scratch, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(scratch, 'no-credentials'),
  });
  delete process.env.AWS_PROFILE;
  jest.spyOn(net.Socket.prototype, 'connect').mockImplementation(function (
    this: import('node:net').Socket,
    ...args
  ) {
    // Node's own callers pass their normalized arguments as one array: [options, callback].
    const [first] = args as unknown[];
    const target = (Array.isArray(first) ? first[0] : first) as {
      host?: string;
      port?: number;
      path?: string;
    };
    connects.push(`${target.host ?? target.path ?? '?'}:${target.port ?? ''}`);
    const refused = Object.assign(new Error('connect ECONNREFUSED (refused by the sweep)'), {
      code: 'ECONNREFUSED',
    });
    process.nextTick(() => this.destroy(refused));
    return this;
  });
  for (const name of [
    'spawn',
    'spawnSync',
    'execFile',
    'execFileSync',
    'exec',
    'execSync',
    'fork',
  ] as const) {
    jest.spyOn(childProcess, name).mockImplementation(((command: string) => {
      children.push(String(command));
      throw new Error(`child process ${String(command)} refused by the sweep`);
    }) as never);
  }
});

afterAll(() => {
  jest.restoreAllMocks();
  process.env = savedEnv;
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * An otherwise valid command line of each command, pointed at a closed port; `<scratch>` is an empty folder (so
 * doctor reads it instead of starting cdk synth, and replay and backfill find nothing kept there). A command not
 * listed (one added after this file) is swept with no base: its own required options then stop most lines, which
 * still proves each message is short; add its base here to sweep each value on its own.
 */
const BASE: Readonly<Record<string, readonly string[]>> = {
  send: ['--log-group', 'kfek-sweep', '--endpoint', CLOSED],
  verify: ['--run-id', 'sweep', '--opensearch', CLOSED],
  query: ['--name', 'latest-errors', '--log-group', 'kfek-sweep', '--endpoint', CLOSED],
  proxy: ['--endpoint', CLOSED, '--region', 'us-east-1'],
  doctor: ['--region', 'us-east-1', '--cdk-out', '<scratch>'],
  replay: ['--local', '--local-dir', '<scratch>', '--dry-run'],
  backfill: [
    '--log-group',
    'kfek-sweep',
    '--since',
    '1h',
    '--endpoint',
    CLOSED,
    '--state-dir',
    '<scratch>',
    '--dry-run',
  ],
  'events-window': [
    '--since',
    '1h',
    '--events-stream',
    'kfek-sweep-events',
    '--endpoint',
    CLOSED,
    '--dry-run',
  ],
  reconcile: [
    '--log-group',
    'kfek-sweep',
    '--since',
    '1h',
    '--endpoint',
    CLOSED,
    '--opensearch',
    CLOSED,
    '--local-dir',
    '<scratch>',
  ],
};

type Kind =
  'count' | 'duration' | 'rate' | 'url' | 'host-or-url' | 'region' | 'name' | 'path' | 'time' | 'arn';

/** Kinds of the options whose value label is ambiguous (`S` is a duration, but also send's log stream). */
const KIND_OF_OPTION: Readonly<Record<string, Kind>> = {
  'send --log-stream': 'name',
  'proxy --endpoint': 'host-or-url',
  'proxy --port': 'count',
  'doctor --cdk-out': 'path',
};

/**
 * Kinds by the value label the help shows (`--count N`, `--since 24h|ISO-TIME`). A label not here (TEXT, P, KIND)
 * gets only the value left out: an empty filter pattern, for one, may well mean "every event".
 */
function kindOfLabel(label: string): Kind | undefined {
  if (/ISO-TIME|^T$|^TIME$/.test(label)) return 'time';
  if (/ARN/.test(label)) return 'arn';
  if (/\/s$/.test(label)) return 'rate';
  const byLabel: Readonly<Record<string, Kind>> = {
    N: 'count',
    S: 'duration',
    D: 'duration',
    URL: 'url',
    'DOMAIN-ENDPOINT': 'host-or-url',
    R: 'region',
    G: 'name',
    ID: 'name',
    NAME: 'name',
    PATTERN: 'name',
    F: 'name',
    DIR: 'path',
  };
  return byLabel[label];
}

const HUGE_DIGITS = '9'.repeat(400);

/** Values wrong for every option of a kind; '', ' ' and a tab are added to every kind. */
const BAD: Readonly<Record<Kind, readonly string[]>> = {
  count: ['-1', '1.5', 'NaN', 'abc', '1e308', HUGE_DIGITS, '0x10', '10 20', 'Infinity'],
  duration: ['-1', '-5s', 'NaN', 'abc', '5x', '1h30m', '1e308', HUGE_DIGITS, 'Infinity', '99999999d'],
  rate: ['-1', '0', '0/s', 'NaN', 'abc', '1e308', HUGE_DIGITS, '1e-7', '0.0000001', '5/h'],
  url: [
    'abc',
    '-1',
    '1e308',
    'ftp://127.0.0.1',
    'http://',
    'http://[::1',
    'http://u:%zz@127.0.0.1:2',
    'http://127.0.0.1:99999',
    'http://127.0.0.1:2/?q=1',
    'http://127.0.0.1:2/#f',
  ],
  'host-or-url': [
    'ftp://127.0.0.1',
    'http://',
    'http://[::1',
    'a b',
    'http://u:%zz@127.0.0.1:2',
    'http://127.0.0.1:99999',
  ],
  region: ['abc', 'US-EAST-1', 'us_east_1', '-1', '1e308', 'us-east-1 x', 'x'.repeat(100)],
  // A bare word is a fine name: what is wrong for one named option is in EXTRA.
  name: [],
  // Not swept: a path that does not exist. `doctor --cdk-out /no/such/dir` is valid-looking; the doctor asks STS
  // who you are, then reports the unreadable assembly as its failed `synth` check among the others (by design:
  // every check in one report), so that line would go to the network.
  path: [],
  time: [
    'abc',
    '-1',
    'NaN',
    '1e308',
    '99999-01-01T00:00:00Z',
    // Year 99999 written as ISO 8601's expanded year: a valid Date, and an absurd one.
    '+099999-01-01T00:00:00Z',
    '2026-13-45T00:00:00Z',
    // Issue 39: what a Date takes but no log or stream holds (before 1970: a negative startTime), no hour 25, no
    // zone +99:99, no text after the time, no time in the future written as +1d, no epoch number.
    '1969-12-31T23:59:59Z',
    '0000-01-01',
    '100000d',
    '+1d',
    '1e300',
    '-Infinity',
    '2026-11-29T25:00:00Z',
    '2026-01-01T00:00:00+99:99',
    '2026-01-01T00:00:00Z junk',
    '1700000000000',
  ],
  arn: ['arn:aws:bad', 'arn:aws:kinesis:us-east-1:123:stream', 'a b'],
};

/** Values wrong for one option only. */
const EXTRA: Readonly<Record<string, readonly string[]>> = {
  'send --count': ['0'],
  'send --log-group': ['a b', 'group*', 'x'.repeat(513)],
  'send --log-stream': ['a:b', 'a*b', 'x'.repeat(513)],
  'send --run-id': ['a b', 'x'.repeat(65)],
  'verify --run-id': ['a b', 'x'.repeat(65)],
  'verify --index': ['a/b', 'a b'],
  'verify --interval': ['0'],
  'query --name': ['x'.repeat(256)],
  'query --log-group': ['a b', 'group*', 'x'.repeat(513)],
  'query --profile': ['a b', '../x'],
  'query --since': ['0'],
  'query --timeout': ['0'],
  'proxy --port': ['65536', '99999'],
  'proxy --max-buffered-mib': ['0', '99'],
  'proxy --max-bodies': ['0'],
  'proxy --headers-timeout': ['0'],
  'proxy --request-timeout': ['0'],
  'proxy --upstream-timeout': ['0'],
  'doctor --profile': ['a b', '../x'],
  'doctor --synth-timeout': ['0'],
  'replay --limit': ['0'],
  'replay --local-dir': ['/no/such/dir'],
  'reconcile --log-group': ['a b', 'group*', 'x'.repeat(513)],
  'reconcile --profile': ['a b', '../x'],
  'reconcile --count': ['all', 'INSIGHTS'],
  'reconcile --bucket': ['s3://b/x', 'a b', 'ab'],
  'reconcile --local-dir': ['/no/such/dir'],
  'reconcile --heal-timeout': ['0'],
  'events-window --limit': ['0'],
  'events-window --profile': ['a b', '../x'],
};

/**
 * Lines of the self-parsed commands that failed the sweep when it was written, left to the engineers who own those
 * parsers (issue 22, item 7; cli/replay/args.ts and cli/backfill/args.ts were being changed at the time). A line
 * here is not checked; remove it once it passes. Any other line that fails, fails the test.
 */
/** Bad lines a command still lets through, each with why; empty now that every command checks its values. */
const KNOWN: ReadonlySet<string> = new Set<string>([]);

/** One option as the sweep sees it: a flag, or an option with a value of some label. */
interface SweptOption {
  readonly name: string;
  readonly takesValue: boolean;
  readonly label?: string;
}

function tableOptions(command: keyof typeof ALL_OPTIONS): SweptOption[] {
  return Object.entries(ALL_OPTIONS[command]).map(([name, spec]) => ({
    name,
    takesValue: spec.type === 'string',
    ...(spec.value !== undefined ? { label: spec.value } : {}),
  }));
}

/** The base command line of `command` without `option` (and its value). */
function baseWithout(command: string, option: string): string[] {
  const base = (BASE[command] ?? []).map((arg) => (arg === '<scratch>' ? scratch : arg));
  const kept: string[] = [];
  for (let i = 0; i < base.length; i++) {
    if (base[i] === `--${option}`) {
      if (i + 1 < base.length && !base[i + 1].startsWith('--')) i++;
    } else {
      kept.push(base[i]);
    }
  }
  return kept;
}

interface Line {
  readonly title: string;
  readonly argv: () => string[];
}

const shown = (value: string): string =>
  JSON.stringify(value.length > 40 ? `${value.slice(0, 12)}...(${value.length})` : value);

function linesOf(command: string, options: readonly SweptOption[]): Line[] {
  const line = (title: string, option: string, ...args: string[]): Line => ({
    title: `${command} ${title}`,
    argv: () => [command, ...baseWithout(command, option), ...args],
  });
  const lines = [line('--no-such-option', '', '--no-such-option'), line('positional', '', 'stray')];
  for (const option of options) {
    const flag = `--${option.name}`;
    if (!option.takesValue) {
      lines.push(line(`${flag}=yes`, option.name, `${flag}=yes`));
      continue;
    }
    const kind = KIND_OF_OPTION[`${command} ${flag}`] ?? kindOfLabel(option.label ?? '');
    const values = [
      ...(kind === undefined ? [] : ['', ' ', '\t', ...BAD[kind]]),
      ...(EXTRA[`${command} ${flag}`] ?? []),
    ];
    for (const value of values) {
      lines.push(line(`${flag} ${shown(value)}`, option.name, `${flag}=${value}`));
      // A negative number also as its own argument, as people type it (`--limit -1`), not only as `--limit=-1`.
      if (value.startsWith('-')) lines.push(line(`${flag} ${value}`, option.name, flag, value));
    }
    lines.push(line(`${flag} (no value)`, option.name, flag));
  }
  const names = new Set(options.map((o) => o.name));
  if (names.has('since') && names.has('until')) {
    // A window that ends before it starts: 3 hours ago is before 2 hours ago.
    lines.push(line('--until before --since', 'since', '--since=2h', '--until=3h'));
  }
  return lines;
}

/** How `argv` ended: exit code, stdout and stderr (connects and children are recorded above). */
async function outcomeOf(
  argv: readonly string[],
  now?: number,
): Promise<{ code: number; out: string; err: string }> {
  connects.length = 0;
  children.length = 0;
  let out = '';
  let err = '';
  // A proxy that started anyway stops at once: the signal is already aborted.
  const code = await run(argv, {
    stdout: { write: (text: string) => ((out += text), true) },
    stderr: { write: (text: string) => ((err += text), true) },
    env: { ...process.env },
    stop: AbortSignal.abort(),
    ...(now !== undefined ? { now: () => now } : {}),
  });
  return { code, out, err };
}

/** What is wrong with how `argv` ended, or undefined when it ended as a bad command line should. */
async function problemOf(argv: readonly string[], now?: number): Promise<string | undefined> {
  const { code, out, err } = await outcomeOf(argv, now);
  const lines = err.trimEnd().split('\n');
  const problems = [
    code !== 2 ? `exit code ${code}` : '',
    out !== '' ? `stdout ${JSON.stringify(out.slice(0, 200))}` : '',
    connects.length > 0 ? `connected to ${connects.join(', ')}` : '',
    children.length > 0 ? `started ${children.join(', ')}` : '',
    lines.length > 1 ? `${lines.length} lines on stderr` : '',
    /^kfek[: ]/.test(lines[0]) ? '' : `stderr does not start with kfek: ${JSON.stringify(lines[0])}`,
    /^\s+at /m.test(err) ? 'a stack trace' : '',
    /\b[A-Z][A-Za-z]*Error\b:|unexpected error/.test(err)
      ? `an error class dump: ${JSON.stringify(err)}`
      : '',
  ].filter((p) => p !== '');
  return problems.length === 0
    ? undefined
    : `${problems.join('; ')} (stderr: ${JSON.stringify(err.slice(0, 300))})`;
}

const TABLE_LINES = COMMAND_NAMES.flatMap((command) => linesOf(command, tableOptions(command)));

/** The commands with their own parser, as the overview names them. */
const SELF_PARSED = [...USAGE.matchAll(/\(kfek ([a-z]+) --help for all options\)/g)].map((m) => m[1]);

describe('every bad command line gets a short message, a non-zero exit and no network call', () => {
  test.each(TABLE_LINES.map((l) => [l.title, l]))('%s', async (_title, l) => {
    expect(await problemOf(l.argv())).toBeUndefined();
  });

  test.each(SELF_PARSED.map((command) => [command]))(
    'every line of %s (its options from the one table)',
    async (command) => {
      // GIVEN the options of its table
      const lines = linesOf(command, tableOptions(command as keyof typeof ALL_OPTIONS));
      expect(lines.length).toBeGreaterThan(10);
      // WHEN each runs
      const failed: string[] = [];
      for (const l of lines) {
        const problem = await problemOf(l.argv());
        if (problem !== undefined && !KNOWN.has(l.title)) failed.push(`${l.title}: ${problem}`);
      }
      // THEN
      expect(failed).toEqual([]);
    },
  );
});

/** The commands whose --since and --until are times (label T): every command that reads a time window. */
const WINDOW_COMMANDS = (Object.keys(ALL_OPTIONS) as (keyof typeof ALL_OPTIONS)[]).filter(
  (command) => ALL_OPTIONS[command].since?.value === 'T' && ALL_OPTIONS[command].until?.value === 'T',
);
/** The clock of the generated lines, so the shared parser and the command judge a duration against one now. */
const NOW = Date.parse('2026-11-29T12:00:00.000Z');

describe('generated time values and checkpoints (issue 39): a valid parse, or one line and exit code 2', () => {
  test('finds every command that reads a window', () => {
    expect([...WINDOW_COMMANDS].sort()).toEqual(['backfill', 'events-window', 'reconcile', 'replay']);
  });

  test.each(WINDOW_COMMANDS.map((command) => [command]))(
    '%s: every generated --since and --until',
    async (command) => {
      await fc.assert(
        fc.asyncProperty(
          generatedTimeText,
          fc.option(generatedTimeText, { nil: undefined }),
          async (since, until) => {
            // GIVEN what the one parser of windows makes of the values
            let window: TimeWindow | undefined;
            try {
              window = parseTimeWindow(command, { since, until }, new Date(NOW));
            } catch (error) {
              if (!(error instanceof UsageError)) throw error;
            }
            // WHEN the command gets the values the parser refuses
            const argv = [
              command,
              ...baseWithout(command, 'since'),
              `--since=${since}`,
              ...(until !== undefined ? [`--until=${until}`] : []),
            ];
            // THEN a window the parser takes holds real times kfek can print (a valid line would go on to the
            // network), and the command refuses the rest in one line with exit code 2
            const problem =
              window === undefined
                ? await problemOf(argv, NOW)
                : ([window.since, window.until]
                    .map((date) => (date === undefined ? undefined : timeProblem(date.getTime())))
                    .find((p) => p !== undefined) ??
                  (command === 'replay' ? await validReplayProblem(argv) : undefined));
            expect(problem).toBeUndefined();
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  /**
   * A window replay takes, over the sweep's empty folder: replay is the one window command whose valid line sends
   * nothing, so it shows the times going on through the whole command (its dry run prints them).
   */
  async function validReplayProblem(argv: readonly string[]): Promise<string | undefined> {
    const { code, err } = await outcomeOf(argv, NOW);
    return code === 0 && err === '' ? undefined : `exit code ${code}, stderr ${JSON.stringify(err)}`;
  }

  test('kfek backfill --resume of every generated checkpoint', async () => {
    const stateDir = join(scratch, 'generated-checkpoints');
    mkdirSync(stateDir);
    await fc.assert(
      fc.asyncProperty(generatedCheckpoint, async (text) => {
        // GIVEN a generated checkpoint
        writeFileSync(join(stateDir, 'checkpoint.json'), text);
        // WHEN resumed with options no generated job has: one that reads is refused as another job, in a message
        // that prints its times
        const argv = ['backfill', '--resume', '--state-dir', stateDir, '--log-group', '/sweep-other'];
        const line = [...argv, '--since', '1h', '--until', '30m', '--endpoint', CLOSED];
        // THEN every one ends in one line with exit code 2, before anything is sent
        expect(await problemOf(line, NOW)).toBeUndefined();
      }),
      { numRuns: 400 },
    );
  });
});

describe('the sweep itself', () => {
  test.each([
    ['verify (fetch)', ['verify', ...BASE.verify], 'connects'],
    ['send (AWS SDK)', ['send', ...BASE.send], 'connects'],
    ['doctor (cdk synth)', ['doctor', '--region', 'us-east-1'], 'children'],
  ] as const)(
    'sees what a valid %s line does: a bad value that got through fails the sweep',
    async (_what, argv, seen) => {
      await problemOf(argv);
      expect({ connects, children }[seen].length).toBeGreaterThan(0);
    },
  );

  test('sweeps every option of every table command, and the self-parsed commands', () => {
    for (const command of COMMAND_NAMES) {
      for (const option of Object.keys(OPTIONS[command])) {
        expect(TABLE_LINES.some((l) => l.title.startsWith(`${command} --${option}`))).toBe(true);
      }
    }
    expect(TABLE_LINES.length).toBeGreaterThan(400);
    expect(SELF_PARSED).toContain('replay');
    expect(SELF_PARSED.sort()).toEqual(
      Object.keys(ALL_OPTIONS)
        .filter((command) => !(COMMAND_NAMES as readonly string[]).includes(command))
        .sort(),
    );
  });
});
