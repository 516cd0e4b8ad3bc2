/**
 * An in-memory stand-in for the parts of Amazon OpenSearch Service the local node cannot run: the ISM and security
 * plugins and OpenSearch Dashboards (none of them is on Maven Central for OpenSearch 3.6, see
 * ../shared/ENVIRONMENT.md). It answers the documented request/response shapes the applier relies on, including
 * the awkward ones: ISM refuses an overwrite without `if_seq_no`/`if_primary_term` and adds defaults to stored
 * policies, role PUTs answer 201 then 200, Dashboards refuses writes without `osd-xsrf`.
 * The index template endpoint is here too so the applier runs end to end; the real node covers it for real.
 */
import { defaultAuditConfig } from '../../core/opensearch/audit';
import type { HttpRequest, HttpResponse, OpenSearchHttpClient } from '../../core/opensearch/http';

export interface FakeOptions {
  readonly ism?: boolean;
  readonly security?: boolean;
  readonly dashboards?: boolean;
  /** Existing indices (for `_plugins/_ism/add`). */
  readonly indices?: readonly string[];
  /** Paths (prefix match) answered with 403. */
  readonly forbidden?: readonly string[];
  /**
   * Answer this many requests (of any path) with 403 before serving normally, as a domain does while a just-attached
   * IAM policy or role mapping propagates.
   */
  readonly forbiddenFirstRequests?: number;
  /**
   * The security plugin's stored audit config (`GET _plugins/_security/api/audit` answers `{ config }`).
   * @default - the plugin's documented defaults with `enabled: false` (audit logging off)
   */
  readonly auditConfig?: Record<string, unknown>;
}

/** Top-level and `audit` keys of the documented audit config schema (Update Audit Configuration API). */
const AUDIT_KEYS = ['enabled', 'audit', 'compliance'];
const AUDIT_AUDIT_KEYS = [
  'enable_rest',
  'disabled_rest_categories',
  'enable_transport',
  'disabled_transport_categories',
  'resolve_bulk_requests',
  'log_request_body',
  'resolve_indices',
  'exclude_sensitive_headers',
  'ignore_users',
  'ignore_requests',
  'ignore_headers',
  'ignore_url_params',
];
const AUDIT_CATEGORIES = [
  'FAILED_LOGIN',
  'AUTHENTICATED',
  'MISSING_PRIVILEGES',
  'GRANTED_PRIVILEGES',
  'SSL_EXCEPTION',
  'BAD_HEADERS',
  'INDEX_EVENT',
  'OPENDISTRO_SECURITY_INDEX_ATTEMPT',
  'NONE',
];

interface StoredPolicy {
  policy: Record<string, unknown>;
  seqNo: number;
  primaryTerm: number;
}

export class FakeOpenSearch {
  readonly requests: { readonly target: 'opensearch' | 'dashboards'; readonly request: HttpRequest }[] = [];
  readonly templates = new Map<string, Record<string, unknown>>();
  readonly pipelines = new Map<string, Record<string, unknown>>();
  readonly policies = new Map<string, StoredPolicy>();
  readonly roles = new Map<string, unknown>();
  readonly mappings = new Map<string, Record<string, unknown>>();
  readonly savedObjects = new Map<string, unknown>();
  readonly managedIndices = new Map<string, string>();
  auditConfig: Record<string, unknown>;
  private seqNo = 0;

  constructor(private readonly options: FakeOptions = {}) {
    this.auditConfig = options.auditConfig ?? { ...defaultAuditConfig(), enabled: false };
  }

  client(): OpenSearchHttpClient {
    return { baseUrl: 'https://fake-domain', request: (r) => Promise.resolve(this.handle('opensearch', r)) };
  }

  dashboardsClient(): OpenSearchHttpClient {
    return {
      baseUrl: 'https://fake-domain/_dashboards',
      request: (r) => Promise.resolve(this.handle('dashboards', r)),
    };
  }

  private handle(target: 'opensearch' | 'dashboards', request: HttpRequest): HttpResponse {
    this.requests.push({ target, request });
    const [pathname, query = ''] = request.path.split('?');
    const params = new URLSearchParams(query);
    if (
      this.requests.length <= (this.options.forbiddenFirstRequests ?? 0) ||
      (this.options.forbidden ?? []).some((p) => pathname.startsWith(p))
    ) {
      return json(403, { error: { type: 'security_exception', reason: 'no permissions' }, status: 403 });
    }
    return target === 'dashboards'
      ? this.dashboards(request, pathname, params)
      : this.opensearch(request, pathname, params);
  }

  private opensearch(request: HttpRequest, path: string, params: URLSearchParams): HttpResponse {
    const { method } = request;
    const noHandler = json(400, { error: `no handler found for uri [${path}] and method [${method}]` });
    if (method === 'GET' && path === '/') {
      return json(200, { version: { number: '2.19.0', distribution: 'opensearch' } });
    }
    if (method === 'GET' && path === '/_cat/plugins') {
      const components = [
        ...(this.options.ism ? ['opensearch-index-management', 'opensearch-job-scheduler'] : []),
        ...(this.options.security ? ['opensearch-security'] : []),
      ];
      return json(
        200,
        components.map((component) => ({ name: 'node-1', component, version: '2.19.0' })),
      );
    }
    let m = /^\/_ingest\/pipeline\/([^/]+)$/.exec(path);
    if (m) {
      const name = m[1];
      if (method === 'GET') {
        // OpenSearch answers a missing pipeline with 404 and an empty object, not an error body.
        const stored = this.pipelines.get(name);
        return stored === undefined ? json(404, {}) : json(200, { [name]: stored });
      }
      if (method === 'PUT') {
        this.pipelines.set(name, request.body as Record<string, unknown>);
        return json(200, { acknowledged: true });
      }
    }
    m = /^\/_index_template\/([^/]+)$/.exec(path);
    if (m) {
      const name = m[1];
      if (method === 'GET') {
        const stored = this.templates.get(name);
        return stored === undefined
          ? json(404, { error: { type: 'resource_not_found_exception' }, status: 404 })
          : json(200, { index_templates: [{ name, index_template: stored }] });
      }
      if (method === 'PUT') {
        this.templates.set(name, request.body as Record<string, unknown>);
        return json(200, { acknowledged: true });
      }
    }
    if (path.startsWith('/_plugins/_ism')) {
      if (!this.options.ism) {
        return noHandler;
      }
      if (method === 'GET' && path === '/_plugins/_ism/policies') {
        return json(200, { policies: [], total_policies: this.policies.size });
      }
      m = /^\/_plugins\/_ism\/policies\/([^/]+)$/.exec(path);
      if (m) {
        return this.ismPolicy(request, m[1], params);
      }
      m = /^\/_plugins\/_ism\/add\/([^/]+)$/.exec(path);
      if (m && method === 'POST') {
        const pattern = new RegExp(`^${m[1].replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
        const matching = (this.options.indices ?? []).filter((i) => pattern.test(i));
        if (matching.length === 0) {
          return json(404, { error: { type: 'index_not_found_exception' }, status: 404 });
        }
        const policyId = (request.body as { policy_id: string }).policy_id;
        const failed = matching.filter((i) => this.managedIndices.has(i));
        const fresh = matching.filter((i) => !this.managedIndices.has(i));
        fresh.forEach((i) => this.managedIndices.set(i, policyId));
        return json(200, {
          updated_indices: fresh.length,
          failures: failed.length > 0,
          failed_indices: failed.map((index_name) => ({
            index_name,
            index_uuid: 'uuid',
            reason: 'This index already has a policy, use the update policy API to update index policies',
          })),
        });
      }
      return noHandler;
    }
    if (path.startsWith('/_plugins/_security')) {
      if (!this.options.security) {
        return noHandler;
      }
      if (method === 'GET' && path === '/_plugins/_security/api/account') {
        return json(200, { user_name: 'arn:aws:iam::123456789012:role/provisioner', roles: ['all_access'] });
      }
      m = /^\/_plugins\/_security\/api\/roles\/([^/]+)$/.exec(path);
      if (m && method === 'GET') {
        // As the security plugin answers (2.11.1, measured): the role under its name, with the empty FLS and masking
        // lists it fills in, and its flags.
        const stored = this.roles.get(m[1]) as
          { index_permissions?: Array<Record<string, unknown>> } | undefined;
        if (stored === undefined)
          return json(404, { status: 'NOT_FOUND', message: `Resource '${m[1]}' not found.` });
        const index_permissions = (stored.index_permissions ?? []).map((p) => ({
          fls: [],
          masked_fields: [],
          ...p,
        }));
        return json(200, {
          [m[1]]: { reserved: false, hidden: false, static: false, ...stored, index_permissions },
        });
      }
      if (m && method === 'PUT') {
        const existed = this.roles.has(m[1]);
        this.roles.set(m[1], request.body);
        return existed
          ? json(200, { status: 'OK', message: `'${m[1]}' updated.` })
          : json(201, { status: 'CREATED', message: `'${m[1]}' created.` });
      }
      if (path === '/_plugins/_security/api/audit' && method === 'GET') {
        return json(200, { _readonly: [], config: this.auditConfig });
      }
      if (path === '/_plugins/_security/api/audit/config' && method === 'PUT') {
        const problem = auditConfigProblem(request.body);
        if (problem !== undefined) return json(400, { status: 'error', reason: problem });
        this.auditConfig = request.body as Record<string, unknown>;
        return json(200, { status: 'OK', message: "'config' updated." });
      }
      m = /^\/_plugins\/_security\/api\/rolesmapping\/([^/]+)$/.exec(path);
      if (m) {
        const name = m[1];
        if (method === 'GET') {
          const stored = this.mappings.get(name);
          return stored === undefined
            ? json(404, { status: 'NOT_FOUND', message: `Resource '${name}' not found.` })
            : json(200, { [name]: { ...stored, reserved: false, hidden: false } });
        }
        if (method === 'PUT') {
          const existed = this.mappings.has(name);
          this.mappings.set(name, request.body as Record<string, unknown>);
          return json(existed ? 200 : 201, { status: existed ? 'OK' : 'CREATED' });
        }
      }
      return noHandler;
    }
    return noHandler;
  }

  private ismPolicy(request: HttpRequest, id: string, params: URLSearchParams): HttpResponse {
    const stored = this.policies.get(id);
    if (request.method === 'GET') {
      return stored === undefined
        ? json(404, { error: { type: 'status_exception', reason: 'Policy not found' }, status: 404 })
        : json(200, {
            _id: id,
            _version: 1,
            _seq_no: stored.seqNo,
            _primary_term: stored.primaryTerm,
            policy: stored.policy,
          });
    }
    if (request.method !== 'PUT') {
      return json(405, {});
    }
    if (stored !== undefined) {
      const seqNo = params.get('if_seq_no');
      const term = params.get('if_primary_term');
      if (seqNo !== String(stored.seqNo) || term !== String(stored.primaryTerm)) {
        return json(409, { error: { type: 'version_conflict_engine_exception' }, status: 409 });
      }
    }
    // ISM stores more than it was given: ids, timestamps and default retry settings on every action.
    const given = (request.body as { policy: Record<string, unknown> }).policy;
    const states = (given.states as { actions: Record<string, unknown>[] }[]).map((s) => ({
      ...s,
      actions: s.actions.map((a) => ({ retry: { count: 3, backoff: 'exponential', delay: '1m' }, ...a })),
    }));
    const policy = {
      policy_id: id,
      last_updated_time: Date.now(),
      schema_version: 21,
      error_notification: null,
      ...given,
      states,
    };
    this.policies.set(id, { policy, seqNo: ++this.seqNo, primaryTerm: 1 });
    return json(stored === undefined ? 201 : 200, { _id: id, policy: { policy } });
  }

  private dashboards(request: HttpRequest, path: string, params: URLSearchParams): HttpResponse {
    if (!this.options.dashboards) {
      return json(404, { statusCode: 404, error: 'Not Found' });
    }
    if (request.method === 'GET' && path === '/api/status') {
      return json(200, { status: { overall: { state: 'green' } } });
    }
    if (request.method === 'POST' && path === '/api/saved_objects/_bulk_create') {
      if (request.headers?.['osd-xsrf'] !== 'true') {
        return json(400, {
          statusCode: 400,
          error: 'Bad Request',
          message: 'Request must contain a osd-xsrf header.',
        });
      }
      const overwrite = params.get('overwrite') === 'true';
      const objects = request.body as { type: string; id: string }[];
      const saved = objects.map((o) => {
        const key = `${o.type}/${o.id}`;
        if (this.savedObjects.has(key) && !overwrite) {
          return { type: o.type, id: o.id, error: { statusCode: 409, message: 'version conflict' } };
        }
        this.savedObjects.set(key, o);
        return { ...o, version: 'WzEsMV0=' };
      });
      return json(200, { saved_objects: saved });
    }
    return json(404, { statusCode: 404, error: 'Not Found' });
  }
}

function json(status: number, body: unknown): HttpResponse {
  return { status, body, text: JSON.stringify(body) };
}

/** What the documented schema of `PUT _plugins/_security/api/audit/config` refuses in `body`, if anything. */
function auditConfigProblem(body: unknown): string | undefined {
  const config = body as Record<string, unknown>;
  const unknown = Object.keys(config).filter((k) => !AUDIT_KEYS.includes(k));
  if (unknown.length > 0) return `unknown keys ${unknown.join(', ')}`;
  if (typeof config.enabled !== 'boolean') return 'enabled must be a boolean';
  const audit = (config.audit ?? {}) as Record<string, unknown>;
  const unknownAudit = Object.keys(audit).filter((k) => !AUDIT_AUDIT_KEYS.includes(k));
  if (unknownAudit.length > 0) return `unknown audit keys ${unknownAudit.join(', ')}`;
  for (const key of ['disabled_rest_categories', 'disabled_transport_categories']) {
    const list = audit[key];
    if (
      list !== undefined &&
      (!Array.isArray(list) || list.some((c) => !AUDIT_CATEGORIES.includes(String(c))))
    ) {
      return `audit.${key} must list categories of ${AUDIT_CATEGORIES.join(', ')}`;
    }
  }
  return undefined;
}
