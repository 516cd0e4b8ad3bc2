/**
 * In-memory fakes of `kfek backfill`'s ports (cli/backfill/ports.ts) for unit tests: log groups whose events
 * FilterLogEvents answers in timestamp order, in pages, with the API's empty pages on demand; a checkpoint and a
 * kept-records store in memory. Kinesis is replay's FakeKinesis (test/helpers/replay-fakes.ts). The end-to-end
 * test (test/e2e/backfill.test.ts) runs the real ports against moto.
 */
import type { CheckpointStore } from '../../cli/backfill/checkpoint';
import type { CheckpointState } from '../../core/backfill/model';
import type { KeptStore } from '../../cli/backfill/kept';
import type { EnvelopeRecord, HistoricLogEvent } from '../../core/logs/model';
import type {
  FilterPage,
  FilterQuery,
  LogGroupInfo,
  LogsPort,
  SubscriptionInfo,
} from '../../core/logs/ports';

interface FakeGroup {
  readonly info: LogGroupInfo;
  readonly subscriptions: SubscriptionInfo[];
  /** Sorted by timestamp, as FilterLogEvents answers. */
  events: HistoricLogEvent[];
}

export class FakeLogs implements LogsPort {
  readonly groups = new Map<string, FakeGroup>();
  readonly calls: FilterQuery[] = [];
  /** Most events per page whatever the limit (AWS may answer fewer than asked). */
  pageSize = 10_000;
  /** The first N calls of a query answer an empty page with a token, as AWS may. */
  emptyPagesFirst = 0;

  addGroup(name: string, events: readonly HistoricLogEvent[], owner = '123456789012'): this {
    this.groups.set(name, {
      info: { name, owner, storedBytes: events.reduce((s, e) => s + e.message.length, 0) },
      subscriptions: [],
      events: [...events].sort((a, b) => a.timestamp - b.timestamp),
    });
    return this;
  }

  subscribe(name: string, subscription: SubscriptionInfo): this {
    this.group(name).subscriptions.push(subscription);
    return this;
  }

  /** Adds events later (live traffic), kept in timestamp order. */
  append(name: string, events: readonly HistoricLogEvent[]): void {
    const group = this.group(name);
    group.events = [...group.events, ...events].sort((a, b) => a.timestamp - b.timestamp);
  }

  private group(name: string): FakeGroup {
    const group = this.groups.get(name);
    if (group === undefined) throw new Error(`no fake log group ${name}`);
    return group;
  }

  describeGroup(name: string): Promise<LogGroupInfo> {
    return Promise.resolve(this.group(name).info);
  }

  subscriptions(logGroup: string): Promise<SubscriptionInfo[]> {
    return Promise.resolve(this.group(logGroup).subscriptions);
  }

  /** Tokens are `<offset>` into the query's matches, or `empty:<n>` for an empty page still to come. */
  filterPage(query: FilterQuery): Promise<FilterPage> {
    this.calls.push(query);
    const token = query.nextToken;
    const emptySoFar =
      token?.startsWith('empty:') === true ? Number(token.slice(6)) : token === undefined ? 0 : -1;
    if (emptySoFar >= 0 && emptySoFar < this.emptyPagesFirst) {
      return Promise.resolve({ events: [], nextToken: `empty:${emptySoFar + 1}` });
    }
    const matching = this.group(query.logGroup).events.filter(
      (e) =>
        e.timestamp >= query.startTime &&
        e.timestamp <= query.endTime &&
        (query.filterPattern === undefined || e.message.includes(query.filterPattern)),
    );
    const from = token === undefined || emptySoFar >= 0 ? 0 : Number(token);
    const size = Math.min(query.limit ?? 10_000, this.pageSize);
    const events = matching.slice(from, from + size);
    const next = from + events.length;
    return Promise.resolve({ events, ...(next < matching.length ? { nextToken: String(next) } : {}) });
  }
}

/** `n` events of one log group over `streams` streams, `stepInMillis` apart from `start`, ids counting up. */
export function historicEvents(
  n: number,
  options: {
    start: number;
    stepInMillis?: number;
    streams?: number;
    idBase?: number;
    message?: (i: number) => string;
  },
): HistoricLogEvent[] {
  const step = options.stepInMillis ?? 1;
  const streams = options.streams ?? 1;
  return Array.from({ length: n }, (_, i) => ({
    id: String((options.idBase ?? 0) + i),
    timestamp: options.start + Math.floor(i * step),
    message: options.message?.(i) ?? JSON.stringify({ level: 'INFO', message: `event ${i}` }),
    logStream: `stream-${i % streams}`,
  }));
}

export class MemoryCheckpoint implements CheckpointStore {
  readonly location = 'memory://checkpoint.json';
  state?: CheckpointState;
  saves = 0;

  load(): Promise<CheckpointState | undefined> {
    return Promise.resolve(this.state);
  }

  save(state: CheckpointState): Promise<void> {
    this.state = state;
    this.saves += 1;
    return Promise.resolve();
  }
}

export class MemoryKept implements KeptStore {
  readonly location = 'memory://kept';
  readonly kept: { record: EnvelopeRecord; reason: string }[] = [];

  keep(record: EnvelopeRecord, reason: string): Promise<string> {
    this.kept.push({ record, reason });
    return Promise.resolve(`${this.location}/${record.partitionKey}.json`);
  }
}
