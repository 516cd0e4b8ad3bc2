/**
 * `kfek replay`: finds where things are kept and where they go back to (flags, the cdk.json profile, the deployed
 * Search stack, or `npm start`'s folders), runs the replay with a progress bar on stderr and prints the report.
 */
import { translateAwsError } from '../../core/aws/retry';
import type { PipelineConfig } from '../../core/config';
import { describeStreamArn, kinesisPort } from '../../core/kinesis/aws';
import type { KeptSources } from '../../core/kept/collect';
import { ProgressBar } from '../../core/progress';
import { helpPage } from '../args/help';
import { type OpenedContext, openContext, type RunContext } from '../context';
import { UsageError } from '../errors';
import { runEventsWindow } from '../events-window/command';
import type { CliIo } from '../io';
import { keptSources } from '../kept-sources';
import { parseReplayArgs, REPLAY_HELP, type ReplayArgs } from './args';
import { formatReplayReport } from './format';
import { runReplay } from './run';

/** Most pipe dead-letter messages looked at in one run (the queue keeps them 14 days). */
const MAX_QUEUE_MESSAGES = 10_000;

/** `kfek replay ARGV` on its own, errors thrown (as cli/main.ts runs it from the command table, tests call it). */
export async function replayCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parseReplayArgs(argv, new Date((io.now ?? Date.now)()));
  if (parsed.command === 'replay-help') {
    io.stdout.write(`${helpPage(REPLAY_HELP)}\n`);
    return 0;
  }
  const context: OpenedContext = openContext('replay', parsed, io);
  try {
    return await replay(parsed, context);
  } finally {
    context.close();
  }
}

export async function replay(args: ReplayArgs, context: RunContext): Promise<number> {
  const { io, clock, aws } = context;
  const config = context.profile(args.profile);
  if (args.eventsWindow) {
    // `--kind events-window` is the alias of `kfek events-window` (it was documented as a replay kind). The events
    // stream has a fixed name: no CloudFormation call needed.
    const { command: _command, eventsWindow: _window, kinds: _kinds, ...request } = args;
    const eventsStream =
      args.eventsStream ?? (args.profile !== undefined ? context.namesOf(config).eventsStream : undefined);
    // args.ts refuses --kind events-window without --since.
    if (args.since === undefined) throw new UsageError('replay: --kind events-window needs --since');
    return runEventsWindow(
      { ...request, since: args.since, eventsStream },
      context,
      'replay: --kind events-window',
    );
  }
  const localDir = args.localDir === undefined ? undefined : await context.localFolder(args.localDir);
  const { bucket, queueUrl, rawStream, eventsStream } = await places(args, context, config, localDir);
  const sources = keptSources(context, config, {
    localDir,
    bucket,
    queueUrl,
    maxMessages: MAX_QUEUE_MESSAGES,
  });
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
  const { endpoint } = context.target;
  const report = await runReplay(
    {
      kinds: args.kinds,
      filter: { since: args.since, until: args.until, reason: args.reason, limit: args.limit },
      dryRun: args.dryRun,
      deleteAfter: args.deleteAfter,
      ratePerSecond: args.ratePerSecond,
      targets: { raw: rawStream, events: eventsStream },
    },
    {
      sources,
      kinesis: kinesisPort(aws.kinesis),
      streamArnOf: (stream) => describeStreamArn(aws.kinesis, stream),
      now: clock.now,
      sleep: clock.sleep,
      onStart: (total) => {
        bar = new ProgressBar(io.stderr, { total, label: 'replay', now: clock.now });
      },
      onProgress: (put, _total, note) => bar?.update(put, note),
    },
  ).catch((error: unknown) => {
    throw translateAwsError(error, 'replay', { endpoint });
  });
  bar?.finish();
  io.stdout.write(
    `${args.json ? JSON.stringify(report) : formatReplayReport(report, describeSources(sources))}\n`,
  );
  return report.unreplayed.length > 0 || report.problems.length > 0 || report.skipped.length > 0 ? 1 : 0;
}

/** Where to read and re-send: the flags, and with an explicit profile the deployed Search stack for the rest. */
async function places(
  args: ReplayArgs,
  context: RunContext,
  config: PipelineConfig,
  localDir: string | undefined,
): Promise<Pick<ReplayArgs, 'bucket' | 'queueUrl' | 'rawStream' | 'eventsStream'>> {
  const given = {
    bucket: args.bucket,
    queueUrl: args.queueUrl,
    rawStream: args.rawStream,
    eventsStream: args.eventsStream,
  };
  const needsLookup =
    args.profile !== undefined &&
    (given.rawStream === undefined ||
      given.eventsStream === undefined ||
      given.queueUrl === undefined ||
      (given.bucket === undefined && localDir === undefined));
  if (!needsLookup) return given;
  const found = await context.searchStack(
    config,
    'name the places with --bucket, --queue-url, --raw-stream and --events-stream',
  );
  return {
    // npm start's folders stand in for the bucket (its dead letters come from --bucket only).
    bucket: given.bucket ?? (localDir === undefined ? found.bucket : undefined),
    queueUrl: given.queueUrl ?? found.queueUrl,
    rawStream: given.rawStream ?? found.rawStream,
    eventsStream: given.eventsStream ?? found.eventsStream,
  };
}

function describeSources(sources: KeptSources): string {
  const places = [sources.deadLetter, sources.discardedBatches, sources.failedDocuments].flatMap((p) =>
    p === undefined ? [] : [p.store.locationOf(p.prefix)],
  );
  if (sources.queue !== undefined) places.push(sources.queue.location);
  return [...new Set(places)].join(', ');
}
