/**
 * Reads and checks the transform's part of a route from JSON: a profile's `routes[i]` (core/config/routes.ts, which
 * reads the rest) and each route of the transform's environment (core/contracts/transform-env.ts). One reader, so
 * the transform refuses exactly what synth refuses, with the same words.
 */
import { mappableMember } from './field-budget';
import {
  ACCOUNT,
  FIELD_PATH,
  type Json,
  type JsonObject,
  LOG_GROUP_CHARS,
  LOG_GROUP_GLOB,
  Problems,
} from './route-problems';
import { readProcessing } from './route-processing';
import {
  MAX_STATIC_FIELDS,
  MAX_STATIC_VALUE_LENGTH,
  RESERVED_ROUTE_NAMES,
  RESERVED_TOP_LEVEL_FIELDS,
  ROUTE_NAME,
  ROUTE_NAME_HINT,
  type LogGroupMatch,
  type RouteAccounts,
  type RouteMatch,
  type TransformRoute,
} from './routes';

function readAccounts(p: Problems, path: string, value: Json): RouteAccounts | undefined {
  const hint = 'a 12-digit AWS account id, or a non-empty list of them';
  if (typeof value === 'string') {
    const account = p.str(path, value, ACCOUNT, hint);
    return account === undefined ? undefined : [account];
  }
  if (!Array.isArray(value) || value.length === 0) {
    p.bad(path, value, hint);
    return undefined;
  }
  const read = value.map((a, i) => p.str(`${path}[${i}]`, a, ACCOUNT, hint));
  p.unique(path, read, 'account');
  const [first, ...rest] = read.filter((a): a is string => a !== undefined);
  return first === undefined || rest.length + 1 < read.length ? undefined : [first, ...rest];
}

/** The log group criterion of a match, or undefined when it gives none; `false` when the one it gives is bad. */
function readLogGroup(p: Problems, path: string, obj: JsonObject): LogGroupMatch | undefined | false {
  if (obj.logGroup !== undefined) {
    const logGroup = p.str(
      `${path}.logGroup`,
      obj.logGroup,
      LOG_GROUP_CHARS,
      'a log group name (1-512 of a-z A-Z 0-9 _ - / . #)',
    );
    return logGroup === undefined ? false : { logGroup };
  }
  if (obj.logGroupPrefix !== undefined) {
    const logGroupPrefix = p.str(
      `${path}.logGroupPrefix`,
      obj.logGroupPrefix,
      LOG_GROUP_CHARS,
      'the start of log group names (1-512 of a-z A-Z 0-9 _ - / . #), e.g. "/aws/lambda/payments-"',
    );
    return logGroupPrefix === undefined ? false : { logGroupPrefix };
  }
  if (obj.logGroupPattern !== undefined) {
    const glob = p.str(
      `${path}.logGroupPattern`,
      obj.logGroupPattern,
      LOG_GROUP_GLOB,
      'a glob over log group names (a-z A-Z 0-9 _ - / . # with "*" for any run of characters and "?" for one), ' +
        'e.g. "/aws/lambda/*-payments"',
    );
    if (glob !== undefined && !/[*?]/.test(glob)) {
      p.add(
        `${path}.logGroupPattern ${JSON.stringify(glob)} has no "*" or "?"; for one exact name use ` +
          `"logGroup": ${JSON.stringify(glob)}.`,
      );
      return false;
    }
    return glob === undefined ? false : { logGroupPattern: glob };
  }
  return undefined;
}

/** Reads a route's `match` into the union it is ({@link RouteMatch}); undefined, with the problems, when it is bad. */
function readMatch(p: Problems, path: string, value: Json): RouteMatch | undefined {
  const obj = p.object(
    path,
    value,
    'an object with "logGroup", "logGroupPrefix" or "logGroupPattern", and/or "account"',
  );
  if (obj === undefined) return undefined;
  const before = p.list.length;
  p.keys(path, obj, ['logGroup', 'logGroupPrefix', 'logGroupPattern', 'account']);
  const groupKeys = (['logGroup', 'logGroupPrefix', 'logGroupPattern'] as const).filter(
    (k) => obj[k] !== undefined,
  );
  if (groupKeys.length > 1) {
    p.add(
      `${path} sets ${groupKeys.join(' and ')}; give at most one of logGroup, logGroupPrefix and logGroupPattern ` +
        '(a route matches one kind of log group name; list another route for the other).',
    );
  }
  if (groupKeys.length === 0 && obj.account === undefined) {
    p.add(
      `${path} is ${JSON.stringify(obj)}; a route must match something: set logGroup, logGroupPrefix or ` +
        'logGroupPattern, and/or account. (Events no route matches already go to the default route.)',
    );
  }
  // Every criterion given is read, so each bad one is reported, even past the first.
  const logGroups = groupKeys.map((k) => readLogGroup(p, path, { [k]: obj[k] }));
  const account = obj.account === undefined ? undefined : readAccounts(p, `${path}.account`, obj.account);
  const [byName] = logGroups;
  if (p.list.length > before || byName === false) return undefined;
  if (byName === undefined) return account === undefined ? undefined : { account };
  return account === undefined ? byName : { ...byName, account };
}

/** The paths a static field's key maps (`a.b` maps `a` and `a.b`). */
export function staticFieldPaths(key: string): string[] {
  const segments = key.split('.');
  return segments.map((_, i) => segments.slice(0, i + 1).join('.'));
}

function readStaticFields(p: Problems, path: string, value: Json): Record<string, string> {
  const obj = p.object(path, value, 'an object of field names to string values, e.g. { "team": "payments" }');
  if (obj === undefined) return {};
  const keys = Object.keys(obj);
  if (keys.length > MAX_STATIC_FIELDS) {
    p.add(
      `${path} has ${keys.length} fields; at most ${MAX_STATIC_FIELDS} are allowed. Keep the ones people filter by.`,
    );
  }
  const out: Record<string, string> = {};
  const paths = new Map<string, string>();
  for (const key of keys) {
    const at = `${path}[${JSON.stringify(key)}]`;
    const v = obj[key];
    const first = key.split('.')[0];
    if (RESERVED_TOP_LEVEL_FIELDS.includes(first) || first.startsWith('_')) {
      p.add(
        `${at}: ${JSON.stringify(key)} is a name kfek or OpenSearch owns (${RESERVED_TOP_LEVEL_FIELDS.join(', ')}, ` +
          'and every name starting with "_"). Choose another name, such as "team" or "service".',
      );
      continue;
    }
    // The same rules the field budget applies to app keys: no empty or whitespace-only segment, no leading or
    // trailing dot, and no deeper than the index template maps field by field.
    if (key !== key.trim() || key.endsWith('.') || !mappableMember(key, v, 0) || !FIELD_PATH.test(key)) {
      p.add(
        `${at}: ${JSON.stringify(key)} is no field name OpenSearch maps as written (empty or blank segments, a ` +
          'leading or trailing dot, spaces, or more than 3 dotted levels). Use a name such as "team" or "service.tier".',
      );
      continue;
    }
    if (typeof v !== 'string' || v.length === 0 || v.length > MAX_STATIC_VALUE_LENGTH) {
      p.bad(at, v, `a string of 1-${MAX_STATIC_VALUE_LENGTH} characters`);
      continue;
    }
    for (const own of staticFieldPaths(key)) {
      const other = paths.get(own);
      if (other !== undefined && (own === key || own === other)) {
        p.add(
          `${at}: ${JSON.stringify(key)} and ${JSON.stringify(other)} map the same path "${own}" once as a value ` +
            'and once as an object, which OpenSearch refuses. Rename one of them.',
        );
      }
      paths.set(own, key);
    }
    out[key] = v;
  }
  return out;
}

/**
 * A route's name at `path` (`routes[2].name`): its form, and not a reserved name. The one rule of every reader (the
 * config and the transform's environment through {@link readTransformRoute}, the provisioner's spec through
 * core/opensearch/route-spec.ts). Undefined, with the problem, when it is bad.
 */
export function readRouteName(p: Problems, path: string, value: Json): string | undefined {
  const name = p.str(path, value, ROUTE_NAME, ROUTE_NAME_HINT);
  if (name !== undefined && RESERVED_ROUTE_NAMES.includes(name)) {
    p.add(
      `${path} is ${JSON.stringify(name)}, the name of the route of events no route matches; choose another.`,
    );
    return undefined;
  }
  return name;
}

/** The keys of a route the transform reads (a config route has more: see core/config/routes.ts). */
export const TRANSFORM_ROUTE_KEYS: readonly string[] = ['name', 'match', 'staticFields', 'processing'];

/**
 * Reads the transform's part of one route from JSON (a profile's `routes[i]`, or an element of the transform's
 * environment), adding a problem to `problems` for every bad value. `otherKeys` are keys the caller reads itself.
 * Returns undefined when the route is unusable; the problems then say why.
 */
export function readTransformRoute(
  value: Json,
  path: string,
  problems: string[],
  otherKeys: readonly string[] = [],
): TransformRoute | undefined {
  const p = new Problems(problems);
  const before = problems.length;
  const obj = p.object(path, value, 'a route object { "name", "match", ... }');
  if (obj === undefined) return undefined;
  p.keys(path, obj, [...TRANSFORM_ROUTE_KEYS, ...otherKeys]);
  const name = readRouteName(p, `${path}.name`, obj.name);
  const match = readMatch(p, `${path}.match`, obj.match);
  const staticFields =
    obj.staticFields === undefined ? {} : readStaticFields(p, `${path}.staticFields`, obj.staticFields);
  const processing =
    obj.processing === undefined ? { drop: [] } : readProcessing(p, `${path}.processing`, obj.processing);
  if (problems.length > before || name === undefined || match === undefined) return undefined;
  return { name, match, staticFields, processing };
}

/**
 * Names of routes listed twice under `path` (`routes`), as problems. Route order matters (the first match wins),
 * so two routes with one name could never both be reached by that name.
 */
export function duplicateRouteNames(
  path: string,
  routes: readonly { readonly name: string }[],
  problems: string[],
): void {
  new Problems(problems).unique(
    path,
    routes.map((r) => r.name),
    'name',
  );
}
