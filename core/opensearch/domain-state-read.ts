/**
 * Reads what a domain holds of kfek's (domain-state.ts says what and how kfek tells its own): one listing per kind of
 * object, each kept when kfek's record or the profile claims it ({@link Ownership}).
 */
import { describeIndices, readIndices } from './domain-state-indices';
import {
  type DomainState,
  type ForeignTemplate,
  LEDGER,
  type ReadOptions,
  type StoredPolicy,
  type StoredTemplate,
} from './domain-state';
import type { OpenSearchHttpClient } from './http';
import { POLICY_HASH_MARKER } from './ism-policy';
import { call, list, record, strings } from './provision-client';
import { Ownership } from './ownership';
import { readRegistry } from './registry';
import { isAddressable, name as one, requestPath } from './request-path';
import { type RoleMappingBody, ADMIN_ROLES, DASHBOARDS_USER_ROLE } from './security';

/** The stem of a template: its ledger, else its first pattern without `-*` (templates made before issue 30). */
function stemOf(body: Record<string, unknown>, meta: Record<string, unknown>): string | undefined {
  const stem = meta[LEDGER.stem];
  if (typeof stem === 'string') return stem;
  const first = strings(body.index_patterns)[0];
  return first?.endsWith('-*') === true ? first.slice(0, -2) : undefined;
}

async function readTemplates(
  client: OpenSearchHttpClient,
  name: string,
  ownership: Ownership,
): Promise<{ own: Map<string, StoredTemplate>; foreign: ForeignTemplate[] }> {
  // One listing of every composable template: kfek's by its record, the others for the overlap check.
  const listed = await call(client, { method: 'GET', path: '/_index_template' }, [200, 404]);
  const own = new Map<string, StoredTemplate>();
  const foreign: ForeignTemplate[] = [];
  for (const entry of list(record(listed.body).index_templates)) {
    const templateName = String(record(entry).name);
    const body = record(record(entry).index_template);
    const meta = record(body._meta);
    const stem = stemOf(body, meta);
    const marked = meta.managed_by === 'kfek' && templateName.startsWith(`${name}-`);
    const owned =
      stem !== undefined &&
      isAddressable('index template', templateName) &&
      (marked
        ? ownership.adoptTemplate(templateName, stem, meta[LEDGER.readerRole])
        : ownership.owns('index-template', templateName, false));
    if (owned) {
      const route = meta.kfek_route;
      own.set(templateName, {
        name: templateName,
        stem,
        route: typeof route === 'string' ? route : undefined,
        body,
        meta,
      });
    } else {
      foreign.push({
        name: templateName,
        patterns: strings(body.index_patterns),
        priority: Number(body.priority ?? 0),
      });
    }
  }
  return { own, foreign };
}

async function readPipelines(
  client: OpenSearchHttpClient,
  name: string,
  ownership: Ownership,
): Promise<Map<string, Record<string, unknown>>> {
  // A wildcard GET answers 404 when nothing matches.
  const path = requestPath(['_ingest', 'pipeline', one('name pattern', `${name}-*`)]);
  const listed = await call(client, { method: 'GET', path }, [200, 404]);
  const out = new Map<string, Record<string, unknown>>();
  for (const [id, body] of Object.entries(listed.status === 200 ? record(listed.body) : {})) {
    const addressable = isAddressable('ingest pipeline', id);
    if (addressable && ownership.owns('ingest-pipeline', id, id.endsWith('-document-id')))
      out.set(id, record(body));
  }
  return out;
}

async function readPolicies(
  client: OpenSearchHttpClient,
  name: string,
  ownership: Ownership,
): Promise<Map<string, StoredPolicy>> {
  const out = new Map<string, StoredPolicy>();
  const pageSize = 1000;
  for (let from = 0; ; from += pageSize) {
    const page = await call(
      client,
      { method: 'GET', path: requestPath(['_plugins', '_ism', 'policies'], { size: pageSize, from }) },
      [200],
    );
    const policies = list(record(page.body).policies);
    for (const entry of policies) {
      const e = record(entry);
      const id = String(e._id);
      const policy = record(e.policy);
      const description = policy.description;
      const marked =
        id.startsWith(`${name}-`) &&
        typeof description === 'string' &&
        description.includes(POLICY_HASH_MARKER);
      if (!isAddressable('ISM policy', id) || !ownership.owns('ism-policy', id, marked)) continue;
      out.set(id, { id, seqNo: Number(e._seq_no), primaryTerm: Number(e._primary_term), policy });
    }
    if (policies.length < pageSize) return out;
  }
}

async function readSecurity(
  client: OpenSearchHttpClient,
  name: string,
  ownership: Ownership,
): Promise<{ roles: Map<string, Record<string, unknown>>; mappings: Map<string, RoleMappingBody> }> {
  const rolesAnswer = await call(client, { method: 'GET', path: '/_plugins/_security/api/roles' }, [200]);
  const roles = new Map<string, Record<string, unknown>>();
  for (const [role, body] of Object.entries(record(rolesAnswer.body))) {
    const description = record(body).description;
    const marked =
      role.startsWith(`${name}_`) && typeof description === 'string' && description.startsWith('kfek:');
    if (isAddressable('security role', role) && ownership.owns('security-role', role, marked)) {
      roles.set(role, record(body));
    }
  }
  const mappingsAnswer = await call(
    client,
    { method: 'GET', path: '/_plugins/_security/api/rolesmapping' },
    [200],
  );
  const shared = new Set<string>([DASHBOARDS_USER_ROLE, ...ADMIN_ROLES]);
  const mappings = new Map<string, RoleMappingBody>();
  for (const [role, body] of Object.entries(record(mappingsAnswer.body))) {
    if (!roles.has(role) && !shared.has(role)) continue;
    const b = record(body);
    mappings.set(role, {
      backend_roles: strings(b.backend_roles),
      hosts: strings(b.hosts),
      users: strings(b.users),
      ...(Array.isArray(b.and_backend_roles) ? { and_backend_roles: strings(b.and_backend_roles) } : {}),
      ...(typeof b.description === 'string' ? { description: b.description } : {}),
    });
  }
  return { roles, mappings };
}

async function readSavedObjects(
  dashboards: OpenSearchHttpClient,
  name: string,
  ownership: Ownership,
  tenant?: string,
): Promise<Set<string>> {
  const out = new Set<string>();
  const headers = { 'osd-xsrf': 'true', ...(tenant === undefined ? {} : { securitytenant: tenant }) };
  for (const type of ['index-pattern', 'search', 'visualization', 'dashboard']) {
    const found = await call(
      dashboards,
      {
        method: 'GET',
        path: requestPath(['api', 'saved_objects', '_find'], { type, per_page: 10000, fields: 'title' }),
        headers,
      },
      [200],
    );
    for (const o of list(record(found.body).saved_objects)) {
      const id = String(record(o).id);
      const addressable = isAddressable('saved object', id);
      if (addressable && ownership.owns('saved-object', `${type}/${id}`, id.startsWith(`${name}-`)))
        out.add(`${type}/${id}`);
    }
  }
  return out;
}

/** Reads everything the planner needs, with one listing per kind of object. */
export async function readDomainState(
  client: OpenSearchHttpClient,
  options: ReadOptions,
): Promise<DomainState> {
  const registry = await readRegistry(client, options.name);
  const ownership = new Ownership(options.name, registry, options.claim, options.adopt ?? new Set());
  // Templates first: before the record, a retired family's own names come from its template's stem.
  const { own: templates, foreign: foreignTemplates } = await readTemplates(client, options.name, ownership);
  const pipelines = await readPipelines(client, options.name, ownership);
  const policies = options.features.ism
    ? await readPolicies(client, options.name, ownership)
    : new Map<string, StoredPolicy>();
  const all = await readIndices(client);
  const indices = await describeIndices(
    client,
    all,
    options.describe(all, templates, policies),
    options.features.ism,
  );
  const security = options.features.security
    ? await readSecurity(client, options.name, ownership)
    : { roles: new Map<string, Record<string, unknown>>(), mappings: new Map<string, RoleMappingBody>() };
  const savedObjects =
    options.dashboards === undefined
      ? undefined
      : await readSavedObjects(options.dashboards, options.name, ownership, options.tenant);
  return {
    version: options.version,
    features: options.features,
    templates,
    foreignTemplates,
    pipelines,
    policies,
    indices,
    ...security,
    ...(savedObjects === undefined ? {} : { savedObjects }),
    ...(registry === undefined ? {} : { registry }),
  };
}
