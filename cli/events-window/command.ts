/**
 * `kfek events-window` (and its alias `kfek replay --kind events-window`): finds the events stream (--events-stream,
 * or the profile's fixed name `kfek-<profile>-events`), runs the window replay (run.ts) with a status line on stderr
 * and prints the report.
 */
import { translateAwsError } from '../../core/aws/retry';
import { kinesisPort } from '../../core/kinesis/aws';
import type { ProgressOutput } from '../../core/progress';
import type { EventsWindowArgs } from '../args/types';
import type { RunContext } from '../context';
import { UsageError } from '../errors';
import { formatBytes } from '../format';
import { formatEventsWindowReport } from './format';
import { replayEventsWindow, type WindowProgress } from './run';

/** What to replay: the command's arguments but where the stream comes from. */
export type EventsWindowRequest = Pick<
  EventsWindowArgs,
  'since' | 'until' | 'limit' | 'ratePerSecond' | 'dryRun' | 'json' | 'eventsStream'
>;

/** `kfek events-window`. */
export async function eventsWindow(args: EventsWindowArgs, context: RunContext): Promise<number> {
  // The events stream has a fixed name (core/contracts/physical-names.ts): no CloudFormation call needed.
  const eventsStream =
    args.eventsStream ??
    (args.profile === undefined ? undefined : context.namesOf(context.profile(args.profile)).eventsStream);
  return runEventsWindow({ ...args, eventsStream }, context, 'events-window:');
}

/**
 * Runs the window replay and prints its report; the exit code is 1 when something stopped it.
 * @param usagePrefix - what the command's usage errors start with (`replay: --kind events-window` for the alias)
 */
export async function runEventsWindow(
  request: EventsWindowRequest,
  { io, clock, aws, target }: RunContext,
  usagePrefix: string,
): Promise<number> {
  const eventsStream = request.eventsStream;
  if (eventsStream === undefined) {
    throw new UsageError(
      `${usagePrefix} needs the events stream: pass --events-stream NAME|ARN, or --profile NAME for its stream ` +
        'kfek-<profile>-events',
    );
  }
  const { endpoint } = target;
  const status = new StatusLine(io.stderr);
  const report = await replayEventsWindow(
    { ...request, stream: eventsStream },
    {
      kinesis: kinesisPort(aws.kinesis),
      now: clock.now,
      sleep: clock.sleep,
      endpoint,
      onProgress: (progress) => status.update(progress),
    },
  ).catch((error: unknown) => {
    throw translateAwsError(error, 'events-window', { endpoint });
  });
  status.finish();
  io.stdout.write(`${request.json ? JSON.stringify(report) : formatEventsWindowReport(report)}\n`);
  return report.failure !== undefined ? 1 : 0;
}

/**
 * Where the window replay is: redrawn in place on a terminal, one line per finished shard otherwise (how many
 * records a window holds is unknown until it is read, so there is no bar to fill).
 */
class StatusLine {
  private drawn = false;

  constructor(private readonly out: ProgressOutput) {}

  update(p: WindowProgress): void {
    const text =
      `replay events window: ${p.shardsDone}/${p.shards} shard(s) done, ${p.records} record(s) ` +
      `(${formatBytes(p.bytes)}); ${p.shardId} ${p.shardDone ? 'done' : 'read'}` +
      `${p.at !== undefined ? ` to ${p.at.toISOString()}` : ''}${p.note !== '' ? `, ${p.note}` : ''}`;
    if (this.out.isTTY === true) {
      this.out.write(`\r${text}\x1b[K`);
      this.drawn = true;
    } else if (p.shardDone) {
      this.out.write(`${text}\n`);
    }
  }

  finish(): void {
    if (this.drawn) this.out.write('\n');
  }
}
