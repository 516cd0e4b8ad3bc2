/**
 * A profile's `routes` (docs/teams-and-routes.md): each route read with the transform's rules
 * (core/contracts/route-reader.ts) and the OpenSearch side's (index stem, retention, readers), then checked against
 * the other routes and the rest of the profile. Overlaps between routes are in ./route-overlaps.ts.
 */
import { APP_FIELD_BUDGET } from '../contracts/field-budget';
import { CONFIG_RULES as RULES, stemProblem, stemsApartProblems } from '../contracts/config-rules';
import { duplicateRouteNames, readTransformRoute, staticFieldPaths } from '../contracts/route-reader';
import { MAX_ROUTES_ENV_BYTES, TransformEnvVar, serializeRoutes } from '../contracts/transform-env';
import { readRouteReaders } from './names';
import { TEMPLATE_FIELDS } from '../opensearch/mappings';
import { type Reader, isObject } from './reader';
import { routeShadowProblems, summarized } from './route-overlaps';
import type { PipelineConfig, RouteConfig } from './types';

/** The keys of a route besides the transform's (name, match, staticFields, processing). */
const OPENSEARCH_ROUTE_KEYS = ['indexStem', 'retentionDays', 'readerBackendRoles'] as const;

function readRoute(
  r: Reader,
  value: unknown,
  path: string,
  defaultRetentionDays: number,
): RouteConfig | undefined {
  const route = readTransformRoute(value, path, r.problems, OPENSEARCH_ROUTE_KEYS);
  if (!isObject(value)) return undefined;
  const name = route?.name ?? String(value.name);
  const stemFault = stemProblem(`${path}.indexStem`, value.indexStem, name);
  if (stemFault !== undefined) r.problem(stemFault);
  const retentionDays =
    value.retentionDays === undefined
      ? defaultRetentionDays
      : r.ruleInt(RULES.routeRetentionDays, `${path}.retentionDays`, value.retentionDays);
  const readerBackendRoles =
    value.readerBackendRoles === undefined
      ? []
      : readRouteReaders(r, `${path}.readerBackendRoles`, name, value.readerBackendRoles);
  if (route === undefined) return undefined;
  const indexStem = typeof value.indexStem === 'string' ? value.indexStem : '';
  return { ...route, indexStem, retentionDays, readerBackendRoles };
}

/**
 * Refuses index stems that cannot be kfek's together, or overlap OpenSearch's own indices (the one rule,
 * core/contracts/config-rules.ts `stemsApartProblems`): the default route's prefix and every route's stem.
 */
function checkStemsApart(r: Reader, routes: readonly RouteConfig[], indexPrefix: string): void {
  const problems = stemsApartProblems([
    { path: 'delivery.indexPrefix', stem: indexPrefix, aside: 'the default route' },
    ...routes.map((route, i) => ({
      path: `routes[${i}].indexStem`,
      stem: route.indexStem,
      aside: JSON.stringify(route.name),
    })),
  ]);
  for (const problem of summarized(problems, 'pairs of index stems that cannot both be kept'))
    r.problem(problem);
}

/**
 * Reads `routes` and checks them against each other. When one route is unusable, its problems are reported and the
 * checks between routes wait for the fix (they name routes by position, which only holds for the whole list).
 */
export function readRoutes(r: Reader, defaultRetentionDays: number): RouteConfig[] {
  const routes = r
    .array('routes', r.raw('routes'))
    .map((value, i) => readRoute(r, value, `routes[${i}]`, defaultRetentionDays));
  const read = routes.filter((route): route is RouteConfig => route !== undefined);
  if (read.length < routes.length) return [];
  duplicateRouteNames('routes', read, r.problems);
  r.problems.push(...routeShadowProblems(read));
  return read;
}

/** Rules between the routes and other sections, checked after every section is read. */
export function checkRoutes(r: Reader, c: Omit<PipelineConfig, 'profile'>): void {
  const routes = c.routes;
  checkStemsApart(r, routes, c.delivery.indexPrefix);
  if (routes.length === 0) return;
  const limit = c.openSearch.indexTemplate.totalFieldsLimit;
  routes.forEach((route, i) => {
    if (route.retentionDays >= c.failedRecords.expireAfterDays) {
      r.problem(
        `routes[${i}].retentionDays (${route.retentionDays}) must be below failedRecords.expireAfterDays ` +
          `(${c.failedRecords.expireAfterDays}): failed documents and dead letters of route "${route.name}" would ` +
          'be deleted while its indexed logs are still searchable, so a gap could no longer be replayed. Raise ' +
          'failedRecords.expireAfterDays or lower the route retention.',
      );
    }
    const staticPaths = new Set(Object.keys(route.staticFields).flatMap(staticFieldPaths)).size;
    if (TEMPLATE_FIELDS + APP_FIELD_BUDGET + staticPaths > limit) {
      r.problem(
        `routes[${i}].staticFields map ${staticPaths} fields, and with the template's ${TEMPLATE_FIELDS} and one ` +
          `document's ${APP_FIELD_BUDGET} app fields that passes openSearch.indexTemplate.totalFieldsLimit ` +
          `(${limit}). Raise the limit to ${TEMPLATE_FIELDS + APP_FIELD_BUDGET + staticPaths} or use fewer static fields.`,
      );
    }
  });
  const bytes = Buffer.byteLength(serializeRoutes(routes), 'utf8');
  if (bytes > MAX_ROUTES_ENV_BYTES) {
    r.problem(
      `routes take ${bytes} bytes as the transform's ${TransformEnvVar.Routes} environment variable, more than the ` +
        `${MAX_ROUTES_ENV_BYTES} that fit beside its other variables in Lambda's 4 KB. Shorten the patterns and ` +
        'static fields, or merge routes (match several log groups with one logGroupPrefix or logGroupPattern).',
    );
  }
}
