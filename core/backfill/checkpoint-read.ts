/**
 * Reading a backfill checkpoint back. A checkpoint is a file: it can be cut short by a full disk, edited by hand,
 * written by another version, or copied from another profile's state folder. Every field is checked as strictly as
 * the command line that wrote it, and a checkpoint that fails a check is refused in one line (exit 2, as a bad
 * option is) that names the file, the field, the bad value and what to do, before anything is read or sent: no
 * value of it reaches a `Date`, a request or a message unchecked (a position of 1e300 used to end in "unexpected
 * error: Invalid time value", from the message that was to say it was out of its window).
 */
import { OperatorError } from '../errors';
import { isObject, type JsonObject } from '../json';
import {
  isoTimeOrProblem,
  logGroupNameProblem,
  profileNameProblem,
  quote,
  streamNameProblem,
  timeProblem,
} from '../contracts/value-rules';
import {
  type BackfillCounts,
  type BackfillJob,
  CHECKPOINT_VERSION,
  type CheckpointState,
  type GroupProgress,
  NO_COUNTS,
  type TypedJob,
} from './model';

/** Problems with the checkpoint file: it says which file and what to do. */
export class CheckpointError extends OperatorError {
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

/** Throws the refusal; `what` continues "the checkpoint <file> ...". */
type Fail = (what: string) => never;

/** A value of the file as a message shows it: a string quoted, anything else as JSON, both cut short when long. */
function shown(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  const json = JSON.stringify(value) ?? String(value);
  return json.length <= 64 ? json : quote(json);
}

export function parseCheckpoint(text: string, location: string): CheckpointState {
  const fail: Fail = (what) => {
    throw new InvalidCheckpointError(
      `backfill: the checkpoint ${location} ${what}: delete it to start over (re-sent events overwrite ` +
        'their documents), or pass --state-dir with another folder',
    );
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return fail('is not JSON');
  }
  if (!isObject(doc)) return fail('is not a kfek backfill checkpoint (not a JSON object)');
  if (doc.version !== CHECKPOINT_VERSION) {
    return fail(
      `is not a version ${CHECKPOINT_VERSION} kfek backfill checkpoint (version ${shown(doc.version)})`,
    );
  }
  const job = readJob(doc.job, fail);
  return {
    version: CHECKPOINT_VERSION,
    job,
    typed: readTyped(doc.typed, job, fail),
    groups: readGroups(doc.groups, job, fail),
    counts: readCounts(doc.counts, fail),
    ...optionalField(doc, 'estimatedEvents', (n) => wholeNumber(n, 0, 'estimatedEvents', fail)),
    runs: doc.runs === undefined ? 1 : wholeNumber(doc.runs, 1, 'runs', fail),
    ...optionalField(doc, 'profile', (p) =>
      checkedName(p, 'profile', 'backfill: --profile', profileNameProblem, fail),
    ),
    startedAt:
      doc.startedAt === undefined ? new Date(0).toISOString() : isoText(doc.startedAt, 'startedAt', fail),
    updatedAt:
      doc.updatedAt === undefined ? new Date(0).toISOString() : isoText(doc.updatedAt, 'updatedAt', fail),
  };
}

/** The job: log groups, stream and window as the command line would take them. */
function readJob(value: unknown, fail: Fail): BackfillJob {
  if (!isObject(value)) return fail('has no readable job');
  const { logGroups, rawStream, filterPattern } = value;
  if (!Array.isArray(logGroups) || logGroups.length === 0) {
    return fail(`has no readable job: job.logGroups is ${shown(logGroups)}, not a list of log group names`);
  }
  // A checkpoint edited by hand (or by another version) must not send to a stream, or read a group, that the
  // options would refuse.
  const groups = logGroups.map((g) =>
    checkedName(g, 'job.logGroups', 'log group', logGroupNameProblem, fail),
  );
  const twice = groups.find((g, i) => groups.indexOf(g) !== i);
  if (twice !== undefined) fail(`lists the log group ${twice} twice in job.logGroups`);
  const stream = checkedName(rawStream, 'job.rawStream', 'raw stream', streamNameProblem, fail);
  if (filterPattern !== undefined && typeof filterPattern !== 'string') {
    fail(`has job.filterPattern ${shown(filterPattern)}, which is not a FilterLogEvents pattern (text)`);
  }
  const since = isoTime(value.since, 'job.since', fail);
  const until = isoTime(value.until, 'job.until', fail);
  if (since.getTime() >= until.getTime()) {
    fail(`has a window that ends (${until.toISOString()}) before it starts (${since.toISOString()})`);
  }
  return {
    logGroups: groups,
    since,
    until,
    ...(typeof filterPattern === 'string' ? { filterPattern } : {}),
    rawStream: stream,
  };
}

/** Each group's progress: only the job's groups, each position a whole millisecond inside the job's window. */
function readGroups(value: unknown, job: BackfillJob, fail: Fail): Record<string, GroupProgress> {
  if (!isObject(value)) return fail(`has groups ${shown(value)}, not an object of progress by log group`);
  // fromEntries defines own properties: a log group named __proto__ stays a group, not the object's prototype.
  return Object.fromEntries(
    Object.entries(value).map(([name, progress]) => [name, readProgress(name, progress, job, fail)]),
  );
}

function readProgress(name: string, value: unknown, job: BackfillJob, fail: Fail): GroupProgress {
  if (!job.logGroups.includes(name))
    fail(`has progress for ${shown(name)}, which is not one of its log groups`);
  if (!isObject(value)) return fail(`has an unreadable entry for ${name}: ${shown(value)}`);
  const { done, from, writtenAtFrom } = value;
  if (done !== undefined && typeof done !== 'boolean') {
    fail(`says ${name} is done: ${shown(done)}, which is neither true nor false`);
  }
  if (from !== undefined) {
    const problem = typeof from === 'number' ? timeProblem(from) : 'is not a time in milliseconds';
    if (problem !== undefined) fail(`says ${name} goes on at ${shown(from)}, which ${problem}`);
    const at = from as number;
    if (at < job.since.getTime() || at > job.until.getTime()) {
      fail(
        `says ${name} goes on at ${new Date(at).toISOString()}, outside its window ` +
          `${job.since.toISOString()} .. ${job.until.toISOString()}`,
      );
    }
  }
  if (
    writtenAtFrom !== undefined &&
    (!Array.isArray(writtenAtFrom) || !writtenAtFrom.every((id) => typeof id === 'string'))
  ) {
    fail(`has ${shown(writtenAtFrom)} as the events written of ${name}, not a list of event ids`);
  }
  return {
    done: done === true,
    ...(from !== undefined ? { from: from as number } : {}),
    writtenAtFrom: writtenAtFrom ?? [],
  };
}

/** The options as typed: each one line, as a message that quotes it must stay one line. */
function readTyped(value: unknown, job: BackfillJob, fail: Fail): TypedJob {
  if (value !== undefined && !isObject(value))
    return fail(`has typed ${shown(value)}, not the options as typed`);
  const typed: JsonObject = value ?? {};
  const text = (key: 'since' | 'until'): string | undefined => {
    const t = typed[key];
    if (t === undefined) return undefined;
    // eslint-disable-next-line no-control-regex -- a control character is exactly what is refused here
    if (typeof t !== 'string' || t.trim() === '' || t.length > 512 || /[\u0000-\u001f\u007f]/.test(t)) {
      return fail(`has typed.${key} ${shown(t)}, which is not an option value as typed`);
    }
    return t;
  };
  const until = text('until');
  return { since: text('since') ?? job.since.toISOString(), ...(until !== undefined ? { until } : {}) };
}

function readCounts(value: unknown, fail: Fail): BackfillCounts {
  if (value !== undefined && !isObject(value))
    return fail(`has counts ${shown(value)}, not an object of counts`);
  const counts: Record<string, number> = { ...NO_COUNTS };
  for (const key of Object.keys(NO_COUNTS)) {
    const n = value?.[key];
    if (n !== undefined) counts[key] = wholeNumber(n, 0, `counts.${key}`, fail);
  }
  return counts as unknown as BackfillCounts;
}

function wholeNumber(value: unknown, min: number, field: string, fail: Fail): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    return fail(`has ${field} ${shown(value)}, which is not a whole number >= ${min}`);
  }
  return value;
}

function isoTime(value: unknown, field: string, fail: Fail): Date {
  const date = typeof value === 'string' ? isoTimeOrProblem(value) : 'is not an ISO time (text)';
  return typeof date === 'string' ? fail(`has ${field} ${shown(value)}, which ${date}`) : date;
}

const isoText = (value: unknown, field: string, fail: Fail): string =>
  isoTime(value, field, fail).toISOString();

/** A name the command line takes as `label` (the same rule, core/contracts/value-rules.ts); its words say why not. */
function checkedName(
  value: unknown,
  field: string,
  label: string,
  problemOf: (text: string) => string | undefined,
  fail: Fail,
): string {
  if (typeof value !== 'string') return fail(`has ${field} ${shown(value)}, which is not a name`);
  const problem = problemOf(value);
  return problem === undefined
    ? value
    : fail(`names ${shown(value)}, which backfill refuses (${label} ${quote(value)} ${problem})`);
}

/** `{ key: read(value) }` when the document has the key, else nothing. */
function optionalField<K extends string, T>(
  doc: JsonObject,
  key: K,
  read: (value: unknown) => T,
): { [P in K]?: T } {
  return (doc[key] === undefined ? {} : { [key]: read(doc[key]) }) as { [P in K]?: T };
}
