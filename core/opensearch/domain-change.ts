/**
 * One change a deploy makes inside the domain (issue 30), decided once by the planner (domain-plan.ts) and only
 * rendered by its readers: the provisioner executes its requests and logs it, `kfek doctor` shows it before the
 * deploy. Its impact says what it costs, ordered by one badness table ({@link IMPACT_ORDER}), as aws-cdk's
 * cloudformation-diff orders resource impacts.
 */
import type { HttpMethod } from './http';

export type Impact =
  /** Existing indices are deleted sooner than before (a shorter retention), or deleted now. */
  | 'loses-data'
  /** Someone loses read or write access to indices that exist (a member or a pattern removed). */
  | 'loses-access'
  /** OpenSearch would refuse it (an overlap with someone else's template at the same priority). */
  | 'refused'
  /** A hand edit of something kfek owns is reverted. */
  | 'drift'
  /** Someone gains access. */
  | 'grants-access'
  /** Existing indices are kept longer than before. */
  | 'keeps-longer'
  /** Something that left the profile is kept (history stays readable and retained). */
  | 'kept'
  /** A change that only the next index gets (static settings, mappings). */
  | 'next-index'
  /** Anything else that changes. */
  | 'change'
  | 'none';

/** Worst first. */
export const IMPACT_ORDER: readonly Impact[] = [
  'loses-data',
  'loses-access',
  'refused',
  'drift',
  'grants-access',
  'keeps-longer',
  'kept',
  'next-index',
  'change',
  'none',
];

export function worstImpact(impacts: Iterable<Impact>): Impact {
  let worst: Impact = 'none';
  for (const i of impacts) if (IMPACT_ORDER.indexOf(i) < IMPACT_ORDER.indexOf(worst)) worst = i;
  return worst;
}

export type ChangeKind =
  | 'ingest-pipeline'
  | 'index-template'
  | 'ism-policy'
  | 'ism-indices'
  | 'index-settings'
  | 'security-role'
  | 'role-mapping'
  | 'saved-objects'
  | 'family';

export type ChangeAction = 'create' | 'update' | 'delete' | 'unchanged' | 'keep' | 'skip';

/** A request that applies (part of) a change. */
export interface PlannedRequest {
  readonly method: HttpMethod;
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Statuses that mean it worked. */
  readonly ok: readonly number[];
  /** Which client: the domain, or Dashboards. @default 'opensearch' */
  readonly target?: 'opensearch' | 'dashboards';
}

export interface DomainChange {
  readonly kind: ChangeKind;
  readonly name: string;
  readonly action: ChangeAction;
  readonly impact: Impact;
  /** What it does, in plain words (and what is at stake). */
  readonly detail?: string;
  /** How to avoid its cost, when it has one. */
  readonly fix?: string;
  /** What the provisioner sends, in order; empty for a change that needs none. */
  readonly requests: readonly PlannedRequest[];
}

export const KIND_LABEL: Readonly<Record<ChangeKind, string>> = {
  'ingest-pipeline': 'ingest pipeline',
  'index-template': 'index template',
  'ism-policy': 'ISM policy',
  'ism-indices': 'ISM',
  'index-settings': 'index settings',
  'security-role': 'security role',
  'role-mapping': 'role mapping',
  'saved-objects': 'dashboards saved objects',
  family: 'indices',
};
