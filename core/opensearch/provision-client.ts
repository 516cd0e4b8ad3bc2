/**
 * How the provisioner talks to a cluster: one checked request ({@link call}), the bounded retry of refused
 * requests while IAM propagates ({@link retryingAccessDenied}) and the plugin probes ({@link detectFeatures}).
 */
import { OpenSearchAccessDeniedError, OpenSearchHttpError, OpenSearchProvisioningError } from './errors';
import type { HttpRequest, HttpResponse, OpenSearchHttpClient } from './http';
import type { AccessDeniedRetryOptions, Feature, ProvisionOptions } from './provision-types';

const REAL_CLOCK = {
  now: (): number => Date.now(),
  sleep: (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms)),
};
const MAX_ACCESS_RETRY_DELAY_MILLIS = 15_000;

/**
 * Wraps clients so 401/403 answers are retried with exponential backoff until one shared deadline (set by the first
 * refusal), then fail with {@link OpenSearchAccessDeniedError} saying how long it waited.
 */
export function retryingAccessDenied(
  options: AccessDeniedRetryOptions,
): (client: OpenSearchHttpClient) => OpenSearchHttpClient {
  const clock = options.clock ?? REAL_CLOCK;
  let deadline: number | undefined;
  return (client) => ({
    baseUrl: client.baseUrl,
    async request(request: HttpRequest): Promise<HttpResponse> {
      let delay = options.initialDelayMillis ?? 1000;
      for (;;) {
        const response = await client.request(request);
        if (response.status !== 401 && response.status !== 403) return response;
        deadline ??= clock.now() + options.maxWaitMillis;
        const remaining = deadline - clock.now();
        if (remaining <= 0) {
          throw new OpenSearchAccessDeniedError(
            request.method,
            request.path,
            response.status,
            response.text,
            options.maxWaitMillis,
          );
        }
        await clock.sleep(Math.min(delay, remaining));
        delay = Math.min(delay * 2, MAX_ACCESS_RETRY_DELAY_MILLIS);
      }
    },
  });
}

/** A probe found the plugin listed but its endpoint broken, or a forced feature absent. */
export class OpenSearchFeatureError extends OpenSearchProvisioningError {
  constructor(message: string) {
    super(message);
    this.name = 'OpenSearchFeatureError';
  }
}

/** One request: 401/403 throws the access error, any status outside `okStatus` the HTTP error. */
export async function call(
  client: OpenSearchHttpClient,
  request: HttpRequest,
  okStatus: readonly number[],
): Promise<HttpResponse> {
  const response = await client.request(request);
  if (response.status === 401 || response.status === 403) {
    throw new OpenSearchAccessDeniedError(request.method, request.path, response.status, response.text);
  }
  if (!okStatus.includes(response.status)) {
    throw new OpenSearchHttpError(request.method, request.path, response.status, response.text);
  }
  return response;
}

/** A JSON answer's object, or an empty one for anything else (so lookups on odd answers yield undefined). */
export function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** A JSON answer's array, or an empty one for anything else. */
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** The strings of a JSON answer's array. */
export const strings = (v: unknown): string[] => list(v).filter((s): s is string => typeof s === 'string');

const PLUGIN_COMPONENT: Record<Exclude<Feature, 'dashboards'>, RegExp> = {
  ism: /index[-_]management/,
  security: /security/,
};

const PROBE: Record<Exclude<Feature, 'dashboards'>, string> = {
  ism: '/_plugins/_ism/policies?size=1',
  // Works for every authenticated caller, and tells the report who OpenSearch thinks we are.
  security: '/_plugins/_security/api/account',
};

/** Which plugins the cluster (and Dashboards) has, by probing their endpoints; see {@link ProvisionOptions}. */
export async function detectFeatures(
  client: OpenSearchHttpClient,
  options: ProvisionOptions,
): Promise<{ features: Record<Feature, boolean>; dashboardsProbeError?: string }> {
  const plugins = await call(client, { method: 'GET', path: '/_cat/plugins?format=json' }, [200]);
  const components = (Array.isArray(plugins.body) ? plugins.body : []).map((p) =>
    String(record(p).component),
  );
  const result: Record<Feature, boolean> = { ism: false, security: false, dashboards: false };
  for (const feature of ['ism', 'security'] as const) {
    const forced = options.features?.[feature];
    if (forced === false) {
      continue;
    }
    const listed = components.some((c) => PLUGIN_COMPONENT[feature].test(c));
    const probe = await client.request({ method: 'GET', path: PROBE[feature] });
    if (probe.status === 401 || probe.status === 403) {
      throw new OpenSearchAccessDeniedError('GET', PROBE[feature], probe.status, probe.text);
    }
    const present = probe.status === 200;
    if (!present && listed) {
      throw new OpenSearchFeatureError(
        `The ${feature} plugin is installed (${components.join(', ')}) but GET ${PROBE[feature]} answered ` +
          `HTTP ${probe.status}: ${probe.text.slice(0, 500)}`,
      );
    }
    if (!present && forced === true) {
      throw new OpenSearchFeatureError(
        `The ${feature} plugin was required but ${client.baseUrl} does not have it.`,
      );
    }
    result[feature] = present;
  }
  let dashboardsProbeError: string | undefined;
  if (options.dashboards !== undefined && options.features?.dashboards !== false) {
    try {
      const status = await options.dashboards.request({ method: 'GET', path: '/api/status' });
      if (status.status === 401 || status.status === 403) {
        throw new OpenSearchAccessDeniedError('GET', '/api/status', status.status, status.text);
      }
      result.dashboards = status.status === 200;
    } catch (error) {
      if (options.dashboardsBestEffort !== true) {
        throw error;
      }
      dashboardsProbeError = String(error);
    }
  }
  if (options.features?.dashboards === true && !result.dashboards) {
    throw new OpenSearchFeatureError(
      'OpenSearch Dashboards was required but did not answer GET /api/status.',
    );
  }
  return dashboardsProbeError === undefined
    ? { features: result }
    : { features: result, dashboardsProbeError };
}
