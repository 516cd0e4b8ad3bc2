/** The text `kfek replay` prints: what is kept, what was chosen, what was re-sent where, what was not and why. */
import { formatBytes, formatTable } from '../format';
import type { KindSummary } from '../../core/kept/select';
import type { ReplayReport } from './run';

const iso = (date: Date | undefined): string => date?.toISOString() ?? '-';

function table(summaries: readonly KindSummary[]): string {
  const rows = summaries.map((s) => ({
    kind: s.kind,
    items: String(s.items),
    records: `${s.records}${s.ranges > 0 ? ` (${s.ranges} range${s.ranges === 1 ? '' : 's'} in its stream)` : ''}`,
    stored: formatBytes(s.storedBytes),
    first: iso(s.first),
    last: iso(s.last),
  }));
  return formatTable(['kind', 'items', 'records', 'stored', 'first', 'last'], rows, 160);
}

function reasons(summaries: readonly KindSummary[]): string[] {
  return summaries.flatMap((s) => s.reasons.slice(0, 5).map((r) => `  ${s.kind}: ${r.count} x ${r.reason}`));
}

export function formatReplayReport(report: ReplayReport, where: string): string {
  const lines = [`kept in ${where}:`, table(report.kept)];
  const why = reasons(report.kept);
  if (why.length > 0) lines.push('reasons:', ...why);
  const chosenItems = report.chosen.reduce((sum, s) => sum + s.items, 0);
  const keptItems = report.kept.reduce((sum, s) => sum + s.items, 0);
  lines.push(`chosen: ${chosenItems} of ${keptItems} item(s)`);
  // Which stream each batch goes to: the raw stream, or the events stream for a batch the indexer gave up on.
  for (const b of report.batches) lines.push(`batch ${b.location} -> the ${b.target} stream`);
  if (report.dryRun) {
    lines.push(
      `dry run: would re-send ${report.sendable.rawRecords} raw record(s) to the raw stream and ` +
        `${report.sendable.documents} document(s) to the events stream; nothing was sent or deleted`,
    );
  }
  for (const s of report.sent) {
    lines.push(
      `re-sent ${s.records} ${s.target === 'raw' ? 'raw record(s)' : 'document(s)'} of ${s.items} item(s) to the ` +
        `${s.target} stream ${s.stream}${report.retries > 0 ? ` (${report.retries} entries retried)` : ''}`,
    );
  }
  for (const s of report.skipped) lines.push(`skipped: ${s.kind} ${s.message}`);
  for (const u of report.unreplayed) lines.push(`not re-sent: ${u.kind} ${u.message}`);
  for (const p of report.problems) lines.push(`unreadable: ${p.message}`);
  if (!report.dryRun && report.sent.length > 0) {
    lines.push(
      report.deleted.length > 0
        ? `deleted ${report.deleted.length} re-sent object(s)/message(s): ${report.deleted.join(', ')}`
        : 'nothing was deleted (--delete-after deletes what was fully re-sent)',
    );
  }
  const left = leftOut(report);
  if (left !== undefined) lines.push(left);
  return lines.join('\n');
}

/** The closing summary when anything was left out (the exit code is then 1), else undefined. */
function leftOut(report: ReplayReport): string | undefined {
  const parts = [
    [report.skipped.length, 'skipped'],
    [report.unreplayed.length, 'not re-sent'],
    [report.problems.length, 'unreadable'],
  ].flatMap(([count, what]) => (count === 0 ? [] : [`${count} ${what}`]));
  if (parts.length === 0) return undefined;
  return (
    `${report.dryRun ? 'dry run: would leave out' : 'left out'}: ${parts.join(', ')} (listed above); ` +
    'what they hold stays where it is and was not deleted'
  );
}
