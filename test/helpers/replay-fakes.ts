/**
 * In-memory fakes of `kfek replay`'s ports (core/kept/ports.ts, core/kinesis/ports.ts) for unit tests: a bucket, a queue and a Kinesis
 * with shards that can be trimmed (retention passed) and PutRecords entries that can be made to fail. The end-to-end
 * test (test/e2e/replay.test.ts) runs the real ports against moto instead.
 */
import { KEPT_KINDS, type ReplayRecord } from '../../core/kept/model';
import type { ReplayPlan } from '../../cli/replay/run';
import type { MessageQueue, ObjectStore, QueuedMessage } from '../../core/kept/ports';
import type { KinesisPort, ShardInfo, ShardPage, ShardPosition, ShardRecord } from '../../core/kinesis/ports';

export class MemoryStore implements ObjectStore {
  readonly objects = new Map<string, { bytes: Uint8Array; lastModified?: Date }>();
  readonly deleted: string[] = [];

  constructor(private readonly name = 'kept') {}

  put(key: string, body: string | Uint8Array, lastModified?: Date): this {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    this.objects.set(key, { bytes, ...(lastModified !== undefined ? { lastModified } : {}) });
    return this;
  }

  locationOf(key: string): string {
    return `s3://${this.name}/${key}`;
  }

  list(prefix: string): Promise<{ key: string; sizeBytes: number; lastModified?: Date }[]> {
    return Promise.resolve(
      [...this.objects.entries()]
        .filter(([key]) => key.startsWith(prefix))
        .map(([key, o]) => ({
          key,
          sizeBytes: o.bytes.length,
          ...(o.lastModified !== undefined ? { lastModified: o.lastModified } : {}),
        })),
    );
  }

  read(key: string): Promise<Uint8Array> {
    const object = this.objects.get(key);
    return object === undefined ? Promise.reject(new Error(`no ${key}`)) : Promise.resolve(object.bytes);
  }

  delete(key: string): Promise<void> {
    this.objects.delete(key);
    this.deleted.push(key);
    return Promise.resolve();
  }
}

export class MemoryQueue implements MessageQueue {
  readonly location = 'https://sqs.eu-west-1.amazonaws.com/123456789012/kfek-failures';
  readonly messages: QueuedMessage[] = [];
  readonly deleted: string[] = [];

  add(body: object, sentAt?: Date): this {
    const n = this.messages.length + 1;
    this.messages.push({
      messageId: `m-${n}`,
      body: JSON.stringify(body),
      receiptHandle: `r-${n}`,
      ...(sentAt !== undefined ? { sentAt } : {}),
    });
    return this;
  }

  peekAll(max: number): Promise<QueuedMessage[]> {
    return Promise.resolve(this.messages.slice(0, max));
  }

  delete(receiptHandle: string): Promise<void> {
    this.deleted.push(receiptHandle);
    return Promise.resolve();
  }
}

/** An SDK-like error with a name (what the real port throws). */
function sdkError(name: string, message: string): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

export class FakeKinesis implements KinesisPort {
  /** Records per `stream/shard`, oldest first; sequence numbers count up from 1000 in steps of 10. */
  readonly shards = new Map<string, ShardRecord[]>();
  /** Records put, per stream, in order of acceptance. */
  readonly put = new Map<string, ReplayRecord[]>();
  /** PutRecords calls: stream and number of entries. */
  readonly calls: { stream: string; entries: number }[] = [];
  /** Fails the next N entries put (any stream) with this error code. */
  failNextEntries = 0;
  failCode = 'ProvisionedThroughputExceededException';
  /** GetRecords answers hold at most this many records. */
  pageSize = 2;
  /** Streams read (GetShardIterator calls), in order. */
  readonly reads: string[] = [];
  /** The next N GetRecords calls are throttled (ProvisionedThroughputExceededException). */
  throttleReads = 0;

  addShard(stream: string, shardId: string, datas: readonly string[]): ShardRecord[] {
    const records = datas.map((d, i) => ({
      data: Buffer.from(d),
      partitionKey: `pk-${i}`,
      sequenceNumber: String(1000 + i * 10),
    }));
    this.shards.set(`${stream}/${shardId}`, records);
    return records;
  }

  /** The data of the records put on `stream`, as text, in order. */
  texts(stream: string): string[] {
    return (this.put.get(stream) ?? []).map((r) => Buffer.from(r.data).toString());
  }

  /** Drops every record before `sequenceNumber`, as Kinesis does when the retention passes. */
  trimBefore(stream: string, shardId: string, sequenceNumber: string): void {
    const key = `${stream}/${shardId}`;
    this.shards.set(
      key,
      (this.shards.get(key) ?? []).filter((r) => BigInt(r.sequenceNumber) >= BigInt(sequenceNumber)),
    );
  }

  listShards(stream: string): Promise<{ shards: ShardInfo[] }> {
    return Promise.resolve({
      shards: [...this.shards.keys()]
        .filter((key) => key.startsWith(`${stream}/`))
        .map((key) => ({ shardId: key.slice(stream.length + 1), closed: false })),
    });
  }

  /** GetShardIterator AT_SEQUENCE_NUMBER (the only position replay reads a range from). */
  iterator(stream: string, shardId: string, position: ShardPosition): Promise<string> {
    if (position.type !== 'AT_SEQUENCE_NUMBER') {
      return Promise.reject(new Error(`FakeKinesis reads AT_SEQUENCE_NUMBER only, not ${position.type}`));
    }
    const sequenceNumber = position.sequenceNumber;
    this.reads.push(stream);
    const records = this.shards.get(`${stream}/${shardId}`);
    if (records === undefined) {
      return Promise.reject(
        sdkError('ResourceNotFoundException', `Shard ${shardId} in stream ${stream} not found`),
      );
    }
    // Like Kinesis: an iterator at a trimmed sequence number starts at the trim horizon.
    const index = records.findIndex((r) => BigInt(r.sequenceNumber) >= BigInt(sequenceNumber));
    return Promise.resolve(`${stream}/${shardId}#${index < 0 ? records.length : index}`);
  }

  readPage(_stream: string, iterator: string, limit: number): Promise<ShardPage> {
    if (this.throttleReads > 0) {
      this.throttleReads -= 1;
      return Promise.reject(sdkError('ProvisionedThroughputExceededException', 'Rate exceeded for shard'));
    }
    const [key, at] = iterator.split('#');
    const records = this.shards.get(key) ?? [];
    const from = Number(at);
    const page = records.slice(from, from + Math.min(limit, this.pageSize));
    return Promise.resolve({
      records: page,
      next: `${key}#${from + page.length}`,
      millisBehindLatest: from + page.length >= records.length ? 0 : 1000,
    });
  }

  putRecords(stream: string, records: readonly ReplayRecord[]): Promise<(string | undefined)[]> {
    this.calls.push({ stream, entries: records.length });
    // Like Kinesis: one entry outside the per-record limits fails the whole call, and nothing of it is written.
    const bad = records.findIndex(
      (r) =>
        r.partitionKey.length === 0 ||
        [...r.partitionKey].length > 256 ||
        r.data.length + Buffer.byteLength(r.partitionKey) > 1024 * 1024,
    );
    if (bad >= 0) {
      return Promise.reject(
        sdkError(
          'ValidationException',
          `1 validation error detected: Value at 'records.${bad + 1}.member' failed`,
        ),
      );
    }
    return Promise.resolve(
      records.map((record) => {
        if (this.failNextEntries > 0) {
          this.failNextEntries -= 1;
          return this.failCode;
        }
        const list = this.put.get(stream) ?? [];
        list.push(record);
        this.put.set(stream, list);
        return undefined;
      }),
    );
  }
}

/** A clock that only moves when slept on. */
export class FakeClock {
  millis = 0;
  readonly sleeps: number[] = [];
  readonly now = (): number => this.millis;
  readonly sleep = (ms: number): Promise<void> => {
    this.sleeps.push(ms);
    this.millis += ms;
    return Promise.resolve();
  };
}

/** A dead-letter object as lambda/transform/dead-letter.ts writes it, holding `data` (text or bytes). */
export function deadLetterObject(
  data: string | Uint8Array,
  reason: string,
  at: string,
  source: { partitionKey?: string; streamArn?: string } = {
    partitionKey: `pk-${typeof data === 'string' ? data : 'bytes'}`,
  },
): string {
  return JSON.stringify({
    version: 1,
    reason,
    receivedAt: at,
    source,
    data: Buffer.from(data).toString('base64'),
  });
}

/** One line of Firehose's failed-documents backup for `doc`. */
export function failedDocumentLine(doc: object, code: string, at: number): string {
  return JSON.stringify({
    errorCode: code,
    errorMessage: `error ${code}`,
    attemptEndingTimestamp: at,
    rawData: Buffer.from(JSON.stringify(doc)).toString('base64'),
  });
}

/** A replay of every kind to `targets`, not a dry run, deleting nothing; `overrides` change any of it. */
export function replayPlan(targets: ReplayPlan['targets'], overrides: Partial<ReplayPlan> = {}): ReplayPlan {
  return { kinds: KEPT_KINDS, filter: {}, dryRun: false, deleteAfter: false, targets, ...overrides };
}

/**
 * A Lambda on-failure record of a Kinesis batch (shard-0, sequence numbers 1000 to 1010, two records) naming
 * `streamArn`, with the invocation's records when given (else metadata only: a range to read back).
 */
export function onFailureRecord(
  streamArn: string,
  records?: readonly { data: string; key: string }[],
): string {
  return JSON.stringify({
    requestContext: { condition: 'RetryAttemptsExhausted' },
    timestamp: '2026-11-23T10:00:00Z',
    KinesisBatchInfo: {
      shardId: 'shardId-000000000000',
      startSequenceNumber: '1000',
      endSequenceNumber: '1010',
      batchSize: 2,
      streamArn,
    },
    ...(records !== undefined
      ? {
          payload: {
            Records: records.map((r, i) => ({
              kinesis: {
                data: Buffer.from(r.data).toString('base64'),
                partitionKey: r.key,
                sequenceNumber: String(1000 + i * 10),
              },
              eventSourceARN: streamArn,
            })),
          },
        }
      : {}),
  });
}
