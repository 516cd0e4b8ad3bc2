/**
 * What the transform makes of a list of log events, decided by the transform itself: the events go into subscription
 * envelopes exactly as `kfek backfill` (and `--heal`) builds them (core/logs/envelopes.ts: the same envelope bounds,
 * which a multi-line join never crosses, and the same events too large for a record), and each envelope runs through
 * the transform's pure core (core/transform/transform.ts, with the profile's routes compiled by
 * core/transform/routing.ts: masking, drop rules, multi-line join). The transform says what became of each event
 * (core/transform/decisions.ts): its document and stem, the document it was joined into, the drop rule that kept it
 * out. So reconcile never decides a drop or a join by a copy of the rules, nor reads the transform's documents back:
 * whatever the deployed transform does, it does and says here.
 *
 * The scheduled reconcile function (lambda/reconcile/handler.ts) runs it, and so does `kfek reconcile`
 * (cli/reconcile/service.ts); core/kept runs the raw records of kept data through the transform with
 * {@link TransformPlanner.documentIdsOf}. The transform's pure core does no I/O and reads no environment.
 */
import { routeFor } from '../contracts/routes';
import { groupSource, type LogEvent, type ReconcileGroup } from './model';
import type { DocumentPlanner, PlannedEvent } from './ports';
import type { TransformSettings } from './service';
import { documentIdOf, type EventDecision } from '../transform/decisions';
import { RouteTable } from '../transform/routing';
import { transformRecord } from '../transform/transform';
import { buildEnvelopes } from '../logs/envelopes';

/** The transform's own decision, one envelope at a time. */
export class TransformPlanner implements DocumentPlanner {
  private readonly table: RouteTable;

  constructor(private readonly settings: TransformSettings) {
    this.table = new RouteTable(settings.routes);
  }

  plan(group: ReconcileGroup, events: readonly LogEvent[]): PlannedEvent[] {
    const { records } = buildEnvelopes(groupSource(group), events);
    const answers = new Map<string, PlannedEvent>();
    for (const record of records) {
      for (const decision of this.decisionsOf(record.data)) {
        answers.set(`${decision.source.logStream}\0${decision.eventId}`, this.planned(decision));
      }
    }
    // An event too large for a record alone (backfill skips it too, as `buildEnvelopes`' `oversized`): its document
    // is its own, in its group's route.
    const route = routeFor({ logGroup: group.logGroup, account: group.owner }, this.settings.routes);
    const alone: PlannedEvent = {
      kind: 'document',
      stem: route?.indexStem ?? this.settings.defaultStem,
      joined: 0,
    };
    return events.map((e) => answers.get(`${e.logStream}\0${e.id}`) ?? alone);
  }

  /**
   * The ingest pipeline's ids of the documents the transform makes of one raw record (a subscription envelope,
   * gzip); none for a record it cannot decode (poison) or a control message.
   */
  documentIdsOf(data: Uint8Array): string[] {
    const ids: string[] = [];
    for (const decision of this.decisionsOf(data)) {
      const id = decision.kind === 'kept' ? documentIdOf(decision) : undefined;
      if (id !== undefined) ids.push(id);
    }
    return ids;
  }

  /** What the transform decided for each event of one raw record; none when it is poison or a control message. */
  private decisionsOf(data: Uint8Array): readonly EventDecision[] {
    const outcome = transformRecord(Buffer.from(data), {
      routes: this.table,
      ...(this.settings.sourceRegions !== undefined ? { sourceRegions: this.settings.sourceRegions } : {}),
    });
    return outcome.kind === 'data' ? (outcome.decisions ?? []) : [];
  }

  /** A decision as the reconcile engine reads it: a document in a stem, a line joined into one, or a drop. */
  private planned(decision: EventDecision): PlannedEvent {
    switch (decision.kind) {
      case 'kept':
        // The transform marks a route's own stem; the default route's documents and those of a route that names
        // none go to the profile's default stem.
        return {
          kind: 'document',
          stem: decision.stem ?? this.settings.defaultStem,
          joined: decision.joined,
        };
      case 'joined':
        return { kind: 'joined', into: decision.into };
      case 'dropped':
        return { kind: 'dropped', rule: decision.rule };
    }
  }
}
