/**
 * The transform functions' environment: a contract between whoever sets it (the Pipeline stack at synth, the local
 * runner of `npm start`) and whoever reads it (lambda/transform/env.ts, once per container). The names, the
 * defaults the reader applies and the service names live here only; {@link transformEnvironment} is the one writer.
 */
import { stemProblem } from './config-rules';
import { Problems } from './route-problems';
import { readTransformRoute } from './route-reader';
import type { TransformRoute } from './routes';

/** How raw records get from the raw stream through the transform to the events stream. */
export type Transport = 'lambda' | 'pipes';

/** Environment variable names the transform reads. */
export const TransformEnvVar = {
  /** ARN of the events stream the Kinesis handler writes to. */
  EventsStreamArn: 'EVENTS_STREAM_ARN',
  /** Bucket (name, not ARN) for dead-letter objects of poison records. */
  DeadLetterBucket: 'DEAD_LETTER_BUCKET',
  /** Key prefix of dead-letter objects. */
  DeadLetterPrefix: 'DEAD_LETTER_PREFIX',
  /**
   * The regions the pipeline receives logs from, comma-separated (the profile's region and `sources.regions`): the
   * only regions `cloudwatch.region` may name (issue 22, item 4). Unset: a subscription filter's region is taken
   * as it is (local runs).
   */
  SourceRegions: 'SOURCE_REGIONS',
  /** `true` or `false`: write KPL aggregated records (config `delivery.aggregation`). */
  EventsAggregation: 'EVENTS_AGGREGATION',
  /**
   * The profile's routes as JSON ({@link serializeRoutes}); unset when it has none (every event: the default route).
   */
  Routes: 'KFEK_ROUTES',
  /** Powertools' own variable: the CloudWatch namespace of the EMF metrics. */
  MetricsNamespace: 'POWERTOOLS_METRICS_NAMESPACE',
  /** Powertools' own variable: the `service` of log lines and the `service` dimension of metrics. */
  ServiceName: 'POWERTOOLS_SERVICE_NAME',
} as const;
export type TransformEnvVar = (typeof TransformEnvVar)[keyof typeof TransformEnvVar];

/** CloudWatch namespace of the transform's metrics when none is set (the deployed one is the config's `name`). */
export const DEFAULT_METRICS_NAMESPACE = 'kfek';

/**
 * Whether the transform writes KPL aggregated records when nothing says (the reader's default, config
 * `delivery.aggregation`'s default, and the local runner's).
 */
export const DEFAULT_EVENTS_AGGREGATION = true;

/** Key prefix of dead-letter objects when none is set (config `transform.deadLetterPrefix` has the same default). */
export const DEFAULT_DEAD_LETTER_PREFIX = 'dead-letter/transform/';

/**
 * Powertools service names: the `service` field of log lines and the `service` dimension of every metric, which
 * the alarms and the dashboard select on. The local runner uses the deployed names, so a query written against
 * local logs works on CloudWatch.
 */
export const TransformServiceName = {
  /** The Kinesis event source mapping handler (transport `lambda`). */
  kinesis: 'transform',
  /** The EventBridge Pipes enrichment (transport `pipes`). */
  pipes: 'transform-pipes',
} as const;
export type TransformServiceName = (typeof TransformServiceName)[keyof typeof TransformServiceName];

/** The service name the transform of a transport publishes its metrics under. */
export function transformServiceName(transport: Transport): TransformServiceName {
  return transport === 'pipes' ? TransformServiceName.pipes : TransformServiceName.kinesis;
}

/** What the Pipes enrichment needs: the settings both entry points share. */
export interface CommonTransformSettings {
  /** @default - none: a subscription filter's region is taken as it is */
  readonly sourceRegions?: readonly string[];
  /** @default {@link DEFAULT_METRICS_NAMESPACE} */
  readonly metricsNamespace?: string;
  readonly serviceName: TransformServiceName;
  /** @default - none: every event goes to the default route */
  readonly routes?: readonly TransformRoute[];
}

/** What the Kinesis handler needs besides the common settings. */
export interface KinesisTransformSettings extends CommonTransformSettings {
  readonly eventsStreamArn: string;
  readonly deadLetterBucket: string;
  /** @default {@link DEFAULT_DEAD_LETTER_PREFIX} */
  readonly deadLetterPrefix?: string;
  /** @default true */
  readonly aggregation?: boolean;
}

/**
 * The environment variables for a transform function: the one writer of {@link TransformEnvVar}. Optional settings
 * left out stay unset, so the reader's default applies. Values may be CDK tokens (strings at synth).
 */
export function transformEnvironment(
  settings: CommonTransformSettings | KinesisTransformSettings,
): Record<string, string> {
  const env: Record<string, string> = {};
  if (settings.sourceRegions !== undefined && settings.sourceRegions.length > 0) {
    env[TransformEnvVar.SourceRegions] = settings.sourceRegions.join(',');
  }
  if (settings.metricsNamespace !== undefined) {
    env[TransformEnvVar.MetricsNamespace] = settings.metricsNamespace;
  }
  env[TransformEnvVar.ServiceName] = settings.serviceName;
  if (settings.routes !== undefined && settings.routes.length > 0) {
    env[TransformEnvVar.Routes] = serializeRoutes(settings.routes);
  }
  if ('eventsStreamArn' in settings) {
    env[TransformEnvVar.EventsStreamArn] = settings.eventsStreamArn;
    env[TransformEnvVar.DeadLetterBucket] = settings.deadLetterBucket;
    if (settings.deadLetterPrefix !== undefined) {
      env[TransformEnvVar.DeadLetterPrefix] = settings.deadLetterPrefix;
    }
    if (settings.aggregation !== undefined) {
      env[TransformEnvVar.EventsAggregation] = settings.aggregation ? 'true' : 'false';
    }
  }
  return env;
}

/**
 * The most bytes {@link TransformEnvVar.Routes} may take: Lambda allows 4 KB for all of a function's variables
 * together (https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html), and the others take about
 * 600 (the events stream ARN, bucket, prefix, namespace and service name). The config refuses routes that do not fit.
 */
export const MAX_ROUTES_ENV_BYTES = 3072;

/** Version of the {@link TransformEnvVar.Routes} JSON, so a transform never misreads a later shape. */
export const ROUTES_ENV_VERSION = 1;

/**
 * The value of {@link TransformEnvVar.Routes}: `{"v":1,"routes":[{name,match,staticFields,processing,stem?}, ...]}`.
 * `stem` only where the route's index stem is not its name (the reader takes the name then), to spare the 4 KB.
 */
export function serializeRoutes(routes: readonly TransformRoute[]): string {
  return JSON.stringify({
    v: ROUTES_ENV_VERSION,
    routes: routes.map((r) => ({
      name: r.name,
      match: r.match,
      staticFields: r.staticFields,
      processing: r.processing,
      ...(r.indexStem === undefined || r.indexStem === r.name ? {} : { stem: r.indexStem }),
    })),
  });
}

/** The index stem of one route of the environment: its `stem`, or its name when it has none. */
function readStem(value: unknown, route: TransformRoute, path: string, problems: Problems): TransformRoute {
  const stem = (value as { stem?: unknown } | null)?.stem ?? route.name;
  problems.add(stemProblem(`${path}.stem`, stem));
  return { ...route, indexStem: typeof stem === 'string' ? stem : route.name };
}

/** {@link TransformEnvVar.Routes} holds something {@link parseRoutes} cannot use; `problems` says what. */
export class RoutesEnvError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      `${TransformEnvVar.Routes} is not valid: ${problems.join(' ')} It is written by the Pipeline stack from the ` +
        "profile's routes (or the local runner): redeploy, and do not edit it by hand.",
    );
    this.name = 'RoutesEnvError';
  }
}

/**
 * Reads {@link TransformEnvVar.Routes} (unset or empty: no routes), checking every route as the config does.
 * @throws RoutesEnvError naming every problem
 */
export function parseRoutes(value: string | undefined): readonly TransformRoute[] {
  if (value === undefined || value === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new RoutesEnvError([`it is not JSON (${(error as Error).message}).`]);
  }
  const body = parsed as { v?: unknown; routes?: unknown } | null;
  if (
    typeof body !== 'object' ||
    body === null ||
    body.v !== ROUTES_ENV_VERSION ||
    !Array.isArray(body.routes)
  ) {
    throw new RoutesEnvError([
      `expected {"v":${ROUTES_ENV_VERSION},"routes":[...]}, got ${value.slice(0, 200)}.`,
    ]);
  }
  const problems = new Problems([]);
  const routes = body.routes.map((r, i) => {
    const route = readTransformRoute(r, `routes[${i}]`, problems.list, ['stem']);
    return route === undefined ? undefined : readStem(r, route, `routes[${i}]`, problems);
  });
  const names = new Set<string>();
  for (const route of routes) {
    if (route === undefined) continue;
    if (names.has(route.name)) problems.add(`route ${JSON.stringify(route.name)} is listed twice.`);
    names.add(route.name);
  }
  if (problems.list.length > 0) throw new RoutesEnvError(problems.list);
  return routes.filter((r): r is TransformRoute => r !== undefined);
}
