/**
 * `kfek reconcile`: resolves the job from the flags and the cdk.json profile (log groups, raw stream, routes, index
 * naming, lag), finds where kept data lives (a bucket, the profile's Search stack, or `npm start`'s folders), runs
 * the reconcile service and prints the report. Exit code: 0 when nothing is missing, 1 while something is (or on a
 * failure), 2 for a bad command line (cli/main.ts).
 */
import { type PipelineConfig, reconcileLagMillis } from '../../core/config';
import { translateAwsError } from '../../core/aws/retry';
import { judgeableMinutes } from '../../core/reconcile/engine';
import type { ReconcileArgs } from '../args/types';
import type { RunContext } from '../context';
import { CliError, UsageError } from '../errors';
import { keptSources } from '../kept-sources';
import { formatReconcile } from './format';
import { type GroupSetting, runReconcile } from './service';

export async function reconcile(args: ReconcileArgs, context: RunContext): Promise<number> {
  const { io, clock, target, aws } = context;
  const now = clock.now();
  // No --until is now, as the parser judged --since against it.
  const until = args.until?.getTime() ?? now;
  const config = context.profile(args.profile);
  const lagInMillis = args.lagInMillis ?? reconcileLagMillis(config);
  // Before any call: a window with nothing older than the lag is a bad command line, not `missing 0`.
  judgeableMinutes(args.since.getTime(), until, now, lagInMillis);
  const groups = groupSettings(args, config);
  const localDir = args.localDir === undefined ? undefined : await context.localFolder(args.localDir);
  // A collection is signed for `aoss` and sent no routing (core/opensearch/target.ts): by --service, the profile's
  // kind, or an `*.aoss.amazonaws.com` host.
  const access = {
    sigv4: args.sigv4,
    config,
    ...(args.service === undefined ? {} : { service: args.service }),
  };
  const search = context.openSearch(args.openSearchUrl, access);
  const onCollection = context.openSearchTarget(args.openSearchUrl, access).kind === 'serverless';
  const bucket = args.bucket ?? (localDir === undefined ? await stackBucket(context, config) : undefined);
  const { endpoint } = target;
  const run = await runReconcile(
    {
      groups,
      rawStream: args.rawStream ?? context.namesOf(config).rawStream,
      index: { prefix: config.delivery.indexPrefix, rotation: config.delivery.indexRotation },
      routes: config.routes,
      kept: keptSources(context, config, { localDir, bucket, maxMessages: 0 }),
      since: args.since.getTime(),
      until,
      lagInMillis,
      joinLookbackInMillis: args.joinLookbackInMillis,
      countMode: args.countMode ?? (endpoint !== undefined ? 'scan' : 'insights'),
      ...(args.heal ? { heal: { timeoutInMillis: args.healTimeoutInMillis } } : {}),
      ...(onCollection ? { serverless: true } : {}),
    },
    { logs: aws.logs, kinesis: aws.kinesis, search, ...(endpoint !== undefined ? { endpoint } : {}) },
    clock,
    (note) => io.stderr.write(`kfek reconcile: ${note}\n`),
  ).catch((error: unknown) => {
    throw translateAwsError(error, 'reconcile', { endpoint });
  });
  io.stdout.write(`${args.json ? JSON.stringify(run) : formatReconcile(run)}\n`);
  return run.totals.missing > 0 ? 1 : 0;
}

/** The groups of `--log-group` (with the profile's pattern where it lists them), else the profile's groups. */
function groupSettings(args: ReconcileArgs, config: PipelineConfig): GroupSetting[] {
  if (args.logGroups.length === 0) {
    if (config.sources.logGroups.length === 0) {
      throw new UsageError(
        `reconcile: profile ${config.profile} lists no log groups under sources.logGroups: pass --log-group G`,
      );
    }
    return config.sources.logGroups.map((g) => ({ name: g.name, filterPattern: g.filterPattern }));
  }
  return args.logGroups.map((name) => ({
    name,
    filterPattern:
      config.sources.logGroups.find((g) => g.name === name)?.filterPattern ?? config.sources.filterPattern,
  }));
}

/** The failed-records bucket of the profile's deployed Search stack. */
async function stackBucket(context: RunContext, config: PipelineConfig): Promise<string> {
  const { bucket } = await context.searchStack(
    config,
    'pass --bucket NAME (or --local-dir for npm start) to say where the failed records are',
  );
  if (bucket === undefined) {
    throw new CliError(
      `reconcile: stack ${config.name}-${config.profile}-search has no failed-records bucket: pass --bucket NAME`,
    );
  }
  return bucket;
}
