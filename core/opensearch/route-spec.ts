/**
 * The routes of the OpenSearch spec (docs/teams-and-routes.md): per route, the indices `<indexStem>-*`, their
 * template, retention policy and reader role, which the provisioner applies beside the default route's. Part of the
 * spec's one schema (./spec.ts), in its own file because spec.ts is already long.
 */
import { indexStemProblem, stemsClash } from '../contracts/index-naming';
import { Problems } from '../contracts/route-problems';
import { isRouteName, RESERVED_ROUTE_NAMES, ROUTE_RETENTION_DAYS } from '../contracts/routes';
import { OpenSearchSpecError } from './errors';

/** One route's OpenSearch side (config `routes[i]`: name, indexStem, retentionDays, readerBackendRoles). */
export interface RouteSpecInput {
  /** The name the transform writes to `kfek.route`. */
  readonly name: string;
  /** The route's indices are `<indexStem>-<rotation suffix>`. */
  readonly indexStem: string;
  /** Its ISM policy deletes its indices after this many days. */
  readonly retentionDays: number;
  /** @default - none: nobody but admins reads the route's indices until someone is mapped to its reader role */
  readonly readerBackendRoles?: readonly string[];
}

/** The names of the objects one family of indices has: its index template and its ISM retention policy. */
export interface IndexFamilyNames {
  readonly indexTemplate: string;
  readonly ismPolicy: string;
}

/**
 * A family of indices kfek manages with one template and one retention policy: the default route's (`logs-*`) or
 * a route's (`payments-*`).
 */
export interface IndexFamily {
  /** The route's name; undefined for the default route. */
  readonly route?: string;
  /** The indices are `<stem>-<rotation suffix>`: the route's `indexStem`, or the default route's `indexPrefix`. */
  readonly stem: string;
  readonly indexPattern: string;
  readonly retention: { readonly deleteAfterDays: number; readonly warmAfterDays?: number };
  readonly names: IndexFamilyNames;
}

/** A resolved route. */
export interface RouteSpec extends IndexFamily {
  readonly route: string;
  readonly indexStem: string;
  readonly readerBackendRoles: readonly string[];
  readonly names: IndexFamilyNames & {
    /** The role with read access to the route's indices only, mapped to its reader backend roles. */
    readonly readerRole: string;
    /** The Dashboards index pattern of the route's indices. */
    readonly indexPatternObject: string;
  };
}

/** The objects of the indices of `stem`, named as the default route's are (`<name>-<stem>`, `<name>-<stem>-retention`). */
export function familyNames(name: string, stem: string): IndexFamilyNames {
  return { indexTemplate: `${name}-${stem}`, ismPolicy: `${name}-${stem}-retention` };
}

const RESERVED = RESERVED_ROUTE_NAMES.map((n) => JSON.stringify(n)).join(' or ');

/** The problems of one route's OpenSearch side, in the spec's words (`<path> must be ..., got <value>.`). */
function checkRoute(
  p: Problems,
  at: string,
  route: RouteSpecInput,
  seen: Set<string>,
  stems: string[],
): void {
  if (!isRouteName(route.name)) {
    p.add(
      `${at}.name must be lowercase letters, digits and '-', starting with a letter, at most 32 characters (not ` +
        `${RESERVED}), got ${JSON.stringify(route.name)}.`,
    );
  } else if (seen.has(route.name)) {
    p.add(`${at}.name ${JSON.stringify(route.name)} is listed twice; list each route once.`);
  }
  seen.add(route.name);
  const fault =
    typeof route.indexStem === 'string' ? indexStemProblem(route.indexStem) : 'it is not a string';
  if (fault !== undefined) {
    p.add(`${at}.indexStem ${JSON.stringify(route.indexStem)} is no index stem: ${fault}.`);
  } else {
    for (const other of stems) {
      const clash = stemsClash(other, route.indexStem);
      if (clash !== undefined) {
        p.add(
          `${at}.indexStem ${JSON.stringify(route.indexStem)} cannot go with ${JSON.stringify(other)}: ${clash}. ` +
            'Give every route its own stem; one may extend another with "-" and a letter (logs-audit).',
        );
      }
    }
    stems.push(route.indexStem);
  }
  const { min, max } = ROUTE_RETENTION_DAYS;
  if (!Number.isInteger(route.retentionDays) || route.retentionDays < min || route.retentionDays > max) {
    p.add(
      `${at}.retentionDays must be an integer from ${min} to ${max}, got ${JSON.stringify(route.retentionDays)}.`,
    );
  }
  const readers = route.readerBackendRoles ?? [];
  if (readers.some((v) => typeof v !== 'string' || v.length === 0)) {
    p.add(`${at}.readerBackendRoles must hold non-empty strings, got ${JSON.stringify(readers)}.`);
  }
}

/**
 * Resolves and checks the routes; `indexPrefix` is the default route's stem. The config has checked them already
 * (core/config/routes.ts, with the same rules from core/contracts/routes.ts); this guards the custom resource's
 * input, which travels as JSON.
 * @throws OpenSearchSpecError naming every problem
 */
export function resolveRouteSpecs(
  name: string,
  indexPrefix: string,
  input: readonly RouteSpecInput[],
): readonly RouteSpec[] {
  const p = new Problems([]);
  const seen = new Set<string>();
  const stems: string[] = [indexPrefix];
  input.forEach((route, i) => checkRoute(p, `routes[${i}]`, route, seen, stems));
  if (p.list.length > 0) throw new OpenSearchSpecError(p.list.join(' '));
  return input.map((route) => ({
    route: route.name,
    indexStem: route.indexStem,
    stem: route.indexStem,
    indexPattern: `${route.indexStem}-*`,
    retention: { deleteAfterDays: route.retentionDays },
    readerBackendRoles: [...(route.readerBackendRoles ?? [])],
    names: {
      ...familyNames(name, route.indexStem),
      readerRole: `${name}_${route.name}_reader`,
      indexPatternObject: `${name}-${route.indexStem}-index-pattern`,
    },
  }));
}
