/**
 * The provisioning step for the security plugin's audit logging configuration (audit.ts builds it): read, merge,
 * write only when it differs.
 */
import { mergeAuditConfig } from './audit';
import type { OpenSearchHttpClient } from './http';
import { call, record } from './provision-client';
import type { ProvisionStep } from './provision-types';
import type { OpenSearchSpec } from './spec';

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
