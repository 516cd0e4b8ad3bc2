/**
 * Which routes of a profile match the same sources. Routes are tried in order and the first match wins
 * (core/contracts/routes.ts `routeFor`), so an overlap is legal but worth a warning at synth, and a route that an
 * earlier one matches wholly can never be reached: an error.
 *
 * The analysis is sound for "wholly shadowed" (it reports it only when it is sure) and conservative for "may
 * overlap" (two globs whose literal starts agree are reported, even if no log group could match both).
 */
import {
  admitsName,
  globMatch,
  type NameCriterion,
  nameCriterion,
  type RouteMatch,
} from '../contracts/routes';

/** The characters of a glob before its first wildcard: every name it matches starts with them. */
function literalStart(glob: string): string {
  const wildcard = glob.search(/[*?]/);
  return wildcard < 0 ? glob : glob.slice(0, wildcard);
}

/** True when every log group name `b` admits, `a` admits too. */
function nameCovers(a: NameCriterion, b: NameCriterion): boolean {
  if (a.kind === 'any') return true;
  if (b.kind === 'any') return false;
  switch (a.kind) {
    case 'exact':
      return b.kind === 'exact' && b.value === a.value;
    case 'prefix':
      return (b.kind === 'glob' ? literalStart(b.value) : b.value).startsWith(a.value);
    case 'glob':
      if (b.kind === 'exact') return globMatch(a.value, b.value);
      if (b.value === a.value) return true;
      // `a` ending in `*` matches every extension of a text it matches.
      return a.value.endsWith('*') && globMatch(a.value, b.kind === 'glob' ? literalStart(b.value) : b.value);
  }
}

/** False only when no log group name can meet both criteria. */
function nameMayOverlap(a: NameCriterion, b: NameCriterion): boolean {
  if (a.kind === 'exact') return admitsName(b, a.value);
  if (b.kind === 'exact') return admitsName(a, b.value);
  if (a.kind === 'any' || b.kind === 'any') return true;
  const x = a.kind === 'glob' ? literalStart(a.value) : a.value;
  const y = b.kind === 'glob' ? literalStart(b.value) : b.value;
  return x.startsWith(y) || y.startsWith(x);
}

function accountsCover(a: RouteMatch['account'], b: RouteMatch['account']): boolean {
  if (a === undefined) return true;
  return b !== undefined && b.every((account) => a.includes(account));
}

function accountsMayOverlap(a: RouteMatch['account'], b: RouteMatch['account']): boolean {
  return a === undefined || b === undefined || a.some((account) => b.includes(account));
}

interface NamedRoute {
  readonly name: string;
  readonly match: RouteMatch;
}

function describe(match: RouteMatch): string {
  return JSON.stringify(match);
}

/**
 * Pairs of routes where the earlier one matches some of what the later one matches. `whole`: it matches all of
 * it, so the later route is never chosen.
 */
export function routeOverlaps(
  routes: readonly NamedRoute[],
): Array<{ readonly first: number; readonly later: number; readonly whole: boolean }> {
  const out: Array<{ first: number; later: number; whole: boolean }> = [];
  routes.forEach((later, j) => {
    const b = nameCriterion(later.match);
    routes.slice(0, j).forEach((first, i) => {
      const a = nameCriterion(first.match);
      if (nameCovers(a, b) && accountsCover(first.match.account, later.match.account)) {
        out.push({ first: i, later: j, whole: true });
      } else if (nameMayOverlap(a, b) && accountsMayOverlap(first.match.account, later.match.account)) {
        out.push({ first: i, later: j, whole: false });
      }
    });
  });
  return out;
}

/** Most pairs a problem or warning about routes names one by one. */
export const MAX_PAIRS_LISTED = 5;

/**
 * Findings about pairs of routes, reported one by one up to {@link MAX_PAIRS_LISTED}; past that, once: their shape,
 * their number and the first few. Forty nested routes make 500 pairs and 500 routes 125,000: a wall of messages (22 MB
 * for 500) that no one reads hides the one fix they share.
 */
export function summarized(findings: readonly string[], shape: string): string[] {
  if (findings.length <= MAX_PAIRS_LISTED) return [...findings];
  const shown = findings.slice(0, 3).map((f, i) => `(${i + 1}) ${f}`);
  return [
    `${findings.length} ${shape}. The first ${shown.length}: ${shown.join(' ')} ... and ${findings.length - shown.length} ` +
      'more of the same kind: fix the shape (order or narrow the routes) and synthesize again.',
  ];
}

/** A route an earlier route wholly shadows: a config error, since it would never receive an event. */
export function routeShadowProblems(routes: readonly NamedRoute[]): string[] {
  return summarized(shadowProblems(routes), 'pairs of routes where a later route can never be chosen');
}

function shadowProblems(routes: readonly NamedRoute[]): string[] {
  return routeOverlaps(routes)
    .filter((o) => o.whole)
    .map(({ first, later }) => {
      const [a, b] = [routes[first], routes[later]];
      return (
        `routes[${later}] ("${b.name}", match ${describe(b.match)}) can never be chosen: routes[${first}] ` +
        `("${a.name}", match ${describe(a.match)}) comes first and matches everything it matches (the first ` +
        `matching route wins). Move "${b.name}" before "${a.name}", narrow "${a.name}", or remove "${b.name}".`
      );
    });
}

/** Routes that may share sources, for a synth-time warning: the earlier one gets their events. */
export function routeOverlapWarnings(routes: readonly NamedRoute[]): string[] {
  return summarized(
    overlapWarnings(routes),
    'pairs of routes that may match the same events (the earlier one gets them)',
  );
}

function overlapWarnings(routes: readonly NamedRoute[]): string[] {
  return routeOverlaps(routes)
    .filter((o) => !o.whole)
    .map(({ first, later }) => {
      const [a, b] = [routes[first], routes[later]];
      return (
        `route "${a.name}" (routes[${first}], match ${describe(a.match)}) shadows route "${b.name}" ` +
        `(routes[${later}], match ${describe(b.match)}) where both match: such events go to "${a.name}", the ` +
        'first match. Reorder the routes if they should go to the other.'
      );
    });
}
