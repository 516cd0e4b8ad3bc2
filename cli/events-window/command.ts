/**
 * `kfek events-window` (and its alias `kfek replay --kind events-window`): reads the times against the clock, finds
 * the events stream (--events-stream, or the profile's fixed name `kfek-<profile>-events`), runs the window replay
 * (run.ts) with a status line on stderr and prints the report.
 */
import { translateAwsError } from '../../core/aws/retry';
import { sleep } from '../../core/clock';
import { physicalNamesFor } from '../../core/contracts/physical-names';
import { OperatorError } from '../../core/errors';
import { createKinesisClient, kinesisPort } from '../../core/kinesis/aws';
import type { ProgressOutput } from '../../core/progress';
import type { EventsWindowArgs } from '../args';
import { parseTimeWindow } from '../args/time-window';
import { resolveAwsTarget } from '../aws';
import { UsageError } from '../errors';
import type { CliIo } from '../io';
import { PROJECT_CDK_JSON, profileConfig } from '../profile';
import { formatBytes } from '../format';
import { formatEventsWindowReport } from './format';
import { replayEventsWindow, type WindowProgress } from './run';

/** What to replay, its times read. */
export interface EventsWindowRequest {
  readonly since: Date;
  readonly until?: Date;
  readonly limit?: number;
  readonly ratePerSecond?: number;
  readonly dryRun: boolean;
  readonly json: boolean;
  /** The events stream, from --events-stream or the profile's fixed name. @default - none: a usage error */
  readonly eventsStream?: string;
  readonly endpoint?: string;
  readonly region?: string;
}

/** `kfek events-window`. */
export async function eventsWindow(args: EventsWindowArgs, io: CliIo): Promise<number> {
  const now = new Date((io.now ?? Date.now)());
  const window = parseTimeWindow('events-window', { since: args.sinceText, until: args.untilText }, now);
  const since = window.since;
  const until = window.until;
  // The events stream has a fixed name (core/contracts/physical-names.ts): no CloudFormation call needed.
  const config =
    args.eventsStream === undefined && args.profile !== undefined
      ? profileConfig(args.profile, io.cdkJson ?? PROJECT_CDK_JSON)
      : undefined;
  const eventsStream =
    args.eventsStream ??
    (config === undefined ? undefined : physicalNamesFor(`${config.name}-${config.profile}`).eventsStream);
  const { sinceText: _since, untilText: _until, profile: _profile, command: _command, ...rest } = args;
  return runEventsWindow(
    {
      ...rest,
      since,
      ...(until !== undefined ? { until } : {}),
      ...(eventsStream !== undefined ? { eventsStream } : {}),
    },
    io,
    'events-window:',
  );
}

/**
 * Runs the window replay and prints its report; the exit code is 1 when something stopped it.
 * @param usagePrefix - what the command's usage errors start with (`replay: --kind events-window` for the alias)
 */
export async function runEventsWindow(
  request: EventsWindowRequest,
  io: Pick<CliIo, 'stdout' | 'stderr' | 'env' | 'now'>,
  usagePrefix: string,
): Promise<number> {
  const eventsStream = request.eventsStream;
  if (eventsStream === undefined) {
    throw new UsageError(
      `${usagePrefix} needs the events stream: pass --events-stream NAME|ARN, or --profile NAME for its stream ` +
        'kfek-<profile>-events',
    );
  }
  const { endpoint, region } = resolveAwsTarget(request, io.env);
  const client = createKinesisClient({
    ...(region !== undefined ? { region } : {}),
    ...(request.endpoint !== undefined ? { endpoint: request.endpoint } : {}),
  });
  try {
    const status = new StatusLine(io.stderr);
    const report = await replayEventsWindow(
      {
        stream: eventsStream,
        since: request.since,
        ...(request.until !== undefined ? { until: request.until } : {}),
        ...(request.limit !== undefined ? { limit: request.limit } : {}),
        ...(request.ratePerSecond !== undefined ? { ratePerSecond: request.ratePerSecond } : {}),
        dryRun: request.dryRun,
      },
      {
        kinesis: kinesisPort(client),
        now: io.now ?? Date.now,
        sleep,
        ...(endpoint !== undefined ? { endpoint } : {}),
        onProgress: (progress) => status.update(progress),
      },
    ).catch((error: unknown) => {
      throw error instanceof OperatorError ? error : translateAwsError(error, 'replay', { endpoint });
    });
    status.finish();
    io.stdout.write(`${request.json ? JSON.stringify(report) : formatEventsWindowReport(report)}\n`);
    return report.failure !== undefined ? 1 : 0;
  } finally {
    client.destroy();
  }
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
