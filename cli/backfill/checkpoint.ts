/**
 * The checkpoint of a backfill: the job (absolute window, log groups, stream) and, per log group, where the next
 * read starts. Written after every FilterLogEvents page whose envelopes Kinesis has taken (or that were kept), so a
 * run that stops anywhere resumes at the last such page: it never reads more than that one page again.
 *
 * Where it resumes is a timestamp, not FilterLogEvents' nextToken: the API answers in timestamp order, and a token
 * is only good for the session that got it (an unknown token reads as an empty, final page: the rest of the group
 * would silently be skipped). The events of that millisecond that were already written are listed by id and
 * skipped when read again.
 */
import { isObject } from '../../core/json';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { parseLogGroupName, parseStreamName } from '../args/values';
import { CliError, UsageError } from '../errors';
import { type BackfillCounts, type BackfillJob, NO_COUNTS } from './model';

export interface GroupProgress {
  /** Every page of the group was written. */
  readonly done: boolean;
  /**
   * Where the next read starts: the timestamp of the last event of the last page written.
   * @default - the window's start
   */
  readonly from?: number;
  /** Ids of the events at `from` already written: skipped when read again. */
  readonly writtenAtFrom: readonly string[];
}

/** The options as typed, to tell whether a `--resume` command line asks for the same job. */
export interface TypedJob {
  readonly since: string;
  readonly until?: string;
}

export interface CheckpointState {
  readonly version: 1;
  readonly job: BackfillJob;
  readonly typed: TypedJob;
  readonly groups: Readonly<Record<string, GroupProgress>>;
  readonly counts: BackfillCounts;
  /** The estimate the first run made (the progress bar's total). */
  readonly estimatedEvents?: number;
  /** Runs so far, this one included. */
  readonly runs: number;
  readonly startedAt: string;
  readonly updatedAt: string;
}

export function isFinished(state: CheckpointState): boolean {
  return state.job.logGroups.every((g) => state.groups[g]?.done === true);
}

/** Where checkpoints live: a file, or memory in tests. */
export interface CheckpointStore {
  readonly location: string;
  load(): Promise<CheckpointState | undefined>;
  save(state: CheckpointState): Promise<void>;
}

/** Problems with the checkpoint file: it says which file and what to do. */
export class CheckpointError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CheckpointError';
  }
}

/**
 * A checkpoint whose content backfill refuses, as it refuses the same values on its command line: bad input, exit 2,
 * and nothing is read or sent.
 */
export class InvalidCheckpointError extends CheckpointError {
  override readonly exitCode = 2;

  constructor(message: string) {
    super(message);
    this.name = 'InvalidCheckpointError';
  }
}

export function fileCheckpointStore(file: string): CheckpointStore {
  return {
    location: file,
    async load() {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw new CheckpointError(
          `backfill: cannot read the checkpoint ${file} (${(error as Error).message}): pass a --state-dir you can ` +
            'write to',
          { cause: error },
        );
      }
      return parseCheckpoint(text, file);
    },
    async save(state) {
      try {
        await mkdir(path.dirname(file), { recursive: true });
        // Written aside and renamed over the old one: a run killed while writing leaves the previous checkpoint.
        const aside = `${file}.${process.pid}.tmp`;
        await writeFile(aside, `${JSON.stringify(serialize(state), null, 1)}\n`);
        await rename(aside, file);
      } catch (error) {
        throw new CheckpointError(
          `backfill: cannot write the checkpoint ${file} (${(error as Error).message}): pass a --state-dir you can ` +
            'write to',
          { cause: error },
        );
      }
    },
  };
}

function serialize(state: CheckpointState): unknown {
  return {
    ...state,
    job: { ...state.job, since: state.job.since.toISOString(), until: state.job.until.toISOString() },
  };
}

export function parseCheckpoint(text: string, location: string): CheckpointState {
  const broken = (what: string): CheckpointError =>
    new InvalidCheckpointError(
      `backfill: the checkpoint ${location} ${what}: delete it to start over (re-sent events overwrite ` +
        'their documents), or pass --state-dir with another folder',
    );
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw broken('is not JSON');
  }
  if (!isObject(doc) || doc.version !== 1 || !isObject(doc.job) || !isObject(doc.groups)) {
    throw broken('is not a version 1 kfek backfill checkpoint');
  }
  const job = doc.job;
  const since = new Date(String(job.since));
  const until = new Date(String(job.until));
  if (
    !Array.isArray(job.logGroups) ||
    job.logGroups.length === 0 ||
    !job.logGroups.every((g) => typeof g === 'string') ||
    typeof job.rawStream !== 'string' ||
    !Number.isFinite(since.getTime()) ||
    !Number.isFinite(until.getTime())
  ) {
    throw broken('has no readable job');
  }
  // The job is checked as strictly as the command line that wrote it: a checkpoint edited by hand (or by another
  // version) must not send to a stream, or read a window, that the options would refuse.
  const logGroups = job.logGroups;
  for (const [value, parse] of [
    ...logGroups.map((g) => [g, () => parseLogGroupName(g, 'log group')] as const),
    [job.rawStream, () => parseStreamName(job.rawStream as string, 'raw stream')] as const,
  ]) {
    try {
      parse();
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      throw broken(
        `names ${JSON.stringify(value)}, which backfill refuses (${error.message.replace(/ \(run .*$/, '')})`,
      );
    }
  }
  if (since.getTime() >= until.getTime()) {
    throw broken(`has a window that ends (${until.toISOString()}) before it starts (${since.toISOString()})`);
  }
  if (job.filterPattern !== undefined && typeof job.filterPattern !== 'string')
    throw broken('has an unreadable filter pattern');
  const groups: Record<string, GroupProgress> = {};
  for (const [name, value] of Object.entries(doc.groups)) {
    if (!isObject(value)) throw broken(`has an unreadable entry for ${name}`);
    if (!logGroups.includes(name))
      throw broken(`has progress for ${name}, which is not one of its log groups`);
    if (value.from !== undefined && (typeof value.from !== 'number' || !Number.isFinite(value.from))) {
      throw broken(`has an unreadable position for ${name}`);
    }
    const from = value.from;
    if (from !== undefined && (from < since.getTime() || from > until.getTime())) {
      throw broken(
        `says ${name} goes on at ${new Date(from).toISOString()}, outside its window ` +
          `${since.toISOString()} .. ${until.toISOString()}`,
      );
    }
    if (value.writtenAtFrom !== undefined && !Array.isArray(value.writtenAtFrom)) {
      throw broken(`has an unreadable list of written events for ${name}`);
    }
    groups[name] = {
      done: value.done === true,
      ...(from !== undefined ? { from } : {}),
      writtenAtFrom: Array.isArray(value.writtenAtFrom) ? value.writtenAtFrom.map(String) : [],
    };
  }
  const counts: Record<string, number> = { ...NO_COUNTS };
  if (isObject(doc.counts)) {
    for (const key of Object.keys(NO_COUNTS)) {
      const n = doc.counts[key];
      if (typeof n === 'number' && Number.isFinite(n)) counts[key] = n;
    }
  }
  const typed = isObject(doc.typed) ? doc.typed : {};
  return {
    version: 1,
    job: {
      logGroups,
      since,
      until,
      ...(typeof job.filterPattern === 'string' ? { filterPattern: job.filterPattern } : {}),
      rawStream: job.rawStream,
    },
    typed: {
      since: typeof typed.since === 'string' ? typed.since : since.toISOString(),
      ...(typeof typed.until === 'string' ? { until: typed.until } : {}),
    },
    groups,
    counts: counts as unknown as BackfillCounts,
    ...(typeof doc.estimatedEvents === 'number' ? { estimatedEvents: doc.estimatedEvents } : {}),
    runs: typeof doc.runs === 'number' ? doc.runs : 1,
    startedAt: typeof doc.startedAt === 'string' ? doc.startedAt : new Date(0).toISOString(),
    updatedAt: typeof doc.updatedAt === 'string' ? doc.updatedAt : new Date(0).toISOString(),
  };
}
