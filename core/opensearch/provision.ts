import { IMPACTS } from '../contracts/impact';
import type { DomainChange } from './domain-change';
import { applyChange, stepOf } from './domain-apply';
import { planDomain } from './domain-plan';
import { kfekIndices, ownedNames } from './domain-read';
import { readDomainState } from './domain-state-read';
import { OpenSearchProvisioningError } from './errors';
import type { OpenSearchHttpClient } from './http';
import { applyAuditConfig } from './provision-audit';
import { call, detectFeatures, record, retryingAccessDenied } from './provision-client';
import type { ProvisionOptions, ProvisionReport, ProvisionStep } from './provision-types';
import { writeRegistry } from './registry';
import { recordAfter, recordBefore } from './registry-changes';
import type { OpenSearchSpec } from './spec';

export { OpenSearchFeatureError } from './provision-client';
export type {
  AccessDeniedRetryOptions,
  Feature,
  ProvisionOptions,
  ProvisionReport,
  ProvisionStep,
  StepStatus,
} from './provision-types';

/**
 * Converges the domain to the spec (issue 30): reads what kfek owns there (core/opensearch/domain-state.ts), plans
 * every change with its impact (domain-plan.ts) and applies the plan in order: ingest pipelines and templates,
 * retention policies and the policy of every existing index, dynamic settings of existing indices, roles and
 * mappings (pruned to the profile), audit logging, Dashboards objects, and last what no longer has a reason to
 * stay. Every change and every object kept on purpose is a step of the report and a line of the log. Running it
 * twice changes nothing the second time, so the custom resource runs it on every Create and Update and `npm start`
 * on every run.
 *
 * Plugins are optional: the local integ-test node has no security, ISM or Dashboards. Each is detected by probing
 * its endpoint; an absent one is skipped and reported, never an error. A 401/403 is always an error in the end: it
 * means the plugin is there and the provisioner is not allowed, which must not pass silently. With
 * {@link ProvisionOptions.accessDeniedRetry} (the custom resource) it is first retried for a bounded time, because a
 * just-attached IAM policy or role mapping takes a while to propagate.
 */
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
    log(
      `${s.step}: ${s.status}${s.impact === undefined ? '' : ` [${s.impact}]`}${s.detail === undefined ? '' : ` (${s.detail})`}`,
    );
  };

  const tenant = features.security ? (options.dashboardsTenant ?? 'global') : undefined;
  const dashboards = features.dashboards ? options.dashboards : undefined;
  let savedObjectsReadError: string | undefined;
  const read = async (withDashboards: boolean) =>
    readDomainState(client, {
      name: spec.name,
      version,
      features,
      describe: kfekIndices(spec),
      ...ownedNames(spec, options.previous),
      ...(withDashboards && dashboards !== undefined ? { dashboards } : {}),
      ...(tenant === undefined ? {} : { tenant }),
    });
  let state;
  try {
    state = await read(true);
  } catch (error) {
    // Reading Dashboards is best effort like writing it; the domain's own objects are read again without it.
    if (dashboards === undefined || options.dashboardsBestEffort !== true) throw error;
    savedObjectsReadError = String(error);
    state = await read(false);
  }
  const plan = planDomain(spec, state, {
    now: (options.now ?? Date.now)(),
    ...(options.previous === undefined ? {} : { previous: options.previous }),
    ...(dashboards === undefined || savedObjectsReadError !== undefined
      ? {}
      : { dashboards: { ...(tenant === undefined ? {} : { tenant }) } }),
  });

  // A change OpenSearch would refuse stops the deploy (core/contracts/impact.ts): it fails the run before anything
  // is applied, so nothing is left half-done.
  const refused = plan.changes.filter((c) => IMPACTS[c.impact].stopsDeploy);
  if (refused.length > 0) {
    throw new OpenSearchProvisioningError(
      `OpenSearch would refuse ${refused.map((c) => `${stepOf(c).step} (${c.detail ?? ''})`).join('; ')}; ` +
        `nothing was changed. Fix: ${refused.map((c) => c.fix ?? '').join('; ')}`,
    );
  }
  const clients = { opensearch: client, ...(dashboards === undefined ? {} : { dashboards }) };
  const isDashboards = (c: DomainChange): boolean => c.kind === 'saved-objects';
  // kfek's record names what it is about to write before it writes it, so a deploy that fails halfway leaves no
  // object of kfek's that its record does not name (registry.ts); the deletes leave the record after they are done.
  const recorded = await writeRegistry(client, spec.name, state.registry, recordBefore(state, plan.changes));
  const failed = new Set<DomainChange>();
  for (const change of plan.changes.filter((c) => !isDashboards(c))) push(await applyChange(clients, change));
  if (features.security) {
    push(await applyAuditConfig(client, spec));
  }
  if (dashboardsProbeError !== undefined || savedObjectsReadError !== undefined) {
    push({
      step: 'dashboards saved objects',
      status: 'failed',
      detail: dashboardsProbeError ?? savedObjectsReadError,
    });
  } else if (dashboards !== undefined) {
    for (const change of plan.changes.filter(isDashboards)) {
      try {
        push(await applyChange(clients, change));
      } catch (error) {
        if (options.dashboardsBestEffort !== true) throw error;
        failed.add(change);
        push({ ...stepOf(change), status: 'failed', detail: String(error) });
      }
    }
  } else {
    push({
      step: 'dashboards saved objects',
      status: 'skipped',
      detail: 'no OpenSearch Dashboards reachable',
    });
  }
  await writeRegistry(
    client,
    spec.name,
    recorded,
    recordAfter(state, plan.changes, (c) => !failed.has(c)),
  );
  return { version, features, steps };
}
