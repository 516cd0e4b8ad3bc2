/**
 * `kfek replay --kind events-window`: puts the events stream's own records of a time window back on it, unchanged,
 * so a delivery stream that was created after them (a recreated Pipeline stack) delivers them too.
 *
 * A Firehose delivery stream with a Kinesis source starts reading at its own creation time: it has no
 * TRIM_HORIZON. What the events stream held that the old delivery stream had not delivered, and what the transform
 * wrote before the new one existed, is never indexed unless it is put on the stream again. Documents carry ids
 * derived from log group, stream and event id, so re-putting documents that were indexed overwrites them.
 *
 * Every shard is read, closed parents of a reshard before their children, open shards side by side (one
 * GetRecords call at a time, to the shard whose read limits allow it soonest); each record is re-put with its data
 * (KPL aggregated or not: Firehose de-aggregates) and partition key as they were, with the sender every replay uses
 * (PutRecords within its limits, retries, --rate). Reading stops at the replay's own start: the records it puts
 * arrive after it, so it never reads them back. Memory holds one GetRecords page at a time.
 */
import { translateAwsError } from '../../core/aws/retry';
import { MAX_RECORDS_PER_READ } from '../../core/kinesis/limits';
import type { KinesisPort, ShardInfo } from '../../core/kinesis/ports';
import { RecordSender } from '../../core/kinesis/sender';
import { EventsWindowError, WindowPutFailedError } from './errors';
import { parentsFirst, type ShardEnd, ShardWindowReader } from '../../core/kinesis/shard-window';
import { kinesisPast, listAllShards } from './stream';

export interface EventsWindowPlan {
  /** The events stream, name or ARN: read from and put back to. */
  readonly stream: string;
  readonly since: Date;
  /** @default - the replay's start */
  readonly until?: Date;
  /** Most records to re-put (or count, for a dry run), shard by shard. @default - all in the window */
  readonly limit?: number;
  /** Records per second. @default - as fast as Kinesis takes them */
  readonly ratePerSecond?: number;
  /** Read and count only; put nothing. */
  readonly dryRun: boolean;
}

export interface WindowProgress {
  /** The shard just read. */
  readonly shardId: string;
  /** Shards read to their end, of `shards`. */
  readonly shardsDone: number;
  readonly shards: number;
  /** Records (and their bytes) read in the window so far, over every shard; re-put so far unless a dry run. */
  readonly records: number;
  readonly bytes: number;
  /** Arrival time of the latest record read. */
  readonly at?: Date;
  /** True when this read finished the shard. */
  readonly shardDone: boolean;
  readonly note: string;
}

export interface EventsWindowPorts {
  /** Reads the stream; PutRecords is not called on a dry run. */
  readonly kinesis: KinesisPort;
  readonly now: () => number;
  readonly sleep: (millis: number) => Promise<void>;
  readonly random?: () => number;
  /** @default 1 MB per second and shard (see ShardWindowOptions) */
  readonly readBytesPerSecond?: number;
  /** The endpoint override, for "cannot connect" messages. */
  readonly endpoint?: string;
  readonly onProgress?: (progress: WindowProgress) => void;
}

export interface WindowShardSummary {
  readonly shardId: string;
  readonly closed: boolean;
  readonly records: number;
  readonly bytes: number;
  readonly first?: Date;
  readonly last?: Date;
  /**
   * Why reading it ended; `limit` for --limit, `stopped` when a failure stopped the replay while the shard was
   * being read, `not read` when the replay stopped before it.
   */
  readonly end: ShardEnd | 'limit' | 'stopped' | 'not read';
}

export interface EventsWindowReport {
  readonly kind: 'events-window';
  readonly dryRun: boolean;
  readonly stream: string;
  readonly since: Date;
  /**
   * The window's end: `--until`, or the replay's start by Kinesis' clock (to the end of its second; by this
   * machine's clock when Kinesis' is unknown), whichever is earlier.
   */
  readonly end: Date;
  readonly shards: readonly WindowShardSummary[];
  /** Records (and bytes of data) read in the window. */
  readonly records: number;
  readonly bytes: number;
  /** Records Kinesis took back (0 on a dry run). */
  readonly put: number;
  /** PutRecords entries retried, and GetRecords/GetShardIterator calls retried after throttling. */
  readonly putRetries: number;
  readonly readRetries: number;
  readonly durationMillis: number;
  /** True when --limit stopped the replay. */
  readonly limited: boolean;
  /** What stopped the replay before the window's end, with what to do. */
  readonly failure?: string;
}

export async function replayEventsWindow(
  plan: EventsWindowPlan,
  ports: EventsWindowPorts,
): Promise<EventsWindowReport> {
  const startedAt = ports.now();
  const shards = parentsFirst(await listAllShards(ports.kinesis, plan.stream, ports));
  if (shards.length === 0) throw new EventsWindowError(`${plan.stream} has no shards to read`);
  // The window ends at the replay's start by Kinesis' clock, which stamps the arrival times, when Kinesis tells it
  // (this machine's clock may be off by more than the records' spacing). Its Date header counts whole seconds, so
  // the window ends with the second ListShards answered in, and nothing is put before Kinesis' clock has passed it:
  // every record the replay puts arrives after the window, and it never reads one back.
  const kinesisStart = ports.kinesis.serverTime?.()?.getTime();
  const end = new Date(
    Math.min(
      kinesisStart === undefined ? startedAt : kinesisStart + 999,
      plan.until?.getTime() ?? Number.POSITIVE_INFINITY,
    ),
  );
  const replay = new WindowReplay(plan, ports, shards, end);
  await replay.run();
  return replay.report(startedAt);
}

/** What one shard gave so far. */
interface ShardRead {
  records: number;
  bytes: number;
  first?: Date;
  last?: Date;
}

/** One replay's readers, counters and outcome. */
class WindowReplay {
  private readonly readers: ShardWindowReader[];
  private readonly read: ShardRead[];
  private readonly started = new Set<number>();
  private readonly totals = { records: 0, bytes: 0, put: 0, putRetries: 0 };
  private readonly sender: RecordSender;
  private pastEnd: boolean;
  private limited = false;
  private failure: string | undefined;

  constructor(
    private readonly plan: EventsWindowPlan,
    private readonly ports: EventsWindowPorts,
    private readonly shards: readonly ShardInfo[],
    private readonly end: Date,
  ) {
    const random = ports.random !== undefined ? { random: ports.random } : {};
    this.pastEnd = plan.dryRun;
    this.sender = new RecordSender({
      kinesis: ports.kinesis,
      now: ports.now,
      sleep: ports.sleep,
      ...random,
      ...(plan.ratePerSecond !== undefined ? { ratePerSecond: plan.ratePerSecond } : {}),
      // Re-putting a window without --rate fills the shards' write limit: entries Kinesis refuses for throughput
      // are the back-pressure, so they get more attempts than a few kept items would (backoff up to 10 s each).
      maxAttempts: 20,
    });
    this.readers = shards.map(
      (shard) =>
        new ShardWindowReader(
          ports.kinesis,
          plan.stream,
          shard,
          { since: plan.since, end },
          {
            now: ports.now,
            sleep: ports.sleep,
            ...random,
            ...(ports.readBytesPerSecond !== undefined
              ? { readBytesPerSecond: ports.readBytesPerSecond }
              : {}),
          },
        ),
    );
    this.read = shards.map(() => ({ records: 0, bytes: 0 }));
  }

  /** Reads (and re-puts) page after page until every shard ends, --limit is reached or a failure stops it. */
  async run(): Promise<void> {
    while (!this.limited && this.failure === undefined) {
      const index = this.nextShard();
      if (index === undefined) break;
      this.started.add(index);
      try {
        await this.step(index);
      } catch (error) {
        // translateAwsError passes an OperatorError (a refused put, an unknown stream) through unchanged.
        this.failure = translateAwsError(
          error,
          `reading ${this.shards[index].shardId} of ${this.plan.stream}`,
          {
            ...(this.ports.endpoint !== undefined ? { endpoint: this.ports.endpoint } : {}),
          },
        ).message;
      }
      this.progress(index);
    }
    this.limited &&= this.readers.some((r) => r.ended === undefined);
  }

  /**
   * Of the shards whose parents are read to their end (so a partition key's records go back in order), the one
   * Kinesis lets the replay read soonest: the shards' read limits apply to each, so their calls interleave.
   */
  private nextShard(): number | undefined {
    const finished = (shardId: string | undefined): boolean => {
      const index = this.shards.findIndex((s) => s.shardId === shardId);
      return index < 0 || this.readers[index].ended !== undefined;
    };
    const ready = this.readers.flatMap((reader, i) =>
      reader.ended === undefined &&
      finished(this.shards[i].parentShardId) &&
      finished(this.shards[i].adjacentParentShardId)
        ? [i]
        : [],
    );
    if (ready.length === 0) return undefined;
    return ready.reduce((a, b) => (this.readers[b].readyAt < this.readers[a].readyAt ? b : a));
  }

  /** Reads one page of shard `index`, puts it back (unless a dry run) and counts it. */
  private async step(index: number): Promise<void> {
    const { plan, totals } = this;
    const page = await this.readers[index].next(
      plan.limit === undefined ? MAX_RECORDS_PER_READ : plan.limit - totals.records,
    );
    if (page.length > 0) {
      if (!plan.dryRun) {
        if (!this.pastEnd) await kinesisPast(this.end, plan.stream, this.ports);
        this.pastEnd = true;
        const result = await this.sender.send(plan.stream, page);
        totals.put += result.accepted.filter(Boolean).length;
        totals.putRetries += result.retries;
        const refused = result.accepted.filter((ok) => !ok).length;
        if (refused > 0) {
          this.failure = new WindowPutFailedError(
            plan.stream,
            refused,
            result.lastErrorCode ?? 'unknown',
          ).message;
        }
      }
      const bytes = page.reduce((sum, r) => sum + r.data.length, 0);
      const shard = this.read[index];
      shard.records += page.length;
      shard.bytes += bytes;
      shard.first ??= page[0].arrivedAt;
      shard.last = page[page.length - 1].arrivedAt ?? shard.last;
      totals.records += page.length;
      totals.bytes += bytes;
    }
    this.limited = plan.limit !== undefined && totals.records >= plan.limit;
  }

  private progress(index: number): void {
    const reader = this.readers[index];
    const last = this.read[index].last;
    this.ports.onProgress?.({
      shardId: this.shards[index].shardId,
      shardsDone: this.readers.filter((r) => r.ended !== undefined).length,
      shards: this.shards.length,
      records: this.totals.records,
      bytes: this.totals.bytes,
      ...(last !== undefined ? { at: last } : {}),
      shardDone: reader.ended !== undefined,
      note: reader.retriedCalls > 0 ? `${reader.retriedCalls} read(s) of it throttled` : '',
    });
  }

  report(startedAt: number): EventsWindowReport {
    const { plan, read, readers, limited, failure } = this;
    const summaries = this.shards.map((shard, i): WindowShardSummary => ({
      shardId: shard.shardId,
      closed: shard.closed,
      records: read[i].records,
      bytes: read[i].bytes,
      ...(read[i].first !== undefined ? { first: read[i].first } : {}),
      ...(read[i].last !== undefined ? { last: read[i].last } : {}),
      end: readers[i].ended ?? (!this.started.has(i) ? 'not read' : limited ? 'limit' : 'stopped'),
    }));
    return {
      kind: 'events-window',
      dryRun: plan.dryRun,
      stream: plan.stream,
      since: plan.since,
      end: this.end,
      shards: summaries,
      ...this.totals,
      readRetries: readers.reduce((sum, r) => sum + r.retriedCalls, 0),
      durationMillis: this.ports.now() - startedAt,
      limited,
      ...(failure !== undefined ? { failure } : {}),
    };
  }
}
