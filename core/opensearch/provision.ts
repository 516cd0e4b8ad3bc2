import { mergeAuditConfig } from './audit';
import { buildSavedObjects } from './dashboards';
import { OpenSearchAccessDeniedError, OpenSearchHttpError, OpenSearchProvisioningError } from './errors';
import type { HttpRequest, HttpResponse, OpenSearchHttpClient } from './http';
import { buildIndexTemplate, TEMPLATE_HASH_META_KEY } from './index-template';
import { buildIngestPipeline } from './ingest-pipeline';
import { buildIsmPolicy, isSamePolicy } from './ism-policy';
import { buildSecurityRoles, mergeRoleMapping } from './security';
import { canonicalJson, type OpenSearchSpec } from './spec';

/**
 * Applies the spec to a cluster: document-id ingest pipeline, index template, ISM retention policy, security roles and mappings, Dashboards
 * saved objects. Every step is idempotent (PUT of fixed names, content hashes to detect "same content", merges that
 * never remove members), so the custom resource can run it on every Create and Update and `npm start` on every run.
 *
 * Plugins are optional: the local integ-test node has no security, ISM or Dashboards. Each is detected by probing
 * its endpoint; an absent one is skipped and reported, never an error. A 401/403 is always an error in the end: it
 * means the plugin is there and the provisioner is not allowed, which must not pass silently. With
 * {@link ProvisionOptions.accessDeniedRetry} (the custom resource) it is first retried for a bounded time, because a
 * just-attached IAM policy or role mapping takes a while to propagate.
 */

export type Feature = 'ism' | 'security' | 'dashboards';
/** `failed` only for a best-effort step (see {@link ProvisionOptions.dashboardsBestEffort}); others throw. */
export type StepStatus = 'created' | 'updated' | 'unchanged' | 'skipped' | 'failed';

export interface ProvisionStep {
  readonly step: string;
  readonly status: StepStatus;
  readonly detail?: string;
}

export interface ProvisionReport {
  /** `version.number` of `GET /`. */
  readonly version: string;
  readonly features: Readonly<Record<Feature, boolean>>;
  readonly steps: readonly ProvisionStep[];
}

export interface ProvisionOptions {
  /**
   * Client for OpenSearch Dashboards (its base URL ends in `/_dashboards` on Amazon OpenSearch Service).
   * @default - none: the Dashboards step is skipped
   */
  readonly dashboards?: OpenSearchHttpClient;
  /**
   * Force a feature on (fail if it is absent) or off (skip it) instead of detecting it.
   * @default - detect each feature by probing its endpoint
   */
  readonly features?: Partial<Record<Feature, boolean>>;
  /**
   * Dashboards tenant the saved objects go to (`securitytenant` header) when the security plugin is present.
   * @default 'global' (visible to every Dashboards user)
   */
  readonly dashboardsTenant?: string;
  /**
   * Report a failing Dashboards step (probe or write) as a `failed` step instead of throwing. The custom resource
   * sets this: the starter dashboard is a convenience, and a Dashboards hiccup must not roll back the pipeline
   * whose template, retention and access were applied. The failure is logged and returned in the report.
   * @default false
   */
  readonly dashboardsBestEffort?: boolean;
  /**
   * Retry requests refused with 401/403 for up to this long (shared by all requests of the run) before failing.
   * IAM is eventually consistent: a policy attached seconds before the first signed call, or a role mapping just
   * written, may be refused for a while
   * (https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_general.html#troubleshoot_general_eventual-consistency).
   * @default - no retry: a refusal fails at once (the local node, the CLI)
   */
  readonly accessDeniedRetry?: AccessDeniedRetryOptions;
  /** Progress lines. @default - silent */
  readonly log?: (line: string) => void;
}

export interface AccessDeniedRetryOptions {
  /** Total time to keep retrying refused requests, from the run's first refusal. */
  readonly maxWaitMillis: number;
  /** @default 1000, doubling up to 15000 */
  readonly initialDelayMillis?: number;
  /** Injected so tests use a fake clock. @default - Date.now and setTimeout */
  readonly clock?: { readonly now: () => number; readonly sleep: (ms: number) => Promise<void> };
}

const REAL_CLOCK = {
  now: (): number => Date.now(),
  sleep: (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms)),
};
const MAX_ACCESS_RETRY_DELAY_MILLIS = 15_000;

/**
 * Wraps clients so 401/403 answers are retried with exponential backoff until one shared deadline (set by the first
 * refusal), then fail with {@link OpenSearchAccessDeniedError} saying how long it waited.
 */
function retryingAccessDenied(
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

async function call(
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

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

const PLUGIN_COMPONENT: Record<Exclude<Feature, 'dashboards'>, RegExp> = {
  ism: /index[-_]management/,
  security: /security/,
};

const PROBE: Record<Exclude<Feature, 'dashboards'>, string> = {
  ism: '/_plugins/_ism/policies?size=1',
  // Works for every authenticated caller, and tells the report who OpenSearch thinks we are.
  security: '/_plugins/_security/api/account',
};

async function detectFeatures(
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

/**
 * GET, then PUT unless `isSame` says the stored object (the GET answer's body) already has the desired content.
 * Shared by the objects addressed by a fixed name whose PUT replaces them whole (pipeline, index template).
 */
async function putUnlessSame(
  client: OpenSearchHttpClient,
  step: string,
  path: string,
  body: Record<string, unknown>,
  isSame: (stored: Record<string, unknown>) => boolean,
): Promise<ProvisionStep> {
  const existing = await call(client, { method: 'GET', path }, [200, 404]);
  if (existing.status === 200 && isSame(record(existing.body))) {
    return { step, status: 'unchanged' };
  }
  await call(client, { method: 'PUT', path, body }, [200]);
  return { step, status: existing.status === 404 ? 'created' : 'updated' };
}

/**
 * The document-id pipeline. `GET _ingest/pipeline/<id>` answers `{ <id>: <body as stored> }`, so comparing
 * canonical JSON tells "same content" without a hash field.
 */
async function applyIngestPipeline(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
): Promise<ProvisionStep> {
  const name = spec.names.ingestPipeline;
  const body = buildIngestPipeline(spec);
  return putUnlessSame(
    client,
    `ingest pipeline ${name}`,
    `/_ingest/pipeline/${name}`,
    body,
    (stored) => canonicalJson(stored[name]) === canonicalJson(body),
  );
}

async function applyIndexTemplate(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
): Promise<ProvisionStep> {
  const name = spec.names.indexTemplate;
  const body = buildIndexTemplate(spec);
  const desiredHash = record(body._meta)[TEMPLATE_HASH_META_KEY];
  return putUnlessSame(client, `index template ${name}`, `/_index_template/${name}`, body, (stored) => {
    // GET answers { index_templates: [{ name, index_template: { ..., _meta } }] }.
    const list = stored.index_templates;
    const meta = record(record(record(Array.isArray(list) ? list[0] : undefined).index_template)._meta);
    return meta[TEMPLATE_HASH_META_KEY] === desiredHash;
  });
}

async function applyIsmPolicy(client: OpenSearchHttpClient, spec: OpenSearchSpec): Promise<ProvisionStep[]> {
  const id = spec.names.ismPolicy;
  const path = `/_plugins/_ism/policies/${id}`;
  const desired = buildIsmPolicy(spec);
  const existing = await call(client, { method: 'GET', path }, [200, 404]);
  const steps: ProvisionStep[] = [];
  if (existing.status === 404) {
    await call(client, { method: 'PUT', path, body: desired }, [200, 201]);
    steps.push({ step: `ISM policy ${id}`, status: 'created' });
  } else {
    const current = record(existing.body);
    if (isSamePolicy(current.policy, desired)) {
      steps.push({ step: `ISM policy ${id}`, status: 'unchanged' });
    } else {
      // ISM refuses an overwrite without the optimistic-concurrency pair from the GET.
      const seqNo = Number(current._seq_no);
      const primaryTerm = Number(current._primary_term);
      await call(
        client,
        { method: 'PUT', path: `${path}?if_seq_no=${seqNo}&if_primary_term=${primaryTerm}`, body: desired },
        [200, 201],
      );
      steps.push({
        step: `ISM policy ${id}`,
        status: 'updated',
        detail:
          'indices already managed keep the previous version until changed with _plugins/_ism/change_policy',
      });
    }
  }
  // ism_template only catches indices created from now on; attach the ones that already exist (e.g. the index
  // Firehose created before this ran). Indices that already have a policy are reported as failures and left alone.
  const add = await call(
    client,
    { method: 'POST', path: `/_plugins/_ism/add/${spec.indexPattern}`, body: { policy_id: id } },
    [200, 404],
  );
  const updated = Number(record(add.body).updated_indices ?? 0);
  steps.push({
    step: `ISM attach existing ${spec.indexPattern}`,
    status: updated > 0 ? 'updated' : 'unchanged',
    detail: `${updated} index(es) attached`,
  });
  return steps;
}

async function applySecurity(client: OpenSearchHttpClient, spec: OpenSearchSpec): Promise<ProvisionStep[]> {
  const steps: ProvisionStep[] = [];
  for (const role of buildSecurityRoles(spec)) {
    if (role.role !== undefined) {
      // PUT replaces the role with exactly this content; 201 when it was new.
      const put = await call(
        client,
        { method: 'PUT', path: `/_plugins/_security/api/roles/${role.name}`, body: role.role },
        [200, 201],
      );
      steps.push({ step: `security role ${role.name}`, status: put.status === 201 ? 'created' : 'updated' });
    }
    if (role.mapping !== undefined) {
      const path = `/_plugins/_security/api/rolesmapping/${role.name}`;
      const existing = await call(client, { method: 'GET', path }, [200, 404]);
      const current = existing.status === 200 ? record(existing.body)[role.name] : undefined;
      const merged = mergeRoleMapping(current, role.mapping);
      if (merged === undefined) {
        steps.push({ step: `role mapping ${role.name}`, status: 'unchanged' });
      } else {
        await call(client, { method: 'PUT', path, body: merged }, [200, 201]);
        steps.push({
          step: `role mapping ${role.name}`,
          status: existing.status === 404 ? 'created' : 'updated',
        });
      }
    }
  }
  return steps;
}

async function applyAuditConfig(client: OpenSearchHttpClient, spec: OpenSearchSpec): Promise<ProvisionStep> {
  // GET answers { _readonly: [...], config: { enabled, audit, compliance } }; the PUT takes the config object.
  const existing = await call(client, { method: 'GET', path: '/_plugins/_security/api/audit' }, [200, 404]);
  const current = existing.status === 200 ? record(existing.body).config : undefined;
  const merged = mergeAuditConfig(current, spec.auditLogs);
  const step = `security audit logging (${spec.auditLogs ? 'on' : 'off'})`;
  if (merged === undefined) {
    return { step, status: 'unchanged' };
  }
  await call(client, { method: 'PUT', path: '/_plugins/_security/api/audit/config', body: merged }, [200]);
  return { step, status: current === undefined ? 'created' : 'updated' };
}

async function applyDashboards(
  dashboards: OpenSearchHttpClient,
  spec: OpenSearchSpec,
  tenant: string | undefined,
): Promise<ProvisionStep> {
  const objects = buildSavedObjects(spec);
  const response = await call(
    dashboards,
    {
      method: 'POST',
      path: '/api/saved_objects/_bulk_create?overwrite=true',
      body: objects,
      // Dashboards refuses state-changing API calls without this header (CSRF protection).
      headers: { 'osd-xsrf': 'true', ...(tenant === undefined ? {} : { securitytenant: tenant }) },
    },
    [200],
  );
  const saved = record(response.body).saved_objects;
  const failed = (Array.isArray(saved) ? saved : [])
    .map((o) => record(o))
    .filter((o) => o.error !== undefined)
    .map((o) => `${String(o.type)}/${String(o.id)}: ${JSON.stringify(o.error)}`);
  if (failed.length > 0) {
    throw new OpenSearchProvisioningError(`Dashboards refused saved objects: ${failed.join('; ')}`);
  }
  return { step: 'dashboards saved objects', status: 'updated', detail: `${objects.length} objects written` };
}

/** Applies the spec in dependency order and reports what each step did. */
export async function provisionOpenSearch(
  target: OpenSearchHttpClient,
  spec: OpenSearchSpec,
  given: ProvisionOptions = {},
): Promise<ProvisionReport> {
  const wrap =
    given.accessDeniedRetry === undefined ? undefined : retryingAccessDenied(given.accessDeniedRetry);
  const client = wrap === undefined ? target : wrap(target);
  const options: ProvisionOptions =
    wrap === undefined || given.dashboards === undefined
      ? given
      : { ...given, dashboards: wrap(given.dashboards) };
  const log = options.log ?? ((): void => undefined);
  const root = await call(client, { method: 'GET', path: '/' }, [200]);
  const versionNumber = record(record(root.body).version).number;
  const version = typeof versionNumber === 'string' ? versionNumber : 'unknown';
  const { features, dashboardsProbeError } = await detectFeatures(client, options);
  log(
    `OpenSearch ${version} at ${client.baseUrl}; ism=${features.ism} security=${features.security} dashboards=${features.dashboards}`,
  );

  const steps: ProvisionStep[] = [];
  const push = (s: ProvisionStep): void => {
    steps.push(s);
    log(`${s.step}: ${s.status}${s.detail === undefined ? '' : ` (${s.detail})`}`);
  };
  // Order: the document-id pipeline before the template that names it as `default_pipeline` (an index created
  // from the template in between would reject every document), the template before Firehose creates the next
  // index, then retention, then access (the writer mapping is what lets Firehose in), then the Dashboards objects
  // that read the indices.
  push(await applyIngestPipeline(client, spec));
  push(await applyIndexTemplate(client, spec));
  if (features.ism) {
    (await applyIsmPolicy(client, spec)).forEach(push);
  } else {
    push({
      step: `ISM policy ${spec.names.ismPolicy}`,
      status: 'skipped',
      detail: 'no ISM plugin on the target',
    });
  }
  if (features.security) {
    (await applySecurity(client, spec)).forEach(push);
    push(await applyAuditConfig(client, spec));
  } else {
    push({
      step: 'security roles and mappings',
      status: 'skipped',
      detail: 'no security plugin on the target',
    });
  }
  if (dashboardsProbeError !== undefined) {
    push({ step: 'dashboards saved objects', status: 'failed', detail: dashboardsProbeError });
  } else if (features.dashboards && options.dashboards !== undefined) {
    try {
      push(
        await applyDashboards(
          options.dashboards,
          spec,
          features.security ? (options.dashboardsTenant ?? 'global') : undefined,
        ),
      );
    } catch (error) {
      if (options.dashboardsBestEffort !== true) {
        throw error;
      }
      push({ step: 'dashboards saved objects', status: 'failed', detail: String(error) });
    }
  } else {
    push({
      step: 'dashboards saved objects',
      status: 'skipped',
      detail: 'no OpenSearch Dashboards reachable',
    });
  }
  return { version, features, steps };
}
