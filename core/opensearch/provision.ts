import { IMPACTS } from '../contracts/impact';
import type { DomainChange } from './domain-change';
import { type ApplyClients, applyChange, stepOf } from './domain-apply';
import { type DomainPlan, planDomain } from './domain-plan';
import type { DomainState } from './domain-state';
import { kfekIndices, ownedNames } from './domain-read';
import { readDomainState } from './domain-state-read';
import { OpenSearchProvisioningError } from './errors';
import type { OpenSearchHttpClient } from './http';
import { applyAuditConfig } from './provision-audit';
import { call, detectFeatures, record, retryingAccessDenied } from './provision-client';
import type { Feature, ProvisionOptions, ProvisionReport, ProvisionStep } from './provision-types';
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
  const { client, options } = withAccessDeniedRetry(target, given);
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
  const planned = await readAndPlan(client, spec, options, version, features);
  const { state, plan, dashboards } = planned;
  refuseStoppers(plan.changes);
  const clients = { opensearch: client, ...(dashboards === undefined ? {} : { dashboards }) };
  // kfek's record names what it is about to write before it writes it, so a deploy that fails halfway leaves no
  // object of kfek's that its record does not name (registry.ts); the deletes leave the record after they are done.
  const recorded = await writeRegistry(client, spec.name, state.registry, recordBefore(state, plan.changes));
  for (const change of plan.changes.filter((c) => !isDashboards(c))) push(await applyChange(clients, change));
  if (features.security) {
    push(await applyAuditConfig(client, spec));
  }
  const failed = await applyDashboards(
    clients,
    plan.changes.filter(isDashboards),
    dashboardsProbeError ?? planned.savedObjectsReadError,
    options,
    push,
  );
  await writeRegistry(
    client,
    spec.name,
    recorded,
    recordAfter(state, plan.changes, (c) => !failed.has(c)),
  );
  return { version, features, steps };
}

/** The client and options with the access-denied retry around every call (the custom resource's), when asked. */
function withAccessDeniedRetry(
  target: OpenSearchHttpClient,
  given: ProvisionOptions,
): { readonly client: OpenSearchHttpClient; readonly options: ProvisionOptions } {
  if (given.accessDeniedRetry === undefined) return { client: target, options: given };
  const wrap = retryingAccessDenied(given.accessDeniedRetry);
  return {
    client: wrap(target),
    options: given.dashboards === undefined ? given : { ...given, dashboards: wrap(given.dashboards) },
  };
}

interface Planned {
  readonly state: DomainState;
  readonly plan: DomainPlan;
  /** The Dashboards client when Dashboards answers. */
  readonly dashboards: OpenSearchHttpClient | undefined;
  /** Why kfek's saved objects could not be read (best effort): they are then not planned. */
  readonly savedObjectsReadError: string | undefined;
}

/** Reads what the domain holds of kfek's and plans every change. */
async function readAndPlan(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
  options: ProvisionOptions,
  version: string,
  features: Readonly<Record<Feature, boolean>>,
): Promise<Planned> {
  const tenant = features.security ? (options.dashboardsTenant ?? 'global') : undefined;
  const dashboards = features.dashboards ? options.dashboards : undefined;
  let savedObjectsReadError: string | undefined;
  const read = async (withDashboards: boolean): Promise<DomainState> =>
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
  return { state, plan, dashboards, savedObjectsReadError };
}

/**
 * A change OpenSearch would refuse stops the deploy (core/contracts/impact.ts): it fails the run before anything is
 * applied, so nothing is left half-done.
 */
function refuseStoppers(changes: readonly DomainChange[]): void {
  const refused = changes.filter((c) => IMPACTS[c.impact].stopsDeploy);
  if (refused.length === 0) return;
  throw new OpenSearchProvisioningError(
    `OpenSearch would refuse ${refused.map((c) => `${stepOf(c).step} (${c.detail ?? ''})`).join('; ')}; ` +
      `nothing was changed. Fix: ${refused.map((c) => c.fix ?? '').join('; ')}`,
  );
}

const isDashboards = (c: DomainChange): boolean => c.kind === 'saved-objects';

/** Applies the Dashboards objects, best effort when asked; answers the changes that failed (left out of the record). */
async function applyDashboards(
  clients: ApplyClients,
  changes: readonly DomainChange[],
  unreadable: string | undefined,
  options: ProvisionOptions,
  push: (s: ProvisionStep) => void,
): Promise<Set<DomainChange>> {
  const failed = new Set<DomainChange>();
  if (unreadable !== undefined) {
    push({ step: 'dashboards saved objects', status: 'failed', detail: unreadable });
  } else if (clients.dashboards !== undefined) {
    for (const change of changes) {
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
  return failed;
}
