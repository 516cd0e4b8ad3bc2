/**
 * What a backfill is about, before it runs: the job (a new one from the options and the profile, or the checkpoint's
 * with --resume, refusing options that name another), and each log group's owner, subscription and route.
 */
import type { PipelineConfig } from '../../core/config';
import { createContinuation } from '../../core/contracts/multiline';
import { physicalNamesFor } from '../../core/contracts/physical-names';
import {
  accountRoutingProblem,
  accountRoutingRefusal,
  routeFor,
  type TransformRoute,
} from '../../core/contracts/routes';
import type { Clock } from '../../core/clock';
import { UsageError } from '../errors';
import type { BackfillArgs } from './args';
import { type BackfillJob, type CheckpointState, isFinished } from '../../core/backfill/model';
import type { GroupPlan } from './run';
import { BACKFILL_FILTER_NAME } from '../../core/logs/model';
import type { LogGroupInfo, LogsPort, SubscriptionInfo } from '../../core/logs/ports';

export function newJob(
  args: BackfillArgs,
  config: PipelineConfig,
  existing: CheckpointState | undefined,
  location: string,
  clock: Clock,
): BackfillJob {
  if (!args.dryRun && existing !== undefined && !isFinished(existing)) {
    throw new UsageError(
      `backfill: ${location} holds an unfinished backfill of ${existing.job.logGroups.join(', ')} (` +
        `${existing.counts.written} events written): add --resume to go on with it, pass another --state-dir, or ` +
        'delete the file to start over',
    );
  }
  const logGroups = args.logGroups.length > 0 ? args.logGroups : config.sources.logGroups.map((g) => g.name);
  if (logGroups.length === 0) {
    throw new UsageError(
      'backfill: no log groups: pass --log-group G (repeatable) or a --profile that lists some',
    );
  }
  const rawStream = args.rawStream ?? physicalNamesFor(`${config.name}-${config.profile}`).rawStream;
  return {
    logGroups,
    since: args.since as Date,
    until: args.until ?? new Date(clock.now()),
    ...(args.filterPattern !== undefined ? { filterPattern: args.filterPattern } : {}),
    rawStream,
  };
}

/**
 * With --resume the job is the checkpoint's; options that name a job must name the same one, and the profile (whose
 * routes decide where the events go) must be the one the checkpoint was written with.
 */
export function resumedJob(
  args: BackfillArgs,
  existing: CheckpointState | undefined,
  location: string,
  profile: string,
): BackfillJob {
  if (existing === undefined) {
    throw new UsageError(
      `backfill: --resume found no checkpoint at ${location}: start a backfill without --resume, or pass the ` +
        '--state-dir of the one to go on with',
    );
  }
  if (existing.profile !== undefined && existing.profile !== profile) {
    throw new UsageError(
      `backfill: --resume found a backfill of profile ${existing.profile} in ${location}, not of profile ` +
        `${profile}: add --profile ${existing.profile} to go on with it, or pass another --state-dir`,
    );
  }
  const job = existing.job;
  const differs: string[] = [];
  if (
    args.logGroups.length > 0 &&
    [...args.logGroups].sort().join('\n') !== [...job.logGroups].sort().join('\n')
  ) {
    differs.push(`--log-group (checkpoint: ${job.logGroups.join(', ')})`);
  }
  if (args.sinceText !== undefined && args.sinceText !== existing.typed.since) {
    differs.push(`--since (checkpoint: ${existing.typed.since}, from ${job.since.toISOString()})`);
  }
  if (args.untilText !== undefined && args.untilText !== existing.typed.until) {
    differs.push(`--until (checkpoint: ${job.until.toISOString()})`);
  }
  if (args.filterPattern !== undefined && args.filterPattern !== job.filterPattern) {
    differs.push(`--filter-pattern (checkpoint: ${JSON.stringify(job.filterPattern ?? '')})`);
  }
  if (args.rawStream !== undefined && args.rawStream !== job.rawStream) {
    differs.push(`--raw-stream (checkpoint: ${job.rawStream})`);
  }
  if (differs.length > 0) {
    throw new UsageError(
      `backfill: --resume goes on with the backfill in ${location}, but ${differs.join(', ')} differ: ` +
        'run the command as first given (or without those options) with --resume, or start a new backfill ' +
        'with another --state-dir',
    );
  }
  return job;
}

export interface GroupFacts {
  readonly plan: GroupPlan;
  readonly info: LogGroupInfo;
  readonly subscribedSince?: Date;
}

/**
 * Each log group's owner and the subscription filters to the raw stream (what the live envelopes carry), and the
 * multi-line rule of the route its events take. A group whose events live routes by a source account other than its
 * owner is refused: such events reach it only through CloudWatch Logs centralization, whose `@aws.account`
 * FilterLogEvents does not return, so backfill would send them to another route (other readers, other retention).
 */
export async function planGroups(
  logs: LogsPort,
  job: BackfillJob,
  routes: readonly TransformRoute[],
): Promise<GroupFacts[]> {
  const streamName = job.rawStream.startsWith('arn:')
    ? job.rawStream.slice(job.rawStream.lastIndexOf('/') + 1)
    : job.rawStream;
  const toRaw = (s: SubscriptionInfo): boolean =>
    s.destinationArn === job.rawStream || s.destinationArn.endsWith(`:stream/${streamName}`);
  const facts: GroupFacts[] = [];
  const refused: string[] = [];
  for (const name of job.logGroups) {
    const info = await logs.describeGroup(name);
    const problem = accountRoutingProblem(name, info.owner, routes);
    if (problem !== undefined) {
      refused.push(problem);
      continue;
    }
    const route = routeFor({ logGroup: name, account: info.owner }, routes);
    const multiline = route?.processing.multiline;
    const subscribed = (await logs.subscriptions(name)).filter(toRaw);
    const filterPattern = job.filterPattern ?? subscribed[0]?.filterPattern;
    const since = subscribed.map((s) => s.createdAt?.getTime()).filter((t): t is number => t !== undefined);
    facts.push({
      plan: {
        source: {
          logGroup: name,
          owner: info.owner,
          subscriptionFilters:
            subscribed.length > 0 ? subscribed.map((s) => s.filterName) : [BACKFILL_FILTER_NAME],
        },
        ...(filterPattern !== undefined && filterPattern !== '' ? { filterPattern } : {}),
        ...(multiline !== undefined ? { continuation: createContinuation(multiline) } : {}),
      },
      info,
      ...(since.length > 0 ? { subscribedSince: new Date(Math.min(...since)) } : {}),
    });
  }
  if (refused.length > 0) {
    throw new UsageError(
      accountRoutingRefusal(
        'backfill',
        refused,
        'Leave these groups out (--log-group), or re-send what the raw stream still holds with kfek replay.',
      ),
    );
  }
  return facts;
}
