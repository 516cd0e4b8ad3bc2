/**
 * One local run, shared by `npm start` (main.ts) and `npm run bench:e2e` (bench/e2e.bench.ts): prerequisites,
 * servers, provisioning, resources, the pipeline, the written events, the wait, the summary.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ProgressBar } from '../../core/progress';
import { createHttpClient, provisionOpenSearch } from '../../core/opensearch';
import { newRunId } from '../../core/log-generator';
import { loadConfig, localSpecFromConfig, openSearchSpecFromConfig, REPO_ROOT } from './config-spec';
import { LocalRunError } from './errors';
import { readFailedDocuments } from './failed-documents';
import type { StartOptions } from './options';
import { LocalPipeline, localFolders } from './pipeline';
import { ensurePythonTools, KEPT_NODE_STATE, keptNodeStillRunning, Processes } from './processes';
import { localSearchHttp } from './search-http';
import { formatSummary, type RunSummary } from './summary';
import { warmUpDocumentsFor, warmUpSearch } from './warm-up';
import { cpuSpan, type CpuSpan, sampleCpu } from './cpu-usage';
import { type NodeCounters, nodeCountersDelta, sampleNodeCounters } from './node-stats';
import { runEvents } from './workload';
import { reconcileArgs, runReconcileStep, type ReconcileStepOptions } from './reconcile-step';

export interface LocalRunResult {
  /** True when every event written is searchable. */
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
  out: (line: string) => void = (line) => out(line),
): Promise<LocalRunResult> {
  const step = (text: string): void => out(`\n==> ${text}`);
  const check = (): void => {
    if (interrupted()) throw new LocalRunError('interrupted');
  };
  const config = loadConfig(options.profile);
  const spec = localSpecFromConfig(config);
  const workDir = path.join(REPO_ROOT, '.kfek', 'local');
  const keptNode = keptNodeStillRunning();
  if (keptNode !== undefined) {
    // `--keep` records one node; a second `--keep` would overwrite the record of the first.
    const advice = options.keep ? " Stop it first, or this run's --keep record replaces its record." : '';
    out(
      `note: OpenSearch kept by an earlier run is still up at ${keptNode} ` +
        `(stop it: npx ts-node --transpile-only scripts/opensearch-node.ts stop).${advice}`,
    );
  }
  // Each run starts from empty local folders, as each run starts a fresh moto and OpenSearch.
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });

  step(
    `profile ${config.profile}: ${spec.logGroups.map((g) => g.name).join(', ')} -> ${spec.rawStream.name}`,
  );
  step('Python tools (.venv: moto)');
  ensurePythonTools();
  check();

  step('starting moto and OpenSearch on 127.0.0.1 (the first run unpacks OpenSearch into .kfek/)');
  // The run's one clock, handed to every loop (scripts/local reads time from what it is given).
  const now = Date.now;
  const started = now();
  const { moto, openSearch } = await processes.startServers();
  check();
  const motoEndpoint = moto.endpoint;
  const searchUrl = openSearch.url;
  out(
    `    moto ${motoEndpoint}, OpenSearch ${openSearch.version} ${searchUrl} ` +
      `(${((now() - started) / 1000).toFixed(1)} s)`,
  );

  step(
    'provisioning OpenSearch with core/opensearch (index template, retention policy where the plugin exists)',
  );
  await provisionOpenSearch(createHttpClient({ baseUrl: searchUrl }), openSearchSpecFromConfig(config), {
    log: (line) => out(`    ${line}`),
  });
  check();

  const search = localSearchHttp(searchUrl);
  if (options.warmUp) {
    const documents = warmUpDocumentsFor(options.events);
    step(
      `warming up OpenSearch: ${documents} transform documents through the template and pipeline ` +
        '(index deleted after)',
    );
    const warm = await warmUpSearch(search, spec.delivery.indexPattern, spec.logGroups[0].name, {
      documents,
    });
    out(
      `    ${warm.documents} documents in ${(warm.totalMillis / 1000).toFixed(1)} s; first bulk ` +
        `${warm.firstBulkMillis} ms, last ${warm.lastBulkMillis} ms` +
        (warm.rejected > 0 ? `; ${warm.rejected} REJECTED (the run's documents will likely be too)` : ''),
    );
    check();
  }

  step('creating log groups, subscription filters, streams and the dead-letter bucket in moto');
  const pipeline = await LocalPipeline.start({
    spec,
    delivery: options.delivery,
    awsEndpoint: motoEndpoint,
    search,
    workDir,
    now,
    log: (line) => out(`    ${line}`),
    trace: options.verbose
      ? (line) => out(`    ${new Date(now()).toISOString().slice(11, 23)} ${line}`)
      : undefined,
  });
  processes.pipeline = pipeline;
  out(`    raw ${pipeline.resources.rawStreamArn}\n    events ${pipeline.resources.eventsStreamArn}`);
  check();

  const runId = newRunId(now());
  step(`writing ${options.events} log events (run ${runId})`);
  const events = runEvents(
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
  const reconciled = options.reconcile
    ? await reconcileRun(out, {
        profile: config.profile,
        logGroups: spec.logGroups.map((g) => g.name),
        awsEndpoint: motoEndpoint,
        region: spec.region,
        openSearchUrl: searchUrl,
        rawStreamArn: pipeline.resources.rawStreamArn,
        deadLetterBucket: pipeline.resources.deadLetterBucket,
        workDir,
        since: new Date(Math.min(...sent.map((e) => e.timestamp))),
      })
    : true;

  if (options.keep) {
    writeFileSync(
      KEPT_NODE_STATE,
      JSON.stringify({ url: searchUrl, pid: openSearch.pid, homeDir: openSearch.homeDir }),
    );
    openSearch.detach();
    const pattern = spec.delivery.searchPattern;
    out(
      [
        `OpenSearch stays up at ${searchUrl} (pid ${openSearch.pid}). Try:`,
        `  curl -s '${searchUrl}/_cat/indices/${pattern}?v'`,
        `  curl -s '${searchUrl}/${pattern}/_search?q=level:ERROR&size=3&pretty'`,
        `  curl -s -H 'content-type: application/json' '${searchUrl}/${pattern}/_search?pretty' -d ` +
          `'{"size":0,"aggs":{"by_group":{"terms":{"field":"cloudwatch.logGroup"}}}}'`,
        `  curl -s '${searchUrl}/${pattern}/_search?pretty&q=lambda.durationMs:>100'`,
        'Stop it with: npx ts-node --transpile-only scripts/opensearch-node.ts stop',
      ].join('\n'),
    );
  }
  // Extra documents (copies in a second daily index) do not fail the run; a missing event does.
  const cpu =
    cpuBefore === undefined || cpuAfter === undefined
      ? undefined
      : cpuSpan(cpuBefore, cpuAfter, {
          'OpenSearch node': openSearch.pid,
          'moto (CloudWatch Logs, Kinesis, S3)': moto.pid,
          'runner (writer, transform, loops)': process.pid,
        });
  return {
    ok: summary.eventsSearchable === summary.eventsWritten && reconciled,
    summary,
    ...(cpu === undefined ? {} : { cpu }),
    ...(nodeBefore === undefined || nodeAfter === undefined
      ? {}
      : { node: nodeCountersDelta(nodeBefore, nodeAfter) }),
  };
}

/** The last step: `kfek reconcile` over the run's window (scripts/local/reconcile-step.ts); true when nothing is missing. */
async function reconcileRun(out: (line: string) => void, options: ReconcileStepOptions): Promise<boolean> {
  out('\n==> kfek reconcile: CloudWatch Logs against OpenSearch, per log group and minute of the run');
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
