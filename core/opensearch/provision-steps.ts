/**
 * The provisioning steps, each idempotent: the document-id ingest pipeline, the index template, the ISM retention
 * policy, the security roles and mappings, the audit configuration and the Dashboards saved objects.
 */
import { mergeAuditConfig } from './audit';
import { buildSavedObjects } from './dashboards';
import { OpenSearchProvisioningError } from './errors';
import type { OpenSearchHttpClient } from './http';
import { buildIndexTemplate, TEMPLATE_HASH_META_KEY, TEMPLATE_ROUTE_META_KEY } from './index-template';
import { buildIngestPipeline } from './ingest-pipeline';
import { buildIsmPolicy, isSamePolicy } from './ism-policy';
import { call, record } from './provision-client';
import type { ProvisionStep } from './provision-types';
import { buildSecurityRoles, mergeRoleMapping, type SecurityRoleBody } from './security';
import { canonicalJson, defaultFamily, type IndexFamily, indexFamilies, type OpenSearchSpec } from './spec';

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
export async function applyIngestPipeline(
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

export async function applyIndexTemplate(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
  family: IndexFamily = defaultFamily(spec),
): Promise<ProvisionStep> {
  const name = family.names.indexTemplate;
  const body = buildIndexTemplate(spec, family);
  const desiredHash = record(body._meta)[TEMPLATE_HASH_META_KEY];
  return putUnlessSame(client, `index template ${name}`, `/_index_template/${name}`, body, (stored) => {
    // GET answers { index_templates: [{ name, index_template: { ..., _meta } }] }.
    const list = stored.index_templates;
    const meta = record(record(record(Array.isArray(list) ? list[0] : undefined).index_template)._meta);
    return meta[TEMPLATE_HASH_META_KEY] === desiredHash;
  });
}

export async function applyIsmPolicy(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
  family: IndexFamily = defaultFamily(spec),
): Promise<ProvisionStep[]> {
  const id = family.names.ismPolicy;
  const path = `/_plugins/_ism/policies/${id}`;
  const desired = buildIsmPolicy(spec, family);
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
    { method: 'POST', path: `/_plugins/_ism/add/${family.indexPattern}`, body: { policy_id: id } },
    [200, 404],
  );
  const updated = Number(record(add.body).updated_indices ?? 0);
  steps.push({
    step: `ISM attach existing ${family.indexPattern}`,
    status: updated > 0 ? 'updated' : 'unchanged',
    detail: `${updated} index(es) attached`,
  });
  return steps;
}

/**
 * True when the role the security API returns grants exactly `wanted`: same description, cluster permissions,
 * index permissions (patterns and actions, and no field- or document-level security or masking that kfek does not
 * set) and tenant permissions. The API adds `reserved`, `hidden`, `static` and empty `fls`/`masked_fields` lists.
 */
export function sameRole(current: unknown, wanted: SecurityRoleBody): boolean {
  const c = record(current);
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  const indexPermission = (p: unknown) => {
    const r = record(p);
    return {
      index_patterns: list(r.index_patterns),
      allowed_actions: list(r.allowed_actions),
      dls: typeof r.dls === 'string' ? r.dls : '',
      fls: list(r.fls),
      masked_fields: list(r.masked_fields),
    };
  };
  const tenantPermission = (p: unknown) => {
    const r = record(p);
    return { tenant_patterns: list(r.tenant_patterns), allowed_actions: list(r.allowed_actions) };
  };
  const normalize = (role: Record<string, unknown>) =>
    JSON.stringify({
      description: typeof role.description === 'string' ? role.description : '',
      cluster_permissions: list(role.cluster_permissions),
      index_permissions: list(role.index_permissions).map(indexPermission),
      tenant_permissions: list(role.tenant_permissions).map(tenantPermission),
    });
  return normalize(c) === normalize(wanted as unknown as Record<string, unknown>);
}

export async function applySecurity(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
): Promise<ProvisionStep[]> {
  const steps: ProvisionStep[] = [];
  for (const role of buildSecurityRoles(spec)) {
    if (role.role !== undefined) {
      // Read first: a PUT of the same content still bumps the security configuration's version and writes an audit
      // entry, so a role that is already as wanted is left alone ('unchanged').
      const path = `/_plugins/_security/api/roles/${role.name}`;
      const existing = await call(client, { method: 'GET', path }, [200, 404]);
      const current = existing.status === 200 ? record(existing.body)[role.name] : undefined;
      if (current !== undefined && sameRole(current, role.role)) {
        steps.push({ step: `security role ${role.name}`, status: 'unchanged' });
      } else {
        // PUT replaces the role with exactly this content; 201 when it was new.
        const put = await call(client, { method: 'PUT', path, body: role.role }, [200, 201]);
        steps.push({
          step: `security role ${role.name}`,
          status: put.status === 201 ? 'created' : 'updated',
        });
      }
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

export async function applyAuditConfig(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
): Promise<ProvisionStep> {
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

export async function applyDashboards(
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

/**
 * Routes removed from the config (or given another index stem) are kept, not cleaned up: their indices hold logs a
 * team may still need, their ISM policy keeps deleting them on the old schedule, and their reader role keeps
 * letting the team read what is left. What changes: the writer role no longer covers them and the ingest pipeline
 * no longer knows the name, so new documents marked with it land in the default indices with `kfek.unknownRoute`.
 * This step finds kfek's route templates the spec no longer has (by their `_meta`) and reports each as `orphaned`,
 * naming what was kept; docs/teams-and-routes.md says how to delete them by hand.
 */
export async function reportOrphanedRoutes(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
): Promise<ProvisionStep[]> {
  // A wildcard GET answers 404 when nothing matches.
  const listed = await call(client, { method: 'GET', path: `/_index_template/${spec.name}-*` }, [200, 404]);
  const templates = record(listed.body).index_templates;
  const current = new Set(indexFamilies(spec).map((f) => f.names.indexTemplate));
  const steps: ProvisionStep[] = [];
  for (const entry of Array.isArray(templates) ? templates : []) {
    const name = String(record(entry).name);
    const template = record(record(entry).index_template);
    const meta = record(template._meta);
    const route = meta[TEMPLATE_ROUTE_META_KEY];
    if (meta.managed_by !== 'kfek' || typeof route !== 'string' || current.has(name)) continue;
    const patterns = Array.isArray(template.index_patterns) ? template.index_patterns.join(', ') : '?';
    steps.push({
      step: `route ${route} (index template ${name})`,
      status: 'orphaned',
      detail:
        `no longer in the config: indices ${patterns}, template ${name}, ISM policy ${name}-retention and role ` +
        `${spec.name}_${route}_reader are kept; new documents marked "${route}" go to ${spec.indexPattern}`,
    });
  }
  return steps;
}
