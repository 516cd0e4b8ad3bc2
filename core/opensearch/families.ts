/**
 * Stems that extend one another (issue 30): `search` and `search-eu`, `logs` and `logs-v2`, whether both are in the
 * profile or one of them was in an earlier one. Every index belongs to the longest stem it starts with
 * (core/contracts/index-naming.ts, `owningStem`), and each thing kfek gives a stem says so in its own terms:
 *
 * - index templates and ISM templates: a priority that grows with the stem's length, so the longer stem wins and no
 *   two overlapping patterns ever share a priority (OpenSearch refuses two index templates, and ISM two policies,
 *   whose patterns overlap at equal priority; measured on 2.19.4 for templates, read from the ISM source for
 *   policies);
 * - reader roles: the shorter stem's pattern excludes the longer stems' indices with a regular expression (the
 *   security plugin takes `/regex/` index patterns; measured: `/search-(?!eu-).*\/` reads `search-2026-11-20`, not
 *   `search-eu-2026-11-20`), so one team never reads another's indices through a shorter stem;
 * - Dashboards index patterns: the same exclusion as search syntax (`search-*,-search-eu-*`), because the plugin
 *   refuses a whole search whose wildcard reaches one forbidden index (403, measured).
 */

/** Index template priority of a stem's template: above OpenSearch's legacy and default templates (0). */
export const TEMPLATE_PRIORITY_BASE = 200;
/** ISM template priority of a stem's retention policy. */
export const ISM_PRIORITY_BASE = 100;

/**
 * Priority of the index template of `stem`. Two different stems whose patterns overlap have different lengths (one
 * is the other plus `-...`), so their priorities differ; the longest stem an index starts with wins.
 */
export function templatePriority(stem: string): number {
  return TEMPLATE_PRIORITY_BASE + stem.length;
}

/** Priority of the ISM template of `stem`'s retention policy; the same rule as {@link templatePriority}. */
export function ismPriority(stem: string): number {
  return ISM_PRIORITY_BASE + stem.length;
}

/** The stems among `stems` whose indices `stem-*` would match too: the ones that extend `stem` with `-`. */
export function nestedStems(stem: string, stems: Iterable<string>): string[] {
  return [...new Set(stems)].filter((s) => s !== stem && s.startsWith(`${stem}-`)).sort();
}

const escapeRegex = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');

/**
 * The index pattern a reader role of `stem` gets: `stem-*`, or, when longer stems extend it, a regular expression
 * that matches `stem-...` except the longer stems' indices (the security plugin matches `/.../` patterns whole).
 */
export function readerIndexPattern(stem: string, stems: Iterable<string>): string {
  const nested = nestedStems(stem, stems);
  if (nested.length === 0) return `${stem}-*`;
  const rests = nested.map((s) => escapeRegex(s.slice(stem.length + 1)));
  return `/${escapeRegex(stem)}-(?!(?:${rests.join('|')})-).*/`;
}

/**
 * The Dashboards index pattern title (search syntax) of `stem`'s indices: `stem-*`, with each longer stem's indices
 * excluded (`logs-*,-logs-audit-*`), so a reader of `stem` can search its own indices and nothing more.
 */
export function dashboardsIndexPattern(stem: string, stems: Iterable<string>): string {
  return [`${stem}-*`, ...nestedStems(stem, stems).map((s) => `-${s}-*`)].join(',');
}

/**
 * Whether two index patterns (`*` wildcards only, as index and ISM templates take them) can match one name: a
 * search over pairs of positions, as OpenSearch intersects the patterns' automata before it refuses two templates.
 */
export function patternsOverlap(a: string, b: string): boolean {
  const seen = new Set<string>();
  const todo: Array<[number, number]> = [[0, 0]];
  while (todo.length > 0) {
    const [i, j] = todo.pop() as [number, number];
    const key = `${i},${j}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (i === a.length && j === b.length) return true;
    const ca = a[i];
    const cb = b[j];
    if (ca === '*') todo.push([i + 1, j]);
    if (cb === '*') todo.push([i, j + 1]);
    if (ca === undefined || cb === undefined) continue;
    if (ca !== '*' && cb !== '*') {
      if (ca === cb) todo.push([i + 1, j + 1]);
    } else if (ca !== '*') {
      todo.push([i + 1, j]);
    } else if (cb !== '*') {
      todo.push([i, j + 1]);
    }
  }
  return false;
}
