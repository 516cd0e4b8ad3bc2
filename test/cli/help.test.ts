/**
 * What `kfek` prints for help and version, and kfek's own messages for values node's parser would refuse
 * (`--count -5`). In-process through `run`, with captured streams; the launcher and its timing are covered by
 * test/cli/launcher.test.ts and `npm run bench`.
 */
import { commandHelp } from '../../cli/args';
import { OPTIONS } from '../../cli/args/options';
import { COMMAND_NAMES } from '../../cli/args/types';
import { run } from '../../cli/main';
import { type CliOutcome, runKfek } from '../helpers/cli-run';
import packageJson from '../../package.json';

const kfek = (...argv: string[]): Promise<CliOutcome> => runKfek(argv);

describe('kfek <command> --help', () => {
  test.each(COMMAND_NAMES.map((name) => [name]))('%s lists every option it accepts', async (name) => {
    // GIVEN the options the parser of `name` accepts
    const options = Object.keys(OPTIONS[name]);
    // WHEN
    const { code, out, err } = await kfek(name, '--help');
    // THEN
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(new RegExp(`^Usage: kfek ${name} \\[options\\]`));
    for (const option of options) expect(out).toMatch(new RegExp(`^ {2}(-h, )?--${option}\\b`, 'm'));
    expect(out).toBe(`${commandHelp(name)}\n`);
  });

  test('shows the defaults the parser applies', async () => {
    const send = (await kfek('send', '--help')).out;
    expect(send).toMatch(/^ {2}--count N +events to write \(default: 100\)$/m);
    expect(send).toMatch(/^ {2}--log-group G +log group to write to \(required\)$/m);
    const query = (await kfek('help', 'query')).out;
    expect(query).toMatch(/^ {2}--since D +how far back to query \(default: 1h\)$/m);
    expect(query).toMatch(/^ {2}--timeout S +give up after this long \(default: 120s\)$/m);
    const verify = (await kfek('verify', '-h')).out;
    expect(verify).toMatch(/--interval S +time between searches \(default: 2s\)/);
    expect(verify).toMatch(
      /--timeout S +give up after this long \(default: 300s with --expect, else 0: one search\)/,
    );
    expect((await kfek('proxy', '--help')).out).toMatch(/--port P +port on 127\.0\.0\.1 .*\(default: 9200\)/);
    expect((await kfek('doctor', '--help')).out).toMatch(/--synth-timeout S .*\(default: 300s\)/);
  });

  test.each([['replay'], ['backfill']])(
    '%s, which parses its own options, answers `kfek help %s` as it answers `--help`',
    async (name) => {
      const viaHelp = await kfek('help', name);
      const viaOption = await kfek(name, '--help');
      expect(viaHelp.code).toBe(0);
      expect(viaOption.code).toBe(0);
      expect(viaHelp.out).toMatch(new RegExp(`^kfek ${name} - `));
      expect(viaHelp.out).toBe(viaOption.out);
    },
  );

  test('the overview points at the per-command help and --version', async () => {
    const { code, out } = await kfek('--help');
    expect(code).toBe(0);
    expect(out).toMatch(/^kfek - send test logs/);
    expect(out).toContain("kfek <command> --help    that command's options with their defaults");
    expect(out).toContain('kfek --version');
  });
});

describe('kfek --version', () => {
  test.each([['--version'], ['-v'], ['version']])('%s prints the package version', async (flag) => {
    expect(await kfek(flag)).toEqual({ code: 0, out: `kfek ${packageJson.version}\n`, err: '' });
  });
});

describe('negative numbers get kfek’s own message', () => {
  test.each([
    [['send', '--log-group', 'g', '--count', '-5'], '--count "-5" must be a whole number >= 1'],
    [['send', '--log-group', 'g', '--seed', '-1'], '--seed "-1" must be a whole number >= 0'],
    [
      ['verify', '--run-id', 'r', '--opensearch', 'http://x', '--expect', '-2'],
      '--expect "-2" must be a whole',
    ],
    [['query', '--name', 'x', '--since', '-1h'], '--since "-1h" is not a duration'],
    [['proxy', '--endpoint', 'h', '--port', '-1'], '--port "-1" must be a whole number >= 0'],
  ])('fails when %j', async (argv, message) => {
    const { code, out, err } = await kfek(...argv);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(`kfek: ${message}`);
    expect(err).not.toMatch(/ambiguous/);
  });

  test('an option name after an option still needs its value', async () => {
    // Only a negative number is taken as the value: `--log-group --count 5` is not a log group named --count.
    const { code, err } = await kfek('send', '--log-group', '--count', '5');
    expect(code).toBe(2);
    expect(err).toBe(
      'kfek: send: --log-group needs a value (one starting with a dash is written --log-group=VALUE) ' +
        '(run `kfek help` for usage)\n',
    );
  });
});

describe('an unexpected error (a bug, not a bad input)', () => {
  const failingIo = (env: Record<string, string>) => {
    let err = '';
    return {
      io: {
        stdout: {
          write: (): never => {
            throw new TypeError('boom\nsecond line');
          },
        },
        stderr: { write: (text: string) => (err += text) },
        env,
      },
      err: () => err,
    };
  };

  test('is one kfek line without a stack trace, and exit 1', async () => {
    const { io, err } = failingIo({});
    expect(await run(['--version'], io)).toBe(1);
    expect(err()).toMatch(/^kfek: unexpected error: boom \(a bug in kfek: run again with KFEK_DEBUG=1/);
    expect(err().trim().split('\n')).toHaveLength(1);
  });

  test('shows the stack trace with KFEK_DEBUG=1', async () => {
    const { io, err } = failingIo({ KFEK_DEBUG: '1' });
    expect(await run(['--version'], io)).toBe(1);
    expect(err()).toMatch(/\n\s+at /);
  });
});
