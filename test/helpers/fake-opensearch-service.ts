/**
 * An in-memory stand-in for Amazon OpenSearch Service for the provisioner's unit tests: the ISM plugin (fake-ism.ts,
 * which no Maven Central artifact provides), the security plugin's REST API (the secured node runs the real one,
 * test/helpers/secured-opensearch.ts) and OpenSearch Dashboards, plus the index, template, pipeline and settings
 * endpoints the provisioner reads and writes, so it runs end to end. It answers the documented request/response
 * shapes, including the awkward ones: ISM refuses an overwrite without `if_seq_no`/`if_primary_term` and adds
 * defaults to stored policies, role PUTs answer 201 then 200, Dashboards refuses writes without `osd-xsrf`.
 */
import { defaultAuditConfig } from '../../core/opensearch/audit';
import type { HttpRequest, HttpResponse, OpenSearchHttpClient } from '../../core/opensearch/http';
import { FakeIsm, type IsmIndex } from './fake-ism';

export interface FakeOptions {
  readonly ism?: boolean;
  readonly security?: boolean;
  readonly dashboards?: boolean;
  /** Existing indices; a bare name was created an hour before the fake's clock. */
  readonly indices?: ReadonlyArray<string | IsmIndex>;
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

/** An index of the fake: its creation date (ISM's age) and the flat settings `_settings` answers. */
interface FakeIndex {
  readonly creationDate: number;
  readonly primaryShards: number;
  settings: Record<string, string>;
}

export class FakeOpenSearch {
  readonly requests: { readonly target: 'opensearch' | 'dashboards'; readonly request: HttpRequest }[] = [];
  readonly templates = new Map<string, Record<string, unknown>>();
  readonly pipelines = new Map<string, Record<string, unknown>>();
  readonly roles = new Map<string, unknown>();
  readonly mappings = new Map<string, Record<string, unknown>>();
  readonly savedObjects = new Map<string, unknown>();
  readonly indices = new Map<string, FakeIndex>();
  /** Hidden indices (kfek's record) and their documents by id. */
  readonly hidden = new Map<string, Map<string, { seqNo: number; source: unknown }>>();
  private seqNo = 0;
  /** The ISM plugin (test/helpers/fake-ism.ts), over this fake's indices. */
  readonly ism: FakeIsm;
  auditConfig: Record<string, unknown>;

  constructor(
    private readonly options: FakeOptions = {},
    readonly clock: () => number = () => Date.now(),
  ) {
    this.auditConfig = options.auditConfig ?? { ...defaultAuditConfig(), enabled: false };
    for (const i of options.indices ?? []) {
      const { name, creationDate } =
        typeof i === 'string' ? { name: i, creationDate: clock() - 3_600_000 } : i;
      this.indices.set(name, { creationDate, primaryShards: 1, settings: {} });
    }
    this.ism = new FakeIsm(
      {
        list: () =>
          Promise.resolve([...this.indices].map(([name, i]) => ({ name, creationDate: i.creationDate }))),
        delete: (name) => {
          this.indices.delete(name);
          return Promise.resolve();
        },
      },
      clock,
    );
  }

  /** ISM's policies by id (what `GET _plugins/_ism/policies/<id>` answers under `policy`, with seq_no). */
  get policies(): FakeIsm['policies'] {
    return this.ism.policies;
  }

  /** Index -> the policy managing it. */
  get managedIndices(): Map<string, string> {
    return new Map([...this.ism.managed].map(([index, m]) => [index, m.policyId]));
  }

  client(): OpenSearchHttpClient {
    return { baseUrl: 'https://fake-domain', request: (r) => this.handle('opensearch', r) };
  }

  dashboardsClient(): OpenSearchHttpClient {
    return { baseUrl: 'https://fake-domain/_dashboards', request: (r) => this.handle('dashboards', r) };
  }

  private async handle(target: 'opensearch' | 'dashboards', request: HttpRequest): Promise<HttpResponse> {
    this.requests.push({ target, request });
    const [rawPath, query = ''] = request.path.split('?');
    // OpenSearch and Dashboards split the path on `/` and decode each segment once (kfek percent-encodes every name:
    // core/opensearch/request-path.ts). Decoding the whole path differs only for an encoded `/`, which kfek never sends.
    const pathname = rawPath.split('/').map(decodeURIComponent).join('/');
    const params = new URLSearchParams(query);
    if (
      this.requests.length <= (this.options.forbiddenFirstRequests ?? 0) ||
      (this.options.forbidden ?? []).some((p) => pathname.startsWith(p))
    ) {
      return json(403, { error: { type: 'security_exception', reason: 'no permissions' }, status: 403 });
    }
    if (target === 'dashboards') return this.dashboards(request, pathname, params);
    if (pathname.startsWith('/_plugins/_ism')) {
      return this.options.ism
        ? this.ism.handle(request, pathname, params)
        : json(400, { error: `no handler found for uri [${pathname}] and method [${request.method}]` });
    }
    return this.opensearch(request, pathname);
  }

  private opensearch(request: HttpRequest, path: string): HttpResponse {
    const { method } = request;
    const noHandler = json(400, { error: `no handler found for uri [${path}] and method [${method}]` });
    if (method === 'GET' && path === '/') {
      return json(200, { version: { number: '2.19.4', distribution: 'opensearch' } });
    }
    if (method === 'GET' && path === '/_cat/plugins') {
      const components = [
        ...(this.options.ism ? ['opensearch-index-management', 'opensearch-job-scheduler'] : []),
        ...(this.options.security ? ['opensearch-security'] : []),
      ];
      return json(
        200,
        components.map((component) => ({ name: 'node-1', component, version: '2.19.4' })),
      );
    }
    if (method === 'GET' && path === '/_cat/indices') {
      return json(
        200,
        [...this.indices].map(([index, i]) => ({
          index,
          'creation.date': String(i.creationDate),
          pri: String(i.primaryShards),
          rep: i.settings['index.number_of_replicas'] ?? '1',
        })),
      );
    }
    let m = /^\/([^_/][^/]*)\/_settings(?:\/[^/]*)?$/.exec(path);
    if (m) {
      const names = this.resolveIndices(m[1]);
      if (names.length === 0) return json(404, { error: { type: 'index_not_found_exception' }, status: 404 });
      if (method === 'GET') {
        return json(
          200,
          Object.fromEntries(names.map((n) => [n, { settings: this.indices.get(n)?.settings ?? {} }])),
        );
      }
      if (method === 'PUT') {
        const flat = flatten(request.body as Record<string, unknown>);
        for (const n of names) {
          const index = this.indices.get(n);
          if (index !== undefined) index.settings = { ...index.settings, ...flat };
        }
        return json(200, { acknowledged: true });
      }
    }
    m = /^\/_ingest\/pipeline\/([^/]+)$/.exec(path);
    if (m) return this.named(request, this.pipelines, m[1], (stored) => stored, json(404, {}));
    if (method === 'GET' && path === '/_index_template') {
      return json(200, {
        index_templates: [...this.templates].map(([name, t]) => ({ name, index_template: t })),
      });
    }
    m = /^\/_index_template\/([^/]+)$/.exec(path);
    if (m) {
      const missing = json(404, { error: { type: 'resource_not_found_exception' }, status: 404 });
      if (method === 'GET') {
        const matching = [...this.templates].filter(([name]) => globMatch(m[1], name));
        return matching.length === 0
          ? missing
          : json(200, { index_templates: matching.map(([name, t]) => ({ name, index_template: t })) });
      }
      return this.named(request, this.templates, m[1], (stored) => stored, missing);
    }
    if (path.startsWith('/_plugins/_security')) {
      return this.options.security ? this.security(request, path) : noHandler;
    }
    return this.documents(request, path) ?? noHandler;
  }

  /**
   * Indices the fake does not list (hidden, as kfek's record is) and their documents: create an index, GET and PUT
   * one document, with `op_type=create` and `if_seq_no`/`if_primary_term` answered 409 as OpenSearch does.
   */
  private documents(request: HttpRequest, path: string): HttpResponse | undefined {
    const [pathname, query = ''] = request.path.split('?');
    const params = new URLSearchParams(query);
    const created = /^\/(\.[^/]+)$/.exec(pathname);
    if (created !== null && request.method === 'PUT') {
      if (this.hidden.has(created[1])) {
        return json(400, { error: { type: 'resource_already_exists_exception' }, status: 400 });
      }
      this.hidden.set(created[1], new Map());
      return json(200, { acknowledged: true, index: created[1] });
    }
    const m = /^\/([^_/][^/]*)\/_doc\/([^/]+)$/.exec(path);
    if (m === null) return undefined;
    const docs = this.hidden.get(m[1]);
    const doc = docs?.get(m[2]);
    if (request.method === 'GET') {
      if (docs === undefined) return json(404, { error: { type: 'index_not_found_exception' }, status: 404 });
      return doc === undefined
        ? json(404, { _index: m[1], _id: m[2], found: false })
        : json(200, {
            _index: m[1],
            _id: m[2],
            found: true,
            _seq_no: doc.seqNo,
            _primary_term: 1,
            _source: doc.source,
          });
    }
    if (request.method !== 'PUT') return undefined;
    const conflict =
      (params.get('op_type') === 'create' && doc !== undefined) ||
      (params.has('if_seq_no') && Number(params.get('if_seq_no')) !== doc?.seqNo);
    if (conflict) return json(409, { error: { type: 'version_conflict_engine_exception' }, status: 409 });
    const store = docs ?? new Map<string, { seqNo: number; source: unknown }>();
    this.hidden.set(m[1], store);
    this.seqNo += 1;
    store.set(m[2], { seqNo: this.seqNo, source: request.body });
    return json(doc === undefined ? 201 : 200, {
      _index: m[1],
      _id: m[2],
      _seq_no: this.seqNo,
      _primary_term: 1,
    });
  }

  /** GET (wildcards: every match under its name, or 404), PUT and DELETE of a named object kept in `store`. */
  private named(
    request: HttpRequest,
    store: Map<string, Record<string, unknown>>,
    name: string,
    shape: (stored: Record<string, unknown>) => unknown,
    missing: HttpResponse,
  ): HttpResponse {
    if (request.method === 'GET') {
      const matching = [...store].filter(([n]) => globMatch(name, n));
      return matching.length === 0
        ? missing
        : json(200, Object.fromEntries(matching.map(([n, b]) => [n, shape(b)])));
    }
    if (request.method === 'PUT') {
      store.set(name, request.body as Record<string, unknown>);
      return json(200, { acknowledged: true });
    }
    if (request.method === 'DELETE') {
      return store.delete(name) ? json(200, { acknowledged: true }) : missing;
    }
    return json(405, {});
  }

  private resolveIndices(expression: string): string[] {
    return [...this.indices.keys()].filter((n) => expression.split(',').some((p) => globMatch(p, n)));
  }

  private security(request: HttpRequest, path: string): HttpResponse {
    const { method } = request;
    if (method === 'GET' && path === '/_plugins/_security/api/account') {
      return json(200, { user_name: 'arn:aws:iam::123456789012:role/provisioner', roles: ['all_access'] });
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
    // As the security plugin answers (measured on 2.11.1 and 2.19.4): a role with the empty FLS and masking lists it
    // fills in and its flags; a mapping with its flags.
    const showRole = (stored: unknown): unknown => {
      const role = stored as { index_permissions?: Array<Record<string, unknown>> };
      const index_permissions = (role.index_permissions ?? []).map((p) => ({
        fls: [],
        masked_fields: [],
        ...p,
      }));
      return { reserved: false, hidden: false, static: false, ...role, index_permissions };
    };
    const showMapping = (stored: unknown): unknown => ({
      and_backend_roles: [],
      ...(stored as Record<string, unknown>),
      reserved: false,
      hidden: false,
    });
    for (const [kind, store, show] of [
      ['roles', this.roles, showRole],
      ['rolesmapping', this.mappings as Map<string, unknown>, showMapping],
    ] as const) {
      if (method === 'GET' && path === `/_plugins/_security/api/${kind}`) {
        return json(200, Object.fromEntries([...store].map(([n, b]) => [n, show(b)])));
      }
      const m = new RegExp(`^/_plugins/_security/api/${kind}/([^/]+)$`).exec(path);
      if (m === null) continue;
      const name = m[1];
      const notFound = json(404, { status: 'NOT_FOUND', message: `Resource '${name}' not found.` });
      if (method === 'GET') return store.has(name) ? json(200, { [name]: show(store.get(name)) }) : notFound;
      if (method === 'PUT') {
        const existed = store.has(name);
        store.set(name, request.body);
        return existed
          ? json(200, { status: 'OK', message: `'${name}' updated.` })
          : json(201, { status: 'CREATED', message: `'${name}' created.` });
      }
      if (method === 'DELETE') {
        return store.delete(name) ? json(200, { status: 'OK', message: `'${name}' deleted.` }) : notFound;
      }
    }
    return json(400, { error: `no handler found for uri [${path}] and method [${method}]` });
  }

  private dashboards(request: HttpRequest, path: string, params: URLSearchParams): HttpResponse {
    if (!this.options.dashboards) {
      return json(404, { statusCode: 404, error: 'Not Found' });
    }
    if (request.method === 'GET' && path === '/api/status') {
      return json(200, { status: { overall: { state: 'green' } } });
    }
    if (request.method === 'GET' && path === '/api/saved_objects/_find') {
      const type = params.get('type');
      const saved = [...this.savedObjects.values()].filter((o) => (o as { type: string }).type === type);
      return json(200, { page: 1, per_page: saved.length, total: saved.length, saved_objects: saved });
    }
    if (request.method !== 'GET' && request.headers?.['osd-xsrf'] !== 'true') {
      return json(400, {
        statusCode: 400,
        error: 'Bad Request',
        message: 'Request must contain a osd-xsrf header.',
      });
    }
    const one = /^\/api\/saved_objects\/([^/_][^/]*)\/([^/]+)$/.exec(path);
    if (request.method === 'DELETE' && one !== null) {
      return this.savedObjects.delete(`${one[1]}/${one[2]}`)
        ? json(200, {})
        : json(404, { statusCode: 404, error: 'Not Found' });
    }
    if (request.method === 'POST' && path === '/api/saved_objects/_bulk_create') {
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

/** `*` wildcards only, as index and template names take them. */
function globMatch(pattern: string, name: string): boolean {
  return new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(name);
}

/** `{ index: { refresh_interval: '5s' } }` or `{ 'index.refresh_interval': '5s' }` as flat settings. */
function flatten(body: Record<string, unknown>, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    const full = prefix === '' ? key : `${prefix}.${key}`;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      Object.assign(out, flatten(value as Record<string, unknown>, full));
    } else {
      out[full] = String(value);
    }
  }
  return out;
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
