/**
 * `kfek replay`: parses its own options, finds where things are kept and where they go back to (flags, the
 * cdk.json profile, the deployed Search stack, or `npm start`'s folders), runs the replay with a progress bar on
 * stderr and prints the report. cli/main.ts dispatches here.
 */
import * as path from 'node:path';
import type { PipelineConfig } from '../../core/config';
import { ON_FAILURE_KEY_PREFIX } from '../../core/contracts/kept-data';
import { physicalNamesFor } from '../../core/contracts/physical-names';
import { translateAwsError } from '../../core/aws/retry';
import { OperatorError } from '../../core/errors';
import { sleep } from '../../core/clock';
import { describeStreamArn, kinesisPort } from '../../core/kinesis/aws';
import { resolveAwsTarget } from '../aws';
import { UsageError } from '../errors';
import { forCommand } from '../args/values';
import { PROJECT_CDK_JSON, profileConfig } from '../profile';
import { ProgressBar } from '../../core/progress';
import { parseReplayArgs, REPLAY_USAGE, type ReplayArgs } from './args';
import { s3ObjectStore, sqsQueue } from '../../core/kept/aws';
import { createReplayClients, searchStackResources } from './aws-ports';
import type { KeptSources } from '../../core/kept/collect';
import { checkLocalFolder, folderStore, LOCAL_LAYOUT } from './folder-store';
import { ReplayError } from './errors';
import { formatReplayReport } from './format';
import { runReplay } from './run';
import type { CliIo } from '../io';
import { runEventsWindow } from '../events-window/command';
import { EVENTS_WINDOW_KIND } from '../../core/kept/model';

/** Most pipe dead-letter messages looked at in one run (the queue keeps them 14 days). */
const MAX_QUEUE_MESSAGES = 10_000;

/** The profile by the CLI's one reader of cdk.json (cli/profile.ts), its usage errors starting `replay:`. */
const replayProfile = (profile: string | undefined): PipelineConfig =>
  forCommand('replay', () => profileConfig(profile, PROJECT_CDK_JSON));

export async function replayCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const now = io.now ?? Date.now;
  const parsed = parseReplayArgs(argv, new Date(now()));
  if (parsed.command === 'replay-help') {
    io.stdout.write(`${REPLAY_USAGE}\n`);
    return 0;
  }
  const args: ReplayArgs = parsed;
  const config = replayProfile(args.profile);
  if (args.eventsWindow) {
    // `--kind events-window` is the alias of `kfek events-window` (it was documented as a replay kind). The events
    // stream has a fixed name (core/contracts/physical-names.ts): no CloudFormation call needed.
    const eventsStream =
      args.eventsStream ??
      (args.profile !== undefined
        ? physicalNamesFor(`${config.name}-${config.profile}`).eventsStream
        : undefined);
    // args.ts refuses --kind events-window without --since.
    if (args.since === undefined) throw new UsageError(`replay: --kind ${EVENTS_WINDOW_KIND} needs --since`);
    return runEventsWindow(
      {
        since: args.since,
        ...(args.until !== undefined ? { until: args.until } : {}),
        ...(args.limit !== undefined ? { limit: args.limit } : {}),
        ...(args.ratePerSecond !== undefined ? { ratePerSecond: args.ratePerSecond } : {}),
        dryRun: args.dryRun,
        json: args.json,
        ...(eventsStream !== undefined ? { eventsStream } : {}),
        ...(args.endpoint !== undefined ? { endpoint: args.endpoint } : {}),
        ...(args.region !== undefined ? { region: args.region } : {}),
      },
      { ...io, now },
      `replay: --kind ${EVENTS_WINDOW_KIND}`,
    );
  }
  if (args.localDir !== undefined) {
    await checkLocalFolder(path.resolve(io.cwd ?? process.cwd(), args.localDir), args.localDir);
  }
  const { endpoint, region } = resolveAwsTarget(args, io.env);
  const clients = createReplayClients({
    ...(region !== undefined ? { region } : {}),
    ...(args.endpoint !== undefined ? { endpoint: args.endpoint } : {}),
  });
  try {
    let { bucket, queueUrl, rawStream, eventsStream } = args;
    // With an explicit profile, whatever was not given comes from the deployed Search stack.
    const needsLookup =
      args.profile !== undefined &&
      (rawStream === undefined ||
        eventsStream === undefined ||
        queueUrl === undefined ||
        (bucket === undefined && args.localDir === undefined));
    if (needsLookup) {
      const stack = `${config.name}-${config.profile}-search`;
      const found = await searchStackResources(clients.cloudformation, stack).catch((error: unknown) => {
        // CloudFormation answers a missing stack with ValidationError "Stack with id X does not exist".
        if ((error as Error).name === 'ValidationError' && /does not exist/.test((error as Error).message)) {
          throw new ReplayError(
            `replay: stack ${stack} does not exist in ${region ?? 'this region'}: deploy profile ${config.profile}, ` +
              'check --region (or AWS_REGION), or name the places with --bucket, --queue-url, --raw-stream and ' +
              '--events-stream',
            { cause: error },
          );
        }
        throw translateAwsError(error, `DescribeStackResources of ${stack}`, { endpoint });
      });
      if (args.localDir === undefined) bucket ??= found.bucket;
      queueUrl ??= found.queueUrl;
      rawStream ??= found.rawStream;
      eventsStream ??= found.eventsStream;
    }
    const sources = keptSources(args, config, io, clients, { bucket, queueUrl });
    if (
      sources.deadLetter === undefined &&
      sources.discardedBatches === undefined &&
      sources.failedDocuments === undefined &&
      sources.queue === undefined
    ) {
      throw new UsageError(
        'replay: nothing to read: pass --local (npm start folders), --bucket NAME and/or --queue-url URL, or --profile NAME',
      );
    }
    let bar: ProgressBar | undefined;
    const report = await runReplay(
      {
        kinds: args.kinds,
        filter: {
          ...(args.since !== undefined ? { since: args.since } : {}),
          ...(args.until !== undefined ? { until: args.until } : {}),
          ...(args.reason !== undefined ? { reason: args.reason } : {}),
          ...(args.limit !== undefined ? { limit: args.limit } : {}),
        },
        dryRun: args.dryRun,
        deleteAfter: args.deleteAfter,
        ...(args.ratePerSecond !== undefined ? { ratePerSecond: args.ratePerSecond } : {}),
        targets: {
          ...(rawStream !== undefined ? { raw: rawStream } : {}),
          ...(eventsStream !== undefined ? { events: eventsStream } : {}),
        },
      },
      {
        sources,
        kinesis: kinesisPort(clients.kinesis),
        streamArnOf: (stream) => describeStreamArn(clients.kinesis, stream),
        now,
        sleep,
        onStart: (total) => {
          bar = new ProgressBar(io.stderr, { total, label: 'replay', now });
        },
        onProgress: (put, _total, note) => bar?.update(put, note),
      },
    ).catch((error: unknown) => {
      throw error instanceof OperatorError ? error : translateAwsError(error, 'replay', { endpoint });
    });
    bar?.finish();
    const where = describeSources(sources);
    io.stdout.write(`${args.json ? JSON.stringify(report) : formatReplayReport(report, where)}\n`);
    return report.unreplayed.length > 0 || report.problems.length > 0 || report.skipped.length > 0 ? 1 : 0;
  } finally {
    clients.destroy();
  }
}

function keptSources(
  args: ReplayArgs,
  config: PipelineConfig,
  io: CliIo,
  clients: ReturnType<typeof createReplayClients>,
  found: { readonly bucket?: string; readonly queueUrl?: string },
): KeptSources {
  const bucketStore = found.bucket === undefined ? undefined : s3ObjectStore(clients.s3, found.bucket);
  const queue = found.queueUrl === undefined ? undefined : sqsQueue(clients.sqs, found.queueUrl);
  if (args.localDir !== undefined) {
    const folder = folderStore(path.resolve(io.cwd ?? process.cwd(), args.localDir));
    return {
      // npm start's poison records are in moto's dead-letter bucket; --bucket names it.
      deadLetter:
        bucketStore !== undefined
          ? { store: bucketStore, prefix: config.transform.deadLetterPrefix }
          : { store: folder, prefix: LOCAL_LAYOUT.deadLetter },
      discardedBatches: { store: folder, prefix: LOCAL_LAYOUT.discardedBatches },
      failedDocuments: { store: folder, prefix: LOCAL_LAYOUT.failedDocuments },
      ...(queue !== undefined ? { queue } : {}),
      maxMessages: MAX_QUEUE_MESSAGES,
    };
  }
  return {
    ...(bucketStore !== undefined
      ? {
          deadLetter: { store: bucketStore, prefix: config.transform.deadLetterPrefix },
          discardedBatches: { store: bucketStore, prefix: ON_FAILURE_KEY_PREFIX },
          failedDocuments: { store: bucketStore, prefix: config.delivery.failedDocumentsPrefix },
        }
      : {}),
    ...(queue !== undefined ? { queue } : {}),
    maxMessages: MAX_QUEUE_MESSAGES,
  };
}

function describeSources(sources: KeptSources): string {
  const places = [sources.deadLetter, sources.discardedBatches, sources.failedDocuments].flatMap((p) =>
    p === undefined ? [] : [p.store.locationOf(p.prefix)],
  );
  if (sources.queue !== undefined) places.push(sources.queue.location);
  return [...new Set(places)].join(', ');
}
