/**
 * bin/kfek-cli.js, the `kfek` command, as a person runs it: a child process. It runs the prebuilt bundle of cli/
 * (scripts/cli-bundle.js), rebuilds a stale one, and falls back to the TypeScript sources. How fast it answers is
 * measured by `npm run bench`, not here.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REPO = join(__dirname, '..', '..');
const CLI = join(REPO, 'bin', 'kfek-cli.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- plain JavaScript, run before any compiler
const bundle = require('../../scripts/cli-bundle.js') as {
  readonly ENTRY: string;
  build(): string;
  isFresh(): boolean;
};

let home: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'kfek-launcher-'));
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
});

/** Runs `kfek argv` with dummy credentials and nothing else from this machine's environment. */
function kfek(argv: readonly string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [CLI, ...argv], {
    cwd: REPO,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      AWS_REGION: 'us-east-1',
      ...env,
    },
  });
}

/**
 * A command that loads the AWS SDK, builds a client (where the SDK emits its Node version warning) and reads the
 * sandbox profile's log groups from cdk.json (no --log-group), then fails fast: nothing listens on port 9.
 */
const QUERY_REFUSED = [
  'query',
  '--name',
  'latest-errors',
  '--endpoint',
  'http://127.0.0.1:9',
  '--timeout',
  '5s',
];
const REFUSED_LINE =
  'kfek: StartQuery could not connect to http://127.0.0.1:9 (ECONNREFUSED): check --endpoint, the network, and that it is running.\n';

describe('bin/kfek-cli.js', () => {
  test('runs a command from the bundle and prints nothing but its own one-line error', () => {
    // GIVEN a fresh bundle
    bundle.build();
    expect(bundle.isFresh()).toBe(true);
    // WHEN
    const result = kfek(QUERY_REFUSED);
    // THEN no SDK warning, and the bundle found cdk.json (the profile's log groups) from its own location
    expect(result.stderr).toBe(REFUSED_LINE);
    expect(result.status).toBe(1);
  });

  test('prints no Node version warning of the AWS SDK unless asked to', () => {
    const shown = kfek(QUERY_REFUSED, { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'false' });
    // The user's own setting wins: this proves the command does reach the code that warns.
    expect(shown.stderr).toMatch(/NodeVersionSupportWarning/);
    expect(kfek(QUERY_REFUSED).stderr).not.toMatch(/Warning/);
  });

  test('rebuilds a stale bundle before running it', () => {
    // GIVEN a bundle older than the sources it was built from
    bundle.build();
    utimesSync(bundle.ENTRY, 0, 0);
    expect(bundle.isFresh()).toBe(false);
    // WHEN
    const result = kfek(['--version']);
    // THEN
    expect(result.stdout).toMatch(/^kfek \d+\.\d+\.\d+\n$/);
    expect(result.stderr).toBe('');
    expect(statSync(bundle.ENTRY).mtimeMs).toBeGreaterThan(0);
    expect(bundle.isFresh()).toBe(true);
  });

  test('runs from the TypeScript sources when asked to, with the same output', () => {
    const result = kfek(QUERY_REFUSED, { KFEK_CLI_FROM_SOURCE: '1' });
    expect(result.stderr).toBe(REFUSED_LINE);
    expect(result.status).toBe(1);
  });

  test('prints per-command help and the version', () => {
    expect(kfek(['send', '--help']).stdout).toMatch(/^Usage: kfek send \[options\]\n/);
    const count = kfek(['send', '--log-group', 'g', '--count', '-5']);
    expect(count.stderr).toBe('kfek: --count "-5" must be a whole number >= 1 (run `kfek help` for usage)\n');
    expect(count.status).toBe(2);
  });
});
