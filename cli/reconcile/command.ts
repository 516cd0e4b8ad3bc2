/**
 * `kfek reconcile`: reads the window against its own clock, resolves the job from the flags and the cdk.json profile
 * (log groups, raw stream, routes, index naming, lag), finds where kept data lives (a bucket, the profile's Search
 * stack, or `npm start`'s folders), runs the reconcile service and prints the report. Exit code: 0 when nothing is
 * missing, 1 while something is (or on a failure), 2 for a bad command line (cli/main.ts).
 */
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import { type PipelineConfig, reconcileLagMillis } from '../../core/config';
import { physicalNamesFor } from '../../core/contracts/physical-names';
import { createHttpClient, type HttpAuth } from '../../core/opensearch/http';
import { regionFromHost, type ReconcileArgs } from '../args';
import { parseTimeWindow } from '../args/time-window';
import { translateAwsError } from '../../core/aws/retry';
import { judgeableMinutes } from '../../core/reconcile/engine';
import { sleep } from '../../core/clock';
import { OperatorError } from '../../core/errors';
import { createLogsClient, resolveAwsTarget } from '../aws';
import { CliError, UsageError } from '../errors';
import type { CliIo } from '../io';
import { profileConfig } from '../profile';
import { createReplayClients, searchStackResources } from '../replay/aws-ports';
import type { KeptSources } from '../../core/kept/collect';
import { folderStore, LOCAL_LAYOUT } from '../replay/folder-store';
import { formatReconcile } from './format';
import { bucketKeptSources, type GroupSetting, runReconcile } from './service';

export interface ReconcileIo extends CliIo {
  /** @default Date.now */
  readonly now?: () => number;
  /** Working directory `--local-dir` is relative to. @default process.cwd() */
  readonly cwd?: string;
}

export async function reconcile(args: ReconcileArgs, io: ReconcileIo): Promise<number> {
  const clock = { now: io.now ?? Date.now, sleep };
  const now = new Date(clock.now());
  const window = parseTimeWindow('reconcile', { since: args.sinceText, until: args.untilText }, now);
  const since = window.since;
  // No --until is now, as the parser judged --since against it.
  const until = window.until ?? now;
  const config = profileConfig(args.profile);
  const lagInMillis = args.lagInMillis ?? reconcileLagMillis(config);
  // Before any call: a window with nothing older than the lag is a bad command line, not `missing 0`.
  judgeableMinutes(since.getTime(), until.getTime(), now.getTime(), lagInMillis);
  const groups = groupSettings(args, config);
  const localDir = args.localDir === undefined ? undefined : await localFolder(args.localDir, io);

  const { endpoint, region } = resolveAwsTarget(args, io.env);
  const target = {
    ...(region !== undefined ? { region } : {}),
    ...(args.endpoint !== undefined ? { endpoint: args.endpoint } : {}),
  };
  const search = createHttpClient({
    baseUrl: args.openSearchUrl.replace(/\/$/, ''),
    ...openSearchAuth(args, region),
    maxAttempts: 3,
  });
  const logs = createLogsClient(target, io.env);
  const aws = createReplayClients(target);
  try {
    const bucket =
      args.bucket ?? (localDir === undefined ? await stackBucket(config, aws, region, endpoint) : undefined);
    const stem = `${config.name}-${config.profile}`;
    const run = await runReconcile(
      {
        groups,
        rawStream: args.rawStream ?? physicalNamesFor(stem).rawStream,
        index: { prefix: config.delivery.indexPrefix, rotation: config.delivery.indexRotation },
        routes: config.routes,
        kept: keptSources(config, localDir, aws, bucket),
        since: since.getTime(),
        until: until.getTime(),
        lagInMillis,
        joinLookbackInMillis: args.joinLookbackInMillis,
        countMode: args.countMode ?? (endpoint !== undefined ? 'scan' : 'insights'),
        ...(args.heal ? { heal: { timeoutInMillis: args.healTimeoutInMillis } } : {}),
      },
      { logs, kinesis: aws.kinesis, search, ...(endpoint !== undefined ? { endpoint } : {}) },
      clock,
      (note) => io.stderr.write(`kfek reconcile: ${note}\n`),
    ).catch((error: unknown) => {
      throw error instanceof OperatorError ? error : translateAwsError(error, 'reconcile', { endpoint });
    });
    io.stdout.write(`${args.json ? JSON.stringify(run) : formatReconcile(run)}\n`);
    return run.totals.missing > 0 ? 1 : 0;
  } finally {
    logs.destroy();
    aws.destroy();
  }
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

/** `--local-dir` resolved; a folder that is not there is a bad command line, not "nothing kept". */
async function localFolder(given: string, io: ReconcileIo): Promise<string> {
  const root = path.resolve(io.cwd ?? process.cwd(), given);
  const info = await stat(root).catch(() => undefined);
  if (info?.isDirectory() !== true) {
    throw new UsageError(
      `reconcile: --local-dir ${given} (${root}) is not a folder: pass npm start's work folder (.kfek/local)`,
    );
  }
  return root;
}

function openSearchAuth(args: ReconcileArgs, region: string | undefined): { auth?: HttpAuth } {
  const url = new URL(args.openSearchUrl);
  if (args.sigv4) {
    const signingRegion = region ?? regionFromHost(url.hostname);
    if (signingRegion === undefined)
      throw new UsageError('reconcile: --sigv4 needs --region (or AWS_REGION)');
    return { auth: { kind: 'sigv4', region: signingRegion } };
  }
  if (url.username !== '') {
    return {
      auth: {
        kind: 'basic',
        username: decodeURIComponent(url.username),
        password: decodeURIComponent(url.password),
      },
    };
  }
  return {};
}

/** The failed-records bucket of the profile's deployed Search stack. */
async function stackBucket(
  config: PipelineConfig,
  aws: ReturnType<typeof createReplayClients>,
  region: string | undefined,
  endpoint: string | undefined,
): Promise<string> {
  const stack = `${config.name}-${config.profile}-search`;
  const found = await searchStackResources(aws.cloudformation, stack).catch((error: unknown) => {
    if ((error as Error).name === 'ValidationError' && /does not exist/.test((error as Error).message)) {
      throw new CliError(
        `reconcile: stack ${stack} does not exist in ${region ?? 'this region'}, so the failed-records bucket is ` +
          'unknown: deploy profile ' +
          `${config.profile}, check --region (or AWS_REGION), or pass --bucket NAME (or --local-dir for npm start)`,
        { cause: error },
      );
    }
    throw translateAwsError(error, `DescribeStackResources of ${stack}`, { endpoint });
  });
  if (found.bucket === undefined) {
    throw new CliError(`reconcile: stack ${stack} has no failed-records bucket: pass --bucket NAME`);
  }
  return found.bucket;
}

/** Where kept data is read: the bucket's prefixes, or `npm start`'s folders (dead letters from the bucket if given). */
function keptSources(
  config: PipelineConfig,
  localDir: string | undefined,
  aws: ReturnType<typeof createReplayClients>,
  bucket: string | undefined,
): KeptSources {
  const prefixes = {
    deadLetterPrefix: config.transform.deadLetterPrefix,
    failedDocumentsPrefix: config.delivery.failedDocumentsPrefix,
  };
  const inBucket = bucket === undefined ? undefined : bucketKeptSources(aws.s3, bucket, prefixes);
  if (localDir === undefined) return inBucket ?? { maxMessages: 0 };
  const folder = folderStore(localDir);
  return {
    deadLetter: inBucket?.deadLetter ?? { store: folder, prefix: LOCAL_LAYOUT.deadLetter },
    discardedBatches: { store: folder, prefix: LOCAL_LAYOUT.discardedBatches },
    failedDocuments: { store: folder, prefix: LOCAL_LAYOUT.failedDocuments },
    maxMessages: 0,
  };
}
