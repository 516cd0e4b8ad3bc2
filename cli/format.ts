/**
 * Text output of the CLI: tables and one-screen reports. Pure functions of the results.
 */
import type { QueryResult } from './query';
import type { SendResult } from './send';
import type { VerifyResult } from './verify';

/** `512 B`, `1.5 KiB`, `22.4 MiB`, `1.2 GiB`: sizes for people, in binary units. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${units[unit]}`;
}

/** A plain-text table; cells longer than `maxCellWidth` are cut with an ellipsis, newlines shown as spaces. */
export function formatTable(
  columns: readonly string[],
  rows: readonly Readonly<Record<string, string>>[],
  maxCellWidth = 80,
): string {
  if (columns.length === 0) return '(no rows)';
  const cell = (text: string): string => {
    const flat = text.replace(/\s*\n\s*/g, ' ');
    return flat.length > maxCellWidth ? `${flat.slice(0, maxCellWidth - 1)}…` : flat;
  };
  const body = rows.map((row) => columns.map((column) => cell(row[column] ?? '')));
  // A fold, not Math.max(...cells): a query may return 10,000 rows, and spread arguments live on the stack.
  const widths = columns.map((column, i) =>
    body.reduce((widest, cells) => Math.max(widest, cells[i].length), column.length),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((text, i) => text.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

function seconds(millis: number): string {
  return `${(millis / 1000).toFixed(millis < 10_000 ? 2 : 1)} s`;
}

export function formatSendResult(result: SendResult): string {
  const rate =
    result.durationInMillis > 0 ? Math.round((result.sent * 1000) / result.durationInMillis) : result.sent;
  const lines = [
    `sent ${result.sent} events to ${result.logGroupName} (stream ${result.logStreamName}) in ${seconds(result.durationInMillis)}: ${rate}/s, ${result.calls} PutLogEvents calls, ${result.retries} retries`,
    `run id: ${result.runId}`,
  ];
  if (result.rejected > 0) {
    lines.push(
      `${result.rejected} events were rejected by CloudWatch Logs (too old or too new: check this machine's clock)`,
    );
  }
  return lines.join('\n');
}

export function formatVerifyResult(result: VerifyResult): string {
  const expected = result.expected !== undefined ? ` of ${result.expected}` : '';
  const lines = [
    `run ${result.runId}: delivered ${result.delivered}${expected}, missing ${result.missing}, duplicates ${result.duplicates} (${result.polls} searches in ${seconds(result.elapsedInMillis)})`,
  ];
  if (result.missing > 0) {
    const more = result.missing > result.missingSample.length ? ', ...' : '';
    lines.push(`missing kfek_seq: ${result.missingSample.join(', ')}${more}`);
    if (result.expected === undefined && result.highestSeq !== undefined) {
      lines.push(
        `missing counts the gaps below the highest kfek_seq found, ${result.highestSeq}: pass --expect N (the ` +
          "run's send --count) if that document is a stray",
      );
    }
  }
  if (result.outOfRange > 0) {
    const documents = result.outOfRange === 1 ? '1 document carries' : `${result.outOfRange} documents carry`;
    const range =
      result.expected === undefined
        ? 'that is not a whole number below 2^53'
        : `outside 0-${result.expected - 1} (the --expect range) or beyond 2^53`;
    lines.push(`${documents} a kfek_seq ${range}: not written by this run's send, not counted`);
  }
  const l = result.latency;
  if (l === undefined) {
    lines.push('latency: no events to measure');
  } else {
    const basis =
      l.basis === 'ingest-field'
        ? 'ingest time - @timestamp'
        : `first seen by a search - @timestamp, resolution one --interval${
            result.presentAtFirstPoll === result.delivered && result.delivered > 0
              ? '; all events were already searchable at the first search, so these are upper bounds (run verify while send runs for real numbers)'
              : ''
          }`;
    lines.push(
      `latency (${basis}) over ${l.samples} events: p50 ${seconds(l.p50InMillis)}, p95 ${seconds(l.p95InMillis)}, p99 ${seconds(l.p99InMillis)}, max ${seconds(l.maxInMillis)}`,
    );
  }
  return lines.join('\n');
}

export function formatQueryResult(result: QueryResult): string {
  const stats = result.statistics;
  const footer =
    stats === undefined
      ? `${result.rows.length} rows`
      : `${result.rows.length} rows; ${stats.recordsMatched ?? 0} records matched, ${stats.recordsScanned ?? 0} scanned, ${stats.bytesScanned ?? 0} bytes`;
  return `${result.name} on ${result.logGroupNames.join(', ')}\n${formatTable(result.columns, result.rows)}\n${footer}`;
}
