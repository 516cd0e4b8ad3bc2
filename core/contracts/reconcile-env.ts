/**
 * The scheduled reconcile function's environment: a contract between the Pipeline stack that writes it (at synth,
 * values may be CDK tokens) and lambda/reconcile/handler.ts that reads it once per container. One writer
 * ({@link reconcileEnvironment}), one reader ({@link readReconcileEnvironment}). The routes travel in the transform's
 * own variable (`KFEK_ROUTES`, transform-env.ts), so the function decides drops and joins with exactly the routes the
 * transform has.
 */
import { CONFIG_RULES, patternProblem, stemProblem } from './config-rules';
import type { IndexRotation } from './index-naming';
import type { OpenSearchSigningService } from './indexer-env';
import { parseRoutes, serializeRoutes, TransformEnvVar } from './transform-env';
import type { TransformRoute } from './routes';

export const ReconcileEnvVar = {
  /** The job as JSON ({@link ReconcileJobEnv}), version {@link RECONCILE_ENV_VERSION}. */
  Job: 'KFEK_RECONCILE',
  /** The routes, as the transform gets them. */
  Routes: TransformEnvVar.Routes,
  /** Powertools' own variables: the namespace and `service` dimension of the function's metrics. */
  MetricsNamespace: TransformEnvVar.MetricsNamespace,
  ServiceName: TransformEnvVar.ServiceName,
} as const;

/** The `service` dimension of the reconcile function's metrics (alarms and the dashboard select on it). */
export const RECONCILE_SERVICE_NAME = 'reconcile';

export const RECONCILE_ENV_VERSION = 1;

/** What one run needs besides the routes. */
export interface ReconcileJobEnv {
  /** The subscribed log groups and their configured filter patterns. */
  readonly logGroups: readonly { readonly name: string; readonly filterPattern: string }[];
  /** The account of the log groups (the function's own). */
  readonly account: string;
  /** The raw stream's ARN: whose subscriptions are compared, and where the heal sends. */
  readonly rawStreamArn: string;
  /** The failed-records bucket and its prefixes (dead letters, failed documents; discarded batches are `aws/lambda/`). */
  readonly bucket: string;
  readonly deadLetterPrefix: string;
  readonly failedDocumentsPrefix: string;
  /** `https://<domain endpoint>`, or the collection's endpoint. */
  readonly openSearchUrl: string;
  /**
   * The SigV4 service of {@link openSearchUrl}: `es` for a domain, `aoss` for an OpenSearch Serverless collection
   * (whose lookups then send no routing, docs/serverless.md).
   * @default 'es'
   */
  readonly signingService?: OpenSearchSigningService;
  readonly indexPrefix: string;
  readonly indexRotation: IndexRotation;
  /** Each route's index stem, by route name. */
  readonly routeStems: Readonly<Record<string, string>>;
  readonly everyMinutes: number;
  readonly lagMinutes: number;
  readonly heal: boolean;
}

export interface ReconcileEnvironmentSettings extends ReconcileJobEnv {
  readonly routes: readonly TransformRoute[];
  readonly metricsNamespace: string;
}

/** The environment variables of the reconcile function: the one writer of {@link ReconcileEnvVar}. */
export function reconcileEnvironment(settings: ReconcileEnvironmentSettings): Record<string, string> {
  const { routes, metricsNamespace, ...job } = settings;
  return {
    [ReconcileEnvVar.Job]: JSON.stringify({ v: RECONCILE_ENV_VERSION, ...job }),
    ...(routes.length > 0 ? { [ReconcileEnvVar.Routes]: serializeRoutes(routes) } : {}),
    [ReconcileEnvVar.MetricsNamespace]: metricsNamespace,
    [ReconcileEnvVar.ServiceName]: RECONCILE_SERVICE_NAME,
  };
}

/** The environment holds something the reader cannot use; the message says what and that the stack writes it. */
export class ReconcileEnvError extends Error {
  constructor(problem: string) {
    super(
      `${ReconcileEnvVar.Job} is not valid: ${problem}. The Pipeline stack writes it from the profile (reconcile, ` +
        'sources.logGroups, delivery, routes): redeploy, and do not edit it by hand.',
    );
    this.name = 'ReconcileEnvError';
  }
}

export interface ReconcileEnvironment {
  readonly job: ReconcileJobEnv;
  readonly routes: readonly TransformRoute[];
  readonly metricsNamespace: string;
  readonly serviceName: string;
}

/** Reads and checks the environment {@link reconcileEnvironment} wrote. @throws ReconcileEnvError */
export function readReconcileEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): ReconcileEnvironment {
  const text = env[ReconcileEnvVar.Job];
  if (text === undefined || text === '') throw new ReconcileEnvError('it is not set');
  let job: unknown;
  try {
    job = JSON.parse(text);
  } catch (error) {
    throw new ReconcileEnvError(`it is not JSON (${(error as Error).message})`);
  }
  const j = job as Partial<ReconcileJobEnv> & { v?: unknown };
  if (j.v !== RECONCILE_ENV_VERSION) throw new ReconcileEnvError(`its version is ${String(j.v)}, expected 1`);
  const strings = [
    'account',
    'rawStreamArn',
    'bucket',
    'deadLetterPrefix',
    'failedDocumentsPrefix',
    'openSearchUrl',
    'indexPrefix',
    'indexRotation',
  ] as const;
  for (const key of strings) {
    if (typeof j[key] !== 'string' || j[key] === '') throw new ReconcileEnvError(`${key} is missing`);
  }
  for (const key of ['everyMinutes', 'lagMinutes'] as const) {
    if (typeof j[key] !== 'number' || !(j[key] > 0))
      throw new ReconcileEnvError(`${key} is not a positive number`);
  }
  const isGroup = (g: unknown): boolean =>
    typeof g === 'object' &&
    g !== null &&
    typeof (g as { name?: unknown }).name === 'string' &&
    typeof (g as { filterPattern?: unknown }).filterPattern === 'string';
  if (!Array.isArray(j.logGroups) || !(j.logGroups as unknown[]).every(isGroup)) {
    throw new ReconcileEnvError('logGroups is not a list of { name, filterPattern }');
  }
  if (j.signingService !== undefined && !['es', 'aoss'].includes(j.signingService)) {
    throw new ReconcileEnvError(`signingService is ${JSON.stringify(j.signingService)}, not "es" or "aoss"`);
  }
  if (typeof j.routeStems !== 'object' || j.routeStems === null)
    throw new ReconcileEnvError('routeStems is missing');
  // The prefix and the stems go into the request paths of reconcile's searches: the config's rules, checked again.
  const stems = [
    patternProblem(CONFIG_RULES.indexPrefix, 'indexPrefix', j.indexPrefix),
    ...Object.entries(j.routeStems).map(([route, stem]) => stemProblem(`routeStems.${route}`, stem)),
  ].filter((problem) => problem !== undefined);
  if (stems.length > 0) throw new ReconcileEnvError(stems.join(' ').replace(/\.$/, ''));
  const { v: _version, ...rest } = j;
  return {
    job: { ...(rest as ReconcileJobEnv), heal: j.heal === true },
    routes: parseRoutes(env[ReconcileEnvVar.Routes]),
    metricsNamespace: env[ReconcileEnvVar.MetricsNamespace] ?? 'kfek',
    serviceName: env[ReconcileEnvVar.ServiceName] ?? RECONCILE_SERVICE_NAME,
  };
}
