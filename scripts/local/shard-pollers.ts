import type { KinesisClient } from '@aws-sdk/client-kinesis';
import type { LocalRunError } from './errors';
import { listShardIds, ShardReader, sleep, type ShardBatch } from './shard-reader';

/** What every local loop that polls the shards of one stream is given. */
export interface ShardPollingLoopProps {
  readonly kinesis: KinesisClient;
  /** The stream whose every shard gets one poller. */
  readonly streamArn: string;
  /**
   * Pause between GetRecords calls on a shard that had nothing new. AWS pollers (Lambda's event source mapping,
   * Firehose) read each shard about once a second; locally shorter, so the end-to-end latency reflects the pipeline
   * rather than the poll interval.
   * @default 200
   */
  readonly pollIntervalInMillis?: number;
  /** @default - silent */
  readonly log?: (line: string) => void;
  /** Timing of every unit of work (an invocation, a bulk request), for `npm start -- --verbose`. @default - silent */
  readonly trace?: (line: string) => void;
  /**
   * The clock every time this loop reads comes from (idle times, batching windows, durations); tests pass a fake.
   * @default Date.now
   */
  readonly now?: () => number;
}

/** One GetRecords of a shard: the batch, and when the read started (by the loop's clock). */
export interface ShardRead {
  readonly batch: ShardBatch;
  readonly readStarted: number;
}

/** How a loop names itself in the errors the shared lifecycle raises. */
export interface ShardPollingLoopIdentity {
  /**
   * The loop's error class. The lifecycle's own errors (already running, no shards) and a poller failure that is
   * not an `Error` are raised as this class, so callers keep telling the two loops apart by error class.
   */
  readonly errorClass: new (message: string) => LocalRunError;
  /** The loop's name in its errors, e.g. `delivery loop` ("the delivery loop is already running"). */
  readonly loopName: string;
}

/**
 * The lifecycle both local stand-ins share (the Lambda event source mapping and Firehose): list the stream's
 * shards, position one {@link ShardReader} per shard at TRIM_HORIZON, run the loop's {@link pollShard} on each,
 * stop them all with one abort signal, keep the first failure, and track when each shard was last seen idle at
 * the tip of the stream. A loop extends this and keeps only what differs: its per-shard poll body, its error
 * class, its stats, and what "idle" means for it (the delivery loop also needs an empty buffer).
 *
 * A base class rather than a composed helper: with a helper, each loop re-declared the same five delegating
 * methods (`start`, `stop`, `failure`, `isCaughtUp`, `caughtUpSince`), which is the repetition this removes.
 */
export abstract class ShardPollingLoop {
  protected readonly pollIntervalInMillis: number;
  protected readonly log: (line: string) => void;
  /** The loop's clock ({@link ShardPollingLoopProps.now}). */
  protected readonly now: () => number;
  /** Per shard: when the latest read that found it idle started; undefined while the shard has work. */
  private readonly idleSince = new Map<string, number | undefined>();
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;
  private failed: Error | undefined;
  private readErrorCount = 0;

  protected constructor(
    private readonly pollingProps: ShardPollingLoopProps,
    private readonly identity: ShardPollingLoopIdentity,
  ) {
    this.pollIntervalInMillis = pollingProps.pollIntervalInMillis ?? 200;
    this.log = pollingProps.log ?? (() => undefined);
    this.now = pollingProps.now ?? Date.now;
  }

  /**
   * The read every poll starts with: up to `limit` records of the shard. A failed read (throttling, a dropped
   * connection) is counted, logged under `label` and retried after the poll interval, as AWS's pollers retry it: it
   * never skips data. Undefined when the read failed (or the loop is stopping): poll again.
   */
  protected async readShard(
    reader: ShardReader,
    limit: number,
    label: string,
  ): Promise<ShardRead | undefined> {
    const readStarted = this.now();
    try {
      return { batch: await reader.read(limit), readStarted };
    } catch (error) {
      if (this.signal.aborted) return undefined;
      this.countReadError();
      this.log(`${label}: GetRecords on ${reader.shardId} failed, retrying: ${String(error)}`);
      await sleep(this.pollIntervalInMillis, this.signal);
      return undefined;
    }
  }

  /**
   * After a read that found nothing to do: the shard is idle since that read if it was at the tip of the stream.
   * False when the shard is closed (the poller ends); else true after the poll interval.
   */
  protected async waitIdle(reader: ShardReader, read: ShardRead): Promise<boolean> {
    this.setIdleSince(reader.shardId, read.batch.millisBehindLatest === 0 ? read.readStarted : undefined);
    if (!read.batch.open) return false;
    await sleep(this.pollIntervalInMillis, this.signal);
    return true;
  }

  /** Starts one poller per shard; returns once they are positioned at TRIM_HORIZON. */
  async start(): Promise<void> {
    const { kinesis, streamArn } = this.pollingProps;
    const { errorClass, loopName } = this.identity;
    if (this.running !== undefined) throw new errorClass(`the ${loopName} is already running`);
    const shardIds = await listShardIds(kinesis, streamArn);
    if (shardIds.length === 0) throw new errorClass(`stream ${streamArn} has no shards`);
    const readers = await Promise.all(
      shardIds.map(async (shardId) => {
        const reader = new ShardReader(kinesis, streamArn, shardId);
        await reader.seek({ type: 'TRIM_HORIZON' });
        this.idleSince.set(shardId, undefined);
        return reader;
      }),
    );
    // A poller that fails for good stops the loop; the error is kept (never an unhandled rejection) and
    // surfaces from `failure()` and `stop()`.
    this.running = Promise.all(readers.map((reader) => this.pollShard(reader))).then(
      () => undefined,
      (error: unknown) => {
        this.failed = error instanceof Error ? error : new errorClass(String(error));
        this.abort.abort();
      },
    );
  }

  /**
   * Stops polling and waits for every poll body to return (the delivery loop delivers what it has buffered, the
   * event-source loop lets its in-flight invocation end); rethrows a poller's failure.
   */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
    if (this.failed !== undefined) throw this.failed;
  }

  /**
   * GetRecords and GetShardIterator calls that failed and were retried: with moto, each is an emulator error (an
   * HTML error page, a connection reset), counted so a run's summary shows every one.
   */
  readErrors(): number {
    return this.readErrorCount;
  }

  /** Counts one failed read that the loop retries (see {@link readErrors}). */
  protected countReadError(): void {
    this.readErrorCount += 1;
  }

  /** The error that stopped the loop, if one did. */
  failure(): Error | undefined {
    return this.failed;
  }

  /** True when every shard is idle: its last read was empty at the tip of the stream and nothing is pending. */
  isCaughtUp(): boolean {
    return this.caughtUpSince() !== undefined;
  }

  /**
   * When the oldest of the shards' latest idle reads started, if every shard is idle: everything written to the
   * stream before that moment has been handled (for the delivery loop: indexed or kept as failed). Undefined while
   * any shard has work, and before `start()` has positioned the readers.
   */
  caughtUpSince(): number | undefined {
    let oldest = Number.POSITIVE_INFINITY;
    for (const since of this.idleSince.values()) {
      if (since === undefined) return undefined;
      oldest = Math.min(oldest, since);
    }
    return this.idleSince.size === 0 ? undefined : oldest;
  }

  /** Aborted by `stop()` or by a poller's failure: poll bodies check it and pass it to their sleeps. */
  protected get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Records a shard's latest read: `since` is when it started if it left the shard idle, else undefined. */
  protected setIdleSince(shardId: string, since: number | undefined): void {
    this.idleSince.set(shardId, since);
  }

  /** The loop's work on one shard; returns once {@link signal} is aborted (or the shard is closed). */
  protected abstract pollShard(reader: ShardReader): Promise<void>;
}
