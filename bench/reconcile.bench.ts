/**
 * `npm run bench:reconcile`: what `kfek reconcile` costs on a healthy hour and on the same hour with gaps, side by
 * side in one run, against the pipeline of `npm start` (moto, a real OpenSearch node, the real transform, the local
 * Firehose stand-in). An hour of generated events (`--events`, 60,000 by default: 1,000 a minute over 2 log
 * streams) goes through the pipeline; then:
 *
 * 1. healthy: `kfek reconcile` over the hour (cli/main.ts `run`, exactly what `npx kfek reconcile` runs);
 * 2. gaps: the documents of `--gap-minutes` minutes (6 by default, spread over the hour) are deleted from OpenSearch,
 *    and `kfek reconcile` runs again: those minutes differ and go through the exact tier;
 * 3. heal: `kfek reconcile --heal` sends the missing events back and waits until they are searchable.
 *
 * Each line: requests by service, wall time, events read by the exact tier and its events/s. moto's Logs Insights has
 * no `stats`, so the CloudWatch side is counted with FilterLogEvents here (`scan`: pages of 10,000 events, paced to
 * 4 a second as on AWS); on AWS, Logs Insights replaces those pages with one query per 50 log groups and 200 minutes
 * (cli/reconcile/cloudwatch.ts), which is what makes a healthy hour cost requests in proportion to groups x minutes.
 * Progress goes to stderr; stdout ends with, always in this format:
 *
 *   reconcile: healthy <ms> ms / <requests> requests, gaps <ms> ms / <requests> requests, exact tier <n> events/s
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdtempSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { run } from '../cli/main';
import type { ReconcileRun } from '../cli/reconcile/service';
import { createHttpClient, provisionOpenSearch } from '../core/opensearch';
import { generateEvents } from '../core/log-generator';
import { minuteOf } from '../core/reconcile/engine';
import { LOCAL_CREDENTIALS } from '../scripts/local/aws-clients';
import { loadConfig, localSpecFromConfig, openSearchSpecFromConfig } from '../scripts/local/config-spec';
import { LocalPipeline } from '../scripts/local/pipeline';
import { localSearchHttp } from '../scripts/local/search-http';
import { startMoto } from '../scripts/moto-server';
import { startOpenSearch } from '../scripts/opensearch-node';

interface Measured {
  readonly name: string;
  readonly wallInMillis: number;
  readonly report: ReconcileRun;
}

/** Runs `kfek reconcile` with `args` (and `extra`) as the CLI would, and reads its JSON report. */
function reconcileRunner(
  args: readonly string[],
): (name: string, extra?: readonly string[]) => Promise<Measured> {
  return async (name, extra = []) => {
    let stdout = '';
    let stderr = '';
    const startedAt = Date.now();
    const code = await run([...args, ...extra], {
      stdout: { write: (t: string) => (stdout += t) },
      stderr: { write: (t: string) => (stderr += t) },
      env: {},
    });
    const wallInMillis = Date.now() - startedAt;
    if (stdout === '') throw new Error(`kfek reconcile (${name}) printed nothing, exit ${code}: ${stderr}`);
    return { name, wallInMillis, report: JSON.parse(stdout) as ReconcileRun };
  };
}

/** Deletes the documents of `gapMinutes` minutes spread over the hour from `hourStart`. */
async function deleteMinutes(
  url: string,
  pattern: string,
  hourStart: number,
  gapMinutes: number,
): Promise<void> {
  const minutes = Array.from(
    { length: gapMinutes },
    (_, i) => hourStart + (5 + i * Math.floor(60 / gapMinutes)) * 60_000,
  );
  const http = createHttpClient({ baseUrl: url });
  for (const minute of minutes) {
    const deleted = await http.request({
      method: 'POST',
      path: `/${pattern}/_delete_by_query?refresh=true&conflicts=proceed`,
      body: {
        query: { range: { '@timestamp': { gte: minute, lt: minute + 60_000, format: 'epoch_millis' } } },
      },
    });
    if (deleted.status !== 200)
      throw new Error(`_delete_by_query answered ${deleted.status}: ${deleted.text}`);
  }
}

/** The bench's table and its closing lines (stdout, in the format the header promises). */
function printTable(
  runs: Readonly<Record<'healthy' | 'gaps' | 'healed' | 'after', Measured>>,
  setting: { readonly events: number; readonly gapMinutes: number; readonly loadBefore: number },
): void {
  const { healthy, gaps, healed, after } = runs;
  const { events, gapMinutes, loadBefore } = setting;
  const rows = [healthy, gaps, healed, after];
  console.log(
    `bench:reconcile: ${events} events over one hour, one log group, ${gapMinutes} minute(s) of documents deleted`,
  );
  console.log(
    'run          wall ms  CloudWatch  OpenSearch  kept  Kinesis  exact minutes  exact events  exact ms  events/s  missing  healed',
  );
  for (const m of rows) {
    const r = m.report;
    const g = r.groups[0];
    const rate =
      r.exactTier.durationInMillis > 0
        ? Math.round((r.exactTier.events * 1000) / r.exactTier.durationInMillis)
        : 0;
    console.log(
      [
        m.name.padEnd(11),
        String(m.wallInMillis).padStart(8),
        String(r.requests.cloudWatch).padStart(10),
        String(r.requests.openSearch).padStart(10),
        String(r.requests.kept).padStart(5),
        String(r.requests.kinesis).padStart(8),
        String(g.exactMinutes).padStart(14),
        String(r.exactTier.events).padStart(13),
        String(r.exactTier.durationInMillis).padStart(9),
        String(rate).padStart(9),
        String(r.totals.missing).padStart(8),
        String(r.heal?.healed ?? 0).padStart(7),
      ].join(' '),
    );
  }
  const requests = (m: Measured): number =>
    m.report.requests.cloudWatch +
    m.report.requests.openSearch +
    m.report.requests.kept +
    m.report.requests.kinesis;
  const exactRate =
    gaps.report.exactTier.durationInMillis > 0
      ? Math.round((gaps.report.exactTier.events * 1000) / gaps.report.exactTier.durationInMillis)
      : 0;
  console.log(
    `load average ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after, ${cpus().length} CPUs; ` +
      `heal: ${healed.report.heal?.sent ?? 0} sent, ${healed.report.heal?.healed ?? 0} searchable in ${healed.report.heal?.durationInMillis ?? 0} ms`,
  );
  console.log(
    `reconcile: healthy ${healthy.wallInMillis} ms / ${requests(healthy)} requests, gaps ${gaps.wallInMillis} ms / ` +
      `${requests(gaps)} requests, exact tier ${exactRate} events/s`,
  );
}

/** Sends `events` generated events spread over the hour from `hourStart` to `group`, over two streams. */
async function sendHour(
  pipeline: LocalPipeline,
  group: string,
  hourStart: number,
  events: number,
): Promise<void> {
  const generated = generateEvents(events, { runId: 'bench-reconcile' }, (i) =>
    Math.floor(hourStart + (i * 3_600_000) / events),
  );
  console.error(`bench:reconcile: writing ${events} events over an hour of ${group} ...`);
  await pipeline.send(
    generated.map((e, i) => ({
      logGroupName: group,
      logStreamName: `s${i % 2}`,
      timestamp: e.timestamp,
      message: e.message,
    })),
  );
}

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      events: { type: 'string', default: '60000' },
      'gap-minutes': { type: 'string', default: '6' },
    },
  });
  const events = Number(values.events);
  const gapMinutes = Number(values['gap-minutes']);
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
  const loadBefore = loadavg()[0];
  const config = loadConfig('sandbox');
  const spec = localSpecFromConfig(config);
  const group = spec.logGroups[0].name;
  const workDir = mkdtempSync(path.join(tmpdir(), 'kfek-bench-reconcile-'));
  console.error('bench:reconcile: starting moto and OpenSearch ...');
  const [moto, node] = await Promise.all([
    startMoto({ serialized: true }),
    startOpenSearch({ startTimeoutMillis: 240_000 }),
  ]);
  let pipeline: LocalPipeline | undefined;
  try {
    await provisionOpenSearch(createHttpClient({ baseUrl: node.url }), openSearchSpecFromConfig(config));
    const search = localSearchHttp(node.url);
    pipeline = await LocalPipeline.start({
      spec,
      awsEndpoint: moto.endpoint,
      search,
      workDir,
      transformLogLevel: 'CRITICAL',
    });
    // The hour: from 70 to 10 minutes ago, so every minute is older than any lag.
    const hourStart = minuteOf(Date.now()) - 70 * 60_000;
    await sendHour(pipeline, group, hourStart, events);
    await pipeline.waitUntilSettled(600_000);
    const reconcile = reconcileRunner([
      'reconcile',
      ...['--log-group', group, '--lag', '0s', '--json'],
      ...[
        '--since',
        new Date(hourStart).toISOString(),
        '--until',
        new Date(hourStart + 3_600_000).toISOString(),
      ],
      ...['--endpoint', moto.endpoint, '--region', spec.region, '--opensearch', node.url],
      ...['--raw-stream', pipeline.resources.rawStreamArn, '--bucket', pipeline.resources.deadLetterBucket],
      ...['--local-dir', workDir],
    ]);

    const healthy = await reconcile('healthy');
    // Gaps: every tenth minute's documents deleted (as an index deletion or a lost batch would leave them).
    await deleteMinutes(node.url, spec.delivery.searchPattern, hourStart, gapMinutes);
    const gaps = await reconcile('gaps');
    const healed = await reconcile('heal', ['--heal', '--heal-timeout', '300s']);
    await pipeline.waitUntilSettled(600_000);
    const after = await reconcile('after heal');

    printTable({ healthy, gaps, healed, after }, { events, gapMinutes, loadBefore });
    return after.report.totals.missing === 0 ? 0 : 1;
  } finally {
    await pipeline?.stop();
    await Promise.allSettled([moto.stop(), node.stop()]);
    rmSync(workDir, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
