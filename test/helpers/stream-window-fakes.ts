/**
 * An in-memory Kinesis stream for the events-window replay's unit tests: shards (open or closed, with parents),
 * records with arrival times, ListShards pages, GetShardIterator AT_TIMESTAMP / AFTER_SEQUENCE_NUMBER, GetRecords
 * pages, and PutRecords that append to the stream with Kinesis' clock, so a test sees whether the replay reads back
 * what it put. Faults can be scripted (throttled reads, an expired iterator, refused entries). Every call takes one
 * millisecond of the fake clock, as a real call takes some time. The end-to-end test runs the real ports on moto.
 */
import type { ReplayRecord } from '../../core/kept/model';
import type { ArrivedRecord, KinesisPort, ShardInfo, ShardPosition } from '../../core/kinesis/ports';
import type { FakeClock } from './replay-fakes';

function sdkError(name: string, message = name): Error {
  const error = new Error(message);
  error.name = name;
  return error;
}

interface FakeShard {
  readonly info: ShardInfo;
  readonly records: ArrivedRecord[];
}

export class FakeStream implements KinesisPort {
  readonly shards: FakeShard[] = [];
  /** Every call, in order: `ListShards <token>`, `GetShardIterator <shard> <position>`, `GetRecords <shard>`. */
  readonly calls: string[] = [];
  /** Per shard, the fake clock's time of each GetRecords call. */
  readonly readTimes = new Map<string, number[]>();
  /** PutRecords calls: entries per call. */
  readonly putCalls: number[] = [];
  /** Records Kinesis took, in order. */
  readonly put: ReplayRecord[] = [];
  /** Shards per ListShards page. */
  listPageSize = 100;
  /** Records per GetRecords answer at most (besides the call's limit). */
  pageSize = 3;
  /** Kinesis' clock minus this machine's, in milliseconds. */
  skewMillis = 0;
  /** Whether answers carry Kinesis' time (the `Date` header). */
  tellsTime = true;
  /** The next N GetRecords calls are throttled. */
  throttleReads = 0;
  /** The next GetRecords call finds its iterator expired. */
  expireNextIterator = false;
  /** The next N PutRecords entries are refused with ProvisionedThroughputExceededException. */
  refuseEntries = 0;
  /** GetShardIterator answers ResourceNotFoundException for these shards. */
  readonly gone = new Set<string>();
  /** ListShards answers ResourceNotFoundException. */
  missing = false;
  private sequence = 1000;

  constructor(
    private readonly clock: FakeClock,
    readonly name = 'kfek-sandbox-events',
  ) {}

  /** Kinesis' time now. */
  kinesisNow(): number {
    return this.clock.now() + this.skewMillis;
  }

  addShard(shardId: string, options: Partial<Omit<ShardInfo, 'shardId'>> = {}): this {
    this.shards.push({ info: { shardId, closed: false, ...options }, records: [] });
    return this;
  }

  /** Adds a record that arrived at `arrivedAt` (epoch millis by Kinesis' clock). */
  add(shardId: string, data: string, arrivedAt: number, partitionKey = `pk-${data}`): ArrivedRecord {
    const record = {
      data: Buffer.from(data),
      partitionKey,
      sequenceNumber: String((this.sequence += 10)),
      arrivedAt: new Date(arrivedAt),
    };
    this.shard(shardId).records.push(record);
    return record;
  }

  /** Every record of the stream as text, shard by shard. */
  texts(): string[][] {
    return this.shards.map((s) => s.records.map((r) => Buffer.from(r.data).toString()));
  }

  listShards(stream: string, nextToken?: string): Promise<{ shards: ShardInfo[]; nextToken?: string }> {
    this.tick(`ListShards ${nextToken ?? stream}`);
    if (this.missing)
      return Promise.reject(sdkError('ResourceNotFoundException', `Stream ${stream} not found`));
    const from = nextToken === undefined ? 0 : Number(nextToken);
    const page = this.shards.slice(from, from + this.listPageSize).map((s) => s.info);
    const next = from + page.length;
    return Promise.resolve({
      shards: page,
      ...(next < this.shards.length ? { nextToken: String(next) } : {}),
    });
  }

  iterator(_stream: string, shardId: string, position: ShardPosition): Promise<string | undefined> {
    this.tick(
      `GetShardIterator ${shardId} ${position.type === 'AT_TIMESTAMP' ? position.timestamp.toISOString() : position.sequenceNumber}`,
    );
    if (this.gone.has(shardId)) return Promise.reject(sdkError('ResourceNotFoundException'));
    const records = this.shard(shardId).records;
    const index = records.findIndex((r) =>
      position.type === 'AT_TIMESTAMP'
        ? r.arrivedAt!.getTime() >= position.timestamp.getTime()
        : position.type === 'AT_SEQUENCE_NUMBER'
          ? BigInt(r.sequenceNumber) >= BigInt(position.sequenceNumber)
          : BigInt(r.sequenceNumber) > BigInt(position.sequenceNumber),
    );
    return Promise.resolve(`${shardId}#${index < 0 ? records.length : index}`);
  }

  readPage(
    _stream: string,
    iterator: string,
    limit: number,
  ): Promise<{ records: ArrivedRecord[]; next?: string; millisBehindLatest?: number }> {
    const [shardId, at] = iterator.split('#');
    this.tick(`GetRecords ${shardId}`);
    this.readTimes.set(shardId, [...(this.readTimes.get(shardId) ?? []), this.clock.now()]);
    if (this.throttleReads > 0) {
      this.throttleReads -= 1;
      return Promise.reject(sdkError('ProvisionedThroughputExceededException'));
    }
    if (this.expireNextIterator) {
      this.expireNextIterator = false;
      return Promise.reject(sdkError('ExpiredIteratorException'));
    }
    const shard = this.shard(shardId);
    const from = Number(at);
    const page = shard.records.slice(from, from + Math.min(limit, this.pageSize));
    const next = from + page.length;
    const atEnd = next >= shard.records.length;
    return Promise.resolve({
      records: page,
      ...(shard.info.closed && atEnd ? {} : { next: `${shardId}#${next}` }),
      millisBehindLatest: atEnd ? 0 : 1000,
    });
  }

  serverTime(): Date | undefined {
    return this.tellsTime ? new Date(Math.floor(this.kinesisNow() / 1000) * 1000) : undefined;
  }

  /** Appends each record to an open shard (by its partition key's length), stamped with Kinesis' clock. */
  putRecords(_stream: string, records: readonly ReplayRecord[]): Promise<(string | undefined)[]> {
    this.tick('PutRecords');
    this.putCalls.push(records.length);
    const open = this.shards.filter((s) => !s.info.closed);
    return Promise.resolve(
      records.map((record) => {
        if (this.refuseEntries > 0) {
          this.refuseEntries -= 1;
          return 'ProvisionedThroughputExceededException';
        }
        this.put.push(record);
        const shard = open[record.partitionKey.length % open.length];
        shard.records.push({
          data: record.data,
          partitionKey: record.partitionKey,
          sequenceNumber: String((this.sequence += 10)),
          arrivedAt: new Date(this.kinesisNow()),
        });
        return undefined;
      }),
    );
  }

  private shard(shardId: string): FakeShard {
    const shard = this.shards.find((s) => s.info.shardId === shardId);
    if (shard === undefined) throw new Error(`no shard ${shardId}`);
    return shard;
  }

  private tick(call: string): void {
    this.calls.push(call);
    this.clock.millis += 1;
  }
}
