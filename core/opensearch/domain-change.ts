/**
 * One change a deploy makes inside the domain (issue 30), decided once by the planner (domain-plan.ts) and only
 * rendered by its readers: the provisioner executes its requests and logs it, `kfek doctor` shows it before the
 * deploy. Its impact says what it costs, in the one vocabulary both planners share (core/contracts/impact.ts: its
 * badness order, whether it stops the deploy, its title).
 */
import type { Impact } from '../contracts/impact';
import type { HttpMethod } from './http';

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
