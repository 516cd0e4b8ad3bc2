import type { Impact } from '../contracts/impact';
import type { OpenSearchHttpClient } from './http';
import type { OpenSearchSpec } from './spec';

/** The types of {@link provisionOpenSearch} (core/opensearch/provision.ts), shared by its parts. */

export type Feature = 'ism' | 'security' | 'dashboards';
/**
 * `failed` only for a best-effort step (see {@link ProvisionOptions.dashboardsBestEffort}); others throw.
 * `kept`: something that left the profile and stays on purpose (a retired family's indices, policy and readers,
 * core/opensearch/domain-families.ts); `deleted`: something kfek owned and no longer needs.
 */
export type StepStatus = 'created' | 'updated' | 'unchanged' | 'skipped' | 'failed' | 'kept' | 'deleted';

export interface ProvisionStep {
  readonly step: string;
  readonly status: StepStatus;
  readonly detail?: string;
  /** What the change costs or keeps, when more than a plain change (core/opensearch/domain-change.ts). */
  readonly impact?: Impact;
}

export interface ProvisionReport {
  /** `version.number` of `GET /`. */
  readonly version: string;
  readonly features: Readonly<Record<Feature, boolean>>;
  readonly steps: readonly ProvisionStep[];
}

export interface ProvisionOptions {
  /**
   * Client for OpenSearch Dashboards (its base URL ends in `/_dashboards` on Amazon OpenSearch Service).
   * @default - none: the Dashboards step is skipped
   */
  readonly dashboards?: OpenSearchHttpClient;
  /**
   * Force a feature on (fail if it is absent) or off (skip it) instead of detecting it.
   * @default - detect each feature by probing its endpoint
   */
  readonly features?: Partial<Record<Feature, boolean>>;
  /**
   * Dashboards tenant the saved objects go to (`securitytenant` header) when the security plugin is present.
   * @default 'global' (visible to every Dashboards user)
   */
  readonly dashboardsTenant?: string;
  /**
   * Report a failing Dashboards step (probe or write) as a `failed` step instead of throwing. The custom resource
   * sets this: the starter dashboard is a convenience, and a Dashboards hiccup must not roll back the pipeline
   * whose template, retention and access were applied. The failure is logged and returned in the report.
   * @default false
   */
  readonly dashboardsBestEffort?: boolean;
  /**
   * Retry requests refused with 401/403 for up to this long (shared by all requests of the run) before failing.
   * IAM is eventually consistent: a policy attached seconds before the first signed call, or a role mapping just
   * written, may be refused for a while
   * (https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_general.html#troubleshoot_general_eventual-consistency).
   * @default - no retry: a refusal fails at once (the local node, the CLI)
   */
  readonly accessDeniedRetry?: AccessDeniedRetryOptions;
  /** Progress lines. @default - silent */
  readonly log?: (line: string) => void;
  /**
   * The spec the previous run applied (the custom resource's old properties): kfek removes from the built-in roles'
   * mappings the members it named and this spec does not, and tells a hand edit from a profile change.
   * @default - none: members of the built-in roles' mappings are only added
   */
  readonly previous?: OpenSearchSpec;
  /** Now, in epoch milliseconds (retired families' grace periods). @default Date.now */
  readonly now?: () => number;
}

export interface AccessDeniedRetryOptions {
  /** Total time to keep retrying refused requests, from the run's first refusal. */
  readonly maxWaitMillis: number;
  /** @default 1000, doubling up to 15000 */
  readonly initialDelayMillis?: number;
  /** Injected so tests use a fake clock. @default - Date.now and setTimeout */
  readonly clock?: { readonly now: () => number; readonly sleep: (ms: number) => Promise<void> };
}
