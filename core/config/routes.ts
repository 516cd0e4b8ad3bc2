/**
 * A profile's `routes` (docs/teams-and-routes.md): each route read with the transform's rules
 * (core/contracts/route-reader.ts) and the OpenSearch side's (index stem, retention, readers), then checked against
 * the other routes and the rest of the profile. Overlaps between routes are in ./route-overlaps.ts.
 */
import { APP_FIELD_BUDGET } from '../contracts/field-budget';
import {
  OPENSEARCH_OWN_INDEX_STEMS,
  indexStemProblem,
  stemCovers,
  stemsClash,
} from '../contracts/index-naming';
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
  const stem = r.str(
    `${path}.indexStem`,
    undefined,
    'the stem of the route\'s index names, e.g. "payments" for payments-2026-11-25',
    value.indexStem,
  );
  const fault = stem === '' ? undefined : indexStemProblem(stem);
  if (fault !== undefined) {
    r.problem(
      `${path}.indexStem is ${JSON.stringify(stem)}: ${fault}. Use a lowercase name such as ${JSON.stringify(name)} ` +
        `(its indices are "<indexStem>-2026-11-25").`,
    );
  }
  const retentionDays =
    value.retentionDays === undefined
      ? defaultRetentionDays
      : r.int(`${path}.retentionDays`, 1, 36_500, value.retentionDays);
  const readerBackendRoles =
    value.readerBackendRoles === undefined
      ? []
      : readRouteReaders(r, `${path}.readerBackendRoles`, name, value.readerBackendRoles);
  if (route === undefined) return undefined;
  return { ...route, indexStem: stem, retentionDays, readerBackendRoles };
}

/**
 * Refuses index stems that cannot be kfek's: equal to another route's or to `delivery.indexPrefix`, or extending
 * one with a digit (which would take that stem's own indices, `logs-2026-...`), or overlapping the indices OpenSearch
 * keeps outside the `.` namespace (kfek's retention would delete them, its readers read them). Stems that extend
 * one another with a letter are fine: every index belongs to the longest stem it starts with (issue 30,
 * core/opensearch/families.ts).
 */
function checkStemsApart(r: Reader, routes: readonly RouteConfig[], indexPrefix: string): void {
  const stems: string[] = [];
  const own = OPENSEARCH_OWN_INDEX_STEMS.map((s) => [`OpenSearch's own ${s}-* indices`, s] as const);
  routes.forEach((route, i) => {
    const stem = route.indexStem;
    if (stem === '') return;
    for (const [label, other] of own) {
      if (!stemCovers(other, stem) && !stemCovers(stem, other)) continue;
      const how = stemCovers(other, stem)
        ? `"${other}-*" also matches "${stem}-2026-11-25"`
        : `"${stem}-*" also matches "${other}-2026-11-25"`;
      stems.push(
        `routes[${i}].indexStem ${JSON.stringify(stem)} and ${label} overlap: ${how}, so kfek's retention policy ` +
          `would delete OpenSearch's indices or its readers read them. Use a stem that neither starts with ` +
          `"${other}-" nor is the start of it.`,
      );
    }
    const others: ReadonlyArray<readonly [label: string, stem: string]> = [
      [`delivery.indexPrefix (the default route)`, indexPrefix],
      ...routes.slice(0, i).map((o, j) => [`routes[${j}].indexStem ("${o.name}")`, o.indexStem] as const),
    ];
    for (const [label, other] of others) {
      const clash = other === '' ? undefined : stemsClash(other, stem);
      if (clash === undefined) continue;
      stems.push(
        `routes[${i}].indexStem ${JSON.stringify(stem)} and ${label} ${JSON.stringify(other)} cannot both be ` +
          `stems: ${clash}. Use another stem; one stem may extend another with "-" and a letter ("${other}-audit").`,
      );
    }
  });
  for (const problem of summarized(stems, 'pairs of index stems that cannot both be kept')) r.problem(problem);
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
  if (routes.length === 0) return;
  checkStemsApart(r, routes, c.delivery.indexPrefix);
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
