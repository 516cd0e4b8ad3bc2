/**
 * `kfek backfill`: resolves the job (log groups and stream from flags or the cdk.json profile, or from the checkpoint
 * with --resume), looks at each log group and its subscriptions, then either estimates (--dry-run) or runs with a
 * progress bar on stderr and prints the summary.
 */
import * as path from 'node:path';
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DEFAULTS, type PipelineConfig } from '../../core/config';
import { OperatorError } from '../../core/errors';
import type { RunContext } from '../context';
import { CliError } from '../errors';
import { stopSignal } from '../io';
import { ProgressBar } from '../../core/progress';
import { kinesisPort } from '../../core/kinesis/aws';
import type { BackfillArgs } from './args';
import { streamInfoPort } from './aws-ports';
import { type CheckpointStore, fileCheckpointStore } from './checkpoint';
import {
  estimateCost,
  estimateDuration,
  type PipelineFacts,
  type VolumeEstimate,
} from '../../core/contracts/backfill-cost';
import { estimateGroup } from '../../core/logs/window-estimate';
import { formatBytes } from '../format';
import { formatDryRun, formatDuration, formatSummary, type GroupDryRun } from './format';
import { folderKeptStore, type KeptStore } from './kept';
import {
  type BackfillCounts,
  type BackfillJob,
  CHECKPOINT_VERSION,
  type CheckpointState,
  isFinished,
  NO_COUNTS,
} from '../../core/backfill/model';
import { CallSpacer, type Clock, FILTER_LOG_EVENTS_CALLS_PER_SECOND } from '../../core/pace';
import { newJob, planGroups, resumedJob } from './job';
import { runBackfill } from './run';
import { logsPort } from '../../core/logs/aws';
import type { LogsPort } from '../../core/logs/ports';

/** Exit code of a run stopped by Ctrl-C (128 + SIGINT), as `npm start` uses. */
const INTERRUPTED_EXIT_CODE = 130;

export async function backfill(args: BackfillArgs, context: RunContext): Promise<number> {
  const { io, clock, aws, target } = context;
  const stateDir = context.resolve(args.stateDir);
  const checkpoint = fileCheckpointStore(path.join(stateDir, 'checkpoint.json'));
  const existing = await checkpoint.load();
  // The profile's routes decide where the events go and how their lines join: the same as live.
  const config = context.profile(args.profile);
  const job = args.resume
    ? resumedJob(args, existing, checkpoint.location, config.profile)
    : newJob(args, config, existing, checkpoint.location, clock);
  if (args.resume && existing !== undefined && isFinished(existing)) {
    io.stdout.write(`the backfill in ${checkpoint.location} is finished already; nothing to resume\n`);
    return 0;
  }
  const logs = pacedLogs(aws.logs, target.endpoint, clock);
  const openShards = await streamInfoPort(aws.kinesis, target.endpoint).openShards(job.rawStream);
  const groups = await planGroups(logs, job, config.routes);
  const resumed = args.resume ? existing : undefined;
  // The sampled estimate (about ten calls per log group): --dry-run's report, and the progress bar's total (a resumed
  // run keeps its first run's).
  const estimates = resumed === undefined ? await estimateGroups(logs, groups, job) : [];
  const total = totalOf(estimates);
  if (args.dryRun) {
    const report = {
      job,
      ratePerSecond: args.ratePerSecond,
      openShards,
      groups: estimates,
      total,
      duration: estimateDuration(total, args.ratePerSecond, openShards),
      cost: estimateCost(total, pipelineFacts(config)),
    };
    io.stdout.write(`${args.json ? JSON.stringify(report) : formatDryRun(report)}\n`);
    return 0;
  }
  const state =
    resumed !== undefined
      ? { ...resumed, runs: resumed.runs + 1 }
      : firstState(args, job, config.profile, total.events, clock.now());
  await checkpoint.save(state);
  const kept = folderKeptStore(stateDir);
  const result = await runWithProgress(args, context, { job, groups, state, logs, checkpoint, kept });
  const summary = {
    job,
    counts: result.state.counts,
    thisRun: result.thisRun,
    runs: result.state.runs,
    durationInMillis: result.durationInMillis,
    interrupted: result.interrupted,
    checkpoint: checkpoint.location,
    keptIn: kept.location,
    keptFiles: result.keptFiles,
    ...(result.lastErrorCode !== undefined ? { lastErrorCode: result.lastErrorCode } : {}),
  };
  io.stdout.write(`${args.json ? JSON.stringify(summary) : formatSummary(summary)}\n`);
  if (result.interrupted) return INTERRUPTED_EXIT_CODE;
  return result.state.counts.failed > 0 ? 1 : 0;
}

/** CloudWatch Logs with every FilterLogEvents call, the estimate's and the run's, kept to the quota's pace. */
function pacedLogs(client: CloudWatchLogsClient, endpoint: string | undefined, clock: Clock): LogsPort {
  const spacer = new CallSpacer(FILTER_LOG_EVENTS_CALLS_PER_SECOND, clock);
  const direct = logsPort(client, {
    ...(endpoint !== undefined ? { endpoint } : {}),
    retry: { sleep: clock.sleep },
  });
  return {
    ...direct,
    filterPage: async (query) => {
      await spacer.next();
      return direct.filterPage(query);
    },
  };
}

/** Each group's sampled estimate, with what the dry run shows beside it. */
async function estimateGroups(
  logs: LogsPort,
  groups: Awaited<ReturnType<typeof planGroups>>,
  job: BackfillJob,
): Promise<GroupDryRun[]> {
  const estimates: GroupDryRun[] = [];
  for (const g of groups) {
    const estimate = await estimateGroup(logs, g.plan.source, {
      since: job.since,
      until: job.until,
      ...(g.plan.filterPattern !== undefined ? { filterPattern: g.plan.filterPattern } : {}),
    });
    estimates.push({
      ...estimate,
      ...(g.info.storedBytes !== undefined ? { storedBytes: g.info.storedBytes } : {}),
      filterPattern: g.plan.filterPattern ?? '',
      subscriptionFilters: g.plan.source.subscriptionFilters,
      ...(g.subscribedSince !== undefined ? { subscribedSince: g.subscribedSince } : {}),
    });
  }
  return estimates;
}

/** The checkpoint of a new backfill, before anything is read. */
function firstState(
  args: BackfillArgs,
  job: BackfillJob,
  profile: string,
  estimatedEvents: number,
  nowInMillis: number,
): CheckpointState {
  const at = new Date(nowInMillis).toISOString();
  return {
    version: CHECKPOINT_VERSION,
    job,
    profile,
    typed: {
      since: args.sinceText ?? job.since.toISOString(),
      ...(args.untilText !== undefined ? { until: args.untilText } : {}),
    },
    groups: {},
    counts: NO_COUNTS,
    estimatedEvents,
    runs: 1,
    startedAt: at,
    updatedAt: at,
  };
}

/** Runs the backfill with a progress bar on stderr until it ends or Ctrl-C stops it. */
async function runWithProgress(
  args: BackfillArgs,
  { io, clock, aws }: RunContext,
  run: {
    readonly job: BackfillJob;
    readonly groups: Awaited<ReturnType<typeof planGroups>>;
    readonly state: CheckpointState;
    readonly logs: LogsPort;
    readonly checkpoint: CheckpointStore;
    readonly kept: KeptStore;
  },
): Promise<Awaited<ReturnType<typeof runBackfill>>> {
  const { state, checkpoint } = run;
  const bar = new ProgressBar(io.stderr, {
    total: Math.max(1, state.estimatedEvents ?? 0),
    // The total is the sampled estimate: the bar can end a little short of it, or reach it early.
    label: 'backfill',
    now: clock.now,
  });
  const stop = stopSignal(io.stop);
  const startedAt = clock.now();
  const writtenBefore = state.counts.written;
  try {
    const result = await runBackfill(
      { job: run.job, groups: run.groups.map((g) => g.plan), ratePerSecond: args.ratePerSecond },
      state,
      {
        logs: run.logs,
        kinesis: kinesisPort(aws.kinesis),
        checkpoint,
        kept: run.kept,
        clock,
        signal: stop.signal,
        onProgress: (counts) =>
          bar.update(counts.written, progressNote(counts, state, writtenBefore, startedAt, clock)),
      },
    );
    bar.finish();
    return result;
  } catch (error) {
    const cause =
      error instanceof OperatorError
        ? error
        : new CliError(`backfill failed: ${(error as Error).message}`, { cause: error });
    throw new CliError(
      `${cause.message} The checkpoint ${checkpoint.location} holds what was written: run the same command with ` +
        '--resume to go on (events sent twice overwrite their documents).',
      { cause: error },
    );
  } finally {
    stop.dispose();
  }
}

function totalOf(estimates: readonly GroupDryRun[]): VolumeEstimate {
  const sum = (f: (g: GroupDryRun) => number): number => estimates.reduce((s, g) => s + f(g), 0);
  const events = sum((g) => g.events);
  return {
    events,
    messageBytes: sum((g) => g.messageBytes),
    gzipBytes: sum((g) => g.gzipBytes),
    records: sum((g) => g.records),
    // The sample's calls, then one call per 10,000 events (a full page) and one to find each group's end.
    filterCalls: sum((g) => g.calls) + Math.ceil(events / 10_000) + estimates.length,
  };
}

function pipelineFacts(config: PipelineConfig | undefined): PipelineFacts {
  return {
    aggregation: config?.delivery.aggregation ?? DEFAULTS.delivery.aggregation,
    batchSize: config?.transform.batchSize ?? DEFAULTS.transform.batchSize,
    replicas: config?.openSearch.indexTemplate.replicas ?? DEFAULTS.openSearch.indexTemplate.replicas,
  };
}

function progressNote(
  counts: BackfillCounts,
  state: CheckpointState,
  writtenBefore: number,
  startedAt: number,
  clock: Clock,
): string {
  const elapsed = clock.now() - startedAt;
  const rate = elapsed > 0 ? ((counts.written - writtenBefore) * 1000) / elapsed : 0;
  const left = Math.max(0, (state.estimatedEvents ?? 0) - counts.written);
  const eta = rate > 0 ? `, ETA ${formatDuration((left / rate) * 1000)}` : '';
  const failed = counts.failed > 0 ? `, ${counts.failed} failed` : '';
  return `${formatBytes(counts.messageBytes)}${eta}${failed}`;
}
