/**
 * An in-memory world for the reconcile engine's unit tests (core/reconcile/ports.ts): log groups with their events
 * (CloudWatch Logs), documents by id (OpenSearch), kept data, a planner with two simple rules standing in for the
 * transform (a message starting `DROP` is dropped by rule `drop`; a line starting with whitespace and `at ` joins the
 * document before it in its stream), and a pipeline that delivers what the healer sends. The end-to-end test runs the
 * real ports against moto and the real OpenSearch node; these fakes hold the engine's decisions.
 */
import { documentIdFor } from '../../core/opensearch/ingest-pipeline';
import { MINUTE_MILLIS, minuteOf } from '../../core/reconcile/engine';
import type { KeptKind, LogEvent, ReconcileGroup } from '../../core/reconcile/model';
import {
  type CloudWatchSide,
  type DocumentPlanner,
  type DocumentRef,
  type FoundDocument,
  type Healer,
  type KeptSide,
  type MinuteCounts,
  type PlannedEvent,
  type ReconcilePorts,
  RequestMeter,
  type SearchCounts,
  type SearchSide,
} from '../../core/reconcile/ports';

export const GROUP: ReconcileGroup = {
  logGroup: '/app/orders',
  owner: '123456789012',
  filterPattern: '',
  subscriptionFilters: ['kfek-to-raw-stream'],
};

/** 2026-11-27T10:00:00Z */
export const T0 = Date.UTC(2026, 10, 27, 10, 0, 0);

interface Doc {
  readonly group: string;
  readonly at: number;
  joined: number;
  /** The stem of the index it sits in. @default 'logs' (the fake planner's) */
  stem?: string;
}

export class FakePlanner implements DocumentPlanner {
  plan(_group: ReconcileGroup, events: readonly LogEvent[]): PlannedEvent[] {
    const heads = new Map<string, string>();
    return events.map((e): PlannedEvent => {
      if (e.message.startsWith('DROP')) return { kind: 'dropped', rule: 'drop' };
      const head = heads.get(e.logStream);
      if (/^\s+at /.test(e.message) && head !== undefined) return { kind: 'joined', into: head };
      heads.set(e.logStream, e.id);
      const joined = events.slice(events.indexOf(e) + 1);
      let n = 0;
      for (const next of joined) {
        if (next.logStream !== e.logStream) continue;
        if (!/^\s+at /.test(next.message)) break;
        n += 1;
      }
      return { kind: 'document', stem: 'logs', joined: n };
    });
  }
}

/** CloudWatch Logs, OpenSearch, kept data and the pipeline between them, in memory. */
export class World {
  readonly events = new Map<string, LogEvent[]>();
  readonly docs = new Map<string, Doc>();
  readonly kept = new Map<string, { kind: KeptKind; location: string }>();
  readonly meter = new RequestMeter();
  readonly planner = new FakePlanner();
  /** Event reads of the exact tier: [group, start, end]. */
  readonly reads: [string, number, number][] = [];
  /** What the healer sent. */
  readonly healed: LogEvent[] = [];
  /** The arrival the heal gave each event it sent, by event id. */
  readonly healArrivals = new Map<string, number>();
  /** Polls after a heal before the pipeline delivers what was sent (0: at once). */
  deliverAfterPolls = 0;
  /** Healed events the pipeline loses again (by event id). */
  readonly loseOnHeal = new Set<string>();
  now = T0 + 60 * MINUTE_MILLIS;
  /** The stem live puts documents under, when not the planner's (a route since removed or given another stem). */
  liveStem: string | undefined;
  private pendingDelivery: { group: ReconcileGroup; events: LogEvent[] }[] = [];
  private polls = 0;

  /** Writes events to CloudWatch Logs; `delivered` ones also get their documents (as the pipeline would). */
  write(group: ReconcileGroup, events: readonly LogEvent[], delivered = true): void {
    const list = this.events.get(group.logGroup) ?? [];
    list.push(...events);
    list.sort((a, b) => a.timestamp - b.timestamp);
    this.events.set(group.logGroup, list);
    if (delivered) this.deliver(group, events);
  }

  /** The documents the pipeline makes of `events` (one envelope per stream, as the planner joins and drops). */
  deliver(group: ReconcileGroup, events: readonly LogEvent[]): void {
    const plans = this.planner.plan(group, events);
    events.forEach((e, i) => {
      const plan = plans[i];
      if (plan.kind !== 'document') return;
      this.docs.set(documentIdFor(group.logGroup, e.logStream, e.id), {
        group: group.logGroup,
        at: e.timestamp,
        joined: plan.joined,
        stem: this.liveStem ?? plan.stem,
      });
    });
  }

  ports(): ReconcilePorts {
    // The ports are closures over this world (the engine calls them unbound).
    const world: World = this; // eslint-disable-line @typescript-eslint/no-this-alias
    const cloudWatch: CloudWatchSide = {
      countedWith: 'scan',
      countPerMinute(groups, start, end): Promise<MinuteCounts> {
        world.meter.cloudWatch += 1;
        const out = new Map<string, Map<number, number>>();
        for (const g of groups) {
          const counts = new Map<number, number>();
          for (const e of world.events.get(g.logGroup) ?? []) {
            if (e.timestamp < start || e.timestamp >= end) continue;
            counts.set(minuteOf(e.timestamp), (counts.get(minuteOf(e.timestamp)) ?? 0) + 1);
          }
          out.set(g.logGroup, counts);
        }
        return Promise.resolve(out);
      },
      events(group, start, end) {
        world.meter.cloudWatch += 1;
        world.reads.push([group.logGroup, start, end]);
        return Promise.resolve(
          (world.events.get(group.logGroup) ?? []).filter((e) => e.timestamp >= start && e.timestamp < end),
        );
      },
    };
    const search: SearchSide = {
      countPerMinute(groups, start, end): Promise<SearchCounts> {
        world.meter.openSearch += 1;
        const out = new Map<string, Map<number, number>>();
        const joined = new Map<string, Map<number, number>>();
        for (const g of groups) {
          out.set(g.logGroup, new Map());
          joined.set(g.logGroup, new Map());
        }
        const add = (counts: Map<number, number> | undefined, minute: number, n: number): void => {
          if (n > 0) counts?.set(minute, (counts.get(minute) ?? 0) + n);
        };
        for (const doc of world.docs.values()) {
          if (doc.at < start || doc.at >= end) continue;
          add(out.get(doc.group), minuteOf(doc.at), 1 + doc.joined);
          add(joined.get(doc.group), minuteOf(doc.at), doc.joined);
        }
        return Promise.resolve({ events: out, joined });
      },
      find(refs: readonly DocumentRef[]) {
        world.meter.openSearch += 1;
        world.pollDelivery();
        const found = new Map<string, FoundDocument>();
        for (const ref of refs) {
          const doc = world.docs.get(ref.id);
          const stem = doc?.stem ?? 'logs';
          if (doc !== undefined) found.set(ref.id, { index: `${stem}-x`, stem, joined: doc.joined });
        }
        return Promise.resolve(found);
      },
      stemAt(group, at) {
        world.meter.openSearch += 1;
        let newest: Doc | undefined;
        for (const doc of world.docs.values()) {
          if (doc.group === group.logGroup && doc.at <= at && (newest === undefined || doc.at > newest.at))
            newest = doc;
        }
        return Promise.resolve(newest === undefined ? undefined : (newest.stem ?? 'logs'));
      },
    };
    const kept: KeptSide = {
      find(ids) {
        world.meter.kept += 1;
        return Promise.resolve(
          new Map(ids.flatMap((id) => (world.kept.has(id) ? [[id, world.kept.get(id)!] as const] : []))),
        );
      },
    };
    const healer: Healer = {
      send(group, events, arrivalOf) {
        world.meter.kinesis += 1;
        world.healed.push(...events);
        for (const e of events) world.healArrivals.set(e.id, arrivalOf(e));
        world.pendingDelivery.push({ group, events: events.filter((e) => !world.loseOnHeal.has(e.id)) });
        world.polls = 0;
        return Promise.resolve({ sent: events.length, notSent: [] });
      },
    };
    return {
      cloudWatch,
      search,
      kept,
      planner: this.planner,
      healer,
      meter: this.meter,
      clock: {
        now: () => world.now,
        sleep: (millis) => {
          world.now += millis;
          return Promise.resolve();
        },
      },
    };
  }

  private pollDelivery(): void {
    if (this.pendingDelivery.length === 0) return;
    if (this.polls < this.deliverAfterPolls) {
      this.polls += 1;
      return;
    }
    for (const { group, events } of this.pendingDelivery) this.deliver(group, events);
    this.pendingDelivery = [];
  }
}

/** An event `seconds` after T0 in stream `stream`. */
export function event(id: string, seconds: number, message = `line ${id}`, stream = 's1'): LogEvent {
  return {
    id,
    timestamp: T0 + seconds * 1000,
    message,
    logStream: stream,
    ingestionTime: T0 + seconds * 1000 + 500,
  };
}
