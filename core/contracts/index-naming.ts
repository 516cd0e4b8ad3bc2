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

/**
 * Key under `kfek` where the transform writes when the raw record holding the event reached the raw stream
 * (Kinesis' `approximateArrivalTimestamp`, in milliseconds since the epoch). The ingest pipeline names the index by
 * it (the rotation suffix Firehose chose, with the arrival's date in its shape) and removes it, so it is never
 * stored: every copy of a record read again (a retry, a transport switch that starts at `TRIM_HORIZON`) carries the
 * same arrival and so lands in the index its first copy is in, where its `_id` overwrites it (issue 30.5).
 */
export const ARRIVAL_KEY = 'arrival';

/**
 * Field of a subscription envelope (beside `logGroup`, `logEvents`) that `kfek reconcile --heal` writes: when the
 * envelope's events first reached the pipeline (CloudWatch Logs' `ingestionTime` of its first event), in
 * milliseconds since the epoch. The transform writes it as the documents' {@link ARRIVAL_KEY} when it is earlier
 * than the record's own arrival, so a healed event lands in the index of the period live would have used, where it
 * overwrites a live copy that was only late (in the same period; an event taken in seconds before a period boundary
 * whose live record reached the raw stream after it can still land twice). CloudWatch Logs never writes it; a
 * value that is not a plausible time, or is later than the record's arrival, is ignored.
 */
export const ENVELOPE_ARRIVAL_FIELD = 'kfekArrival';

/** The pattern covering every index of a prefix, whatever the rotation (`logs-*`; `logs*` without rotation). */
export function indexPatternFor(prefix: string, rotation: IndexRotation): string {
  return rotation === 'NoRotation' ? `${prefix}*` : `${prefix}-*`;
}

/**
 * The longest rotation suffix Firehose appends to an index name prefix: `-YYYY-MM-DD-HH` (OneHour), 14 bytes.
 */
export const MAX_ROTATION_SUFFIX_BYTES = '-2026-11-25-00'.length;

/** The longest index name OpenSearch accepts, in UTF-8 bytes (`MetadataCreateIndexService.MAX_INDEX_NAME_BYTES`). */
export const MAX_INDEX_NAME_BYTES = 255;

/**
 * Stems of indices OpenSearch or its plugins create outside the hidden `.` namespace, which a stem of kfek's must
 * not cover or be covered by: the security plugin's audit log when it writes to an index
 * (`security-auditlog-YYYY.MM.dd`) and the Query Insights plugin's `top_queries-...`.
 */
export const OPENSEARCH_OWN_INDEX_STEMS: readonly string[] = ['security-auditlog', 'top_queries'];

// Characters OpenSearch refuses in index names (MetadataCreateIndexService#validateIndexOrAliasName: `Strings
// .INVALID_FILENAME_CHARS` \ / * ? " < > | space and comma, plus # and, since 7.0, :).
const FORBIDDEN_INDEX_CHARS = /[\\/*?"<>| ,#:]/;
// Whitespace, control and invisible format characters: OpenSearch takes some of them in an index name, but kfek
// refuses to put them into a request path (core/opensearch/request-path.ts), so it could never address the indices.
const INVISIBLE = /[\s\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * Why `stem` cannot be the stem of kfek's indices (`<stem>-<rotation suffix>`), or undefined when it can. The rules
 * are OpenSearch's for index names (lowercase; none of `\ / * ? " < > | space , # :`; not starting with `_ - +`;
 * not `.` or `..`; at most 255 bytes, here with the longest rotation suffix added), and kfek's: not starting
 * with `.`, the namespace of hidden and system indices (security, ISM, Dashboards keep theirs there), and nothing its
 * request paths refuse (core/opensearch/request-path.ts: whitespace, control and invisible characters, `%`), so
 * every index of a stem the config accepts is one kfek can address.
 */
export function indexStemProblem(stem: string): string | undefined {
  if (stem.length === 0) return 'it is empty';
  if (stem !== stem.toLowerCase()) return 'it has uppercase letters, which OpenSearch refuses in index names';
  const bad = FORBIDDEN_INDEX_CHARS.exec(stem);
  if (bad !== null) {
    return `it contains ${JSON.stringify(bad[0])}; OpenSearch refuses \\ / * ? " < > | space , # : in index names`;
  }
  if (!stem.isWellFormed()) return 'it holds a lone UTF-16 surrogate, which has no UTF-8 encoding';
  const invisible = INVISIBLE.exec(stem);
  if (invisible !== null) {
    const code = invisible[0].codePointAt(0)?.toString(16).toUpperCase().padStart(4, '0');
    return `it contains U+${code} (whitespace, control or invisible), which kfek never puts into a request path`;
  }
  if (stem.includes('%')) {
    return 'it contains "%", which a hop that decodes a request path would read as an escape (another name)';
  }
  if (/^[_\-+]/.test(stem)) return 'it starts with "_", "-" or "+", which OpenSearch refuses';
  if (stem.startsWith('.')) {
    return 'it starts with ".", the namespace of hidden and system indices (security, ISM, Dashboards)';
  }
  const bytes = Buffer.byteLength(stem, 'utf8') + MAX_ROTATION_SUFFIX_BYTES;
  if (bytes > MAX_INDEX_NAME_BYTES) {
    return (
      `with the longest rotation suffix ("-YYYY-MM-DD-HH") the index name has ${bytes} bytes, more than ` +
      `OpenSearch's ${MAX_INDEX_NAME_BYTES}`
    );
  }
  return undefined;
}

/**
 * True when the index pattern of stem `a` (`a-*`) matches an index of stem `b` (`b-...`): `b` is `a`, or starts
 * with `a-`. Two such stems would share indices: the template, retention policy and reader role of `a` would also
 * govern `b`'s indices (and OpenSearch refuses two templates of equal priority whose patterns overlap).
 */
export function stemCovers(a: string, b: string): boolean {
  return b === a || b.startsWith(`${a}-`);
}

/**
 * The stem an index belongs to among `stems`: the longest one it starts with, followed by `-` (`logs-audit-2026-11-25`
 * belongs to `logs-audit`, not `logs`, when both are stems). One rule for everything kfek gives a stem, so stems
 * may extend one another (issue 30): the index templates and ISM templates pick the longer stem by priority
 * (core/opensearch/families.ts), the reader roles and Dashboards index patterns of the shorter one exclude the
 * longer one's indices, and the ingest pipeline moves only the default route's own indices.
 * Undefined when no stem covers the index.
 */
export function owningStem(index: string, stems: Iterable<string>): string | undefined {
  let best: string | undefined;
  for (const stem of stems) {
    if (index.startsWith(`${stem}-`) && (best === undefined || stem.length > best.length)) best = stem;
  }
  return best;
}

/**
 * Why `a` and `b` cannot both be stems of kfek's indices, or undefined when they can. Stems may extend one another
 * (`logs` and `logs-audit`: {@link owningStem} gives each index to the longer one), but not be equal (two families
 * on the same indices), and a longer stem may not continue with a digit after the shorter one's `-`: the shorter
 * stem's own indices continue that way (`logs-2026-11-25`), so `logs-2026` would take them.
 */
export function stemsClash(a: string, b: string): string | undefined {
  if (a === b) return 'they are equal';
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long.startsWith(`${short}-`) && /^[0-9]/.test(long.slice(short.length + 1))) {
    return (
      `"${long}" continues "${short}-" with a digit, as the rotation suffix of "${short}"'s own indices does ` +
      `("${short}-2026-11-25"), so it would take them`
    );
  }
  return undefined;
}
