/**
 * `npm run bench:e2e`: a fixed workload through the whole local pipeline (scripts/local/run.ts, the code `npm start`
 * runs: moto, a real OpenSearch node, the shipped transform under the event-source loop), once per delivery, side
 * by side in one run (issue 41): the Firehose stand-in with the ingest pipeline, then kfek's own indexer (the shipped
 * lambda/indexer handler, no pipeline). Each run is a process of its own (`--delivery <one>`) with its own moto and
 * node. 100,000 generated log events, profile sandbox.
 * Progress goes to stderr; the figures go to stdout: each delivery's block, a line of ratios, and as the last line,
 * always in this format, the default delivery's (firehose):
 *
 *   pipeline: <events/s first write to all searchable> events/s, p50 <a> s, p95 <b> s
 *
 * `--delivery firehose|direct` runs one delivery only; `--events N` changes the workload (then the figures are not
 * comparable with docs/local.md's). The load average is printed beside the figures: on a shared 2-core machine
 * compare runs made under the same load, and compare the ratios of one run rather than figures of two.
 */
import { spawnSync } from 'node:child_process';
import { loadavg, cpus } from 'node:os';
import { parseStartOptions, type StartOptions } from '../scripts/local/options';
import { runStoppingOnSignals } from '../scripts/local/run';
import { formatCpuSpan } from '../scripts/local/cpu-usage';
import { formatNodeCounters } from '../scripts/local/node-stats';
import { formatThroughput, pipelineLine } from '../scripts/local/throughput';

/** The fixed workload of the benchmark. */
export const BENCH_E2E_EVENTS = 100_000;

/** What one delivery's run measured. */
interface Measured {
  readonly lines: string[];
  readonly pipeline: string;
  readonly eventsPerSecond: number | undefined;
  readonly p95InMillis: number | undefined;
  /** The OpenSearch node's CPU per event, core-microseconds. */
  readonly nodeMicrosPerEvent: number | undefined;
}

async function measure(options: StartOptions): Promise<{ code: number; measured?: Measured }> {
  const loadBefore = loadavg()[0];
  const { code, result } = await runStoppingOnSignals(options, 'bench:e2e', (line) => console.error(line));
  const t = result?.summary.throughput;
  if (result === undefined || t === undefined) return { code: code === 0 ? 1 : code };
  const { summary, cpu, node } = result;
  const s = (millis: number | undefined): string =>
    millis === undefined ? 'n/a' : (millis / 1000).toFixed(2);
  const nodeRole = Object.keys(cpu?.byRole ?? {}).find((role) => /opensearch/i.test(role));
  return {
    code,
    measured: {
      lines: [
        `bench:e2e delivery ${options.delivery}: ${summary.eventsWritten} events (${summary.eventsSearchable} ` +
          `searchable), profile ${options.profile ?? 'sandbox'}, ${cpus().length} cores, load average ` +
          `${loadBefore.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end`,
        ...formatThroughput(t),
        `  latency PutLogEvents to searchable (${summary.latency.found} of ${summary.latency.sampled} sampled): ` +
          `p50 ${s(summary.latency.p50InMillis)} s, p95 ${s(summary.latency.p95InMillis)} s, ` +
          `max ${s(summary.latency.maxInMillis)} s`,
        ...(cpu === undefined ? [] : formatCpuSpan(cpu, summary.eventsWritten)),
        ...(node === undefined ? [] : formatNodeCounters(node)),
      ],
      pipeline: pipelineLine(t, summary.latency),
      eventsPerSecond: t.endToEndInMillis === undefined ? undefined : (t.events * 1000) / t.endToEndInMillis,
      p95InMillis: summary.latency.p95InMillis,
      nodeMicrosPerEvent:
        nodeRole === undefined || cpu === undefined || summary.eventsWritten === 0
          ? undefined
          : (cpu.byRole[nodeRole] * 1e6) / summary.eventsWritten,
    },
  };
}

/** The ratios of the direct run to the Firehose run of the same bench. */
function ratioLine(firehose: Measured, direct: Measured): string {
  const ratio = (a: number | undefined, b: number | undefined): string =>
    a === undefined || b === undefined || b === 0 ? 'n/a' : `${(a / b).toFixed(2)}x`;
  const us = (v: number | undefined): string => (v === undefined ? 'n/a' : `${Math.round(v)}`);
  return (
    `direct vs firehose: ${ratio(direct.eventsPerSecond, firehose.eventsPerSecond)} events/s, p95 ` +
    `${ratio(direct.p95InMillis, firehose.p95InMillis)}, node CPU per event ${us(direct.nodeMicrosPerEvent)} vs ` +
    `${us(firehose.nodeMicrosPerEvent)} core-us (${ratio(direct.nodeMicrosPerEvent, firehose.nodeMicrosPerEvent)})`
  );
}

async function main(argv: readonly string[]): Promise<number> {
  // The reconcile step runs after the measured part; the benchmark leaves it out (npm run bench:reconcile has its own).
  const parsed = parseStartOptions(['--events', String(BENCH_E2E_EVENTS), '--no-reconcile', ...argv]);
  if (parsed === 'help') {
    console.log(
      'usage: npm run bench:e2e -- [--events N] [--profile NAME] [--delivery firehose|direct] [--verbose]',
    );
    return 0;
  }
  if (!argv.some((a) => a.startsWith('--delivery'))) return bothSideBySide(argv);
  const { code, measured } = await measure(parsed);
  if (measured === undefined || code !== 0) return code === 0 ? 1 : code;
  console.log(
    [...measured.lines, `  ${measured.pipeline}`, measureLine(measured), measured.pipeline].join('\n'),
  );
  return 0;
}

/** A machine-readable line of one run, for {@link bothSideBySide}. */
function measureLine(m: Measured): string {
  return `measured: ${JSON.stringify({ e: m.eventsPerSecond, p95: m.p95InMillis, node: m.nodeMicrosPerEvent })}`;
}

/**
 * Both deliveries, one after the other, each in a process of its own: the handlers read their environment (moto's
 * and the node's addresses) and build their clients once per process, as in Lambda, so a second run in the same
 * process would talk to the first run's stopped servers.
 */
function bothSideBySide(argv: readonly string[]): number {
  const runs: Measured[] = [];
  const outputs: string[] = [];
  for (const delivery of ['firehose', 'direct']) {
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, __filename, ...argv, '--delivery', delivery],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    if (child.status !== 0) return child.status ?? 1;
    const lines = child.stdout.trimEnd().split('\n');
    const json = lines.find((l) => l.startsWith('measured: '))?.slice('measured: '.length) ?? '{}';
    const m = JSON.parse(json) as { e?: number; p95?: number; node?: number };
    const pipeline = lines[lines.length - 1];
    outputs.push(...lines.filter((l) => !l.startsWith('measured: ')).slice(0, -1));
    runs.push({ lines: [], pipeline, eventsPerSecond: m.e, p95InMillis: m.p95, nodeMicrosPerEvent: m.node });
  }
  console.log([...outputs, ratioLine(runs[0], runs[1]), runs[0].pipeline].join('\n'));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
