/**
 * The local stand-in for the EventBridge pipe of the `pipes` transport (lib/constructs/pipes-transport.ts): the raw
 * stream as source, lambda/transform/pipes.ts as enrichment, the events stream as target, an SQS dead-letter
 * queue. See https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-kinesis.html.
 *
 * About 330 lines, one file: gathering a batch, expiring records, bisecting retries and dead-lettering are one
 * per-batch state machine over the same counters; the target (pipes-target.ts) and the dead-letter message
 * (pipes-dead-letter.ts) are the parts that stand alone.
 */
import type { _Record } from '@aws-sdk/client-kinesis';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { PIPES_PARTITION_KEY_PATH, type PipesKinesisRecord } from '../../core/contracts/pipes-target';
import { PipeError, PipeTargetError } from './errors';
import { type EventSourceStats, type MutableStats, zeroSourceStats } from './event-source-loop';
import {
  type LocalFunction,
  newLambdaContext,
  SerialInvocations,
  kinesisRecordParts,
  withTimeout,
} from './lambda-invocation';
import { type PipeDeadLetterCondition, pipeDeadLetterMessage, sendPipeDeadLetter } from './pipes-dead-letter';
import { answerItems, PipeTarget } from './pipes-target';
import { ShardPollingLoop, type ShardPollingLoopProps } from './shard-pollers';
import { type ShardReader, sleep } from './shard-reader';

/** The enrichment as the pipe invokes it: the batch as a JSON array of flat Kinesis records. */
export type PipesEnrichment = (event: PipesKinesisRecord[], context: Context) => Promise<unknown>;

export interface PipesLoopProps extends ShardPollingLoopProps {
  /** The raw stream (the pipe's source). */
  readonly streamArn: string;
  readonly enrichment: PipesEnrichment;
  /** The enrichment function (its timeout bounds each invocation). */
  readonly function: LocalFunction;
  /** The events stream (the pipe's target). */
  readonly targetStreamArn: string;
  readonly sqs: SQSClient;
  /** The dead-letter queue's URL. */
  readonly deadLetterQueueUrl: string;
  /** The pipe's ARN, written into dead-letter messages. */
  readonly pipeArn: string;
  /** Records per batch at most (`BatchSize`). */
  readonly batchSize: number;
  /**
   * How long to gather records for a batch that is not full (`MaximumBatchingWindowInSeconds`).
   * @default 0 - invoke with what one read returned
   */
  readonly maxBatchingWindowInMillis?: number;
  /** Retries of a failing batch, each one bisecting it, before it goes to the dead-letter queue. */
  readonly retryAttempts: number;
  /**
   * Records older than this (by their arrival in the raw stream) go to the dead-letter queue unprocessed
   * (`MaximumRecordAgeInSeconds`).
   * @default - no limit
   */
  readonly maxRecordAgeInMillis?: number;
  /** @default PIPES_PARTITION_KEY_PATH */
  readonly partitionKeyPath?: string;
  /** Pause before retrying a failed batch. @default 100 */
  readonly retryDelayInMillis?: number;
  /** Clock for record ages and dead-letter timestamps. @default Date.now */
  readonly now?: () => number;
}

/**
 * What the pipe has done so far. The fields it shares with the event-source loop mean the same; the pipe never
 * gets a partial batch response (`partialBatchResponses` stays 0), and `recordsSentToOnFailure` counts the records
 * described in dead-letter messages.
 */
export interface PipesStats extends EventSourceStats {
  /** Failed batches split in two for their retry (`AUTOMATIC_BISECT`). */
  readonly bisections: number;
  /** Invocations answered with no items, so the target was skipped (the enrichment wrote an oversize answer). */
  readonly emptyAnswers: number;
  /** PutRecords calls of the target that succeeded. */
  readonly targetPuts: number;
  /** Events-stream records the target wrote (the enrichment's own overflow writes are not among them). */
  readonly targetRecords: number;
  /** Target invocations that failed (the batch is retried). */
  readonly targetFailures: number;
  /** Messages sent to the dead-letter queue. */
  readonly deadLetterMessages: number;
  /** Records dead-lettered unprocessed because they were older than the maximum record age. */
  readonly recordsExpired: number;
}

type AttemptResult =
  { readonly ok: true } | { readonly ok: false; readonly reason: string; readonly functionError: boolean };

/**
 * Per shard: TRIM_HORIZON, GetRecords up to the batch size (gathering for the batching window), the enrichment
 * invoked with Pipes' flat records and a Lambda `Context`, its answer written to the target with the item's
 * partition key, and an empty answer skipping the target. A failing batch (enrichment error or timeout, or a
 * target that refused the answer) is retried up to `retryAttempts` times, split in two for each retry
 * (`AUTOMATIC_BISECT`: "halves each batch and retry each half until all the records are processed or there is one
 * failed message left in the batch"), halves in order; what still fails goes to the dead-letter queue as metadata
 * and the pipe moves on. The batch is held in memory while it is retried, so the reader never seeks back.
 *
 * Assumptions AWS does not document (so not confirmed): that each bisected retry counts against
 * `MaximumRetryAttempts` (halves inherit the count of the batch they came from); that a target failure is retried
 * like an enrichment error; and the dead-letter message's layout (scripts/local/pipes-dead-letter.ts).
 * Not emulated: parallelization factor > 1, filters, the pipe's log destination. Invocations run one at a time
 * across shards ({@link SerialInvocations}).
 */
export class PipesLoop extends ShardPollingLoop {
  private readonly stats: MutableStats<PipesStats> = {
    ...zeroSourceStats(),
    bisections: 0,
    emptyAnswers: 0,
    targetPuts: 0,
    targetRecords: 0,
    targetFailures: 0,
    deadLetterMessages: 0,
    recordsExpired: 0,
  };
  private readonly target: PipeTarget;
  private readonly invocations = new SerialInvocations(this.now);

  constructor(private readonly props: PipesLoopProps) {
    super(props, { errorClass: PipeError, loopName: 'pipe' });
    if (!Number.isInteger(props.batchSize) || props.batchSize < 1 || props.batchSize > 10_000) {
      throw new PipeError(
        `batchSize must be an integer from 1 to 10000 (a Kinesis pipe source's range), got ${props.batchSize}`,
      );
    }
    if (!Number.isInteger(props.retryAttempts) || props.retryAttempts < 0) {
      throw new PipeError(`retryAttempts must be a whole number, got ${props.retryAttempts}`);
    }
    this.target = new PipeTarget({
      kinesis: props.kinesis,
      streamArn: props.targetStreamArn,
      partitionKeyPath: props.partitionKeyPath ?? PIPES_PARTITION_KEY_PATH,
    });
  }

  /** A copy of the counters. */
  snapshot(): PipesStats {
    return { ...this.stats, readErrors: this.readErrors() };
  }

  /** When the latest invocation (enrichment and target) returned: what it wrote is in the events stream by then. */
  lastInvocationEndedAt(): number {
    return this.invocations.lastEndedAt();
  }

  protected async pollShard(reader: ShardReader): Promise<void> {
    const window = this.props.maxBatchingWindowInMillis ?? 0;
    let batch: _Record[] = [];
    let gatheringSince = 0;
    while (!this.signal.aborted) {
      const read = await this.readShard(reader, this.props.batchSize - batch.length, 'pipe');
      if (read === undefined) continue;
      if (batch.length === 0 && read.batch.records.length === 0) {
        if (await this.waitIdle(reader, read)) continue;
        return;
      }
      this.setIdleSince(reader.shardId, undefined);
      if (batch.length === 0) gatheringSince = this.now();
      batch = [...batch, ...read.batch.records];
      const waited = this.now() - gatheringSince;
      // The batching window: a batch that is not full waits for more records, at most the window.
      if (batch.length < this.props.batchSize && waited < window && read.batch.open) {
        await sleep(Math.min(this.pollIntervalInMillis, window - waited), this.signal);
        continue;
      }
      await this.deliver(reader.shardId, batch, 0);
      batch = [];
    }
  }

  /**
   * Delivers `records` (failed `attempts` times so far): expired records first go to the dead-letter queue, the
   * rest through enrichment and target; a failure is retried on both halves, or dead-lettered once the retries are
   * spent.
   */
  private async deliver(shardId: string, records: readonly _Record[], attempts: number): Promise<void> {
    if (this.signal.aborted || records.length === 0) return;
    const live = await this.dropExpired(shardId, records, attempts);
    if (live.length === 0) return;
    const result = await this.invocations.run(() => this.attempt(shardId, live));
    if (result.ok) return;
    const failed = attempts + 1;
    if (failed > this.props.retryAttempts) {
      await this.deadLetter(shardId, live, 'RetryAttemptsExhausted', failed, result);
      return;
    }
    this.stats.recordsRetried += live.length;
    this.log(
      `pipe: ${live.length} record(s) of ${shardId} failed (attempt ${failed} of ${this.props.retryAttempts + 1}), ` +
        `retrying${live.length > 1 ? ' in two halves' : ''}: ${result.reason}`,
    );
    await sleep(this.props.retryDelayInMillis ?? 100, this.signal);
    if (live.length === 1) {
      await this.deliver(shardId, live, failed);
      return;
    }
    this.stats.bisections += 1;
    const middle = Math.ceil(live.length / 2);
    await this.deliver(shardId, live.slice(0, middle), failed);
    await this.deliver(shardId, live.slice(middle), failed);
  }

  /** Sends the records older than the maximum record age to the dead-letter queue; returns the others. */
  private async dropExpired(
    shardId: string,
    records: readonly _Record[],
    attempts: number,
  ): Promise<readonly _Record[]> {
    const maxAge = this.props.maxRecordAgeInMillis;
    if (maxAge === undefined) return records;
    const now = this.now();
    const expired = records.filter((r) => now - (r.ApproximateArrivalTimestamp?.getTime() ?? now) > maxAge);
    if (expired.length === 0) return records;
    await this.deadLetter(shardId, expired, 'RecordAgeExceeded', attempts, {
      ok: false,
      reason: `older than the maximum record age (${maxAge / 1000} s)`,
      functionError: false,
    });
    this.stats.recordsExpired += expired.length;
    return records.filter((r) => !expired.includes(r));
  }

  /** One invocation of the enrichment and, unless it answered with nothing, of the target. */
  private async attempt(shardId: string, records: readonly _Record[]): Promise<AttemptResult> {
    const event = records.map((r) => this.toPipesRecord(shardId, r));
    this.stats.invocations += 1;
    this.stats.recordsDelivered += records.length;
    let answer: unknown;
    const started = this.now();
    try {
      const context = newLambdaContext(this.props.function);
      // The pipe gets the answer as JSON (a Lambda invocation's payload), not as the function's objects.
      answer = JSON.parse(
        JSON.stringify(
          (await withTimeout(this.props.enrichment(event, context), this.props.function.timeoutInMillis)) ??
            null,
        ),
      ) as unknown;
    } catch (error) {
      this.stats.functionErrors += 1;
      return { ok: false, reason: `enrichment error: ${String(error)}`, functionError: true };
    } finally {
      this.stats.invocationMillis += this.now() - started;
    }
    const items = answerItems(answer);
    this.props.trace?.(
      `pipe: ${records.length} record(s) of ${shardId} enriched in ${this.now() - started} ms, ` +
        `${items.length} item(s) for the target`,
    );
    if (items.length === 0) {
      this.stats.emptyAnswers += 1;
      return { ok: true };
    }
    try {
      const put = await this.target.put(items);
      this.stats.targetPuts += 1;
      this.stats.targetRecords += put.records;
      return { ok: true };
    } catch (error) {
      if (!(error instanceof PipeTargetError)) throw error;
      this.stats.targetFailures += 1;
      return { ok: false, reason: `target error: ${error.message}`, functionError: false };
    }
  }

  /** One record as Pipes hands a Kinesis record to an enrichment: flat, `data` base64 (eb-pipes-kinesis). */
  private toPipesRecord(shardId: string, record: _Record): PipesKinesisRecord {
    const { payload, source } = kinesisRecordParts(
      record,
      {
        shardId,
        streamArn: this.props.streamArn,
        region: this.props.function.region,
        accountId: this.props.function.accountId,
        roleName: `${this.pipeName()}-role`,
      },
      this.now,
    );
    return { ...payload, ...source };
  }

  private pipeName(): string {
    return this.props.pipeArn.slice(this.props.pipeArn.lastIndexOf('/') + 1);
  }

  private async deadLetter(
    shardId: string,
    records: readonly _Record[],
    condition: PipeDeadLetterCondition,
    attempts: number,
    result: Extract<AttemptResult, { ok: false }>,
  ): Promise<void> {
    const message = pipeDeadLetterMessage({
      pipeArn: this.props.pipeArn,
      streamArn: this.props.streamArn,
      shardId,
      records,
      condition,
      attempts,
      functionError: result.functionError,
      reason: result.reason,
      at: new Date(this.now()),
    });
    // A message that cannot be sent stops the loop with that error: moving on would lose the batch.
    await sendPipeDeadLetter(this.props.sqs, this.props.deadLetterQueueUrl, message);
    this.stats.deadLetterMessages += 1;
    this.stats.recordsSentToOnFailure += records.length;
    this.log(
      `pipe: gave up on ${records.length} record(s) of ${shardId} (${condition}), metadata sent to the ` +
        `dead-letter queue: ${result.reason}`,
    );
  }
}
