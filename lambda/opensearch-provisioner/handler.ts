/**
 * CloudFormation custom resource (Provider framework `onEvent`) that applies kfek's OpenSearch provisioning to the
 * domain: Create and Update run the idempotent applier, Delete leaves everything in place (the log indices and
 * their template outlive the stack on purpose; deleting a stack must never delete data).
 *
 * A thin adapter: it parses the properties, builds the HTTP client (SigV4 as the function's role, the domain's
 * fine-grained access control master user) and calls `provisionOpenSearch`.
 */
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { OpenSearchSpecError } from '../../core/opensearch/errors';
import { createHttpClient, type OpenSearchHttpClient } from '../../core/opensearch/http';
import {
  provisionOpenSearch,
  type AccessDeniedRetryOptions,
  type ProvisionOptions,
  type ProvisionReport,
  type ProvisionStep,
} from '../../core/opensearch/provision';
import { retryingAccessDenied } from '../../core/opensearch/provision-client';
import { provisionCollection } from '../../core/opensearch/serverless-provision';
import {
  resolveOpenSearchSpec,
  type OpenSearchSpec,
  type OpenSearchSpecInput,
} from '../../core/opensearch/spec';

/** The custom resource's properties (CloudFormation passes every value as a string). */
export interface ProvisionerProperties {
  /** Domain endpoint host name, without scheme (`search-x.eu-west-1.es.amazonaws.com`); or {@link CollectionEndpoint}. */
  readonly DomainEndpoint?: string;
  /**
   * An OpenSearch Serverless collection's endpoint instead (`https://<id>.<region>.aoss.amazonaws.com`): only kfek's
   * index templates and record, signed for `aoss` (core/opensearch/serverless-provision.ts, docs/serverless.md).
   */
  readonly CollectionEndpoint?: string;
  /** JSON of {@link OpenSearchSpecInput}; a JSON string keeps numbers numbers (CloudFormation stringifies them). */
  readonly Spec: string;
  /** Hash of the spec; only there so a spec change is an Update. */
  readonly SpecHash?: string;
  /** Create saved objects in OpenSearch Dashboards (`https://<endpoint>/_dashboards`). `"false"` skips them. */
  readonly Dashboards?: string;
}

export interface ProvisionerResponse {
  readonly PhysicalResourceId: string;
  readonly Data?: Record<string, string>;
}

/** Stable across updates: an id change would make CloudFormation "replace" (and so Delete) the resource. */
export const PHYSICAL_RESOURCE_ID = 'kfek-opensearch-provisioning';

/** The I/O the handler needs, injectable for tests. */
export interface ProvisionerDeps {
  readonly region: string;
  readonly createClient: typeof createHttpClient;
  readonly provision: (
    client: OpenSearchHttpClient,
    spec: ReturnType<typeof resolveOpenSearchSpec>,
    options: ProvisionOptions,
  ) => Promise<ProvisionReport>;
  readonly provisionCollection: typeof provisionCollection;
  readonly log: (line: string) => void;
  /** Clock of the 401/403 retry; tests pass a fake one. */
  readonly clock: NonNullable<AccessDeniedRetryOptions['clock']>;
}

/**
 * How long a refused (401/403) request is retried: the provisioner's role gets its es:ESHttp* policy in the same
 * deployment, seconds before this runs, and IAM is eventually consistent
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_general.html#troubleshoot_general_eventual-consistency).
 * Two minutes, well inside the function's 5-minute timeout (lib/constructs/opensearch-provisioner.ts), leaving time
 * for the steps themselves.
 */
export const ACCESS_DENIED_RETRY_MILLIS = 120_000;

function parseProperties(raw: Record<string, unknown>): ProvisionerProperties {
  const endpoint = raw.DomainEndpoint;
  const spec = raw.Spec;
  const collection = raw.CollectionEndpoint;
  if (collection !== undefined) {
    if (typeof collection !== 'string' || !/^https:\/\/[^/]+$/.test(collection) || typeof spec !== 'string') {
      throw new OpenSearchSpecError(
        `CollectionEndpoint must be https://<host> and Spec a JSON string, got ${JSON.stringify(collection)}.`,
      );
    }
    return { CollectionEndpoint: collection, Spec: spec };
  }
  if (typeof endpoint !== 'string' || endpoint.length === 0 || endpoint.includes('/')) {
    throw new OpenSearchSpecError(`DomainEndpoint must be a host name, got ${JSON.stringify(endpoint)}.`);
  }
  if (typeof spec !== 'string') {
    throw new OpenSearchSpecError(`Spec must be a JSON string, got ${typeof spec}.`);
  }
  const dashboards = raw.Dashboards;
  return {
    DomainEndpoint: endpoint,
    Spec: spec,
    ...(typeof dashboards === 'string' ? { Dashboards: dashboards } : {}),
  };
}

/**
 * The spec the previous deploy applied (the Update's old properties): the provisioner removes from the built-in
 * roles' mappings the members it named and this spec does not. An old spec this version cannot read is logged and
 * left out (nothing is then removed from those mappings).
 */
function previousSpec(old: Record<string, unknown>, log: (line: string) => void): OpenSearchSpec | undefined {
  try {
    return typeof old.Spec === 'string'
      ? resolveOpenSearchSpec(JSON.parse(old.Spec) as OpenSearchSpecInput)
      : undefined;
  } catch (error) {
    log(
      `The previous deploy's spec cannot be read (${String(error)}); members are only added to built-in roles.`,
    );
    return undefined;
  }
}

/** The handler logic with its I/O injected. */
export async function handleEvent(
  event: CloudFormationCustomResourceEvent,
  deps: ProvisionerDeps,
): Promise<ProvisionerResponse> {
  if (event.RequestType === 'Delete') {
    // Harmless on delete: templates, policies, roles and saved objects stay, and so do the indices they govern.
    deps.log(`Delete of ${event.PhysicalResourceId}: leaving OpenSearch objects and data in place.`);
    return { PhysicalResourceId: event.PhysicalResourceId };
  }
  const props = parseProperties(event.ResourceProperties);
  const spec = resolveOpenSearchSpec(JSON.parse(props.Spec) as OpenSearchSpecInput);
  if (props.CollectionEndpoint !== undefined) {
    return provisionCollectionEvent(event, props.CollectionEndpoint, spec, deps);
  }
  const previous =
    event.RequestType === 'Update' ? previousSpec(event.OldResourceProperties, deps.log) : undefined;
  // The function's role is the domain's master user (the Search stack's OpenSearchAdminRole): SigV4 only.
  const auth = { kind: 'sigv4', region: deps.region, service: 'es' } as const;
  const baseUrl = `https://${props.DomainEndpoint ?? ''}`;
  const client = deps.createClient({ baseUrl, auth });
  const dashboards =
    props.Dashboards === 'false' ? undefined : deps.createClient({ baseUrl: `${baseUrl}/_dashboards`, auth });
  const report = await deps.provision(client, spec, {
    ...(dashboards === undefined ? {} : { dashboards }),
    // The domain is ours and has these plugins; if a probe says otherwise, fail loudly instead of skipping.
    features: { ism: true, security: true },
    // The starter dashboard must not roll back a deployment whose template, retention and access were applied:
    // a Dashboards failure is logged and returned in the resource's Data instead.
    dashboardsBestEffort: true,
    accessDeniedRetry: { maxWaitMillis: ACCESS_DENIED_RETRY_MILLIS, clock: deps.clock },
    log: deps.log,
    now: deps.clock.now,
    ...(previous === undefined ? {} : { previous }),
  });
  return {
    PhysicalResourceId: event.RequestType === 'Update' ? event.PhysicalResourceId : PHYSICAL_RESOURCE_ID,
    Data: {
      OpenSearchVersion: report.version,
      Steps: stepsLine(report.steps),
    },
  };
}

/** What changed and what was kept first, then how many steps changed nothing: the resource's Data is limited to 4 KB. */
function stepsLine(steps: readonly ProvisionStep[]): string {
  const unchanged = steps.filter((s) => s.status === 'unchanged').length;
  return [
    ...steps
      .filter((s) => s.status !== 'unchanged')
      .map((s) => `${s.step}: ${s.status}${s.impact === undefined ? '' : ` [${s.impact}]`}`),
    `${unchanged} unchanged`,
  ]
    .join('; ')
    .slice(0, 3000);
}

/**
 * A collection: its templates and kfek's record, as the role the collection's data access policy names its
 * provisioner (those two and nothing else, core/opensearch/serverless-access.ts).
 * A just-written data access policy, like an IAM policy, takes a while to apply: a 401/403 is retried as on a domain.
 */
async function provisionCollectionEvent(
  event: Exclude<CloudFormationCustomResourceEvent, { RequestType: 'Delete' }>,
  endpoint: string,
  spec: OpenSearchSpec,
  deps: ProvisionerDeps,
): Promise<ProvisionerResponse> {
  const auth = { kind: 'sigv4', region: deps.region, service: 'aoss' } as const;
  const client = retryingAccessDenied({ maxWaitMillis: ACCESS_DENIED_RETRY_MILLIS, clock: deps.clock })(
    deps.createClient({ baseUrl: endpoint, auth }),
  );
  const report = await deps.provisionCollection(client, spec, { log: deps.log });
  return {
    PhysicalResourceId: event.RequestType === 'Update' ? event.PhysicalResourceId : PHYSICAL_RESOURCE_ID,
    Data: {
      Steps: stepsLine(report.steps),
    },
  };
}

const defaultDeps: ProvisionerDeps = {
  region: process.env.AWS_REGION ?? '',
  createClient: createHttpClient,
  provision: provisionOpenSearch,
  provisionCollection,
  log: (line) => console.log(line),
  clock: {
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  },
};

/** Provider framework onEvent entry point. */
export async function onEvent(event: CloudFormationCustomResourceEvent): Promise<ProvisionerResponse> {
  return handleEvent(event, defaultDeps);
}
