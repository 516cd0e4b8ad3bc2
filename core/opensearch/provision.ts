import type { OpenSearchHttpClient } from './http';
import { call, detectFeatures, record, retryingAccessDenied } from './provision-client';
import {
  applyAuditConfig,
  applyDashboards,
  applyIndexTemplate,
  applyIngestPipeline,
  applyIsmPolicy,
  applySecurity,
  reportOrphanedRoutes,
} from './provision-steps';
import type { ProvisionOptions, ProvisionReport, ProvisionStep } from './provision-types';
import { indexFamilies, type OpenSearchSpec } from './spec';

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
  // Order: each route's template before the pipeline that sends documents to the route's indices, so the first of
  // them gets its mappings (a route's template names the pipeline too, but no document reaches a route's indices
  // before the pipeline exists); the pipeline before the default template that names it as `default_pipeline` (an
  // index created from the template in between would reject every document), the template before Firehose
  // creates the next index, then retention, then access (the writer mapping is what lets Firehose in), then the
  // Dashboards objects that read the indices, and last the report of removed routes' objects, which are kept.
  const families = indexFamilies(spec);
  for (const route of spec.routes) push(await applyIndexTemplate(client, spec, route));
  push(await applyIngestPipeline(client, spec));
  push(await applyIndexTemplate(client, spec));
  for (const family of families) {
    if (features.ism) {
      (await applyIsmPolicy(client, spec, family)).forEach(push);
    } else {
      push({
        step: `ISM policy ${family.names.ismPolicy}`,
        status: 'skipped',
        detail: 'no ISM plugin on the target',
      });
    }
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
  (await reportOrphanedRoutes(client, spec)).forEach(push);
  return { version, features, steps };
}
