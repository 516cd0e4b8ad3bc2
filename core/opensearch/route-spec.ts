/**
 * The routes of the OpenSearch spec (docs/teams-and-routes.md): per route, the indices `<indexStem>-*`, their
 * template, retention policy and reader role, which the provisioner applies beside the default route's. Part of the
 * spec's one schema (./spec.ts), in its own file because spec.ts is already long.
 */
import { indexStemProblem, stemsClash } from '../contracts/index-naming';
import { ROUTE_NAME } from '../contracts/routes';
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

/** Resolves and checks the routes; `indexPrefix` is the default route's stem. */
export function resolveRouteSpecs(
  name: string,
  indexPrefix: string,
  input: readonly RouteSpecInput[],
): readonly RouteSpec[] {
  const seen = new Set<string>();
  const stems: string[] = [indexPrefix];
  return input.map((route, i) => {
    const at = `routes[${i}]`;
    if (typeof route.name !== 'string' || !ROUTE_NAME.test(route.name) || route.name === 'default') {
      throw new OpenSearchSpecError(
        `${at}.name must be lowercase letters, digits and '-', starting with a letter (not "default"), got ` +
          `${JSON.stringify(route.name)}.`,
      );
    }
    if (seen.has(route.name)) {
      throw new OpenSearchSpecError(
        `${at}.name ${JSON.stringify(route.name)} is listed twice; list each route once.`,
      );
    }
    seen.add(route.name);
    const fault =
      typeof route.indexStem === 'string' ? indexStemProblem(route.indexStem) : 'it is not a string';
    if (fault !== undefined) {
      throw new OpenSearchSpecError(
        `${at}.indexStem ${JSON.stringify(route.indexStem)} is no index stem: ${fault}.`,
      );
    }
    for (const other of stems) {
      const clash = stemsClash(other, route.indexStem);
      if (clash !== undefined) {
        throw new OpenSearchSpecError(
          `${at}.indexStem ${JSON.stringify(route.indexStem)} cannot go with ${JSON.stringify(other)}: ${clash}. ` +
            'Give every route its own stem; one may extend another with "-" and a letter (logs-audit).',
        );
      }
    }
    stems.push(route.indexStem);
    if (!Number.isInteger(route.retentionDays) || route.retentionDays < 1 || route.retentionDays > 36_500) {
      throw new OpenSearchSpecError(
        `${at}.retentionDays must be an integer from 1 to 36500, got ${JSON.stringify(route.retentionDays)}.`,
      );
    }
    const readers = [...(route.readerBackendRoles ?? [])];
    if (readers.some((v) => typeof v !== 'string' || v.length === 0)) {
      throw new OpenSearchSpecError(
        `${at}.readerBackendRoles must hold non-empty strings, got ${JSON.stringify(readers)}.`,
      );
    }
    return {
      route: route.name,
      indexStem: route.indexStem,
      stem: route.indexStem,
      indexPattern: `${route.indexStem}-*`,
      retention: { deleteAfterDays: route.retentionDays },
      readerBackendRoles: readers,
      names: {
        ...familyNames(name, route.indexStem),
        readerRole: `${name}_${route.name}_reader`,
        indexPatternObject: `${name}-${route.indexStem}-index-pattern`,
      },
    };
  });
}
