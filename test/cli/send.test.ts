/**
 * `kfek send` against a real moto server (CloudWatch Logs API) on 127.0.0.1, plus a throttling proxy in front of
 * it for the faults moto never produces.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  GetLogEventsCommand,
  type OutputLogEvent,
} from '@aws-sdk/client-cloudwatch-logs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { ThrottledError } from '../../core/aws/errors';
import { parseRunMarker } from '../../core/log-generator';
import type { CliIo } from '../../cli/io';
import { run } from '../../cli/main';
import { sendLogEvents, type SendResult } from '../../cli/send';
import { EVENT_OVERHEAD_BYTES, MAX_BYTES_PER_CALL } from '../../core/logs/put-batch';
import { startMoto, type MotoServer } from '../../scripts/moto-server';
import { startLogsThrottleProxy } from '../helpers/logs-throttle-proxy';
import { testTempDir } from '../helpers/temp-dirs';

const GROUP = '/kfek/cli-test';
const CREDENTIALS = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: 'us-east-1' };
const REPO = join(__dirname, '..', '..');

let moto: MotoServer;
let client: CloudWatchLogsClient;
const savedEnv: Record<string, string | undefined> = {};

beforeAll(async () => {
  // The SDK's default credential chain reads process.env; moto accepts any keys.
  for (const [key, value] of Object.entries(CREDENTIALS)) {
    savedEnv[key] = process.env[key];
    process.env[key] = value;
  }
  moto = await startMoto();
  client = new CloudWatchLogsClient({
    endpoint: moto.endpoint,
    region: 'us-east-1',
    requestHandler: new NodeHttpHandler(),
  });
  await client.send(new CreateLogGroupCommand({ logGroupName: GROUP }));
});

afterAll(async () => {
  client?.destroy();
  await moto?.stop();
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

/** Every event of a stream, following the forward token until it stops changing. */
async function readStream(logStreamName: string): Promise<OutputLogEvent[]> {
  const events: OutputLogEvent[] = [];
  let token: string | undefined;
  for (;;) {
    const page = await client.send(
      new GetLogEventsCommand({ logGroupName: GROUP, logStreamName, startFromHead: true, nextToken: token }),
    );
    events.push(...(page.events ?? []));
    if (page.nextForwardToken === undefined || page.nextForwardToken === token) return events;
    token = page.nextForwardToken;
  }
}

function captureIo(): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: CREDENTIALS,
    out: () => out,
    err: () => err,
  };
}

describe('kfek send against moto', () => {
  test('writes N events, every run marker exactly once, in all three layouts', async () => {
    // GIVEN
    const io = captureIo();
    // WHEN
    const code = await run(
      [
        'send',
        '--endpoint',
        moto.endpoint,
        '--log-group',
        GROUP,
        '--count',
        '3000',
        '--run-id',
        'moto-all',
        '--json',
      ],
      io,
    );
    // THEN
    expect(io.err()).not.toMatch(/kfek:/);
    expect(code).toBe(0);
    const result = JSON.parse(io.out()) as SendResult;
    expect(result).toEqual(
      expect.objectContaining({
        sent: 3000,
        rejected: 0,
        logStreamName: 'kfek-cli/moto-all',
        runId: 'moto-all',
      }),
    );
    const events = await readStream('kfek-cli/moto-all');
    expect(events).toHaveLength(3000);
    const seqs = events.map((e) => parseRunMarker(e.message ?? '')?.seq);
    expect(new Set(seqs)).toEqual(new Set(Array.from({ length: 3000 }, (_, i) => i)));
    const messages = events.map((e) => e.message ?? '');
    expect(messages.some((m) => m.startsWith('{') && m.includes('"level":"ERROR"'))).toBe(true);
    expect(messages.some((m) => m.startsWith('REPORT RequestId: '))).toBe(true);
    expect(messages.some((m) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} ERROR /.test(m))).toBe(true);
    // Not a terminal: plain progress lines, no carriage returns.
    expect(io.err()).toMatch(/send moto-all 3000\/3000 100%/);
    expect(io.err()).not.toContain('\r');
  });

  test('keeps every call within 10,000 events and 1 MiB', async () => {
    // GIVEN: a client that records the size of every PutLogEvents call it sends
    const sizes: { events: number; bytes: number }[] = [];
    const recording = new CloudWatchLogsClient({ endpoint: moto.endpoint, region: 'us-east-1' });
    recording.middlewareStack.add(
      (next) => (args) => {
        const input = args.input as { logEvents?: { message?: string }[] };
        if (input.logEvents !== undefined) {
          sizes.push({
            events: input.logEvents.length,
            bytes: input.logEvents.reduce(
              (sum, e) => sum + Buffer.byteLength(e.message ?? '') + EVENT_OVERHEAD_BYTES,
              0,
            ),
          });
        }
        return next(args);
      },
      { step: 'initialize', name: 'recordPutLogEventsSize' },
    );
    try {
      // WHEN: ~4 MB of events, more than fits in one call by bytes, fewer than 10,000 by count
      const result = await sendLogEvents(recording, { logGroupName: GROUP, count: 9000, runId: 'moto-size' });
      // THEN
      expect(result.sent).toBe(9000);
      expect(sizes.reduce((sum, s) => sum + s.events, 0)).toBe(9000);
      expect(sizes.length).toBeGreaterThan(1);
      for (const size of sizes) {
        expect(size.events).toBeLessThanOrEqual(10_000);
        expect(size.bytes).toBeLessThanOrEqual(MAX_BYTES_PER_CALL);
      }
      // Packed tight: every call but the last is within one event of the limit.
      for (const size of sizes.slice(0, -1)) expect(size.bytes).toBeGreaterThan(MAX_BYTES_PER_CALL - 4096);
    } finally {
      recording.destroy();
    }
    expect(await readStream('kfek-cli/moto-size')).toHaveLength(9000);
  });

  test('paces the events to --rate', async () => {
    // GIVEN 60 events at 40/s: the last is due 59/40 = 1.475 s after the first. The pacing runs on a virtual
    // clock that only its sleeps advance, so how fast moto answers on a loaded machine changes nothing.
    const started = Date.now();
    let clock = started;
    // WHEN
    const result = await sendLogEvents(client, {
      logGroupName: GROUP,
      count: 60,
      ratePerSecond: 40,
      runId: 'moto-rate',
      now: () => clock,
      sleep: (millis) => {
        clock += millis;
        return Promise.resolve();
      },
    });
    // THEN
    const elapsed = clock - started;
    expect(result.sent).toBe(60);
    expect(elapsed).toBeGreaterThanOrEqual(1400);
    expect(elapsed).toBeLessThan(5000);
    // A fifth of a second's worth per call (8 events), not one call per event.
    expect(result.calls).toBeLessThanOrEqual(9);
    expect(result.calls).toBeGreaterThanOrEqual(7);
  });

  test('retries throttled calls with backoff and loses nothing', async () => {
    // GIVEN a proxy that throttles the first 3 PutLogEvents calls
    const proxy = await startLogsThrottleProxy(moto.endpoint, { operation: 'PutLogEvents', times: 3 });
    const viaProxy = new CloudWatchLogsClient({
      endpoint: proxy.endpoint,
      region: 'us-east-1',
      maxAttempts: 1,
    });
    const delays: number[] = [];
    try {
      // WHEN
      const result = await sendLogEvents(viaProxy, {
        logGroupName: GROUP,
        count: 500,
        runId: 'moto-throttle',
        retry: { baseDelayInMillis: 20, onRetry: (_attempt, _error, delay) => delays.push(delay) },
      });
      // THEN
      expect(proxy.throttled).toBe(3);
      expect(result).toEqual(expect.objectContaining({ sent: 500, retries: 3 }));
      // Full jitter below a doubling cap: 20, 40, 80 ms.
      delays.forEach((delay, i) => expect(delay).toBeLessThan(20 * 2 ** i));
      expect(await readStream('kfek-cli/moto-throttle')).toHaveLength(500);
    } finally {
      viaProxy.destroy();
      await proxy.stop();
    }
  });

  test('fails with ThrottledError when throttling outlasts the retries', async () => {
    const proxy = await startLogsThrottleProxy(moto.endpoint, { operation: 'PutLogEvents', times: 1000 });
    const viaProxy = new CloudWatchLogsClient({
      endpoint: proxy.endpoint,
      region: 'us-east-1',
      maxAttempts: 1,
    });
    try {
      const sending = sendLogEvents(viaProxy, {
        logGroupName: GROUP,
        count: 10,
        runId: 'moto-throttle-out',
        retry: { maxAttempts: 4, baseDelayInMillis: 1 },
      });
      await expect(sending).rejects.toThrow(ThrottledError);
      await expect(sending).rejects.toThrow(/PutLogEvents was throttled 4 times in a row: lower --rate/);
      expect(proxy.throttled).toBe(4);
    } finally {
      viaProxy.destroy();
      await proxy.stop();
    }
  });

  test('fails with a clear message when the log group does not exist', async () => {
    const io = captureIo();
    const code = await run(
      ['send', '--endpoint', moto.endpoint, '--log-group', '/kfek/nope', '--count', '5'],
      io,
    );
    expect(code).toBe(1);
    expect(io.err()).toMatch(
      /^kfek: Log group \/kfek\/nope does not exist in this account\/region: check --region/,
    );
  });

  test('fails with a clear message when nothing listens on the endpoint', async () => {
    const io = captureIo();
    const code = await run(
      ['send', '--endpoint', 'http://127.0.0.1:9', '--log-group', GROUP, '--count', '5'],
      io,
    );
    expect(code).toBe(1);
    expect(io.err()).toMatch(
      /^kfek: CreateLogStream could not connect to http:\/\/127.0.0.1:9 \(ECONNREFUSED\)/,
    );
  });
});

describe('bin/kfek-cli.js (the npx kfek entry point)', () => {
  const node = process.execPath;
  const cli = join(REPO, 'bin', 'kfek-cli.js');

  test('sends through the shim and prints the run id', () => {
    const result = spawnSync(
      node,
      [
        cli,
        'send',
        '--endpoint',
        moto.endpoint,
        '--log-group',
        GROUP,
        '--count',
        '20',
        '--run-id',
        'shim-run',
      ],
      { cwd: REPO, env: { PATH: process.env.PATH, ...CREDENTIALS }, encoding: 'utf8', timeout: 60_000 },
    );
    expect(result.stderr).not.toMatch(/kfek:|NodeVersionSupportWarning/);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^sent 20 events to \/kfek\/cli-test \(stream kfek-cli\/shim-run\)/);
    expect(result.stdout).toContain('run id: shim-run');
  });

  test('fails with one line and exit 1 when there are no credentials', () => {
    const home = testTempDir('kfek-nocreds-');
    const result = spawnSync(node, [cli, 'send', '--endpoint', moto.endpoint, '--log-group', GROUP], {
      cwd: REPO,
      // No keys, no profile files, no instance metadata: the SDK's whole chain comes up empty.
      env: {
        PATH: process.env.PATH,
        HOME: home,
        AWS_CONFIG_FILE: join(home, 'none'),
        AWS_SHARED_CREDENTIALS_FILE: join(home, 'none'),
        AWS_EC2_METADATA_DISABLED: 'true',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      'kfek: No AWS credentials found: set AWS_PROFILE (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY); against a ' +
        'local endpoint any non-empty values work.',
    );
  });

  test('exits 2 on bad usage', () => {
    const result = spawnSync(node, [cli, 'send', '--log-group', GROUP, '--count', 'many'], {
      cwd: REPO,
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^kfek: --count "many" must be a whole number >= 1/);
  });
});
