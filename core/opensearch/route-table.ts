/**
 * Which index a document marked with a route goes to (issue 39, "A route's history stays its own"): the rule the
 * ingest pipeline's script applies (ingest-pipeline.ts, ROUTE_SCRIPT) in TypeScript, so kfek's own indexer (direct
 * delivery) computes `_index` with the same rule, and a test holds the two to each other on a real node.
 *
 * Why the stem travels with the name: a route name is not a team. `orders` may be team A's route on `a-orders` in
 * one profile and team C's on `c-orders` in the next, while team A's indices are kept. A document team A's transform
 * marked `orders` (in flight during the deploy, or replayed from failed documents days later) must land in
 * `a-orders`, never in team C's indices. So the transform marks the stem it routed for (`kfek.stem`, beside
 * `kfek.route`), and the pipeline sends a document only to the stem it was marked for, and only when that stem is
 * one the name pointed at (the profile's, or a retired one kfek still keeps).
 *
 * Documents marked by a transform from before issue 39 carry the name alone. Their name goes to the one stem it
 * pointed at; when it pointed at two within the time such a document can still arrive (a retired pair younger than
 * `keepRetiredHours`), nobody can tell which team marked it, and the document is refused with the reason (Firehose
 * keeps it with its failed documents) rather than guessed into another team's index.
 */

/** The route table of an ingest pipeline (its script's `params`). */
export interface RouteTable {
  /** Name -> stem, for a document marked with a name only: each name with one stem it can mean. */
  readonly names: Readonly<Record<string, string>>;
  /** Name -> the stems a document marked with that name and a stem may go to. */
  readonly marks: Readonly<Record<string, readonly string[]>>;
  /** Names that pointed at more than one stem lately: a document marked with one of them and no stem is refused. */
  readonly ambiguous: readonly string[];
  /**
   * Name -> stems kfek recorded for that name whose indices the writer may no longer write: on a collection, a
   * retired stem that left the profile, whose data access statements left with it (lambda/indexer/routes.ts). A
   * document marked with such a pair is refused, and so kept with the reason, rather than written into the default
   * index, which other teams read. A domain's pipeline has none: its retired stems stay writable.
   * @default - none
   */
  readonly withheld?: Readonly<Record<string, readonly string[]>>;
}

/** One (name, stem) pair a document may carry; `retiredAt` (ISO) when it left the profile, undefined while current. */
export interface RoutePair {
  readonly name: string;
  readonly stem: string;
  readonly retiredAt: string | undefined;
}

/**
 * The table from the pairs kfek keeps: every pair for marked documents; for name-only documents the current pair
 * and the retired ones still inside `graceMillis` of their retirement (older ones only when nothing else is left).
 */
export function routeTableOf(pairs: readonly RoutePair[], now: number, graceMillis: number): RouteTable {
  const marks: Record<string, string[]> = {};
  for (const p of pairs) {
    const stems = (marks[p.name] ??= []);
    if (!stems.includes(p.stem)) stems.push(p.stem);
  }
  const names: Record<string, string> = {};
  const ambiguous: string[] = [];
  for (const name of Object.keys(marks)) {
    const mine = pairs.filter((p) => p.name === name);
    const live = mine.filter((p) => p.retiredAt === undefined || now - Date.parse(p.retiredAt) < graceMillis);
    // Nothing current or recent: the most recently retired stem, as before issue 39.
    const latest = [...mine].sort((a, b) => Date.parse(b.retiredAt ?? '') - Date.parse(a.retiredAt ?? ''))[0];
    const stems = new Set((live.length > 0 ? live : [latest]).map((p) => p.stem));
    if (stems.size === 1) names[name] = [...stems][0];
    else ambiguous.push(name);
  }
  return { names, marks, ambiguous: ambiguous.sort() };
}

/**
 * `table` for a writer that may write only the `writable` stems' indices (a collection's indexer: its data access
 * policy covers the profile's families). Which names are ambiguous is decided over every pair first, so dropping a
 * stem never makes a name look unambiguous; then each pair or name whose stem is not writable is withheld
 * ({@link RouteTable.withheld}) instead of routed.
 */
export function withholdUnwritable(table: RouteTable, writable: ReadonlySet<string>): RouteTable {
  const marks: Record<string, readonly string[]> = {};
  const withheld: Record<string, string[]> = {};
  for (const [name, stems] of Object.entries(table.marks)) {
    const ok = stems.filter((stem) => writable.has(stem));
    if (ok.length > 0) marks[name] = ok;
    const not = stems.filter((stem) => !writable.has(stem));
    if (not.length > 0) withheld[name] = not;
  }
  const names = Object.fromEntries(Object.entries(table.names).filter(([, stem]) => writable.has(stem)));
  return { names, marks, ambiguous: table.ambiguous, withheld };
}

/** The table of a profile alone: each route's name to its stem. */
export function profileRouteTable(routes: readonly { route: string; indexStem: string }[]): RouteTable {
  return routeTableOf(
    routes.map((r) => ({ name: r.route, stem: r.indexStem, retiredAt: undefined })),
    0,
    0,
  );
}

/** What the rule decides for one marked document. */
export type RouteDecision =
  | { readonly kind: 'route'; readonly stem: string }
  /** Kept in the default index with `kfek.unknownRoute` (a name or pair kfek does not know). */
  | { readonly kind: 'unknown' }
  /** Refused (failed documents) with this reason. */
  | { readonly kind: 'refuse'; readonly reason: string };

/** The reason a name-only document of an ambiguous name is refused (the script throws the same text). */
export function ambiguousReason(name: string): string {
  return (
    `kfek: the document is marked with route ${name} and no stem, and ${name} pointed at more than one index ` +
    'stem lately (a route name moved to another stem): it was marked by a transform from before the stem mark, ' +
    'so which team it belongs to is unknown; it is refused rather than written into the indices of another team'
  );
}

/** The reason a document marked with a withheld pair ({@link RouteTable.withheld}) is refused. */
export function withheldReason(name: string, stem: string): string {
  return (
    `kfek: the document is marked with route ${name} and stem ${stem}, which left the profile; kfek may no longer ` +
    `write ${stem}'s indices on this collection (its data access statements left with it), and the default index ` +
    'is read by other teams, so it is refused and kept with this reason. Put the stem back in a route of the ' +
    'profile (with its readers) and replay it to deliver it.'
  );
}

/** Decides where a document marked `kfek.route = route` (and `kfek.stem = stem`, when set) goes. */
export function routeDecision(table: RouteTable, route: unknown, stem: unknown): RouteDecision {
  if (typeof route !== 'string') return { kind: 'unknown' };
  const withheld =
    table.withheld !== undefined && Object.hasOwn(table.withheld, route) ? table.withheld[route] : [];
  if (stem === undefined || stem === null) {
    const named = Object.hasOwn(table.names, route) ? table.names[route] : undefined;
    if (named !== undefined) return { kind: 'route', stem: named };
    if (table.ambiguous.includes(route)) return { kind: 'refuse', reason: ambiguousReason(route) };
    // A name kfek knows only through stems it may no longer write: whichever team marked it, not the default's.
    return withheld.length > 0
      ? { kind: 'refuse', reason: withheldReason(route, withheld[0]) }
      : { kind: 'unknown' };
  }
  const stems = Object.hasOwn(table.marks, route) ? table.marks[route] : [];
  if (typeof stem !== 'string') return { kind: 'unknown' };
  if (stems.includes(stem)) return { kind: 'route', stem };
  return withheld.includes(stem)
    ? { kind: 'refuse', reason: withheldReason(route, stem) }
    : { kind: 'unknown' };
}
