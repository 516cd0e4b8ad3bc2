/**
 * npm start says the AWS SDK's Node.js notice once, first, and the SDK's own warning stays out of the run (it used
 * to appear in the middle of the output: the old filter matched the warning's name, which the SDK never sets).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { SDK_NODE_WARNING_SWITCH, sayNodeNoticeOnce } from '../../../scripts/local/node-notice';

const ROOT = join(__dirname, '..', '..', '..');

test('on Node.js 20 it switches the SDK warning off and returns one line saying what it means', () => {
  // GIVEN
  const env: NodeJS.ProcessEnv = {};
  // WHEN
  const line = sayNodeNoticeOnce(env, 'v20.20.2');
  // THEN
  expect(env[SDK_NODE_WARNING_SWITCH]).toBe('true');
  expect(line).toMatch(/^note: Node\.js v20\.20\.2 runs this run as is .*need Node\.js 22\+/);
  expect(line).not.toMatch(/\n/);
});

test('on Node.js 22 and later there is nothing to say, and the switch is still set', () => {
  const env: NodeJS.ProcessEnv = {};
  expect(sayNodeNoticeOnce(env, 'v24.19.0')).toBeUndefined();
  expect(sayNodeNoticeOnce({}, 'v22.0.0')).toBeUndefined();
  expect(env[SDK_NODE_WARNING_SWITCH]).toBe('true');
});

test("a user's own setting of the switch is kept, and then the SDK speaks for itself", () => {
  const env: NodeJS.ProcessEnv = { [SDK_NODE_WARNING_SWITCH]: 'false' };
  expect(sayNodeNoticeOnce(env, 'v20.20.2')).toBeUndefined();
  expect(env[SDK_NODE_WARNING_SWITCH]).toBe('false');
});

/** Builds an SDK client in a fresh process (the SDK warns when a client is built), after the notice or not. */
function clientProcess(withNotice: boolean): { status: number | null; stderr: string } {
  const env = { ...process.env };
  delete env[SDK_NODE_WARNING_SWITCH];
  const script =
    (withNotice
      ? "require('./scripts/local/node-notice').sayNodeNoticeOnce(process.env, process.version);"
      : '') + "new (require('@aws-sdk/client-s3').S3Client)({ region: 'us-east-1' });";
  const result = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', '-e', script], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stderr: result.stderr };
}

test('a client built after the notice prints no SDK warning', () => {
  const { status, stderr } = clientProcess(true);
  expect(status).toBe(0);
  expect(stderr).not.toMatch(/NodeVersionSupportWarning/);
});

const major = Number(process.version.slice(1).split('.')[0]);

test('without it the same client prints the warning on Node.js 20 (so the check above can fail)', () => {
  const { status, stderr } = clientProcess(false);
  expect(status).toBe(0);
  expect(/NodeVersionSupportWarning/.test(stderr)).toBe(major < 22);
});
