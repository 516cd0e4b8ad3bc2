import { run } from '../../../cli/main';

/** Collects what a command writes. */
function sink(): { write: (text: string) => boolean; text: () => string } {
  const chunks: string[] = [];
  return { write: (text) => chunks.push(text) > 0, text: () => chunks.join('') };
}

async function kfek(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const stdout = sink();
  const stderr = sink();
  const code = await run(argv, {
    stdout,
    stderr,
    env: {},
    now: () => Date.parse('2026-11-23T12:00:00Z'),
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('kfek events-window', () => {
  test('prints its options from the one option table, with what it does', async () => {
    // WHEN
    const { code, stdout } = await kfek(['events-window', '--help']);
    // THEN
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: kfek events-window \[options\]/);
    expect(stdout).toMatch(/--since T +window start/);
    expect(stdout).toMatch(
      /--events-stream NAME\|ARN +the events stream to read and re-put to \(default: kfek-<profile>-events/,
    );
    expect(stdout).toContain('`kfek replay --kind events-window` is the same command');
  });

  test('is listed in the overview', async () => {
    const { stdout } = await kfek(['--help']);
    expect(stdout).toMatch(/^ {2}kfek events-window --since T/m);
  });

  test.each([
    [
      ['events-window'],
      /^kfek: events-window: --since is required: the time \(ISO\) or the duration before now/,
    ],
    [
      ['events-window', '--since', '1h'],
      /^kfek: events-window: needs the events stream: pass --events-stream NAME\|ARN, or --profile NAME/,
    ],
    [
      ['events-window', '--since', '2026-11-24T00:00:00Z', '--events-stream', 'e'],
      /^kfek: events-window: --since 2026-11-24T00:00:00.000Z is not before now/,
    ],
    [
      ['events-window', '--since', '2h', '--until', '3h', '--events-stream', 'e'],
      /^kfek: events-window: --since \S+ is not before --until \S+: give a --since earlier than the --until/,
    ],
    [
      ['events-window', '--since', 'yesterday', '--events-stream', 'e'],
      /^kfek: events-window: --since "yesterday"/,
    ],
    [
      ['events-window', '--since', '1h', '--bucket', 'b'],
      /^kfek: events-window: unknown option --bucket \(kfek events-window --help lists them\)/,
    ],
  ])('fails with a usage error, before any AWS call, for %j', async (argv, message) => {
    const { code, stderr } = await kfek(argv);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });
});
