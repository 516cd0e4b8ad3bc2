/**
 * The backfill itself: per log group, FilterLogEvents pages from where the checkpoint says (the window's start on a
 * first run), each page turned into subscription envelopes and put on the raw stream at `--rate` events per
 * second through core/kinesis' sender (calls of at most 500 records and 5 MiB, refused entries retried with backoff),
 * then the checkpoint written. Records Kinesis still refuses are kept for `kfek replay`. Stops between two calls
 * when the signal aborts; the checkpoint then stays at the last page written, so a resumed run reads that page's
 * successor again and nothing more.
 */
import type { Continuation } from '../../core/contracts/multiline';
import type { KinesisPort } from '../../core/kinesis/ports';
import { RecordSender } from '../../core/kinesis/sender';
import { type Clock, RatePacer } from '../../core/pace';
import type { CheckpointStore } from './checkpoint';
import type { KeptStore } from './kept';
import {
  addCounts,
  type BackfillCounts,
  type BackfillJob,
  type CheckpointState,
  type GroupProgress,
  NO_COUNTS,
} from '../../core/backfill/model';
import { buildEnvelopes, heldBack } from '../../core/logs/envelopes';
import type { EnvelopeRecord, GroupSource, HistoricLogEvent } from '../../core/logs/model';
import type { LogsPort } from '../../core/logs/ports';

export interface GroupPlan {
  readonly source: GroupSource;
  /** @default - every event */
  readonly filterPattern?: string;
  /**
   * The multi-line rule of the route the group's events take (core/contracts/multiline.ts): an envelope never ends
   * inside a trace, so the transform joins what the live subscription's envelope held whole.
   * @default - the route joins nothing
   */
  readonly continuation?: Continuation;
}

export interface RunOptions {
  readonly job: BackfillJob;
  readonly groups: readonly GroupPlan[];
  /** Events per second to the raw stream. @default - unpaced */
  readonly ratePerSecond?: number;
  /** Attempts per record Kinesis refuses (and per failing call). @default 20 */
  readonly maxPutAttempts?: number;
}

export interface RunDeps {
  /** FilterLogEvents already paced to its quota (pace.ts `CallSpacer`). */
  readonly logs: LogsPort;
  readonly kinesis: KinesisPort;
  readonly checkpoint: CheckpointStore;
  readonly kept: KeptStore;
  readonly clock: Clock;
  /** @default Math.random */
  readonly random?: () => number;
  /** Stops the run between two calls (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** After every PutRecords round, with the whole backfill's counts (earlier runs included). */
  readonly onProgress?: (counts: BackfillCounts) => void;
}

export interface RunResult {
  readonly state: CheckpointState;
  /** This run's counts (the state holds the whole backfill's). */
  readonly thisRun: BackfillCounts;
  readonly interrupted: boolean;
  readonly durationInMillis: number;
  /** Where refused records were kept (the first few). */
  readonly keptFiles: readonly string[];
  /** The last error code Kinesis gave a record it never took. */
  readonly lastErrorCode?: string;
}

/** PutRecords rounds per second at a given rate, so the pace holds within a fifth of a second. */
const ROUNDS_PER_SECOND = 5;
const KEPT_FILES_LISTED = 5;

export async function runBackfill(
  options: RunOptions,
  initial: CheckpointState,
  deps: RunDeps,
): Promise<RunResult> {
  const run = new BackfillRun(options, initial, deps);
  for (const plan of options.groups) {
    if (!(await run.group(plan))) return run.result(true);
  }
  return run.result(false);
}

/** One run's sender, pace, checkpoint state and counts. */
class BackfillRun {
  private readonly startedAt: number;
  private readonly maxAttempts: number;
  private readonly sender: RecordSender;
  private readonly pacer: RatePacer;
  /** Events per PutRecords round. */
  private readonly roundEvents: number;
  private state: CheckpointState;
  private thisRun = NO_COUNTS;
  private readonly keptFiles: string[] = [];
  private lastErrorCode: string | undefined;

  constructor(
    private readonly options: RunOptions,
    initial: CheckpointState,
    private readonly deps: RunDeps,
  ) {
    this.state = initial;
    this.startedAt = deps.clock.now();
    this.maxAttempts = options.maxPutAttempts ?? 20;
    this.sender = new RecordSender({
      kinesis: deps.kinesis,
      now: deps.clock.now,
      sleep: deps.clock.sleep,
      ...(deps.random !== undefined ? { random: deps.random } : {}),
      maxAttempts: this.maxAttempts,
    });
    this.pacer = new RatePacer(options.ratePerSecond, deps.clock);
    this.roundEvents =
      options.ratePerSecond === undefined
        ? Number.POSITIVE_INFINITY
        : Math.max(1, Math.ceil(options.ratePerSecond / ROUNDS_PER_SECOND));
  }

  result(interrupted: boolean): RunResult {
    return {
      state: this.state,
      thisRun: this.thisRun,
      interrupted,
      durationInMillis: this.deps.clock.now() - this.startedAt,
      keptFiles: this.keptFiles,
      ...(this.lastErrorCode !== undefined ? { lastErrorCode: this.lastErrorCode } : {}),
    };
  }

  /** Reads and sends one log group from its checkpoint to the window's end; false when interrupted. */
  async group(plan: GroupPlan): Promise<boolean> {
    const { job } = this.options;
    const name = plan.source.logGroup;
    let progress: GroupProgress = this.state.groups[name] ?? { done: false, writtenAtFrom: [] };
    if (progress.done) return true;
    const startTime = progress.from ?? job.since.getTime();
    // Events of the resume millisecond that an earlier run wrote: read again, not sent again.
    const writtenBefore = new Set(progress.writtenAtFrom);
    let nextToken: string | undefined;
    // Events of a trace that may go on in the next page, read but not sent yet (multi-line routes only).
    let carry: HistoricLogEvent[] = [];
    do {
      if (this.deps.signal?.aborted === true) return false;
      const page = await this.deps.logs.filterPage({
        logGroup: name,
        startTime,
        endTime: job.until.getTime(),
        ...(plan.filterPattern !== undefined ? { filterPattern: plan.filterPattern } : {}),
        ...(nextToken !== undefined ? { nextToken } : {}),
      });
      const fresh = page.events.filter((e) => !(e.timestamp === startTime && writtenBefore.has(e.id)));
      const last = page.nextToken === undefined;
      const read = carry.length > 0 ? [...carry, ...fresh] : fresh;
      const held = last || plan.continuation === undefined ? [] : heldBack(read, plan.continuation);
      const heldIds = new Set(held.map((e) => e.id));
      const sendNow = held.length === 0 ? read : read.filter((e) => !heldIds.has(e.id));
      const { records, oversized } = buildEnvelopes(plan.source, sendNow, {
        ...(plan.continuation !== undefined ? { continuation: plan.continuation } : {}),
      });
      this.count({
        pages: 1,
        read: page.events.length,
        skipped: page.events.length - fresh.length + oversized.length,
      });
      if (!(await this.put(records))) return false;
      carry = held;
      nextToken = page.nextToken;
      if (read.length > 0 || nextToken === undefined) {
        progress = advance(progress, sendNow, held, nextToken === undefined);
        await this.save(name, progress);
      }
    } while (nextToken !== undefined);
    return true;
  }

  private count(delta: Partial<BackfillCounts>): void {
    this.thisRun = addCounts(this.thisRun, delta);
    this.state = { ...this.state, counts: addCounts(this.state.counts, delta) };
  }

  private async save(name: string, progress: GroupProgress): Promise<void> {
    this.state = {
      ...this.state,
      groups: { ...this.state.groups, [name]: progress },
      updatedAt: new Date(this.deps.clock.now()).toISOString(),
    };
    await this.deps.checkpoint.save(this.state);
  }

  /** Puts one page's records in rounds of about a fifth of a second's events; false when interrupted. */
  private async put(records: readonly EnvelopeRecord[]): Promise<boolean> {
    for (const round of rounds(records, this.roundEvents)) {
      if (this.deps.signal?.aborted === true) return false;
      await this.pacer.take(round.reduce((sum, r) => sum + r.events, 0));
      await this.putRound(round);
      this.deps.onProgress?.(this.state.counts);
    }
    return true;
  }

  /** Sends one round, keeps what Kinesis refused every time, and counts both. */
  private async putRound(round: readonly EnvelopeRecord[]): Promise<void> {
    const { deps, options } = this;
    const sent = await this.sender.send(options.job.rawStream, round);
    const delta = { written: 0, records: 0, messageBytes: 0, gzipBytes: 0, failed: 0, failedRecords: 0 };
    for (const [i, record] of round.entries()) {
      if (sent.accepted[i]) {
        delta.written += record.events;
        delta.records += 1;
        delta.messageBytes += record.messageBytes;
        delta.gzipBytes += record.data.length;
        continue;
      }
      this.lastErrorCode = sent.lastErrorCode ?? this.lastErrorCode;
      const reason =
        `backfill: PutRecords refused this envelope ${this.maxAttempts} times` +
        `${sent.lastErrorCode !== undefined ? ` (last: ${sent.lastErrorCode})` : ''}`;
      const file = await deps.kept.keep(record, reason, new Date(deps.clock.now()), options.job.rawStream);
      if (this.keptFiles.length < KEPT_FILES_LISTED) this.keptFiles.push(file);
      delta.failed += record.events;
      delta.failedRecords += 1;
    }
    this.count({ ...delta, retries: sent.retries });
  }
}

/**
 * Where the next read of the group starts once `written` (in timestamp order) are sent and `held` (the start of a
 * trace that may go on in the next page) are not: at the last written event's time, or, while events are held, at the
 * first held one's, so a resumed run reads them again (with the written events after it, which overwrite themselves).
 */
function advance(
  progress: GroupProgress,
  written: readonly { readonly id: string; readonly timestamp: number }[],
  held: readonly { readonly id: string; readonly timestamp: number }[],
  done: boolean,
): GroupProgress {
  if (held.length > 0) {
    const from = held.reduce((min, e) => Math.min(min, e.timestamp), Number.POSITIVE_INFINITY);
    const atFrom = written.filter((e) => e.timestamp === from).map((e) => e.id);
    return {
      done,
      from,
      writtenAtFrom: from === progress.from ? [...new Set([...progress.writtenAtFrom, ...atFrom])] : atFrom,
    };
  }
  if (written.length === 0) return { ...progress, done };
  const last = written[written.length - 1].timestamp;
  const atLast = written.filter((e) => e.timestamp === last).map((e) => e.id);
  // A page made only of the resume millisecond's events (over 10,000 in one millisecond): keep the earlier ids too.
  const writtenAtFrom =
    last === progress.from ? [...new Set([...progress.writtenAtFrom, ...atLast])] : atLast;
  return { done, from: last, writtenAtFrom };
}

/** Records in rounds of at least one record and about `maxEvents` events. */
function* rounds(records: readonly EnvelopeRecord[], maxEvents: number): Generator<EnvelopeRecord[]> {
  let round: EnvelopeRecord[] = [];
  let events = 0;
  for (const record of records) {
    if (round.length > 0 && events + record.events > maxEvents) {
      yield round;
      round = [];
      events = 0;
    }
    round.push(record);
    events += record.events;
  }
  if (round.length > 0) yield round;
}
