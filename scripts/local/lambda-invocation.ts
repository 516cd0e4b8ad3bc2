/**
 * What both local stand-ins that call a Lambda function need (the Lambda event source mapping's and the
 * EventBridge pipe's): a Lambda `Context` for each invocation, the function timeout, and one invocation at a time
 * across shards.
 */
import { randomUUID } from 'node:crypto';
import type { _Record } from '@aws-sdk/client-kinesis';
import type { Context } from 'aws-lambda';
import { LocalRunError } from './errors';

/** The function as the stand-in invokes it. */
export interface LocalFunction {
  readonly functionName: string;
  readonly memorySizeInMb: number;
  /** The function timeout: `context.getRemainingTimeInMillis()` counts down from it. */
  readonly timeoutInMillis: number;
  readonly region: string;
  readonly accountId: string;
}

/** The function's ARN as Lambda names it. */
export function functionArnOf(fn: LocalFunction): string {
  return `arn:aws:lambda:${fn.region}:${fn.accountId}:function:${fn.functionName}`;
}

/** A fresh Lambda `Context` whose remaining time counts down from the function's timeout. */
export function newLambdaContext(fn: LocalFunction, now: () => number = Date.now): Context {
  const deadline = now() + fn.timeoutInMillis;
  const requestId = randomUUID();
  const date = new Date(now()).toISOString().slice(0, 10).replace(/-/g, '/');
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: fn.functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: functionArnOf(fn),
    memoryLimitInMB: String(fn.memorySizeInMb),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${fn.functionName}`,
    logStreamName: `${date}/[$LATEST]${requestId.replace(/-/g, '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The invocation did not settle within the function timeout (Lambda's own message). */
export class InvocationTimeoutError extends LocalRunError {
  constructor(ms: number) {
    super(`Task timed out after ${ms / 1000} seconds`);
    this.name = 'InvocationTimeoutError';
  }
}

/**
 * Rejects when `promise` has not settled after `ms` (the invocation's timeout). The promise itself keeps running:
 * a timed-out invocation is abandoned, not killed.
 */
export async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new InvocationTimeoutError(ms)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs invocations one at a time across all shards, and remembers when the latest one ended. AWS runs one per
 * shard concurrently; locally that would lose records: moto numbers the records of a shard with an unlocked
 * counter, and two concurrent PutRecords calls to the same events-stream shard can get the same sequence number,
 * the second overwriting the first.
 */
export class SerialInvocations {
  private chain: Promise<unknown> = Promise.resolve();
  private lastEnded = 0;

  /** @param now the clock `lastEndedAt` is read from (the loop's) */
  constructor(private readonly now: () => number = Date.now) {}

  /** Runs `work` after every invocation queued before it. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      this.lastEnded = this.now();
    }
  }

  /** When the latest invocation returned (0 before the first): what it wrote is in the events stream by then. */
  lastEndedAt(): number {
    return this.lastEnded;
  }
}

/** A record's sequence number; Kinesis always sets one, so its absence is the emulator's fault. */
export function sequenceNumberOf(record: _Record | undefined): string {
  if (record?.SequenceNumber === undefined) {
    throw new LocalRunError('Kinesis returned a record without a sequence number');
  }
  return record.SequenceNumber;
}

/** Where a record was read, and whose role reads it, as both stand-ins describe it to the function. */
export interface RecordOrigin {
  readonly shardId: string;
  readonly streamArn: string;
  readonly region: string;
  readonly accountId: string;
  /** The reader's role name (`<function>-role`, `<pipe>-role`), for `invokeIdentityArn`. */
  readonly roleName: string;
}

/**
 * A Kinesis record as both AWS readers hand it to a function, in two parts: the record itself (Lambda's event
 * source nests it under `kinesis`, Pipes puts its fields at the top level) and where it came from.
 * `approximateArrivalTimestamp` is seconds since the epoch with a fraction (e.g. 1545084650.987); a record without
 * an arrival time gets `now`.
 */
export function kinesisRecordParts(
  record: _Record,
  origin: RecordOrigin,
  now: () => number = Date.now,
): {
  readonly payload: {
    readonly kinesisSchemaVersion: string;
    readonly partitionKey: string;
    readonly sequenceNumber: string;
    readonly data: string;
    readonly approximateArrivalTimestamp: number;
  };
  readonly source: {
    readonly eventSource: string;
    readonly eventVersion: string;
    readonly eventID: string;
    readonly eventName: string;
    readonly invokeIdentityArn: string;
    readonly awsRegion: string;
    readonly eventSourceARN: string;
  };
} {
  const sequenceNumber = sequenceNumberOf(record);
  const arrival = record.ApproximateArrivalTimestamp ?? new Date(now());
  return {
    payload: {
      kinesisSchemaVersion: '1.0',
      partitionKey: record.PartitionKey ?? '',
      sequenceNumber,
      data: Buffer.from(record.Data ?? new Uint8Array()).toString('base64'),
      approximateArrivalTimestamp: arrival.getTime() / 1000,
    },
    source: {
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: `${origin.shardId}:${sequenceNumber}`,
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: `arn:aws:iam::${origin.accountId}:role/${origin.roleName}`,
      awsRegion: origin.region,
      eventSourceARN: origin.streamArn,
    },
  };
}
