/**
 * The local stand-in for Lambda's Kinesis event source mapping: polls the raw stream's shards, hands the handler
 * Kinesis events, honours partial batch responses, retries and records what it gives up on.
 *
 * It stays one file (over ~300 lines) because checkpointing, retries and the partial-batch resume rule are one
 * state machine per shard; split, each part would need the others' state.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { _Record } from '@aws-sdk/client-kinesis';
import type {
  Context,
  KinesisStreamBatchResponse,
  KinesisStreamEvent,
  KinesisStreamRecord,
} from 'aws-lambda';
import { EventSourceError } from './errors';
import {
  functionArnOf,
  type LocalFunction,
  newLambdaContext,
  SerialInvocations,
  kinesisRecordParts,
  sequenceNumberOf,
  withTimeout,
} from './lambda-invocation';
import { ShardPollingLoop, type ShardPollingLoopProps } from './shard-pollers';
import { type ShardPosition, type ShardReader, sleep } from './shard-reader';

/** The shape of `lambda/transform/handler.ts`'s `handler`, as the Lambda runtime calls it. */
export type KinesisBatchHandler = (
  event: KinesisStreamEvent,
  context: Context,
) => Promise<KinesisStreamBatchResponse | void>;

export interface EventSourceLoopProps extends ShardPollingLoopProps {
  /** The raw (subscription) stream the event source mapping reads. */
  readonly streamArn: string;
  readonly handler: KinesisBatchHandler;
  /** Records per invocation at most (the mapping's `BatchSize`). */
  readonly batchSize: number;
  /**
   * Retries of a failing batch (the mapping's `MaximumRetryAttempts`) before it goes to the on-failure destination.
   * @default 2
   */
  readonly retryAttempts?: number;
  /**
   * The function timeout: `context.getRemainingTimeInMillis()` counts down from it.
   * @default 60_000
   */
  readonly timeoutInMillis?: number;
  /** @default 'kfek-local-transform' */
  readonly functionName?: string;
  /** @default 512 */
  readonly memorySizeInMb?: number;
  readonly region: string;
  readonly accountId: string;
  /** Folder standing in for the mapping's on-failure destination (one JSON file per discarded batch). */
  readonly onFailureDir: string;
  /**
   * Pause before re-reading a failed batch.
   * @default 100
   */
  readonly retryDelayInMillis?: number;
}

/** What the loop has done so far; read at any time. */
export interface EventSourceStats {
  readonly invocations: number;
  /** Raw records handed to the function, retries included. */
  readonly recordsDelivered: number;
  /** Invocations that answered with a non-empty `batchItemFailures`. */
  readonly partialBatchResponses: number;
  /** Invocations that threw or timed out (the whole batch is retried). */
  readonly functionErrors: number;
  /** Records re-read because of a partial batch response or a function error. */
  readonly recordsRetried: number;
  /** Records given up on after the retries and described in the on-failure folder. */
  readonly recordsSentToOnFailure: number;
  /** Milliseconds spent inside the handler, all invocations together. */
  readonly invocationMillis: number;
  /** Failed GetRecords/GetShardIterator calls retried (emulator errors). */
  readonly readErrors: number;
}

/** Mutable counterpart of a loop's stats, kept private to the loop (read errors are the polling base's). */
export type MutableStats<T extends EventSourceStats> = { -readonly [K in keyof Omit<T, 'readErrors'>]: T[K] };

/** The counters a loop that invokes the transform starts from. */
export function zeroSourceStats(): MutableStats<EventSourceStats> {
  return {
    invocations: 0,
    recordsDelivered: 0,
    partialBatchResponses: 0,
    functionErrors: 0,
    recordsRetried: 0,
    recordsSentToOnFailure: 0,
    invocationMillis: 0,
  };
}

/** The outcome of one invocation, reduced to what the mapping needs to move on. */
type InvocationResult =
  | { readonly kind: 'success' }
  /** Resume at this record (the lowest failed sequence number, or the first record of the batch). */
  | {
      readonly kind: 'retry';
      readonly fromIndex: number;
      readonly reason: string;
      readonly functionError: boolean;
    };

/**
 * A local stand-in for Lambda's Kinesis event source mapping: per shard, TRIM_HORIZON, GetRecords in batches,
 * a real `KinesisStreamEvent` and `Context`, partial batch responses honoured by re-reading from the reported
 * sequence number (AT_SEQUENCE_NUMBER), bounded retries, then an on-failure record like the one Lambda sends to
 * an SQS/SNS/S3 destination. Not emulated: bisect-on-error, parallelization factor > 1, tumbling windows, and
 * killing a timed-out invocation (it is abandoned and its batch retried, the promise keeps running).
 * See https://docs.aws.amazon.com/lambda/latest/dg/with-kinesis.html.
 *
 * The shard lifecycle (start, stop, failure, caught-up tracking) is {@link ShardPollingLoop}'s. `stop()` lets the
 * in-flight invocation end before it returns.
 */
export class EventSourceLoop extends ShardPollingLoop {
  private readonly stats = zeroSourceStats();
  private readonly retryAttempts: number;
  private readonly fn: LocalFunction;
  private readonly retryDelayInMillis: number;
  /** Invocations run one at a time (see {@link SerialInvocations}). */
  private readonly invocations = new SerialInvocations(this.now);

  constructor(private readonly props: EventSourceLoopProps) {
    super(props, { errorClass: EventSourceError, loopName: 'event-source loop' });
    if (!Number.isInteger(props.batchSize) || props.batchSize < 1 || props.batchSize > 10_000) {
      throw new EventSourceError(
        `batchSize must be an integer from 1 to 10000 (the Kinesis mapping's range), got ${props.batchSize}`,
      );
    }
    this.retryAttempts = props.retryAttempts ?? 2;
    this.fn = {
      functionName: props.functionName ?? 'kfek-local-transform',
      memorySizeInMb: props.memorySizeInMb ?? 512,
      timeoutInMillis: props.timeoutInMillis ?? 60_000,
      region: props.region,
      accountId: props.accountId,
    };
    this.retryDelayInMillis = props.retryDelayInMillis ?? 100;
  }

  /** A copy of the counters. */
  snapshot(): EventSourceStats {
    return { ...this.stats, readErrors: this.readErrors() };
  }

  /** When the latest invocation returned (0 before the first): what it wrote is in the events stream by then. */
  lastInvocationEndedAt(): number {
    return this.invocations.lastEndedAt();
  }

  protected async pollShard(reader: ShardReader): Promise<void> {
    // Retry count for the batch that starts at the current checkpoint; reset when the checkpoint moves on.
    let attempts = 0;
    while (!this.signal.aborted) {
      const read = await this.readShard(reader, this.props.batchSize, 'event source');
      if (read === undefined) continue;
      if (read.batch.records.length === 0) {
        if (await this.waitIdle(reader, read)) continue;
        return;
      }
      this.setIdleSince(reader.shardId, undefined);
      const records = read.batch.records;
      const result = await this.invocations.run(() => this.invoke(reader.shardId, records));
      if (result.kind === 'success') {
        attempts = 0;
        continue;
      }
      attempts += 1;
      const remaining = records.slice(result.fromIndex);
      const resumeAt = sequenceNumberOf(records[result.fromIndex]);
      if (attempts <= this.retryAttempts) {
        this.stats.recordsRetried += remaining.length;
        this.log(
          `event source: ${reader.shardId} retry ${attempts}/${this.retryAttempts} from ${resumeAt}: ${result.reason}`,
        );
        await sleep(this.retryDelayInMillis, this.signal);
        await this.seek(reader, { type: 'AT_SEQUENCE_NUMBER', sequenceNumber: resumeAt });
        continue;
      }
      // Retries exhausted: Lambda writes the invocation record to the on-failure destination and moves the
      // checkpoint past the batch. kfek's destination is S3, which gets the batch's data too.
      await this.recordOnFailure(reader.shardId, remaining, attempts, result);
      this.stats.recordsSentToOnFailure += remaining.length;
      attempts = 0;
      await this.seek(reader, {
        type: 'AFTER_SEQUENCE_NUMBER',
        sequenceNumber: sequenceNumberOf(records[records.length - 1]),
      });
    }
  }

  /** Repositions a shard reader, retrying transient errors (the checkpoint must never be skipped). */
  private async seek(reader: ShardReader, position: ShardPosition): Promise<void> {
    while (!this.signal.aborted) {
      try {
        await reader.seek(position);
        return;
      } catch (error) {
        this.countReadError();
        this.log(`event source: GetShardIterator on ${reader.shardId} failed, retrying: ${String(error)}`);
        await sleep(this.pollIntervalInMillis, this.signal);
      }
    }
  }

  private async invoke(shardId: string, records: readonly _Record[]): Promise<InvocationResult> {
    const event: KinesisStreamEvent = { Records: records.map((r) => this.toEventRecord(shardId, r)) };
    const context = newLambdaContext(this.fn);
    this.stats.invocations += 1;
    this.stats.recordsDelivered += records.length;
    let response: KinesisStreamBatchResponse | void;
    const started = this.now();
    try {
      try {
        response = await withTimeout(this.props.handler(event, context), this.fn.timeoutInMillis);
      } finally {
        this.stats.invocationMillis += this.now() - started;
      }
      this.props.trace?.(
        `event source: ${records.length} record(s) of ${shardId} handled in ${this.now() - started} ms, ` +
          `${response?.batchItemFailures?.length ?? 0} item failure(s)`,
      );
    } catch (error) {
      this.stats.functionErrors += 1;
      return { kind: 'retry', fromIndex: 0, reason: `function error: ${String(error)}`, functionError: true };
    }
    const failures = response?.batchItemFailures ?? [];
    if (failures.length === 0) return { kind: 'success' };
    this.stats.partialBatchResponses += 1;
    // Lambda checkpoints at the lowest reported sequence number; an identifier that is empty or not in the
    // batch makes it treat the whole batch as failed.
    const indexBySequence = new Map(records.map((r, i) => [sequenceNumberOf(r), i]));
    let fromIndex = Number.POSITIVE_INFINITY;
    for (const failure of failures) {
      const index = indexBySequence.get(failure.itemIdentifier);
      fromIndex = Math.min(fromIndex, index ?? 0);
    }
    return {
      kind: 'retry',
      fromIndex,
      reason: `partial batch response naming ${failures.length} record(s)`,
      functionError: false,
    };
  }

  private toEventRecord(shardId: string, record: _Record): KinesisStreamRecord {
    const { payload, source } = kinesisRecordParts(record, {
      shardId,
      streamArn: this.props.streamArn,
      region: this.props.region,
      accountId: this.props.accountId,
      roleName: `${this.fn.functionName}-role`,
    });
    return { kinesis: payload, ...source };
  }

  private async recordOnFailure(
    shardId: string,
    records: readonly _Record[],
    attempts: number,
    result: Extract<InvocationResult, { kind: 'retry' }>,
  ): Promise<void> {
    const first = records[0];
    const last = records[records.length - 1];
    // The shape of Lambda's invocation record for stream sources (on-failure destination).
    const invocationRecord = {
      requestContext: {
        requestId: randomUUID(),
        functionArn: functionArnOf(this.fn),
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: attempts,
      },
      responseContext: {
        statusCode: 200,
        executedVersion: '$LATEST',
        functionError: result.functionError ? 'Unhandled' : undefined,
      },
      version: '1.0',
      timestamp: new Date(this.now()).toISOString(),
      KinesisBatchInfo: {
        shardId,
        startSequenceNumber: sequenceNumberOf(first),
        endSequenceNumber: sequenceNumberOf(last),
        approximateArrivalOfFirstRecord: first?.ApproximateArrivalTimestamp?.toISOString(),
        approximateArrivalOfLastRecord: last?.ApproximateArrivalTimestamp?.toISOString(),
        batchSize: records.length,
        streamArn: this.props.streamArn,
      },
      // With an S3 destination Lambda keeps the invocation's payload (the records, data included) beside the
      // metadata, so a discarded batch outlives the stream's retention and can be replayed; SQS and SNS would get
      // the metadata above only. https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html
      payload: { Records: records.map((r) => this.toEventRecord(shardId, r)) },
      kfekReason: result.reason,
    };
    const file = path.join(this.props.onFailureDir, `${shardId}-${sequenceNumberOf(first)}.json`);
    try {
      await mkdir(this.props.onFailureDir, { recursive: true });
      await writeFile(file, `${JSON.stringify(invocationRecord, null, 2)}\n`);
    } catch (error) {
      // Never move past a batch whose record could not be kept: the loop stops with a clear error instead.
      throw new EventSourceError(`could not write the on-failure record ${file}: ${String(error)}`, {
        cause: error,
      });
    }
    this.log(`event source: gave up on ${records.length} record(s) of ${shardId}, described in ${file}`);
  }
}
