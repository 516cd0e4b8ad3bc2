/**
 * Routes in the transform (issue 24, docs/teams-and-routes.md): which route an envelope's events belong to, and what
 * that puts in their documents: the route's name under `kfek.route` (the shipped ingest pipeline moves the document
 * to the route's indices) and the route's static fields (team, service, environment) at the top level. The rules of
 * matching are the contract's (core/contracts/routes.ts); this compiles them once per container and remembers each
 * log group's answer. Pure: no SDK, no environment, no I/O.
 */
import { ROUTE_KEY, routeFor, type RouteSource, type TransformRoute } from '../../core/contracts/routes';
import { createDropMatcher, type DropMatcher } from './drop-rules';
import { Masker } from './masking';
import { createContinuation, type Continuation } from './multiline';

/** A route as the document writer uses it. */
export interface DocumentRoute {
  readonly route: TransformRoute;
  /** `"route":"<name>"`, the member written under `kfek`. */
  readonly kfekMember: string;
  /** The static fields as JSON members, each with its leading comma; '' when the route has none. */
  readonly staticMembers: string;
  /**
   * True when an app key addresses one of the route's static fields (its first path segment, as OpenSearch expands
   * dotted names, is the field's name): the app's value is kept under `kfek.collisions`, so an app cannot change
   * its team.
   */
  reserves(key: string): boolean;
  /** The route's masking, compiled; undefined when it masks nothing. */
  readonly masker?: Masker;
  /** The route's drop rules, compiled; undefined when it drops nothing. */
  readonly drop?: DropMatcher;
  /** The route's multi-line rule; undefined when it joins nothing. */
  readonly continuation?: Continuation;
}

/** Most distinct (log group, account) answers remembered; a container sees a few hundred log groups at most. */
const MAX_REMEMBERED = 10_000;

/** The routes of a profile, compiled once; `routeOf` answers per log group and account. */
export class RouteTable {
  private readonly compiled: ReadonlyMap<TransformRoute, DocumentRoute>;
  private readonly remembered = new Map<string, DocumentRoute | undefined>();

  public constructor(private readonly routes: readonly TransformRoute[]) {
    this.compiled = new Map(routes.map((route) => [route, compile(route)]));
  }

  /** Values masked by every route since the last call; resets them (one record's worth, as the transform asks). */
  public takeMaskedValues(): number {
    let total = 0;
    for (const route of this.compiled.values()) {
      if (route.masker === undefined) continue;
      for (const n of Object.values(route.masker.takeCounts())) total += n;
    }
    return total;
  }

  /** True when some route masks: error documents then carry no preview of a record's raw data. */
  public get masks(): boolean {
    for (const route of this.compiled.values()) if (route.masker !== undefined) return true;
    return false;
  }

  /** The route of events from `source`; undefined for the default route. */
  public routeOf(source: RouteSource): DocumentRoute | undefined {
    if (this.routes.length === 0) return undefined;
    const key = `${source.logGroup}\0${source.account ?? ''}`;
    if (this.remembered.has(key)) return this.remembered.get(key);
    const route = routeFor(source, this.routes);
    const answer = route === undefined ? undefined : this.compiled.get(route);
    if (this.remembered.size >= MAX_REMEMBERED) this.remembered.clear();
    this.remembered.set(key, answer);
    return answer;
  }
}

function compile(route: TransformRoute): DocumentRoute {
  const names = new Set(Object.keys(route.staticFields));
  const staticMembers = Object.entries(route.staticFields)
    .map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`)
    .join('');
  const { mask, drop, multiline } = route.processing;
  const masks = mask !== undefined && (mask.detectors.length > 0 || mask.custom.length > 0);
  return {
    route,
    ...(masks ? { masker: new Masker(mask) } : {}),
    ...(drop.length > 0 ? { drop: createDropMatcher(drop) } : {}),
    ...(multiline === undefined ? {} : { continuation: createContinuation(multiline) }),
    kfekMember: `"${ROUTE_KEY}":${JSON.stringify(route.name)}`,
    staticMembers,
    reserves: (key: string): boolean => {
      if (names.size === 0) return false;
      const dot = key.indexOf('.');
      return names.has(dot < 0 ? key : key.slice(0, dot));
    },
  };
}
