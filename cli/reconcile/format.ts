/**
 * `kfek reconcile`'s text report: one row per log group with its events by state, then the events that are not
 * searchable, worst first (the engine orders them by one badness table: core/reconcile/model.ts), then what the run
 * cost. Renders only: every decision is the engine's.
 */
import { EVENT_STATES, type EventVerdict, type GroupReport, worstState } from '../../core/reconcile/model';
import { formatTable } from '../format';
import type { ReconcileRun } from './service';

/** Verdict lines printed per state before "... and N more" (the JSON output lists them all, up to its limit). */
const LINES_PER_STATE = 20;

function when(iso: string): string {
  return iso.replace('.000Z', 'Z');
}

function duration(millis: number): string {
  return millis < 120_000 ? `${(millis / 1000).toFixed(1)} s` : `${(millis / 60_000).toFixed(1)} min`;
}

function groupRow(g: GroupReport): Record<string, string> {
  const row: Record<string, string> = {
    'log group': g.logGroup,
    minutes: String(g.minutes),
    exact: String(g.exactMinutes),
    CloudWatch: String(g.cloudWatchEvents),
    OpenSearch: String(g.openSearchEvents),
  };
  for (const state of EVENT_STATES) row[state] = String(g.states[state]);
  row.result = worstState(g.states);
  return row;
}

function verdictLine(group: string, v: EventVerdict): string {
  const detail =
    v.state === 'dropped'
      ? `rule ${v.rule ?? '(unnamed)'}`
      : v.state === 'joined' || (v.state === 'healed' && v.joinedInto !== undefined)
        ? `joined into event ${v.joinedInto ?? '?'}`
        : v.state === 'kept' && v.kept !== undefined
          ? `${v.kept.kind} ${v.kept.location}`
          : `document ${v.documentId}`;
  return `  ${group}  ${v.logStream}  ${new Date(v.timestamp).toISOString()}  event ${v.eventId}  ${detail}`;
}

export function formatReconcile(run: ReconcileRun): string {
  const w = run.window;
  const lines = [
    `kfek reconcile: ${when(w.since)} to ${when(w.until)}, judged up to ${when(w.judgedUntil)} ` +
      `(lag ${duration(w.lagInMillis)}), CloudWatch counted with ${run.countedWith === 'insights' ? 'Logs Insights' : 'FilterLogEvents'}`,
    '',
    formatTable(
      ['log group', 'minutes', 'exact', 'CloudWatch', 'OpenSearch', ...EVENT_STATES, 'result'],
      run.groups.map(groupRow),
    ),
  ];
  for (const state of ['missing', 'kept', 'pending', 'healed', 'dropped', 'joined'] as const) {
    const verdicts = run.groups.flatMap((g) =>
      g.events.filter((v) => v.state === state).map((v) => ({ g, v })),
    );
    if (verdicts.length === 0) continue;
    lines.push('', `${state} (${run.totals[state]}):`);
    for (const { g, v } of verdicts.slice(0, LINES_PER_STATE)) lines.push(verdictLine(g.logGroup, v));
    if (run.totals[state] > LINES_PER_STATE)
      lines.push(`  ... and ${run.totals[state] - LINES_PER_STATE} more (--json lists them)`);
  }
  const refused = run.groups.filter((g) => g.healRefused !== undefined);
  if (refused.length > 0) {
    lines.push('', 'not healed (sent again, their events would not take the route live gave them):');
    for (const g of refused) lines.push(`  ${g.healRefused ?? ''}`);
  }
  if (run.unreadableKept.length > 0) {
    lines.push(
      '',
      `kept data that names no event (${run.unreadableKept.length}; kfek replay --dry-run shows what it holds):`,
      ...run.unreadableKept.slice(0, LINES_PER_STATE).map((l) => `  ${l}`),
    );
  }
  const r = run.requests;
  const rate =
    run.exactTier.durationInMillis > 0
      ? ` (${Math.round((run.exactTier.events * 1000) / run.exactTier.durationInMillis)} events/s)`
      : '';
  lines.push(
    '',
    `requests: CloudWatch Logs ${r.cloudWatch}, OpenSearch ${r.openSearch}, kept data ${r.kept}, Kinesis ${r.kinesis}; ` +
      `exact tier ${run.exactTier.events} events in ${duration(run.exactTier.durationInMillis)}${rate}; ` +
      `took ${duration(run.durationInMillis)}`,
  );
  if (run.heal !== undefined) {
    const h = run.heal;
    lines.push(
      `heal: ${h.sent} sent through the raw stream, ${h.healed} searchable within ${duration(h.durationInMillis)}` +
        (h.notSent > 0 ? `, ${h.notSent} not sent (refused or too large for a record)` : ''),
    );
  }
  const t = run.totals;
  lines.push(
    t.missing > 0
      ? `result: ${t.missing} event(s) missing${run.heal === undefined ? ': --heal sends them through the raw stream' : ' after the heal'}`
      : t.kept > 0
        ? `result: nothing missing; ${t.kept} event(s) kept, not searchable: kfek replay re-sends them`
        : 'result: nothing missing',
  );
  return lines.join('\n');
}
