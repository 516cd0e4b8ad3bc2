/**
 * Executes a planned change (domain-change.ts): its requests in order, each checked. ISM answers 200 with a list of
 * failed indices, so those answers are read too.
 */
import { IMPACTS } from '../contracts/impact';
import type { DomainChange, PlannedRequest } from './domain-change';
import { KIND_LABEL } from './domain-change';
import { OpenSearchProvisioningError } from './errors';
import type { OpenSearchHttpClient } from './http';
import { call, record } from './provision-client';
import type { ProvisionStep, StepStatus } from './provision-types';

const STATUS: Readonly<Record<DomainChange['action'], StepStatus>> = {
  create: 'created',
  update: 'updated',
  delete: 'deleted',
  unchanged: 'unchanged',
  keep: 'kept',
  skip: 'skipped',
};

/** The report line of a change. */
export function stepOf(change: DomainChange): ProvisionStep {
  return {
    step: [KIND_LABEL[change.kind], change.name].filter((x) => x !== '').join(' '),
    status: STATUS[change.action],
    // An unchanged step says nothing more: the log lists what changed, what was kept, and the rest by name.
    ...(change.detail === undefined || change.detail === '' || change.action === 'unchanged'
      ? {}
      : { detail: change.detail }),
    ...(IMPACTS[change.impact].plain ? {} : { impact: change.impact }),
  };
}

/**
 * ISM's add and change_policy answer 200 with `failures` and `failed_indices`. An index that got a policy between
 * the read and the add (ISM's own template attached it) is no failure.
 */
function ismFailures(request: PlannedRequest, body: unknown): string[] {
  if (!request.path.startsWith('/_plugins/_ism/')) return [];
  const failed = record(body).failed_indices;
  return (Array.isArray(failed) ? failed : [])
    .map((f) => record(f))
    .filter((f) => !String(f.reason).includes('already has a policy'))
    .map((f) => `${String(f.index_name)}: ${String(f.reason)}`);
}

export interface ApplyClients {
  readonly opensearch: OpenSearchHttpClient;
  readonly dashboards?: OpenSearchHttpClient;
}

export async function applyChange(clients: ApplyClients, change: DomainChange): Promise<ProvisionStep> {
  for (const request of change.requests) {
    const client = request.target === 'dashboards' ? clients.dashboards : clients.opensearch;
    if (client === undefined) {
      throw new OpenSearchProvisioningError(`${request.method} ${request.path} needs a Dashboards client.`);
    }
    const response = await call(
      client,
      {
        method: request.method,
        path: request.path,
        ...(request.body === undefined ? {} : { body: request.body }),
        ...(request.headers === undefined ? {} : { headers: request.headers }),
      },
      request.ok,
    );
    const failures = ismFailures(request, response.body);
    if (failures.length > 0) {
      throw new OpenSearchProvisioningError(
        `${request.method} ${request.path} failed for ${failures.join('; ')}`,
      );
    }
    const saved = record(response.body).saved_objects;
    const refused = (Array.isArray(saved) ? saved : [])
      .map((o) => record(o))
      .filter((o) => o.error !== undefined)
      .map((o) => `${String(o.type)}/${String(o.id)}: ${JSON.stringify(o.error)}`);
    if (refused.length > 0) {
      throw new OpenSearchProvisioningError(`Dashboards refused saved objects: ${refused.join('; ')}`);
    }
  }
  return stepOf(change);
}
