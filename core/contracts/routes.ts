/**
 * Routes (issue 24): which team a log event belongs to, and what the transform does for that team. One owner for
 * the config (core/config/routes.ts reads a profile's `routes` with these rules), the transform (which receives the
 * routes as JSON in its environment, core/contracts/transform-env.ts, and marks each document with its route) and
 * the OpenSearch side (whose ingest pipeline sends a marked document to its route's indices). docs/teams-and-routes.md
 * is the user's version.
 *
 * Only what the transform needs is here: a route's name, what it matches, its static fields and its processing.
 * Its index stem, retention and readers are the OpenSearch side's (core/opensearch/spec.ts).
 */
/** Key under `kfek` where the transform writes the name of a document's route (absent: the default route). */
export const ROUTE_KEY = 'route';
/**
 * Key under `kfek` where the transform writes the index stem of the document's route, beside its name: the ingest
 * pipeline routes by the pair and removes it (issue 39, core/opensearch/route-table.ts).
 */
export const ROUTE_STEM_KEY = 'stem';
/**
 * Key under `kfek` where the ingest pipeline keeps a `kfek.route` it did not know (the document stays in the
 * default indices; `kfek.route` is removed).
 */
export const UNKNOWN_ROUTE_KEY = 'unknownRoute';

/** A route's name: lowercase letters, digits and hyphens, starting with a letter (it goes into role and object names). */
export const ROUTE_NAME = /^[a-z][a-z0-9-]{0,31}$/;
export const ROUTE_NAME_HINT =
  'a short id of lowercase letters, digits and hyphens, starting with a letter, at most 32 characters, e.g. "payments"';
/** Not a route name: the documents of no route are "the default route". */
export const RESERVED_ROUTE_NAMES: readonly string[] = ['default'];

/** The masking detectors the transform has. */
export type MaskDetector =
  'email' | 'creditCard' | 'awsAccessKeyId' | 'awsSecretKey' | 'jwt' | 'ipv4' | 'ipv6';
export const MASK_DETECTORS: readonly MaskDetector[] = [
  'email',
  'creditCard',
  'awsAccessKeyId',
  'awsSecretKey',
  'jwt',
  'ipv4',
  'ipv6',
];

/** A custom masking pattern: what it matches is replaced by a marker naming it. */
export interface CustomMask {
  /** Names the pattern in the marker and the metrics (`[a-zA-Z][a-zA-Z0-9_-]{0,31}`). */
  readonly name: string;
  /**
   * A regular expression source (RE2 syntax, which JavaScript's mostly shares), compiled by route-pattern.ts
   * `compileRoutePattern`; never matches empty text.
   */
  readonly pattern: string;
}

export interface MaskSettings {
  /** Built-in detectors, in no particular order; each at most once. */
  readonly detectors: readonly MaskDetector[];
  readonly custom: readonly CustomMask[];
}

/**
 * An event is dropped when every condition the rule gives holds: `messagePattern` matches the document's
 * `message`, and `fieldPattern` matches a value of `field` in the document as it will be indexed (a dotted path that
 * finds the value written nested, dotted or both; a number or boolean as its JSON text; an absent field or an object
 * never matches). At least one condition; `field` and `fieldPattern` go together: the union says so.
 */
export type DropRule =
  | {
      readonly name: string;
      readonly messagePattern: string;
      readonly field?: undefined;
      readonly fieldPattern?: undefined;
    }
  | {
      readonly name: string;
      readonly messagePattern?: string;
      readonly field: string;
      readonly fieldPattern: string;
    };

export type MultilineMode = 'java' | 'python' | 'pattern';
export const MULTILINE_MODES: readonly MultilineMode[] = ['java', 'python', 'pattern'];

/**
 * Continuation lines joined into the previous event of their log stream (of the same account and route). Mode
 * `pattern` carries its pattern (a continuation line is one it matches); the others have none.
 */
export type MultilineSettings =
  | { readonly mode: 'java' | 'python'; readonly pattern?: undefined }
  | { readonly mode: 'pattern'; readonly pattern: string };

/** What the transform does to a route's events; a section left out is off. */
export interface RouteProcessing {
  readonly mask?: MaskSettings;
  /** Empty: nothing is dropped. */
  readonly drop: readonly DropRule[];
  readonly multiline?: MultilineSettings;
}

/** No log group criterion: the route matches by account alone. */
interface AnyLogGroup {
  readonly logGroup?: undefined;
  readonly logGroupPrefix?: undefined;
  readonly logGroupPattern?: undefined;
}

/**
 * At most one log group criterion, as the reader (route-reader.ts) allows: the union says so, so no caller asks
 * which of the three is set.
 */
export type LogGroupMatch =
  | (Omit<AnyLogGroup, 'logGroup'> & {
      /** The log group's exact name. */
      readonly logGroup: string;
    })
  | (Omit<AnyLogGroup, 'logGroupPrefix'> & {
      /** The log group's name starts with this. */
      readonly logGroupPrefix: string;
    })
  | (Omit<AnyLogGroup, 'logGroupPattern'> & {
      /**
       * A glob over the whole log group name: `*` is any run of characters (`/` included), `?` one character; every
       * other character stands for itself. Globs, not regular expressions: they cannot backtrack catastrophically,
       * and log group names have no characters a glob would need to escape.
       */
      readonly logGroupPattern: string;
    });

/** The source accounts a route matches (12 digits each): at least one. */
export type RouteAccounts = readonly [string, ...string[]];

/**
 * What a route matches: every criterion given must hold; at most one of `logGroup`, `logGroupPrefix` and
 * `logGroupPattern`, and at least one criterion (a route without a log group criterion names its accounts). The JSON
 * form is the profile's (`{"logGroupPrefix": "/aws/lambda/payments-", "account": ["111122223333"]}`).
 */
export type RouteMatch =
  | (LogGroupMatch & { readonly account?: RouteAccounts })
  | (AnyLogGroup & { readonly account: RouteAccounts });

/**
 * A match's log group criterion as one value: the form the matcher (below) and the overlap analysis
 * (core/config/route-overlaps.ts) reason about.
 */
export type NameCriterion =
  { readonly kind: 'any' } | { readonly kind: 'exact' | 'prefix' | 'glob'; readonly value: string };

/** The log group criterion of `match`. */
export function nameCriterion(match: RouteMatch): NameCriterion {
  if (match.logGroup !== undefined) return { kind: 'exact', value: match.logGroup };
  if (match.logGroupPrefix !== undefined) return { kind: 'prefix', value: match.logGroupPrefix };
  if (match.logGroupPattern !== undefined) return { kind: 'glob', value: match.logGroupPattern };
  return { kind: 'any' };
}

/** True when the criterion admits the log group `name`. */
export function admitsName(c: NameCriterion, name: string): boolean {
  switch (c.kind) {
    case 'any':
      return true;
    case 'exact':
      return c.value === name;
    case 'prefix':
      return name.startsWith(c.value);
    case 'glob':
      return globMatch(c.value, name);
  }
}

/** A route as the transform sees it. */
export interface TransformRoute {
  readonly name: string;
  readonly match: RouteMatch;
  /**
   * Top-level fields set on every document of the route (team, service, environment), after the app's fields: an
   * app key with the same first path segment is moved to `kfek.collisions` like any collision, so an app cannot
   * change its team.
   */
  readonly staticFields: Readonly<Record<string, string>>;
  readonly processing: RouteProcessing;
  /**
   * The stem of the route's indices, which the transform marks beside the name (`kfek.stem`), so the ingest pipeline
   * sends the document to the stem it was routed for even after the name moves to another stem (issue 39,
   * core/opensearch/route-table.ts). @default - not marked: the pipeline goes by the name alone
   */
  readonly indexStem?: string;
}

/** What a route is chosen by: the envelope's log group, and the source account. */
export interface RouteSource {
  readonly logGroup: string;
  /** `cloudwatch.account` when the envelope has it (centralization), else `cloudwatch.owner`. */
  readonly account?: string;
}

/** `*` and `?` glob match over the whole of `text`, linear in practice (no backtracking beyond the last `*`). */
export function globMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let mark = 0;
  while (t < text.length) {
    const c = pattern[p];
    if (p < pattern.length && (c === '?' || (c !== '*' && c === text[t]))) {
      p++;
      t++;
    } else if (c === '*') {
      star = p++;
      mark = t;
    } else if (star >= 0) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

/** True when `source` meets every criterion of `match`. */
export function routeMatches(match: RouteMatch, source: RouteSource): boolean {
  if (!admitsName(nameCriterion(match), source.logGroup)) return false;
  if (
    match.account !== undefined &&
    (source.account === undefined || !match.account.includes(source.account))
  ) {
    return false;
  }
  return true;
}

/** The first route, in order, whose match `source` meets; undefined: the default route. */
export function routeFor<R extends Pick<TransformRoute, 'match'>>(
  source: RouteSource,
  routes: readonly R[],
): R | undefined {
  for (const route of routes) if (routeMatches(route.match, source)) return route;
  return undefined;
}

/** The longest pattern source a route may hold (the routes travel in the transform's 4 KB environment). */
export const MAX_PATTERN_LENGTH = 1024;
/** At most this many static fields per route. */
export const MAX_STATIC_FIELDS = 20;
/** Longest static field value (characters): the index template keeps longer keywords unindexed. */
export const MAX_STATIC_VALUE_LENGTH = 256;

/**
 * Top-level names a static field may not take: the fields kfek writes (docs/schema.md: `@timestamp`, `message`,
 * `cloudwatch`, `kfek` and the derived `level`, `thread`, `logger`, `lambda`). Names starting with `_` are refused
 * too: OpenSearch reads many of them as metadata (core/transform/collisions.ts lists those measured).
 */
export const RESERVED_TOP_LEVEL_FIELDS: readonly string[] = [
  '@timestamp',
  'message',
  'cloudwatch',
  'kfek',
  'level',
  'thread',
  'logger',
  'lambda',
];

/** How the route of a log group's events depends on the account they come from (backfill asks: cli/backfill). */
export interface AccountDependence {
  /** The routes that match the log group by name and name accounts, in order (none: the account decides nothing). */
  readonly accountRoutes: readonly string[];
  /**
   * Accounts other than `owner` that those routes name: events reach such a route from a group owned by `owner` only
   * through CloudWatch Logs centralization, whose `@aws.account` FilterLogEvents does not return.
   */
  readonly foreignAccounts: readonly string[];
}

/**
 * Which routes could send a log group's events to different places depending on their account: those that match the
 * group by name and list accounts, up to the first that matches it by name alone (which takes every other account).
 */
export function accountDependence<R extends Pick<TransformRoute, 'name' | 'match'>>(
  logGroup: string,
  owner: string,
  routes: readonly R[],
): AccountDependence {
  const accountRoutes: string[] = [];
  const foreign = new Set<string>();
  for (const route of routes) {
    if (!admitsName(nameCriterion(route.match), logGroup)) continue;
    const account = route.match.account;
    if (account === undefined) break;
    accountRoutes.push(route.name);
    for (const a of account) if (a !== owner) foreign.add(a);
  }
  return { accountRoutes, foreignAccounts: [...foreign] };
}

/**
 * Why the events of `logGroup` (owned by `owner`) cannot be sent through the transform again as live sent them, or
 * undefined when they can: a route takes them by source account (accountDependence). One rule and one wording for
 * every command that re-sends events read with FilterLogEvents (`kfek backfill`, `kfek reconcile --heal`).
 */
export function accountRoutingProblem<R extends Pick<TransformRoute, 'name' | 'match'>>(
  logGroup: string,
  owner: string,
  routes: readonly R[],
): string | undefined {
  const { accountRoutes, foreignAccounts } = accountDependence(logGroup, owner, routes);
  if (foreignAccounts.length === 0) return undefined;
  const many = accountRoutes.length > 1;
  return (
    `${logGroup} (owned by ${owner}): route${many ? 's' : ''} ${accountRoutes.join(', ')} ` +
    `take${many ? '' : 's'} its events by source account (${foreignAccounts.join(', ')})`
  );
}

/** The refusal of `command` for the {@link accountRoutingProblem}s of its log groups, with the reason and the fix. */
export function accountRoutingRefusal(command: string, problems: readonly string[], fix: string): string {
  return (
    `${command}: cannot reproduce the live documents of ${problems.join('; ')}. Events from another account reach a ` +
    'log group only through CloudWatch Logs centralization, and FilterLogEvents does not return their source ' +
    `account (@aws.account), so ${command} could not tell which route live sent them to. ${fix}`
  );
}
