/**
 * `npm start`: the whole kfek pipeline on this machine, with no AWS account.
 *
 * 1. Installs the Python tools into `.venv/` (moto) and unpacks OpenSearch into `.kfek/` (both git-ignored).
 * 2. Starts moto (CloudWatch Logs, Kinesis, S3) and a real OpenSearch node on 127.0.0.1, free ports.
 * 3. Creates the log groups, subscription filters, streams and dead-letter bucket from the CDK app's own config
 *    (`resolveConfig` over cdk.json, profile `sandbox` unless `--profile`), provisions OpenSearch with the shipped
 *    core/opensearch code, and runs the transform handler under a local event-source loop and a local stand-in for
 *    Firehose (scripts/local/pipeline.ts).
 * 4. Writes generated log events (core/log-generator.ts) with a progress bar, waits until every event is indexed or
 *    accounted for, and prints a summary. Ctrl-C stops everything it started; `--keep` leaves OpenSearch up.
 *
 * See docs/local.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { createHttpClient, provisionOpenSearch } from '../../core/opensearch';
import { generateEvents, newRunId } from '../../core/log-generator';
import { ProgressBar } from '../../cli/progress';
import { startOpenSearch, type RunningOpenSearch } from '../opensearch-node';
import { startMoto, type MotoServer } from '../moto-server';
import { loadConfig, localSpecFromConfig, openSearchSpecFromConfig, REPO_ROOT } from './config-spec';
import { LocalRunError, UsageError } from './errors';
import { readFailedDocuments } from './failed-documents';
import { LocalPipeline, localFolders } from './pipeline';
import { localSearchHttp } from './search-http';
import type { OutgoingLogEvent } from './sender';
import { formatSummary } from './summary';

/** Parsed command line. */
export interface StartOptions {
  /** Events to write. */
  readonly events: number;
  /** cdk.json profile; undefined picks the config's default (sandbox). */
  readonly profile?: string;
  /** Leave OpenSearch running after the summary. */
  readonly keep: boolean;
  /** Log streams per log group. */
  readonly streamsPerGroup: number;
  /** Print every invocation's and bulk request's timing. */
  readonly verbose: boolean;
}

/** Where `--keep` records the node it leaves running; `scripts/opensearch-node.ts stop` reads it. */
const KEPT_NODE_STATE = path.join(REPO_ROOT, '.kfek', 'opensearch-node.json');

/** About a minute end to end on a 2-core machine once OpenSearch is unpacked (its start is most of it). */
export const DEFAULT_EVENTS = 3000;

const USAGE = `usage: npm start -- [--events N] [--profile NAME] [--keep] [--verbose]

  --events N       log events to write (default ${DEFAULT_EVENTS})
  --profile NAME   config profile from cdk.json "kfek.profiles" (default: sandbox)
  --keep           leave OpenSearch running afterwards for exploring (prints how to stop it)
  --verbose        print the timing of every transform invocation and bulk request`;

/** Parses `process.argv.slice(2)`; throws {@link UsageError} for anything it does not know. */
export function parseStartOptions(argv: readonly string[]): StartOptions | 'help' {
  let events = DEFAULT_EVENTS;
  let profile: string | undefined;
  let keep = false;
  let verbose = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? arg.split(/=(.*)/s, 2) : [arg, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new UsageError(`${flag} needs a value\n\n${USAGE}`);
      return v;
    };
    switch (flag) {
      case '--events': {
        const text = value();
        events = Number(text);
        if (!/^\d+$/.test(text) || events < 1 || events > 1_000_000) {
          throw new UsageError(
            `--events is ${JSON.stringify(text)}; expected a whole number from 1 to 1000000`,
          );
        }
        break;
      }
      case '--profile':
        profile = value();
        break;
      case '--keep':
        keep = true;
        break;
      case '--verbose':
        verbose = true;
        break;
      case '--help':
      case '-h':
        return 'help';
      default:
        throw new UsageError(`unknown option ${JSON.stringify(arg)}\n\n${USAGE}`);
    }
  }
  return { events, profile, keep, verbose, streamsPerGroup: 2 };
}

/**
 * The events of one run: issue 6's generator for the content, spread over the config's log groups and a few
 * streams per group named after the run (the summary finds the run's documents by those names), timestamps
 * spread over the last 45 minutes so the error histogram has several 15-minute bins, distinct within a stream.
 */
export function runEvents(
  runId: string,
  count: number,
  logGroups: readonly string[],
  streamsPerGroup: number,
  now: number,
): OutgoingLogEvent[] {
  const spanInMillis = 45 * 60_000;
  const step = Math.max(1, Math.floor(spanInMillis / count));
  const start = now - step * count;
  const generated = generateEvents(count, { runId, seed: 7 }, (i) => start + i * step);
  const targets = logGroups.flatMap((group) =>
    Array.from({ length: streamsPerGroup }, (_, n) => ({ group, stream: `kfek-local/${runId}/${n}` })),
  );
  return generated.map((event, i) => {
    const target = targets[i % targets.length];
    return {
      logGroupName: target.group,
      logStreamName: target.stream,
      timestamp: event.timestamp,
      message: event.message,
    };
  });
}

/** What `main` started, stopped in reverse order on exit, error or Ctrl-C. */
class Processes {
  moto: MotoServer | undefined;
  openSearch: RunningOpenSearch | undefined;
  pipeline: LocalPipeline | undefined;
  private starting: Promise<unknown> | undefined;
  private stopping: Promise<void> | undefined;

  /**
   * Starts moto and OpenSearch in parallel and records each as soon as it is up, so a Ctrl-C during the start
   * still finds (after waiting for it) a node to stop. Throws the first start failure.
   */
  async startServers(): Promise<{ moto: MotoServer; openSearch: RunningOpenSearch }> {
    const starts = Promise.allSettled([
      startMoto().then((m) => (this.moto = m)),
      startOpenSearch().then((o) => (this.openSearch = o)),
    ]);
    this.starting = starts;
    const [moto, openSearch] = await starts;
    if (moto.status === 'rejected') throw moto.reason;
    if (openSearch.status === 'rejected') throw openSearch.reason;
    return { moto: moto.value, openSearch: openSearch.value };
  }

  /** Stops everything started so far; safe to call twice (the second call waits for the first). */
  stopAll(keepOpenSearch = false): Promise<void> {
    this.stopping ??= (async () => {
      if (this.starting !== undefined && (this.moto === undefined || this.openSearch === undefined)) {
        // A server still starting has no handle yet, and runs in its own process group (a terminal's Ctrl-C
        // does not reach it). Ending the groups of this process' own children makes its start fail fast; the
        // starter then cleans up after it. Waiting instead would take up to the start timeout.
        for (const pid of ownChildPids()) {
          try {
            process.kill(-pid, 'SIGTERM');
          } catch {
            // Not a group leader, or gone already.
          }
        }
      }
      await this.starting;
      await this.pipeline?.stop().catch((error: unknown) => console.error(`pipeline: ${String(error)}`));
      await this.moto?.stop().catch((error: unknown) => console.error(`moto: ${String(error)}`));
      if (!keepOpenSearch) {
        await this.openSearch
          ?.stop()
          .catch((error: unknown) => console.error(`OpenSearch: ${String(error)}`));
      }
    })();
    return this.stopping;
  }
}

/** The URL of a node an earlier `npm start -- --keep` left running, if its process is still alive. */
function keptNodeStillRunning(): string | undefined {
  try {
    const state = JSON.parse(readFileSync(KEPT_NODE_STATE, 'utf8')) as { url?: string; pid?: number };
    if (typeof state.pid !== 'number' || typeof state.url !== 'string') return undefined;
    process.kill(state.pid, 0);
    return state.url;
  } catch {
    return undefined;
  }
}

/** Pids of this process' direct children, from /proc (Linux); empty where /proc is not readable. */
function ownChildPids(): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid ..."; comm may hold spaces, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

function step(text: string): void {
  console.log(`\n==> ${text}`);
}

/** Runs `bash scripts/ensure-python-tools.sh` (idempotent; creates .venv with moto on first use). */
function ensurePythonTools(): void {
  const result = spawnSync('bash', [path.join(REPO_ROOT, 'scripts', 'ensure-python-tools.sh')], {
    stdio: 'inherit',
  });
  if (result.status !== 0) {
    throw new LocalRunError(
      'scripts/ensure-python-tools.sh failed: it needs python3 with venv and pip access to PyPI on the first run',
    );
  }
}

async function run(
  options: StartOptions,
  processes: Processes,
  interrupted: () => boolean,
): Promise<boolean> {
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
    console.log(
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
  const started = Date.now();
  const { moto, openSearch } = await processes.startServers();
  check();
  const motoEndpoint = moto.endpoint;
  const searchUrl = openSearch.url;
  console.log(
    `    moto ${motoEndpoint}, OpenSearch ${openSearch.version} ${searchUrl} ` +
      `(${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );

  step(
    'provisioning OpenSearch with core/opensearch (index template, retention policy where the plugin exists)',
  );
  await provisionOpenSearch(createHttpClient({ baseUrl: searchUrl }), openSearchSpecFromConfig(config), {
    log: (line) => console.log(`    ${line}`),
  });
  check();

  step('creating log groups, subscription filters, streams and the dead-letter bucket in moto');
  const search = localSearchHttp(searchUrl);
  const pipeline = await LocalPipeline.start({
    spec,
    awsEndpoint: motoEndpoint,
    search,
    workDir,
    log: (line) => console.log(`    ${line}`),
    trace: options.verbose
      ? (line) => console.log(`    ${new Date().toISOString().slice(11, 23)} ${line}`)
      : undefined,
  });
  processes.pipeline = pipeline;
  console.log(`    raw ${pipeline.resources.rawStreamArn}\n    events ${pipeline.resources.eventsStreamArn}`);
  check();

  const runId = newRunId(Date.now());
  step(`writing ${options.events} log events (run ${runId})`);
  const events = runEvents(
    runId,
    options.events,
    spec.logGroups.map((g) => g.name),
    options.streamsPerGroup,
    Date.now(),
  );
  const probe = pipeline.newLatencyProbe();
  probe.start();
  const runStarted = Date.now();
  const bar = new ProgressBar(process.stderr, { total: events.length, label: 'PutLogEvents' });
  // The probe follows events as they are written, so a slow send does not hide latency.
  const sent = await pipeline.send(events, {
    onProgress: (written) => {
      bar.update(written);
      check();
    },
  });
  bar.finish();
  probe.follow(sent);

  step('waiting until every event is indexed or accounted for');
  await pipeline.waitUntilSettled(300_000);
  check();
  const summary = await pipeline.summarize(runId, sent, probe, runStarted);
  console.log(formatSummary(summary));
  const failed = await readFailedDocuments(localFolders(workDir).failedDocuments);
  if (failed.length > 0) {
    console.log(
      `  failed documents are in ${path.relative(process.cwd(), localFolders(workDir).failedDocuments)}/`,
    );
  }

  if (options.keep) {
    writeFileSync(
      KEPT_NODE_STATE,
      JSON.stringify({ url: searchUrl, pid: openSearch.pid, homeDir: openSearch.homeDir }),
    );
    openSearch.detach();
    const pattern = spec.delivery.indexPattern;
    console.log(
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
  return summary.eventsSearchable === summary.eventsWritten;
}

async function main(argv: readonly string[]): Promise<number> {
  let options: StartOptions | 'help';
  try {
    options = parseStartOptions(argv);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    return 2;
  }
  if (options === 'help') {
    console.log(USAGE);
    return 0;
  }
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
    const ok = await run(options, processes, () => interrupted);
    await processes.stopAll(keep);
    return ok ? 0 : 1;
  } catch (error) {
    if (!interrupted)
      console.error(`\nnpm start failed: ${error instanceof Error ? error.message : String(error)}`);
    await processes.stopAll();
    return interrupted ? 130 : 1;
  }
}

if (require.main === module) {
  // The AWS SDK warns on every Node 20 process that later releases need Node 22; said once in docs/local.md,
  // it would otherwise sit in the middle of the run's output. Every other warning is still printed.
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name !== 'NodeVersionSupportWarning') console.error(`${warning.name}: ${warning.message}`);
  });
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
