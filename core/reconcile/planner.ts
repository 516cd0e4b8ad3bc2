/**
 * What the transform makes of a list of log events, decided by the transform itself: the events go into subscription
 * envelopes exactly as `kfek backfill` (and `--heal`) builds them (core/logs/envelopes.ts), and each envelope
 * runs through the transform's pure core (core/transform/transform.ts, with the profile's routes compiled by
 * core/transform/routing.ts: masking, drop rules, multi-line join). The documents that come out say which events
 * have a document (and in which route's indices), which were joined into the one before, and which a drop rule kept
 * out. So reconcile never decides a drop or a join by a copy of the rules: whatever the deployed transform does, it
 * does here.
 *
 * The scheduled reconcile function (handler.ts) runs it, and so does `kfek reconcile` (cli/reconcile/service.ts,
 * the one import of Lambda code eslint.config.js allows the CLI; core/kept runs the raw records of kept data through
 * the transform with {@link TransformPlanner.documentsOf}): the transform's pure core does no I/O and reads no
 * environment.
 */
import { gunzipSync } from 'node:zlib';
import { ROUTE_KEY, routeFor } from '../contracts/routes';
import { groupSource, type LogEvent, type ReconcileGroup } from './model';
import type { DocumentPlanner, PlannedEvent } from './ports';
import type { TransformSettings } from './service';
import { RouteTable } from '../transform/routing';
import { transformRecord } from '../transform/transform';
import { buildEnvelopes } from '../logs/envelopes';
import type { GroupSource } from '../logs/model';

/** What one document of the transform says about its event. */
interface DocumentFacts {
  readonly route?: string;
  readonly joined: number;
}

/** The transform's own decision, one envelope at a time. */
export class TransformPlanner implements DocumentPlanner {
  private readonly table: RouteTable;
  private readonly stems: ReadonlyMap<string, string>;

  constructor(private readonly settings: TransformSettings) {
    this.table = new RouteTable(settings.routes);
    this.stems = new Map(settings.routes.map((r) => [r.name, r.indexStem]));
  }

  plan(group: ReconcileGroup, events: readonly LogEvent[]): PlannedEvent[] {
    const source = groupSource(group);
    const { records, oversized } = buildEnvelopes(source, events);
    const byKey = new Map(events.map((e) => [`${e.logStream}\0${e.id}`, e]));
    const answers = new Map<string, PlannedEvent>();
    for (const record of records) {
      const envelope = readEnvelope(record.data);
      const documents = this.documents(record.data, envelope.logStream);
      let head: string | undefined;
      let remaining = 0;
      for (const { id } of envelope.logEvents) {
        const doc = documents.get(id);
        let answer: PlannedEvent;
        if (doc !== undefined) {
          answer = { kind: 'document', stem: this.stemOf(doc.route), joined: doc.joined };
          head = id;
          remaining = doc.joined;
        } else if (head !== undefined && remaining > 0) {
          answer = { kind: 'joined', into: head };
          remaining -= 1;
        } else {
          const event = byKey.get(`${envelope.logStream}\0${id}`);
          answer = event === undefined ? { kind: 'dropped' } : this.dropped(source, event);
        }
        answers.set(`${envelope.logStream}\0${id}`, answer);
      }
    }
    // An event too large for a record alone (backfill skips it too): its document is its own, in its group's route.
    const route = routeFor({ logGroup: group.logGroup, account: group.owner }, this.settings.routes);
    for (const { event } of oversized) {
      answers.set(`${event.logStream}\0${event.id}`, {
        kind: 'document',
        stem: route?.indexStem ?? this.settings.defaultStem,
        joined: 0,
      });
    }
    return events.map(
      (e) =>
        answers.get(`${e.logStream}\0${e.id}`) ?? {
          kind: 'document',
          stem: route?.indexStem ?? this.settings.defaultStem,
          joined: 0,
        },
    );
  }

  /**
   * The documents the transform makes of one raw record (a subscription envelope, gzip), as JSON texts; none for a
   * record it cannot decode (poison) or a control message.
   */
  documentsOf(data: Uint8Array): string[] {
    const outcome = transformRecord(Buffer.from(data), { routes: this.table });
    return outcome.kind === 'data' ? outcome.documents.map((d) => d.json) : [];
  }

  /** The documents the transform makes of one envelope, by event id. */
  private documents(data: Uint8Array, logStream: string): Map<string, DocumentFacts> {
    const outcome = transformRecord(Buffer.from(data), {
      routes: this.table,
      ...(this.settings.sourceRegions !== undefined ? { sourceRegions: this.settings.sourceRegions } : {}),
    });
    const documents = new Map<string, DocumentFacts>();
    if (outcome.kind !== 'data') return documents;
    for (const d of outcome.documents) {
      const doc = JSON.parse(d.json) as {
        cloudwatch?: { id?: string; logStream?: string };
        kfek?: Record<string, unknown>;
      };
      if (doc.cloudwatch?.id === undefined || doc.cloudwatch.logStream !== logStream) continue;
      const route = doc.kfek?.[ROUTE_KEY];
      const joined = doc.kfek?.joined;
      documents.set(doc.cloudwatch.id, {
        ...(typeof route === 'string' ? { route } : {}),
        joined: typeof joined === 'number' ? joined : 0,
      });
    }
    return documents;
  }

  /** An event without a document and not joined: kept out by a drop rule; the rule is the one it meets alone. */
  private dropped(source: GroupSource, event: LogEvent): PlannedEvent {
    const alone = buildEnvelopes(source, [event]).records[0];
    if (alone === undefined) return { kind: 'dropped' };
    const outcome = transformRecord(Buffer.from(alone.data), { routes: this.table });
    const rules = outcome.kind === 'data' ? Object.keys(outcome.processing?.droppedByRule ?? {}) : [];
    return rules.length === 1 ? { kind: 'dropped', rule: rules[0] } : { kind: 'dropped' };
  }

  private stemOf(route: string | undefined): string {
    return (route === undefined ? undefined : this.stems.get(route)) ?? this.settings.defaultStem;
  }
}

/** What an envelope of a group says besides its events. */

/** The log stream and event ids of one envelope, in order. */
function readEnvelope(data: Uint8Array): { logStream: string; logEvents: { id: string }[] } {
  return JSON.parse(gunzipSync(data).toString('utf8')) as { logStream: string; logEvents: { id: string }[] };
}
