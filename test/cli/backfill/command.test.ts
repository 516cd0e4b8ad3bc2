/**
 * `kfek backfill` as a user runs it (cli/main.ts `run`), against a real moto server: the envelopes it writes to the
 * raw stream next to the ones moto's live subscription writes, the dry run, an interrupted run and its resume, and
 * the messages for a wrong command line. The end-to-end test with the pipeline and OpenSearch is
 * test/e2e/backfill.test.ts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CreateStreamCommand } from '@aws-sdk/client-kinesis';
import {
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  CreateLogStreamCommand,
  PutLogEventsCommand,
  PutSubscriptionFilterCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { KinesisClient } from '@aws-sdk/client-kinesis';
import { run } from '../../../cli/main';
import { decodeEnvelopes } from '../../../core/transform/decode';
import { toDocument } from '../../../core/transform/document';
import { generateEvents } from '../../../core/log-generator';
import { sendLogEvents } from '../../../scripts/local/sender';
import { startMoto, type MotoServer } from '../../../scripts/moto-server';
import { cliExamples, runProcess, sandboxEnv, writeNpxShim } from '../../helpers/doc-snippets';
import { createStream, motoClientConfig, readStreamRecords } from '../../helpers/kinesis-stream';
import { testTempDir } from '../../helpers/temp-dirs';

const REGION = 'us-east-1';
const ENV = { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test', AWS_REGION: REGION };

let moto: MotoServer;
let logs: CloudWatchLogsClient;
let kinesis: KinesisClient;
const savedEnv: Record<string, string | undefined> = {};

beforeAll(async () => {
  // The SDK's default credential chain reads process.env; moto accepts any keys.
  for (const [key, value] of Object.entries(ENV)) {
    savedEnv[key] = process.env[key];
    process.env[key] = value;
  }
  moto = await startMoto();
  logs = new CloudWatchLogsClient(motoClientConfig(moto.endpoint, REGION));
  kinesis = new KinesisClient(motoClientConfig(moto.endpoint, REGION));
}, 60_000);

afterAll(async () => {
  logs?.destroy();
  kinesis?.destroy();
  await moto?.stop();
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

let counter = 0;

/** The examples of docs/operations.md's backfill section (test/docs/cli-examples.test.ts sends them here). */
const DOCS_DRY_RUN = 'npx kfek backfill --log-group /aws/lambda/checkout --since 7d --rate 20000 --dry-run';
const DOCS_RUN = 'npx kfek backfill --log-group /aws/lambda/checkout --since 7d --rate 20000';

/** A log group with `n` events over `streams` streams in the last `spanInMillis`, and a raw stream of its own. */
async function group(
  n: number,
  options: { streams?: number; spanInMillis?: number } = {},
): Promise<{ name: string; rawStream: string; rawStreamArn: string; stateDir: string }> {
  counter += 1;
  const name = `/kfek/backfill/cmd-${counter}`;
  const rawStream = `kfek-backfill-cmd-${counter}-raw`;
  const rawStreamArn = await createStream(kinesis, rawStream);
  await logs.send(new CreateLogGroupCommand({ logGroupName: name }));
  const streams = options.streams ?? 2;
  const span = options.spanInMillis ?? 3_600_000;
  const base = Date.now() - span - 60_000;
  for (let s = 0; s < streams; s++) {
    await logs.send(new CreateLogStreamCommand({ logGroupName: name, logStreamName: `s${s}` }));
    const mine = Array.from({ length: n }, (_, i) => i).filter((i) => i % streams === s);
    for (let k = 0; k < mine.length; k += 500) {
      await logs.send(
        new PutLogEventsCommand({
          logGroupName: name,
          logStreamName: `s${s}`,
          logEvents: mine.slice(k, k + 500).map((i) => ({
            timestamp: base + Math.floor((i * span) / Math.max(1, n)),
            message: JSON.stringify({ level: i % 7 === 0 ? 'ERROR' : 'INFO', message: `event ${i}`, i }),
          })),
        }),
      );
    }
  }
  return { name, rawStream, rawStreamArn, stateDir: testTempDir('kfek-backfill-cmd-') };
}

/** The options that name a backfill of `g`'s group to its raw stream, from `since`. */
function jobOf(g: { name: string; rawStream: string; stateDir: string }, since: string): string[] {
  return ['--log-group', g.name, '--raw-stream', g.rawStream, '--since', since, '--state-dir', g.stateDir];
}

async function kfek(
  args: readonly string[],
  stop?: AbortSignal,
  cdkJson?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(['backfill', '--endpoint', moto.endpoint, '--rate', '100000', ...args], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: ENV,
    ...(stop !== undefined ? { stop } : {}),
    ...(cdkJson !== undefined ? { cdkJson } : {}),
  });
  return { code, stdout, stderr };
}

interface DecodedEvent {
  readonly id: string;
  readonly document: unknown;
  readonly filters: readonly string[];
}

async function rawEvents(rawStream: string): Promise<DecodedEvent[]> {
  return (await readStreamRecords(kinesis, rawStream)).flatMap((r) =>
    decodeEnvelopes(Buffer.from(r.Data!)).flatMap((envelope) =>
      envelope.logEvents.map((event) => ({
        id: event.id,
        document: toDocument(event, envelope),
        filters: envelope.subscriptionFilters,
      })),
    ),
  );
}

describe('kfek backfill against moto', () => {
  test('an empty AWS_REGION is no region for its Kinesis client either: the endpoint default holds', async () => {
    // GIVEN AWS_REGION= (set, empty) for kfek, an endpoint override, and a group with a few events
    const g = await group(5);
    let stdout = '';
    let stderr = '';
    // WHEN a dry run asks both clients (FilterLogEvents, DescribeStreamSummary)
    const code = await run(['backfill', '--endpoint', moto.endpoint, ...jobOf(g, '3h'), '--dry-run'], {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: { ...ENV, AWS_REGION: '' },
    });
    // THEN both go to us-east-1 at the endpoint (the Kinesis client used to get the region "" and refuse it)
    expect({ code, stderr }).toEqual({ code: 0, stderr: expect.not.stringMatching(/region/i) as unknown });
    expect(stdout).toContain(g.name);
  });

  test('writes the window as envelopes the transform reads like live ones: same documents, same ids', async () => {
    // GIVEN 300 events written before the subscription existed, then the subscription, then 2 live events
    const g = await group(300);
    await logs.send(
      new PutSubscriptionFilterCommand({
        logGroupName: g.name,
        filterName: 'kfek-to-raw-stream',
        filterPattern: '',
        destinationArn: g.rawStreamArn,
        roleArn: 'arn:aws:iam::123456789012:role/cwl',
      }),
    );
    await logs.send(
      new PutLogEventsCommand({
        logGroupName: g.name,
        logStreamName: 's0',
        logEvents: [
          { timestamp: Date.now() - 1_000, message: 'live one' },
          { timestamp: Date.now() - 999, message: 'live two' },
        ],
      }),
    );
    // WHEN the last two hours are backfilled
    const result = await kfek([...jobOf(g, '2h'), '--json']);
    // THEN
    expect(result.stderr).not.toMatch(/kfek: /);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout) as { counts: Record<string, number>; interrupted: boolean };
    expect(summary.counts).toMatchObject({ read: 302, written: 302, skipped: 0, failed: 0 });
    expect(summary.interrupted).toBe(false);
    const events = await rawEvents(g.rawStream);
    // The live events came twice (live and backfilled), as the same documents; every other event once.
    const byId = new Map<string, DecodedEvent[]>();
    for (const e of events) byId.set(e.id, [...(byId.get(e.id) ?? []), e]);
    expect(byId.size).toBe(302);
    const twice = [...byId.values()].filter((copies) => copies.length === 2);
    expect(twice).toHaveLength(2);
    for (const [live, backfilled] of twice) expect(backfilled.document).toEqual(live.document);
    // The backfill writes the names of the group's subscription to the raw stream, as CloudWatch Logs does.
    expect(new Set(events.map((e) => e.filters.join(',')))).toEqual(new Set(['kfek-to-raw-stream']));
    // and the checkpoint says it is finished
    const checkpoint = JSON.parse(readFileSync(path.join(g.stateDir, 'checkpoint.json'), 'utf8')) as {
      groups: Record<string, { done: boolean }>;
    };
    expect(checkpoint.groups[g.name].done).toBe(true);
  }, 60_000);

  test('the dry run estimates from a sample and writes nothing; a log group without a subscription is named kfek-backfill', async () => {
    const g = await group(3_000, { streams: 3 });
    const dryRun = [...jobOf(g, '3h'), '--dry-run'];
    const result = await kfek([...dryRun, '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as {
      total: { events: number; messageBytes: number };
      groups: { sampledEvents: number; subscriptionFilters: string[] }[];
      cost: { lines: { item: string }[]; pricesDate: string };
      openShards: number;
    };
    expect(Math.abs(report.total.events - 3_000) / 3_000).toBeLessThan(0.1);
    expect(report.groups[0].subscriptionFilters).toEqual(['kfek-backfill']);
    expect(report.openShards).toBe(1);
    expect(report.cost.pricesDate).toBe('2026-11-23');
    expect(await readStreamRecords(kinesis, g.rawStream)).toHaveLength(0);
    expect(existsSync(path.join(g.stateDir, 'checkpoint.json'))).toBe(false);
    // The text form says the same in lines a person reads.
    const text = await kfek(dryRun);
    expect(text.stdout).toMatch(/^total: about [\d,]+ events, /m);
    expect(text.stdout).toMatch(/^time at 100,000 events\/s: /m);
    expect(text.stdout).toMatch(/^cost \(us-east-1 list prices of 2026-11-23, docs\/costs.md\):$/m);
    expect(text.stdout).toMatch(/^dry run: nothing was written$/m);
  }, 60_000);

  test('an interrupted backfill refuses to start over, refuses a different job, and resumes to the end', async () => {
    const g = await group(1_000);
    const job = jobOf(g, '2h');
    // GIVEN a run stopped before it wrote anything (Ctrl-C)
    const stopped = new AbortController();
    stopped.abort();
    const first = await kfek(job, stopped.signal);
    expect(first.code).toBe(130);
    expect(first.stdout).toMatch(/: interrupted/);
    expect(first.stdout).toContain(
      `the checkpoint ${path.join(g.stateDir, 'checkpoint.json')} holds where it stopped`,
    );
    // WHEN started again without --resume, or resumed with another window
    const again = await kfek(job);
    const other = await kfek([...jobOf(g, '3h'), '--resume']);
    // THEN both say what to do
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(
      /holds an unfinished backfill of \/kfek\/backfill\/cmd-\d+ \(0 events written\): add --resume/,
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /--resume goes on with the backfill in .*, but --since \(checkpoint: 2h, from .*\) differ/,
    );
    // WHEN resumed as first typed, and once more
    const resumed = await kfek([...job, '--resume', '--json']);
    const done = await kfek([...job, '--resume']);
    // THEN
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({
      counts: { written: 1_000 },
      runs: 2,
      interrupted: false,
    });
    expect(done.stdout).toMatch(/is finished already; nothing to resume/);
    expect(await rawEvents(g.rawStream)).toHaveLength(1_000);
  }, 60_000);

  test('fails with one line that says what to do', async () => {
    const g = await group(1);
    const missingGroup = await kfek([
      '--log-group',
      '/kfek/nope',
      '--raw-stream',
      g.rawStream,
      '--since',
      '1h',
      '--state-dir',
      g.stateDir,
    ]);
    expect(missingGroup.code).toBe(1);
    expect(missingGroup.stderr).toMatch(
      /^kfek: Log group \/kfek\/nope does not exist in this account\/region/,
    );
    const missingStream = await kfek([
      '--log-group',
      g.name,
      '--raw-stream',
      'kfek-nope-raw',
      '--since',
      '1h',
      '--state-dir',
      g.stateDir,
    ]);
    expect(missingStream.code).toBe(1);
    expect(missingStream.stderr).toMatch(/^kfek: backfill: the raw stream kfek-nope-raw does not exist/);
    const noResume = await kfek(['--resume', '--state-dir', g.stateDir]);
    // A state folder below a file cannot be made.
    const file = path.join(g.stateDir, 'a-file');
    writeFileSync(file, '');
    const unwritable = await kfek([...jobOf(g, '1h').slice(0, -1), path.join(file, 'state')]);
    expect(unwritable.code).toBe(1);
    expect(unwritable.stderr).toMatch(
      /^kfek: backfill: cannot read the checkpoint .*a-file\/state\/checkpoint.json \(ENOTDIR: .*\): pass a --state-dir you can write to/,
    );
    expect(noResume.stderr).toMatch(/--resume found no checkpoint at/);
    for (const r of [missingGroup, missingStream, noResume, unwritable])
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    const help = await kfek(['--help']);
    expect(help.stdout).toMatch(/^kfek backfill - send the history of log groups/);
  }, 60_000);

  test('the examples of docs/operations.md run as written', async () => {
    // GIVEN the documented log group with 30,000 events over the last two days, and the sandbox profile's raw stream
    const examples = cliExamples(
      readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'operations.md'), 'utf8'),
      'docs/operations.md',
    ).map((e) => e.command);
    expect(examples).toEqual(expect.arrayContaining([DOCS_DRY_RUN, DOCS_RUN]));
    await logs.send(new CreateLogGroupCommand({ logGroupName: '/aws/lambda/checkout' }));
    await kinesis.send(new CreateStreamCommand({ StreamName: 'kfek-sandbox-raw', ShardCount: 1 }));
    const now = Date.now();
    const generated = generateEvents(30_000, { runId: 'docs' }, (i) =>
      Math.floor(now - 2 * 86_400_000 + i * 5_000),
    );
    await sendLogEvents(
      logs,
      generated.map((e, i) => ({
        logGroupName: '/aws/lambda/checkout',
        logStreamName: `2026/11/2${i % 3}/[$LATEST]${i % 4}`,
        timestamp: e.timestamp,
        message: e.message,
      })),
    );
    // WHEN a reader runs them in a shell, in a folder of their own, against this moto
    const home = testTempDir('kfek-backfill-docs-');
    writeNpxShim(
      path.join(home, 'bin'),
      path.join(home, 'cdk-calls'),
      path.join(__dirname, '..', '..', '..'),
    );
    const env = sandboxEnv({
      home,
      path: [path.join(home, 'bin')],
      extra: { AWS_ENDPOINT_URL: moto.endpoint, AWS_REGION: REGION },
    });
    const bash = (command: string) =>
      runProcess('bash', ['-c', `set -euo pipefail\n${command}`], { cwd: home, env, timeoutMs: 60_000 });
    const dryRun = await bash(DOCS_DRY_RUN);
    const backfilled = await bash(DOCS_RUN);
    // THEN the estimate, then the backfill of every event, into the sandbox's raw stream
    expect(dryRun.exitCode).toBe(0);
    const estimated = Number(/^total: about ([\d,]+) events/m.exec(dryRun.stdout)?.[1].replace(/,/g, ''));
    expect(Math.abs(estimated - 30_000) / 30_000).toBeLessThan(0.1);
    expect(dryRun.stdout).toMatch(/^dry run: nothing was written$/m);
    expect(backfilled.stderr).not.toMatch(/kfek: /);
    expect(backfilled.exitCode).toBe(0);
    expect(backfilled.stdout).toMatch(/^ {2}written +30,000 events, /m);
    expect(existsSync(path.join(home, '.kfek', 'backfill', 'checkpoint.json'))).toBe(true);
    expect(await rawEvents('kfek-sandbox-raw')).toHaveLength(30_000);
  }, 120_000);
});

describe('groups backfill cannot reproduce, and checkpoints it would not write', () => {
  test('fails with exit code 2 for a group whose route takes events by a source account other than its owner', async () => {
    // GIVEN a profile whose team route takes the group's events from account 111111111111 (centralized events)
    const g = await group(20);
    const cdkJson = path.join(g.stateDir, 'cdk.json');
    const route = (name: string, account: string) => ({
      name,
      match: { logGroup: g.name, account },
      indexStem: name,
      readerBackendRoles: ['r'],
    });
    writeFileSync(
      cdkJson,
      JSON.stringify({
        context: {
          kfek: {
            profiles: {
              sandbox: {
                sources: { logGroups: [{ name: g.name, create: false }] },
                routes: [route('teama', '111111111111')],
              },
            },
          },
        },
      }),
    );
    // WHEN backfilled
    const refused = await kfek([...jobOf(g, '2h')], undefined, cdkJson);
    // THEN nothing is written and the message says why and what to do
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      new RegExp(
        `cannot reproduce the live documents of ${g.name} \\(owned by \\d{12}\\): route teama takes its events by ` +
          'source account \\(111111111111\\).*FilterLogEvents does not return their source account',
      ),
    );
    expect(await rawEvents(g.rawStream)).toEqual([]);
  });

  test('fails with exit code 2 when a resumed checkpoint names a window or stream the command line would refuse', async () => {
    const g = await group(20);
    const stop = new AbortController();
    stop.abort();
    await kfek([...jobOf(g, '2h')], stop.signal);
    const file = path.join(g.stateDir, 'checkpoint.json');
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { job: Record<string, unknown> };
    for (const tampered of [
      { ...saved, job: { ...saved.job, until: '2000-01-01T00:00:00.000Z' } },
      { ...saved, job: { ...saved.job, rawStream: 'not a stream/name' } },
      // Issue 39: a position far past the window ended in "unexpected error: Invalid time value".
      { ...saved, groups: { [g.name]: { done: false, from: 1e300, writtenAtFrom: [] } } },
    ]) {
      writeFileSync(file, JSON.stringify(tampered));
      const resumed = await kfek(['--resume', '--state-dir', g.stateDir]);
      expect(resumed.code).toBe(2);
      expect(resumed.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(resumed.stderr).toMatch(
        /the checkpoint .*checkpoint\.json (has a window that ends|names "not a stream|says .* goes on at 1e\+300, which is after 9999-12-31T23:59:59.999Z)/,
      );
    }
    expect(await rawEvents(g.rawStream)).toEqual([]);
  });
});
