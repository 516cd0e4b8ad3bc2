/**
 * Index naming: the names Firehose gives the daily (or hourly, weekly, ...) indices for a prefix and rotation, and
 * the pattern that matches them all. One owner for the CDK app (index template, Dashboards), the local Firehose
 * stand-in and the CLI.
 */

/** Firehose `IndexRotationPeriod` for the OpenSearch destination. */
export type IndexRotation = 'NoRotation' | 'OneHour' | 'OneDay' | 'OneWeek' | 'OneMonth';

function pad(n: number, width = 2): string {
  return String(n).padStart(width, '0');
}

/**
 * Firehose's week number of a UTC date: weeks start on Sunday and the days before the year's first Sunday are week
 * 00 (strftime `%U`), so the year is always the calendar year. The Firehose guide's example (2016-02-25 is `w08`)
 * fixes this rule; its prose ("the first week is the first week that contains a Saturday") would give `w09` for that
 * day, so the example, the only checkable statement, wins.
 */
function firehoseWeek(date: Date): number {
  const dayOfYear = Math.floor(
    (Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()) -
      Date.UTC(date.getUTCFullYear(), 0, 1)) /
      86_400_000,
  );
  return Math.floor((dayOfYear + 7 - date.getUTCDay()) / 7);
}

/**
 * The index Firehose writes a record arriving at `date` (UTC) to: `<prefix>-<suffix>` with the suffixes Firehose
 * documents for `IndexRotationPeriod` (OneHour `YYYY-MM-DD-HH`, OneDay `YYYY-MM-DD`, OneWeek `YYYY-wWW`, OneMonth
 * `YYYY-MM`), or the bare prefix for NoRotation.
 * https://docs.aws.amazon.com/firehose/latest/dev/es-index-rotation.html
 */
export function indexNameFor(prefix: string, rotation: IndexRotation, date: Date): string {
  const y = date.getUTCFullYear();
  const m = pad(date.getUTCMonth() + 1);
  const d = pad(date.getUTCDate());
  switch (rotation) {
    case 'NoRotation':
      return prefix;
    case 'OneHour':
      return `${prefix}-${y}-${m}-${d}-${pad(date.getUTCHours())}`;
    case 'OneDay':
      return `${prefix}-${y}-${m}-${d}`;
    case 'OneWeek':
      return `${prefix}-${y}-w${pad(firehoseWeek(date))}`;
    case 'OneMonth':
      return `${prefix}-${y}-${m}`;
  }
}

/** The pattern covering every index of a prefix, whatever the rotation (`logs-*`; `logs*` without rotation). */
export function indexPatternFor(prefix: string, rotation: IndexRotation): string {
  return rotation === 'NoRotation' ? `${prefix}*` : `${prefix}-*`;
}
