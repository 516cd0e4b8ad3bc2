/**
 * Routes in the transform (issue 24, docs/teams-and-routes.md): which route an envelope's events belong to, and what
 * that puts in their documents: the route's name under `kfek.route` (the shipped ingest pipeline moves the document
 * to the route's indices) and the route's static fields (team, service, environment) at the top level. The rules of
 * matching are the contract's (core/contracts/routes.ts); this compiles them once per container and remembers each
 * log group's answer. Pure: no SDK, no environment, no I/O.
 */
import {
  ROUTE_KEY,
  ROUTE_STEM_KEY,
  routeFor,
  type RouteSource,
  type TransformRoute,
} from '../contracts/routes';
import { createDropMatcher, type DropMatcher } from './drop-rules';
import { Masker } from './masking';
import { createContinuation, type Continuation } from '../contracts/multiline';
import type { CloudWatchLogEvent } from './decode';
import { type EventSource, sourceAccountOf } from './metadata';

/** A route as the document writer uses it. */
export interface DocumentRoute {
  readonly route: TransformRoute;
  /** `"route":"<name>","stem":"<indexStem>"`, the members written under `kfek`. */
  readonly kfekMember: string;
  /** The static fields as JSON members, each with its leading comma; '' when the route has none. */
  readonly staticMembers: string;
  /**
   * True when a top-level app key addresses one of the route's static fields at any path, as OpenSearch expands
   * dotted names: the key is the field, a path under it, or a path above it (`service` or `service.tier.x` for the
   * static `service.tier`; a nested `{"service":{"tier":...}}` is the key `service`). The app's value is kept under
   * `kfek.collisions`, so an app can neither change its team nor make the static field a document OpenSearch refuses.
   */
  reserves(key: string): boolean;
  /** The route's masking, compiled; undefined when it masks nothing. */
  readonly masker?: Masker;
  /** The route's drop rules, compiled; undefined when it drops nothing. */
  readonly drop?: DropMatcher;
  /** The route's multi-line rule; undefined when it joins nothing. */
  readonly continuation?: Continuation;
}

/**
 * Each event of one envelope with its route and its source account, resolved once per event: processing.ts reads
 * them for the masking, the join, the drop rules and the decisions, and asks nobody again.
 */
export interface ResolvedEvents {
  /** The route of event `i`; undefined for the default route. */
  readonly routes: ReadonlyArray<DocumentRoute | undefined>;
  /** The account event `i` comes from: its `@aws.account` (centralization) when it has one, else the owner's. */
  readonly accounts: readonly string[];
  /** True when some event's route joins lines (else the join is skipped: one document per event). */
  readonly joins: boolean;
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

  /**
   * The route and account of every event of an envelope from `source`: by the event's own `@aws.account`
   * (centralized log streams carry several accounts' events) when it has one, else the envelope's owner's, whose
   * route is looked up once.
   */
  public resolve(source: EventSource, events: readonly CloudWatchLogEvent[]): ResolvedEvents {
    const envelopeRoute = this.routeOf({ logGroup: source.logGroup, account: source.owner });
    const routes = new Array<DocumentRoute | undefined>(events.length);
    const accounts = new Array<string>(events.length);
    let joins = false;
    for (let i = 0; i < events.length; i++) {
      const account = sourceAccountOf(events[i], source);
      const route =
        account === source.owner ? envelopeRoute : this.routeOf({ logGroup: source.logGroup, account });
      routes[i] = route;
      accounts[i] = account;
      if (route?.continuation !== undefined) joins = true;
    }
    return { routes, accounts, joins };
  }
}

/** True when one of two dotted paths is the other or a path under it (segment-wise). */
function overlaps(a: string, b: string): boolean {
  const short = a.length <= b.length ? a : b;
  const long = short === a ? b : a;
  return long.startsWith(short) && (long.length === short.length || long.charCodeAt(short.length) === 0x2e);
}

function firstSegment(path: string): string {
  const dot = path.indexOf('.');
  return dot < 0 ? path : path.slice(0, dot);
}

function compile(route: TransformRoute): DocumentRoute {
  const names = Object.keys(route.staticFields);
  const firstSegments = new Set(names.map(firstSegment));
  const staticMembers = Object.entries(route.staticFields)
    .map(([name, value]) => `,${JSON.stringify(name)}:${JSON.stringify(value)}`)
    .join('');
  const { mask, drop, multiline } = route.processing;
  const masks = mask !== undefined && (mask.detectors.length > 0 || mask.custom.length > 0);
  const dropMatcher = createDropMatcher(drop);
  return {
    route,
    ...(masks ? { masker: new Masker(mask) } : {}),
    ...(dropMatcher === undefined ? {} : { drop: dropMatcher }),
    ...(multiline === undefined ? {} : { continuation: createContinuation(multiline) }),
    // The stem beside the name: the pipeline sends the document to the stem it was routed for, even after the name
    // moves to another team's stem (issue 39, core/opensearch/route-table.ts).
    kfekMember:
      `"${ROUTE_KEY}":${JSON.stringify(route.name)}` +
      (route.indexStem === undefined ? '' : `,"${ROUTE_STEM_KEY}":${JSON.stringify(route.indexStem)}`),
    staticMembers,
    reserves: (key: string): boolean => {
      if (names.length === 0 || !firstSegments.has(firstSegment(key))) return false;
      return names.some((name) => overlaps(name, key));
    },
  };
}
