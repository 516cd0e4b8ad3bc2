/**
 * `npm run bench:e2e`: a fixed workload through the whole local pipeline (scripts/local/run.ts, the code `npm start`
 * runs: moto, a real OpenSearch node, the shipped transform under the event-source loop, the Firehose stand-in).
 * 100,000 generated log events, profile sandbox. Progress goes to stderr; the figures go to stdout, with this as
 * the last line, always in this format:
 *
 *   pipeline: <events/s first write to all searchable> events/s, p50 <a> s, p95 <b> s
 *
 * `--events N` changes the workload (then the figures are not comparable with docs/local.md's). The load average
 * is printed beside the figures: on a shared 2-core machine compare runs made under the same load.
 */
import { loadavg, cpus } from 'node:os';
import { parseStartOptions } from '../scripts/local/options';
import { runStoppingOnSignals } from '../scripts/local/run';
import { formatCpuSpan } from '../scripts/local/cpu-usage';
import { formatThroughput, pipelineLine } from '../scripts/local/throughput';

/** The fixed workload of the benchmark. */
export const BENCH_E2E_EVENTS = 100_000;

async function main(argv: readonly string[]): Promise<number> {
  // The reconcile step runs after the measured part; the benchmark leaves it out (npm run bench:reconcile has its own).
  const parsed = parseStartOptions(['--events', String(BENCH_E2E_EVENTS), '--no-reconcile', ...argv]);
  if (parsed === 'help') {
    console.log('usage: npm run bench:e2e -- [--events N] [--profile NAME] [--verbose]');
    return 0;
  }
  const loadBefore = loadavg()[0];
  const { code, result } = await runStoppingOnSignals(parsed, 'bench:e2e', (line) => console.error(line));
  if (result?.summary.throughput === undefined) return code === 0 ? 1 : code;
  const { summary } = result;
  const t = result.summary.throughput;
  const s = (millis: number | undefined): string =>
    millis === undefined ? 'n/a' : (millis / 1000).toFixed(2);
  console.log(
    [
      `bench:e2e ${summary.eventsWritten} events (${summary.eventsSearchable} searchable), profile ` +
        `${parsed.profile ?? 'sandbox'}, ${cpus().length} cores, load average ${loadBefore.toFixed(1)} at ` +
        `start, ${loadavg()[0].toFixed(1)} at end`,
      ...formatThroughput(t),
      `  latency PutLogEvents to searchable (${summary.latency.found} of ${summary.latency.sampled} sampled): ` +
        `p50 ${s(summary.latency.p50InMillis)} s, p95 ${s(summary.latency.p95InMillis)} s, ` +
        `max ${s(summary.latency.maxInMillis)} s`,
      ...(result.cpu === undefined ? [] : formatCpuSpan(result.cpu, summary.eventsWritten)),
      pipelineLine(t, summary.latency),
    ].join('\n'),
  );
  return code;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
