/**
 * `kfek replay --kind events-window` once command.ts has found the events stream: runs the window replay with a
 * status line on stderr and prints the report.
 */
import { translateAwsError } from '../../core/aws/retry';
import { kinesisPort } from '../../core/kinesis/aws';
import { sleep } from '../../core/clock';
import { OperatorError } from '../../core/errors';
import { UsageError } from '../errors';
import type { ProgressOutput } from '../../core/progress';
import type { ReplayArgs } from './args';
import type { ReplayAwsClients } from './aws-ports';
import type { ReplayIo } from './replay-io';
import { replayEventsWindow, type WindowProgress } from './events-window';
import { formatBytes, formatEventsWindowReport } from './format';
import { EVENTS_WINDOW_KIND } from './model';

export interface EventsWindowCommandContext {
  readonly io: ReplayIo;
  readonly clients: ReplayAwsClients;
  readonly now: () => number;
  /** The events stream, from --events-stream or the profile's fixed name (`kfek-<profile>-events`). */
  readonly eventsStream?: string;
  /** The endpoint override, for "cannot connect" messages. */
  readonly endpoint?: string;
}

export async function eventsWindowCommand(
  args: ReplayArgs,
  context: EventsWindowCommandContext,
): Promise<number> {
  const { io, clients, now, eventsStream, endpoint } = context;
  if (eventsStream === undefined) {
    throw new UsageError(
      `replay: --kind ${EVENTS_WINDOW_KIND} needs the events stream: pass --events-stream NAME|ARN, or --profile ` +
        'NAME for its stream kfek-<profile>-events',
    );
  }
  // args.ts refuses --kind events-window without --since.
  if (args.since === undefined) throw new UsageError(`replay: --kind ${EVENTS_WINDOW_KIND} needs --since`);
  const status = new StatusLine(io.stderr);
  const report = await replayEventsWindow(
    {
      stream: eventsStream,
      since: args.since,
      ...(args.until !== undefined ? { until: args.until } : {}),
      ...(args.limit !== undefined ? { limit: args.limit } : {}),
      ...(args.ratePerSecond !== undefined ? { ratePerSecond: args.ratePerSecond } : {}),
      dryRun: args.dryRun,
    },
    {
      kinesis: kinesisPort(clients.kinesis),
      now,
      sleep,
      ...(endpoint !== undefined ? { endpoint } : {}),
      onProgress: (progress) => status.update(progress),
    },
  ).catch((error: unknown) => {
    throw error instanceof OperatorError ? error : translateAwsError(error, 'replay', { endpoint });
  });
  status.finish();
  io.stdout.write(`${args.json ? JSON.stringify(report) : formatEventsWindowReport(report)}\n`);
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
