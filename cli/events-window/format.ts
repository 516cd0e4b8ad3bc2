/** The text `kfek events-window` prints: per shard what was read, then what was re-put (or would be). */
import { formatTable } from '../format';
import { formatBytes } from '../format';
import type { EventsWindowReport, WindowShardSummary } from './run';

const iso = (date: Date | undefined): string => date?.toISOString() ?? '-';

const SHARD_ENDS: Readonly<Record<WindowShardSummary['end'], string>> = {
  'window-end': 'the window end',
  tip: 'the tip',
  'shard-end': 'its end (closed)',
  expired: 'expired (closed)',
  limit: '--limit',
  stopped: 'stopped (below)',
  'not read': 'not read',
};

/** The events-window replay: per shard what was read, then what was re-put (or would be), and what stopped it. */
export function formatEventsWindowReport(report: EventsWindowReport): string {
  const rows = report.shards.map((s) => ({
    shard: s.shardId,
    state: s.closed ? 'closed' : 'open',
    records: String(s.records),
    bytes: formatBytes(s.bytes),
    first: iso(s.first),
    last: iso(s.last),
    'read to': SHARD_ENDS[s.end],
  }));
  const seconds = report.durationMillis / 1000;
  const average =
    report.records > 0 ? `, ${formatBytes(Math.round(report.bytes / report.records))} per record` : '';
  const lines = [
    `events window of ${report.stream}, records that arrived from ${report.since.toISOString()} to ` +
      `${report.end.toISOString()}:`,
    formatTable(['shard', 'state', 'records', 'bytes', 'first', 'last', 'read to'], rows, 160),
  ];
  if (report.dryRun) {
    lines.push(
      `dry run: would re-put ${report.records} record(s) (${formatBytes(report.bytes)}${average}) to the events ` +
        `stream ${report.stream}; nothing was written (read in ${seconds.toFixed(1)} s)`,
    );
  } else {
    const rate = seconds > 0 ? ` (${Math.round(report.put / seconds)} records/s)` : '';
    lines.push(
      `re-put ${report.put} record(s) (${formatBytes(report.bytes)}${average}) to the events stream ` +
        `${report.stream} in ${seconds.toFixed(1)} s${rate}` +
        (report.putRetries > 0 ? ` (${report.putRetries} entries retried)` : ''),
    );
  }
  if (report.readRetries > 0) lines.push(`${report.readRetries} read(s) throttled by Kinesis and retried`);
  if (report.limited) lines.push('stopped at --limit: the rest of the window was not read');
  if (report.failure !== undefined) {
    lines.push(
      `stopped: ${report.failure}`,
      `to finish, run the same replay with --until ${report.end.toISOString()} (what this run re-put arrived ` +
        'after that, and re-put documents overwrite themselves)',
    );
  }
  return lines.join('\n');
}
