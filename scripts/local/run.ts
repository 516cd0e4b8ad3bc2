/**
 * One local run, shared by `npm start` (main.ts) and `npm run bench:e2e` (bench/e2e.bench.ts): prerequisites,
 * servers, provisioning, resources, the pipeline, the written events, the wait, the summary.
 */
import * as path from 'node:path';
import { ProgressBar } from '../../core/progress';
import { newRunId } from '../../core/log-generator';
import { LocalRunError } from './errors';
import { readFailedDocuments } from './failed-documents';
import type { StartOptions } from './options';
import { localFolders } from './pipeline';
import { Processes } from './processes';
import { keepNodeUp, type RunSetUp, setUpRun } from './run-steps';
import { eventsMissing, formatSummary, type RunSummary } from './summary';
import { cpuSpan, type CpuSpan, sampleCpu } from './cpu-usage';
import { type NodeCounters, nodeCountersDelta, sampleNodeCounters } from './node-stats';
import { runEvents } from './workload';
import type { SentLogEvent } from './sender';
import { reconcileArgs, runReconcileStep, type ReconcileStepOptions } from './reconcile-step';
import { COLLECTION_SIGNING_SERVICE, isServerlessProfile } from './local-collection';

export interface LocalRunResult {
  /** True when every event written is searchable, or was dropped or joined by its route, and reconcile agrees. */
  readonly ok: boolean;
  readonly summary: RunSummary;
  /** Where the CPU went from the first write to all searchable; undefined where Linux's /proc is missing. */
  readonly cpu?: CpuSpan;
  /** What the node counted over the same span (`_nodes/stats`); undefined if it did not answer. */
  readonly node?: NodeCounters;
}

export async function runLocal(
  options: StartOptions,
  processes: Processes,
  interrupted: () => boolean,
  out: (line: string) => void,
): Promise<LocalRunResult> {
  const step = (text: string): void => out(`\n==> ${text}`);
  const check = (): void => {
    if (interrupted()) throw new LocalRunError('interrupted');
  };
  const setUp = await setUpRun(options, processes, check, { out, step });
  const { spec, workDir, moto, openSearch, pipeline, now, search } = setUp;

  const runId = newRunId(now());
  step(`writing ${options.events} log events (run ${runId})`);
  const events = (options.workload ?? runEvents)(
    runId,
    options.events,
    spec.logGroups.map((g) => g.name),
    options.streamsPerGroup,
    now(),
  );
  const probe = pipeline.newLatencyProbe(events.length);
  probe.start();
  const nodeBefore = await sampleNodeCounters(search);
  const runStarted = now();
  const cpuBefore = sampleCpu(now);
  const bar = new ProgressBar(process.stderr, { total: events.length, label: 'PutLogEvents' });
  const sent = await pipeline.send(events, {
    // The probe follows each call's events as soon as it returns: following them only after the whole write
    // made every latency at least the rest of the write time.
    onSent: (batch) => probe.follow(batch),
    onProgress: (written) => {
      bar.update(written);
      check();
    },
  });
  bar.finish();
  const lastWriteEndedAt = now();

  step('waiting until every event is indexed or accounted for');
  await pipeline.waitUntilSettled(300_000);
  check();
  const searchableAt = await pipeline.waitUntilSearchable([...new Set(sent.map((e) => e.logStreamName))]);
  const cpuAfter = sampleCpu(now);
  const nodeAfter = await sampleNodeCounters(search);
  const summary = await pipeline.summarize(runId, sent, probe, runStarted, {
    firstWriteAt: runStarted,
    lastWriteEndedAt,
    searchableAt,
  });
  out(formatSummary(summary));
  const failed = await readFailedDocuments(localFolders(workDir).failedDocuments);
  if (failed.length > 0) {
    out(`  failed documents are in ${path.relative(process.cwd(), localFolders(workDir).failedDocuments)}/`);
  }
  const reconciled = options.reconcile ? await reconcileRun(out, setUp, sent) : true;

  if (options.keep) keepNodeUp(openSearch, spec, out);
  // Extra documents (copies in a second daily index) do not fail the run; a missing event does. A dropped or joined
  // event is not missing: the route's processing took it, and the summary counts it (route-accounting.ts).
  const cpu =
    cpuBefore === undefined || cpuAfter === undefined
      ? undefined
      : cpuSpan(cpuBefore, cpuAfter, {
          'OpenSearch node': openSearch.pid,
          'moto (CloudWatch Logs, Kinesis, S3)': moto.pid,
          'runner (writer, transform, loops)': process.pid,
        });
  return {
    ok: eventsMissing(summary) === 0 && reconciled,
    summary,
    ...(cpu === undefined ? {} : { cpu }),
    ...(nodeBefore === undefined || nodeAfter === undefined
      ? {}
      : { node: nodeCountersDelta(nodeBefore, nodeAfter) }),
  };
}

/**
 * `kfek reconcile` over what the run set up, from its first event written; on a collection with `--service aoss`
 * (signed for `aoss`, no routing).
 */
function reconcileStepOptions(setUp: RunSetUp, sent: readonly SentLogEvent[]): ReconcileStepOptions {
  const { spec, pipeline } = setUp;
  return {
    profile: setUp.config.profile,
    logGroups: spec.logGroups.map((g) => g.name),
    awsEndpoint: setUp.moto.endpoint,
    region: spec.region,
    openSearchUrl: setUp.searchUrl,
    rawStreamArn: pipeline.resources.rawStreamArn,
    deadLetterBucket: pipeline.resources.deadLetterBucket,
    workDir: setUp.workDir,
    since: new Date(Math.min(...sent.map((e) => e.timestamp))),
    ...(isServerlessProfile(setUp.config) ? { service: COLLECTION_SIGNING_SERVICE } : {}),
  };
}

/**
 * The last step: `kfek reconcile` over the run's window (scripts/local/reconcile-step.ts), on a domain or a
 * collection alike; true when nothing is missing.
 */
async function reconcileRun(
  out: (line: string) => void,
  setUp: RunSetUp,
  sent: readonly SentLogEvent[],
): Promise<boolean> {
  const options = reconcileStepOptions(setUp, sent);
  const against =
    options.service === undefined ? 'OpenSearch' : 'the collection (signed for aoss, no routing)';
  out(`\n==> kfek reconcile: CloudWatch Logs against ${against}, per log group and minute of the run`);
  out(`    npx kfek ${reconcileArgs(options).join(' ')}`);
  const result = await runReconcileStep(options);
  for (const line of result.report.split('\n')) out(line === '' ? '' : `    ${line}`);
  if (result.error !== undefined) out(`    ${result.error}`);
  return result.code === 0;
}

/**
 * {@link runLocal} with its servers stopped at the end, on error, and on SIGINT/SIGTERM (exit code 130). Returns
 * the exit code: 0 when every event is searchable, 1 otherwise or on an error.
 */
export async function runStoppingOnSignals(
  options: StartOptions,
  label: string,
  out: (line: string) => void = (line) => console.log(line),
): Promise<{ readonly code: number; readonly result?: LocalRunResult }> {
  const processes = new Processes();
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\n${signal}: stopping moto and OpenSearch ...`);
    // Stop at once; `run` notices the flag (or fails on a closed connection) and unwinds.
    void processes.stopAll().then(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const keep = options.keep;
  try {
    const result = await runLocal(options, processes, () => interrupted, out);
    await processes.stopAll(keep);
    return { code: result.ok ? 0 : 1, result };
  } catch (error) {
    if (!interrupted)
      console.error(`\n${label} failed: ${error instanceof Error ? error.message : String(error)}`);
    await processes.stopAll();
    return { code: interrupted ? 130 : 1 };
  }
}
