/**
 * `npm run bench:backfill`: `kfek backfill`'s throughput against moto (moto one request at a time, as `npm start`
 * runs it). A log group of 100,000 generated events over 10 log streams and a raw stream of 2 shards; then the
 * command itself (cli/main.ts `run`, unpaced: `--rate` far above what moto takes) backfills the last hour, in
 * `--runs` runs of a fresh state folder each. Reading and writing share one moto, and the backfill waits for each
 * page's PutRecords before it reads the next, so the figure is the whole loop's: FilterLogEvents, envelopes, gzip,
 * PutRecords. Progress goes to stderr; stdout ends with, always in this format:
 *
 *   backfill: <median events/s> events/s against moto (<n> events, runs <a>-<b> events/s)
 *
 * `--events N` changes the workload. Against AWS the reading pace is FilterLogEvents' quota instead (4 calls/s of
 * up to 10,000 events: at most 40,000 events/s), and `--rate` is what a user sets.
 */
import { loadavg, cpus, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { CreateLogGroupCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CreateStreamCommand } from '@aws-sdk/client-kinesis';
import { run } from '../cli/main';
import { generateEvents } from '../core/log-generator';
import { LOCAL_CREDENTIALS, localAwsClients } from '../scripts/local/aws-clients';
import { sendLogEvents } from '../scripts/local/sender';
import { startMoto } from '../scripts/moto-server';
import { median } from './helpers/stats';

const GROUP = '/kfek/bench/backfill';
const RAW_STREAM = 'kfek-bench-raw';

interface RunFigures {
  readonly written: number;
  readonly records: number;
  readonly gzipBytes: number;
  readonly messageBytes: number;
  /** The backfill loop (the sampled estimate for the progress bar excluded). */
  readonly durationInMillis: number;
  /** The whole command, its estimate included. */
  readonly wallInMillis: number;
}

/** One `kfek backfill` of the last two hours of {@link GROUP} into {@link RAW_STREAM}, as the CLI runs it. */
async function backfillOnce(endpoint: string): Promise<RunFigures> {
  const stateDir = mkdtempSync(path.join(tmpdir(), 'kfek-bench-backfill-'));
  let stdout = '';
  const startedAt = Date.now();
  try {
    const code = await run(
      [
        'backfill',
        ...[
          '--endpoint',
          endpoint,
          '--region',
          'us-east-1',
          '--log-group',
          GROUP,
          '--raw-stream',
          RAW_STREAM,
        ],
        ...['--since', '2h', '--rate', '10000000', '--state-dir', stateDir, '--json'],
      ],
      {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: process.stderr,
        env: process.env,
      },
    );
    if (code !== 0) throw new Error(`kfek backfill exited ${code}: ${stdout}`);
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
  const summary = JSON.parse(stdout) as {
    counts: { written: number; records: number; gzipBytes: number; messageBytes: number };
    durationInMillis: number;
  };
  return {
    ...summary.counts,
    durationInMillis: summary.durationInMillis,
    wallInMillis: Date.now() - startedAt,
  };
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: { events: { type: 'string', default: '100000' }, runs: { type: 'string', default: '3' } },
  });
  const events = Number(values.events);
  const runs = Number(values.runs);
  // As bin/kfek-cli.js does: the SDK's Node 20 notice is not about what is measured.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // The SDK's credential chain reads these; moto takes any.
  process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
  const loadBefore = loadavg()[0];
  const moto = await startMoto({ serialized: true });
  const clients = localAwsClients(moto.endpoint, 'us-east-1');
  const figures: RunFigures[] = [];
  try {
    await clients.logs.send(new CreateLogGroupCommand({ logGroupName: GROUP }));
    await clients.kinesis.send(new CreateStreamCommand({ StreamName: RAW_STREAM, ShardCount: 2 }));
    const now = Date.now();
    const generated = generateEvents(events, { runId: 'bench-backfill' }, (i) =>
      Math.floor(now - 3_600_000 + (i * 3_000_000) / events),
    );
    console.error(`bench:backfill: writing ${events} events to ${GROUP} ...`);
    await sendLogEvents(
      clients.logs,
      generated.map((e, i) => ({
        logGroupName: GROUP,
        logStreamName: `s${i % 10}`,
        timestamp: e.timestamp,
        message: e.message,
      })),
    );
    for (let r = 0; r < runs; r++) {
      figures.push(await backfillOnce(moto.endpoint));
    }
  } finally {
    clients.destroy();
    await moto.stop();
  }
  const rates = figures.map((f) => (f.written * 1000) / f.durationInMillis);
  const mib = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);
  const first = figures[0];
  console.log(
    [
      `bench:backfill ${events} events in ${runs} runs, moto serialized, ${cpus().length} cores, load average ` +
        `${loadBefore.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end`,
      `  per run: ${first.written} events (${mib(first.messageBytes)} MiB of messages) in ${first.records} records ` +
        `(${mib(first.gzipBytes)} MiB gzip, ${Math.round(first.written / Math.max(1, first.records))} events each)`,
      ...figures.map(
        (f, i) =>
          `  run ${i + 1}: loop ${(f.durationInMillis / 1000).toFixed(2)} s, ${Math.round(rates[i])} events/s; ` +
          `command ${(f.wallInMillis / 1000).toFixed(2)} s with its sampled estimate`,
      ),
      `backfill: ${Math.round(median(rates))} events/s against moto (${events} events, runs ` +
        `${Math.round(Math.min(...rates))}-${Math.round(Math.max(...rates))} events/s)`,
    ].join('\n'),
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
