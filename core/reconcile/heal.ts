/**
 * The heal: the missing events of each group go back through the raw stream (ports.ts `Healer`: subscription
 * envelopes with the events' real ids, exactly as `kfek backfill` sends them), then the run waits until OpenSearch
 * holds the documents the transform makes of them (planned by the same planner as the exact tier) or the timeout
 * passes. A document found counts its events as healed; what is not found by then stays missing.
 */
import { documentIdFor } from '../opensearch/ingest-pipeline';
import type { EventVerdict, HealReport, LogEvent, ReconcileGroup } from './model';
import type { DocumentRef, Healer, PlannedEvent, ReconcilePorts, SearchSide } from './ports';

/** What the heal needs of a group's work in the engine: the group, and its missing events in the order read. */
export interface HealWork {
  readonly group: ReconcileGroup;
  readonly missing: readonly LogEvent[];
}

export interface HealOutcome {
  readonly report: HealReport;
  /** Per group, the new verdict of each event that left `missing` (by `<stream>\0<event id>`). */
  readonly healedByGroup: ReadonlyMap<string, ReadonlyMap<string, EventVerdict>>;
  /** Groups whose missing events were not sent, with why (live used another stem for them). */
  readonly refusedByGroup: ReadonlyMap<string, string>;
}

interface Expected {
  readonly group: string;
  readonly key: string;
  readonly verdict: EventVerdict;
  readonly ref: DocumentRef;
}

const keyOf = (stream: string, id: string): string => `${stream}\0${id}`;

export async function healMissing(
  work: readonly HealWork[],
  options: { readonly timeoutInMillis: number; readonly pollIntervalInMillis?: number },
  ports: Pick<ReconcilePorts, 'planner' | 'search' | 'clock'> & { readonly healer: Healer },
  progress: (note: string) => void,
): Promise<HealOutcome> {
  const startedAt = ports.clock.now();
  const healedByGroup = new Map<string, Map<string, EventVerdict>>();
  const refusedByGroup = new Map<string, string>();
  let sent = 0;
  let notSent = 0;
  const expected: Expected[] = [];
  for (const w of work) {
    if (w.missing.length === 0) continue;
    const name = w.group.logGroup;
    const plans = ports.planner.plan(w.group, w.missing);
    const refusal = await stemRefusal(w, plans, ports.search);
    if (refusal !== undefined) {
      progress(`${name}: not healed: ${refusal}`);
      refusedByGroup.set(name, refusal);
      continue;
    }
    progress(`${name}: sending ${w.missing.length} missing event(s) through the raw stream`);
    const result = await ports.healer.send(w.group, w.missing, arrivals(w.missing, plans));
    sent += result.sent;
    notSent += result.notSent.length;
    const unsent = new Set(result.notSent.map((e) => keyOf(e.logStream, e.id)));
    const changed = new Map<string, EventVerdict>();
    healedByGroup.set(name, changed);
    expected.push(...sentVerdicts(name, w.missing, plans, unsent, changed));
  }

  await waitUntilFound(
    expected,
    healedByGroup,
    startedAt + options.timeoutInMillis,
    options,
    ports,
    progress,
  );
  let healed = 0;
  for (const changed of healedByGroup.values()) {
    for (const v of changed.values()) if (v.state === 'healed') healed += 1;
  }
  return {
    report: { sent, healed, notSent, durationInMillis: ports.clock.now() - startedAt },
    healedByGroup,
    refusedByGroup,
  };
}

/**
 * What becomes of each sent event: one its route drops is `dropped` at once (into `changed`); the others are expected
 * to become searchable as the document that holds them (their own, or their trace head's when joined).
 */
function sentVerdicts(
  name: string,
  missing: readonly LogEvent[],
  plans: readonly PlannedEvent[],
  unsent: ReadonlySet<string>,
  changed: Map<string, EventVerdict>,
): Expected[] {
  const expected: Expected[] = [];
  const byKey = new Map(missing.map((e, i) => [keyOf(e.logStream, e.id), { event: e, plan: plans[i] }]));
  missing.forEach((event, i) => {
    const plan = plans[i];
    const base = { logStream: event.logStream, eventId: event.id, timestamp: event.timestamp };
    const key = keyOf(event.logStream, event.id);
    if (unsent.has(key)) return;
    if (plan.kind === 'dropped') {
      // Sent again, the transform keeps it out (its route's drop rule): not lost, so not missing either.
      changed.set(key, {
        ...base,
        state: 'dropped',
        documentId: documentIdFor(name, event.logStream, event.id),
        ...(plan.rule !== undefined ? { rule: plan.rule } : {}),
      });
      return;
    }
    const head = plan.kind === 'joined' ? byKey.get(keyOf(event.logStream, plan.into)) : undefined;
    const holder = head?.event ?? event;
    const stem =
      head?.plan.kind === 'document' ? head.plan.stem : plan.kind === 'document' ? plan.stem : undefined;
    if (stem === undefined) return;
    const id = documentIdFor(name, holder.logStream, holder.id);
    expected.push({
      group: name,
      key,
      verdict: {
        ...base,
        state: 'healed',
        documentId: id,
        ...(holder !== event ? { joinedInto: holder.id } : {}),
      },
      ref: { id, stem, at: holder.timestamp },
    });
  });
  return expected;
}

/** Looks the expected documents up until all are found or the deadline passes; each found one is `healed`. */
async function waitUntilFound(
  expected: readonly Expected[],
  healedByGroup: ReadonlyMap<string, Map<string, EventVerdict>>,
  deadline: number,
  options: { readonly pollIntervalInMillis?: number },
  ports: Pick<ReconcilePorts, 'search' | 'clock'>,
  progress: (note: string) => void,
): Promise<void> {
  let waiting = expected;
  const interval = options.pollIntervalInMillis ?? 2000;
  while (waiting.length > 0) {
    const refs = [...new Map(waiting.map((e) => [e.ref.id, e.ref])).values()];
    const found = await ports.search.find(refs);
    for (const e of waiting) if (found.has(e.ref.id)) healedByGroup.get(e.group)?.set(e.key, e.verdict);
    waiting = waiting.filter((e) => !found.has(e.ref.id));
    if (waiting.length === 0 || ports.clock.now() + interval > deadline) break;
    progress(`waiting for ${waiting.length} healed event(s) to become searchable`);
    await ports.clock.sleep(interval);
  }
}

/**
 * When each event first reached the pipeline, as well as it can be known: CloudWatch Logs' `ingestionTime` (the
 * subscription hands an event on within seconds of it), for a continuation line its trace's first line's (live sent
 * the trace in one envelope, with one arrival). An event without one stands at its own time.
 */
function arrivals(events: readonly LogEvent[], plans: readonly PlannedEvent[]): (event: LogEvent) => number {
  const own = (e: LogEvent): number => e.ingestionTime ?? e.timestamp;
  const byKey = new Map<string, number>();
  events.forEach((e, i) => {
    const plan = plans[i];
    const head = plan.kind === 'joined' ? byKey.get(keyOf(e.logStream, plan.into)) : undefined;
    byKey.set(keyOf(e.logStream, e.id), head ?? own(e));
  });
  return (e) => byKey.get(keyOf(e.logStream, e.id)) ?? own(e);
}

/**
 * Why the group's missing events must not be sent, or undefined when they may: live put the group's newest document
 * at or before the last of them under another stem than the transform would put them now (a route removed while its
 * indices are kept, a route given another stem, a new `indexPrefix`). Sent again, they would land in another
 * family's indices, read by other people, masked and dropped by another route's rules (or none).
 */
async function stemRefusal(
  w: HealWork,
  plans: readonly PlannedEvent[],
  search: SearchSide,
): Promise<string | undefined> {
  const planned = new Set(plans.flatMap((p) => (p.kind === 'document' ? [p.stem] : [])));
  if (planned.size === 0) return undefined;
  const last = Math.max(...w.missing.map((e) => e.timestamp));
  const live = await search.stemAt(w.group, last);
  if (live === undefined || (planned.size === 1 && planned.has(live))) return undefined;
  return (
    `${w.group.logGroup}: live put its documents up to ${new Date(last).toISOString()} in ${live}'s indices, but ` +
    `the profile now sends its events to ${[...planned].join(', ')} (a route removed or given another stem): sent ` +
    `again, they would land in indices live did not use. Re-send them with the profile that was live then, or ` +
    'leave them missing'
  );
}
