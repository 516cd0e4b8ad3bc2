/**
 * What a deploy does inside the domain (issue 30): from the profile's spec and what the domain holds
 * (domain-state.ts), every change, in the order the provisioner applies them, each with its impact. The provisioner
 * executes the plan (provision.ts); `kfek doctor` renders it before the deploy (cli/doctor/domain.ts). Pure.
 *
 * Order, and why:
 * 1. route templates, then the ingest pipelines, then the default route's templates: a route's template exists before
 *    the pipeline can send a document to its indices, and the pipeline exists before a template names it;
 * 2. retention policies, then which policy manages each existing index (attach, `change_policy`);
 * 3. dynamic settings of existing indices;
 * 4. roles, their mappings, kfek's members of the built-in roles (the writer's patterns cover a new prefix before
 *    Firehose writes there: the Firehose update depends on the provisioner);
 * 5. Dashboards objects;
 * 6. last, what no longer has a reason to stay: templates, pipelines and policies of retired families whose indices
 *    are all gone, and their roles.
 */
import type { DomainChange } from './domain-change';
import { type Families, type Family, familiesOf } from './domain-families';
import { planAccess } from './domain-plan-access';
import { planIndexPrune, planPipelines, planSettings, planTemplates } from './domain-plan-indices';
import { planPolicies } from './domain-plan-ism';
import type { DomainState } from './domain-state';
import { buildSavedObjects, type SavedObject } from './dashboards';
import { dashboardsIndexPattern } from './families';
import { savedObjectPath } from './request-path';
import type { OpenSearchSpec } from './spec';

export interface DomainPlanOptions {
  /** Now, epoch milliseconds (injected: tests and the doctor pass their own clock). */
  readonly now: number;
  /**
   * The spec the previous deploy applied (the custom resource's old properties; the deployed template's for the
   * doctor): which members kfek put into the built-in roles' mappings, and what it wrote last (to tell a hand edit
   * from a profile change). @default - none: nothing is removed from the built-in roles' mappings
   */
  readonly previous?: OpenSearchSpec;
  /** Plan Dashboards saved objects (when Dashboards answers). @default - not planned */
  readonly dashboards?: { readonly tenant?: string };
}

export interface DomainPlan {
  readonly families: Families;
  readonly changes: readonly DomainChange[];
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function familyChanges(families: Families): DomainChange[] {
  const kept = families.kept
    .filter((f) => !f.current)
    .map((f): DomainChange => ({
      kind: 'family',
      name: `${f.stem}-*`,
      action: 'keep',
      impact: 'kept',
      detail:
        `left the profile ${f.retiredAt ?? ''}` +
        (f.route === undefined ? '' : ` (route ${f.route})`) +
        `: ${plural(f.indices.length, 'index')} kept, ` +
        (f.readerRole === undefined ? 'readable by admins only' : `read by ${f.readerRole}`) +
        ', deleted by their retention policy; its objects go with the last index' +
        (Object.keys(f.retiredNames).length === 0
          ? ''
          : `; names still routed here: ${Object.keys(f.retiredNames).join(', ')}`),
      requests: [],
    }));
  const pruned = families.pruned.map((f: Family): DomainChange => ({
    kind: 'family',
    name: `${f.stem}-*`,
    action: 'delete',
    impact: 'change',
    detail: 'left the profile, no index left and nothing in flight: its template, policy and reader go',
    requests: [],
  }));
  return [...kept, ...pruned];
}

function planDashboards(
  spec: OpenSearchSpec,
  families: Families,
  state: DomainState,
  tenant: string | undefined,
): DomainChange[] {
  const headers = { 'osd-xsrf': 'true', ...(tenant === undefined ? {} : { securitytenant: tenant }) };
  const objects: SavedObject[] = [...buildSavedObjects(spec, families.stems)];
  const ids = new Set(objects.map((o) => `${o.type}/${o.id}`));
  for (const f of families.kept.filter((x) => !x.current)) {
    const id = `${spec.name}-${f.stem}-index-pattern`;
    if (ids.has(`index-pattern/${id}`)) continue;
    ids.add(`index-pattern/${id}`);
    objects.push({
      type: 'index-pattern',
      id,
      attributes: { title: dashboardsIndexPattern(f.stem, families.stems), timeFieldName: '@timestamp' },
      references: [],
    });
  }
  const stale = [...(state.savedObjects ?? [])].filter((key) => !ids.has(key));
  return [
    {
      kind: 'saved-objects',
      name: '',
      action: 'update',
      impact: 'change',
      detail: `${objects.length} objects written (kfek's ids, overwritten)`,
      requests: [
        {
          method: 'POST',
          path: '/api/saved_objects/_bulk_create?overwrite=true',
          body: objects,
          headers,
          ok: [200],
          target: 'dashboards',
        },
      ],
    },
    ...stale.map((key): DomainChange => ({
      kind: 'saved-objects',
      name: key,
      action: 'delete',
      impact: 'change',
      detail: 'no longer in the profile',
      requests: [
        {
          method: 'DELETE',
          path: savedObjectPath(key),
          headers,
          ok: [200, 404],
          target: 'dashboards',
        },
      ],
    })),
  ];
}

export function planDomain(spec: OpenSearchSpec, state: DomainState, options: DomainPlanOptions): DomainPlan {
  const inputs = {
    templates: state.templates,
    policies: state.policies,
    indices: state.indices,
    mappings: state.mappings,
    now: options.now,
  };
  const families = familiesOf({ spec, ...inputs });
  const previous =
    options.previous === undefined
      ? undefined
      : { spec: options.previous, families: familiesOf({ spec: options.previous, ...inputs }) };
  const templates = planTemplates(spec, families, state, options.previous);
  const defaultTemplates = new Set(families.kept.filter((f) => f.isDefault).map((f) => f.templateName));
  const changes: DomainChange[] = [
    ...familyChanges(families),
    ...templates.filter((c) => !defaultTemplates.has(c.name)),
    ...planPipelines(spec, families, state),
    ...templates.filter((c) => defaultTemplates.has(c.name)),
    ...planPolicies(spec, families, state, options.now, options.previous),
    ...planSettings(spec, families),
    ...planAccess({ spec, families, state, ...(previous === undefined ? {} : { previous }) }),
    ...(options.dashboards === undefined
      ? []
      : planDashboards(spec, families, state, options.dashboards.tenant)),
    ...planIndexPrune(spec, families, state),
  ];
  return { families, changes };
}
