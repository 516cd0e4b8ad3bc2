/**
 * The routes of the OpenSearch spec (docs/teams-and-routes.md): per route, the indices `<indexStem>-*`, their
 * template, retention policy and reader role, which the provisioner applies beside the default route's. Part of the
 * spec's one schema (./spec.ts), in its own file because spec.ts is already long.
 */
import {
  CONFIG_RULES,
  intProblem,
  membersProblems,
  stemProblem,
  stemsApartProblems,
} from '../contracts/config-rules';
import { Problems } from '../contracts/route-problems';
import { duplicateRouteNames, readRouteName } from '../contracts/route-reader';

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

/**
 * The ingest pipeline of the default route's indices with prefix `prefix`: `<name>-<prefix>-document-id`, the one
 * owner of that name. The provisioner writes it (the index template's `index.default_pipeline`), and the Pipeline
 * stack names it to the indexer (`KFEK_INGEST_PIPELINE`) and in the indexer's `es:ESHttpGet` grant. The name stays
 * `...-document-id` now that the pipeline also routes: every existing index names it as its `default_pipeline`, so a
 * new name would leave those indices without one.
 */
export function ingestPipelineName(name: string, prefix: string): string {
  return `${name}-${prefix}-document-id`;
}

/**
 * The problems of one route's OpenSearch side, by the rules and in the words the config reads a profile's routes
 * with (core/contracts/config-rules.ts, route-reader.ts).
 */
function checkRoute(p: Problems, at: string, route: RouteSpecInput): void {
  readRouteName(p, `${at}.name`, route.name);
  p.add(stemProblem(`${at}.indexStem`, route.indexStem, route.name));
  p.add(intProblem(CONFIG_RULES.routeRetentionDays, `${at}.retentionDays`, route.retentionDays));
  const readers = membersProblems(
    CONFIG_RULES.routeReaderBackendRoles,
    `${at}.readerBackendRoles`,
    route.readerBackendRoles ?? [],
    `the reader role of route ${JSON.stringify(route.name)}`,
  );
  readers.problems.forEach((problem) => p.add(problem));
}

/**
 * Resolves and checks the routes; `indexPrefix` is the default route's stem. The config has checked them already
 * (core/config/routes.ts, with the same rules); this guards the custom resource's input, which travels as JSON, and
 * the construct's props. Adds every problem to `problems`.
 */
export function resolveRouteSpecs(
  name: string,
  indexPrefix: string,
  input: readonly RouteSpecInput[],
  problems: string[],
): readonly RouteSpec[] {
  const p = new Problems(problems);
  input.forEach((route, i) => checkRoute(p, `routes[${i}]`, route));
  duplicateRouteNames('routes', input, problems);
  problems.push(
    ...stemsApartProblems([
      // A stem that is no string (JSON can hold anything) is refused on its own; here it is left out.
      {
        path: 'indexPrefix',
        stem: typeof indexPrefix === 'string' ? indexPrefix : '',
        aside: 'the default route',
      },
      ...input.map((route, i) => ({
        path: `routes[${i}].indexStem`,
        stem: typeof route.indexStem === 'string' ? route.indexStem : '',
        aside: JSON.stringify(route.name),
      })),
    ]),
  );
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
