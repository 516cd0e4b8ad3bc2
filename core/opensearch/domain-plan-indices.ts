/**
 * The index side of a deploy (issue 30): the ingest pipelines with their route table, the index templates, the
 * dynamic settings of existing indices, and the removal of what retired families leave (retention: domain-plan-ism.ts).
 * Pure: from the spec, the families (domain-families.ts) and the domain's state to {@link DomainChange}s.
 */
import type { Impact } from '../contracts/impact';
import type { DomainChange, PlannedRequest } from './domain-change';
import type { Families, Family } from './domain-families';
import { type DomainState, type ForeignTemplate, LEDGER, type StoredTemplate } from './domain-state';
import { nestedStems, patternsOverlap, templatePriority } from './families';
import { buildIndexTemplate, TEMPLATE_HASH_META_KEY } from './index-template';
import { buildIngestPipeline } from './ingest-pipeline';
import { describeDrift, driftSummary, type OwnedKind, sameContent } from './drift';
import { record } from './provision-client';
import { editedByHand } from './registry-changes';
import { chunkNames, name as one, requestPath } from './request-path';
import { canonicalJson, indexFamilies, type IndexFamily, type OpenSearchSpec } from './spec';

const templatePath = (template: string): string =>
  requestPath(['_index_template', one('index template', template)]);
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The family as the builders take it (the retention only matters for a current family's policy). */
export function asIndexFamily(spec: OpenSearchSpec, family: Family): IndexFamily {
  const current = indexFamilies(spec).find((f) => f.stem === family.stem);
  return {
    ...(family.route === undefined ? {} : { route: family.route }),
    stem: family.stem,
    indexPattern: `${family.stem}-*`,
    retention: current?.retention ?? { deleteAfterDays: 1 },
    names: { indexTemplate: family.templateName, ismPolicy: family.policyId },
  };
}

/** The desired template of a family: the shipped one for its stem, with kfek's ledger in `_meta`. */
export function desiredTemplate(spec: OpenSearchSpec, family: Family): Record<string, unknown> {
  const forPipeline =
    family.pipeline === spec.names.ingestPipeline
      ? spec
      : { ...spec, names: { ...spec.names, ingestPipeline: family.pipeline } };
  const body = buildIndexTemplate(forPipeline, asIndexFamily(spec, family));
  const meta = record(body._meta);
  return {
    ...body,
    _meta: {
      ...meta,
      [LEDGER.stem]: family.stem,
      ...(family.readerRole === undefined ? {} : { [LEDGER.readerRole]: family.readerRole }),
      ...(family.readers === undefined ? {} : { [LEDGER.readers]: family.readers }),
      ...(family.retiredAt === undefined ? {} : { [LEDGER.retiredAt]: family.retiredAt }),
      ...(Object.keys(family.retiredNames).length === 0
        ? {}
        : { [LEDGER.retiredNames]: family.retiredNames }),
    },
  };
}

/**
 * A template without what an existing index can take at once (the dynamic settings planSettings applies) and
 * without kfek's `_meta`: what only the next index gets. Stored settings are strings, the builder's numbers.
 */
function staticPart(body: Record<string, unknown>): unknown {
  const template = record(body.template);
  const settings = record(template.settings);
  const {
    number_of_replicas: _replicas,
    refresh_interval: _refresh,
    search: _search,
    indexing: _indexing,
    mapping,
    ...index
  } = record(settings.index);
  const { total_fields: _fields, ...mappingRest } = record(mapping);
  return JSON.parse(
    JSON.stringify({
      index_patterns: body.index_patterns,
      priority: body.priority,
      template: { ...template, settings: { ...settings, index: { ...index, mapping: mappingRest } } },
    }),
    (_key, value: unknown) =>
      typeof value === 'number' || typeof value === 'boolean' ? String(value) : value,
  ) as unknown;
}

/** The detail of a hand edit kfek reverts: what changed, live first (drift.ts). */
export function handEdit(kind: OwnedKind, live: unknown, rendered: unknown): string {
  return `edited by hand, restored to the profile's: ${driftSummary(describeDrift(kind, live, rendered))}`;
}

export function describeFamily(family: Family): string {
  return family.route === undefined
    ? `the default route's ${family.stem}-*`
    : `route ${family.route}'s ${family.stem}-*`;
}

export function planPipelines(spec: OpenSearchSpec, families: Families, state: DomainState): DomainChange[] {
  const desired = new Map<string, { prefix: string }>([
    [spec.names.ingestPipeline, { prefix: spec.indexPrefix }],
  ]);
  for (const f of families.kept) if (!f.current && f.isDefault) desired.set(f.pipeline, { prefix: f.stem });
  const changes: DomainChange[] = [];
  for (const [name, { prefix }] of desired) {
    const table = families.routeTable;
    const body = buildIngestPipeline(spec, { prefix, table, nested: nestedStems(prefix, families.stems) });
    const stored = state.pipelines.get(name);
    const same = stored !== undefined && sameContent('ingest-pipeline', stored, body);
    const edited = stored !== undefined && !same && editedByHand(state, 'ingest-pipeline', name, stored);
    const retired = Object.entries(table.marks).flatMap(([route, stems]) =>
      stems
        .filter((stem) => !spec.routes.some((r) => r.route === route && r.indexStem === stem))
        .map((stem) => `${route} -> ${stem}`),
    );
    changes.push({
      kind: 'ingest-pipeline',
      name,
      action: same ? 'unchanged' : stored === undefined ? 'create' : 'update',
      // Retired names still routed are something kept after leaving the profile, and the doctor says so.
      impact: same ? 'none' : edited ? 'drift' : retired.length > 0 ? 'kept' : 'change',
      detail:
        `routes from ${prefix}-*: ${JSON.stringify(table.marks)}` +
        (retired.length === 0
          ? ''
          : `; retired names kept for documents still in flight: ${retired.join(', ')}`) +
        (table.ambiguous.length === 0
          ? ''
          : `; a document marked ${table.ambiguous.join(', ')} without its stem is refused (the name moved stems)`) +
        (edited ? `; ${handEdit('ingest-pipeline', stored, body)}` : ''),
      requests: same
        ? []
        : [
            {
              method: 'PUT',
              path: requestPath(['_ingest', 'pipeline', one('ingest pipeline', name)]),
              body,
              ok: [200],
            },
          ],
    });
  }
  return changes;
}

/** A template without `_meta`: what the previous spec rendered is compared without the ledger this deploy writes. */
const withoutMeta = (body: Record<string, unknown>): Record<string, unknown> => ({
  ...body,
  _meta: undefined,
});

/** Whether a stored template is not what kfek wrote: its record's hash, else what the previous profile rendered. */
function templateEditedByHand(
  state: DomainState,
  family: Family,
  stored: StoredTemplate,
  previous: OpenSearchSpec | undefined,
): boolean {
  const before = previous && indexFamilies(previous).find((f) => f.stem === family.stem);
  return editedByHand(
    state,
    'index-template',
    family.templateName,
    stored.body,
    () =>
      previous !== undefined &&
      before !== undefined &&
      !sameContent(
        'index-template',
        withoutMeta(stored.body),
        withoutMeta(buildIndexTemplate(previous, before)),
      ),
  );
}

/**
 * A template of someone else's that OpenSearch would refuse kfek's beside: the same priority on overlapping patterns.
 * A template of the same name is replaced by kfek's PUT, so it never clashes (a kfek template that lost its mark).
 */
function clashingTemplate(state: DomainState, family: Family, priority: number): ForeignTemplate | undefined {
  return state.foreignTemplates.find(
    (t) =>
      t.name !== family.templateName &&
      t.priority === priority &&
      t.patterns.some((p) => patternsOverlap(p, `${family.stem}-*`)),
  );
}

export function planTemplates(
  spec: OpenSearchSpec,
  families: Families,
  state: DomainState,
  /** The previous deploy's spec: tells a hand edit on a domain without kfek's record. @default - none */
  previous?: OpenSearchSpec,
): DomainChange[] {
  return families.kept.map((family): DomainChange => {
    const body = desiredTemplate(spec, family);
    const stored = state.templates.get(family.templateName);
    const meta = record(body._meta);
    // Differences beyond the dynamic settings (which planSettings applies to existing indices) reach the next index.
    const sameStatic =
      stored?.meta[TEMPLATE_HASH_META_KEY] === meta[TEMPLATE_HASH_META_KEY] ||
      (stored !== undefined && canonicalJson(staticPart(stored.body)) === canonicalJson(staticPart(body)));
    // Content, not marks: a hand edit that kept `_meta` (its hash, its ledger) is still a difference (issue 39).
    const same = stored !== undefined && sameContent('index-template', stored.body, body);
    const edited = stored !== undefined && !same && templateEditedByHand(state, family, stored, previous);
    const priority = templatePriority(family.stem);
    const clash = clashingTemplate(state, family, priority);
    if (clash !== undefined && !same) {
      return {
        kind: 'index-template',
        name: family.templateName,
        action: stored === undefined ? 'create' : 'update',
        impact: 'refused',
        detail: `OpenSearch refuses it: template ${clash.name} (${clash.patterns.join(', ')}) has the same priority ${priority} and overlapping patterns`,
        fix: `give template ${clash.name} a priority other than ${priority} (kfek's templates take 200 + the length of their stem)`,
        requests: [{ method: 'PUT', path: templatePath(family.templateName), body, ok: [200] }],
      };
    }
    const detail = family.current
      ? `${describeFamily(family)}, priority ${priority}` +
        (stored !== undefined && !sameStatic
          ? '; mappings and static settings (shards, codec, sort, analysis) apply from the next index'
          : '')
      : `kept for ${describeFamily(family)} (left the profile ${family.retiredAt ?? ''}): ${plural(family.indices.length, 'index')} left`;
    const impact: Impact = edited
      ? 'drift'
      : same
        ? family.current
          ? 'none'
          : 'kept'
        : family.current && stored !== undefined && !sameStatic
          ? 'next-index'
          : family.current
            ? 'change'
            : 'kept';
    return {
      kind: 'index-template',
      name: family.templateName,
      action: same ? (family.current ? 'unchanged' : 'keep') : stored === undefined ? 'create' : 'update',
      impact,
      detail: edited ? `${detail}; ${handEdit('index-template', stored?.body, body)}` : detail,
      requests: same ? [] : [{ method: 'PUT', path: templatePath(family.templateName), body, ok: [200] }],
    };
  });
}

/** The template's dynamic settings, as `GET _settings?flat_settings` shows them. */
export function desiredDynamicSettings(spec: OpenSearchSpec): Record<string, string> {
  const t = spec.indexTemplate;
  return {
    'index.number_of_replicas': String(t.replicas),
    'index.refresh_interval': `${t.refreshSeconds}s`,
    'index.mapping.total_fields.limit': String(t.totalFieldsLimit),
    'index.search.slowlog.threshold.query.warn': `${t.slowSearchWarnMs}ms`,
    'index.search.slowlog.threshold.query.info': `${t.slowSearchInfoMs}ms`,
    'index.indexing.slowlog.threshold.index.warn': `${t.slowIndexWarnMs}ms`,
    'index.indexing.slowlog.threshold.index.info': `${t.slowIndexInfoMs}ms`,
  };
}

/**
 * Dynamic settings reach the indices that exist (today's among them): a raised field limit accepts today's new
 * fields at once. Static ones (shards, codec, sort) cannot change on an index: they wait for the next one.
 */
export function planSettings(spec: OpenSearchSpec, families: Families): DomainChange[] {
  const desired = desiredDynamicSettings(spec);
  const changes: DomainChange[] = [];
  for (const family of families.kept.filter((f) => f.current)) {
    const groups = new Map<string, string[]>();
    for (const index of family.indices) {
      const diff = Object.fromEntries(Object.entries(desired).filter(([k, v]) => index.settings[k] !== v));
      if (Object.keys(diff).length === 0) continue;
      const key = canonicalJson(diff);
      groups.set(key, [...(groups.get(key) ?? []), index.name]);
    }
    const shardsDiffer = family.indices.filter((i) => i.primaryShards !== spec.indexTemplate.shards);
    if (groups.size === 0 && shardsDiffer.length === 0) continue;
    const requests: PlannedRequest[] = [...groups].flatMap(([key, names]) =>
      chunkNames('index', names, (list) => requestPath([list, '_settings'])).map((path) => ({
        method: 'PUT' as const,
        path,
        body: JSON.parse(key) as unknown,
        ok: [200],
      })),
    );
    const applied = [...new Set([...groups.keys()].flatMap((k) => Object.keys(JSON.parse(k) as object)))];
    changes.push({
      kind: 'index-settings',
      name: `${family.stem}-*`,
      action: requests.length === 0 ? 'keep' : 'update',
      impact: requests.length === 0 ? 'next-index' : 'change',
      detail: [
        applied.length === 0
          ? ''
          : `applied to ${plural(groups.size === 0 ? 0 : [...groups.values()].flat().length, 'existing index')} now: ${applied.join(', ')}`,
        shardsDiffer.length === 0
          ? ''
          : `index.number_of_shards ${spec.indexTemplate.shards} waits for the next index (${plural(shardsDiffer.length, 'existing index')} keep theirs)`,
      ]
        .filter((p) => p !== '')
        .join('; '),
      requests,
    });
  }
  return changes;
}

/** Removes what pruned families leave: their templates, then retired pipelines, then their policies. */
export function planIndexPrune(spec: OpenSearchSpec, families: Families, state: DomainState): DomainChange[] {
  const changes: DomainChange[] = [];
  const keptTemplates = new Set(families.kept.map((f) => f.templateName));
  for (const [name, t] of state.templates) {
    if (keptTemplates.has(name)) continue;
    changes.push({
      kind: 'index-template',
      name,
      action: 'delete',
      impact: 'change',
      detail: `${t.stem}-* left the profile and has no index left`,
      requests: [{ method: 'DELETE', path: templatePath(name), ok: [200, 404] }],
    });
  }
  const keptPipelines = new Set([spec.names.ingestPipeline, ...families.kept.map((f) => f.pipeline)]);
  for (const name of state.pipelines.keys()) {
    if (keptPipelines.has(name)) continue;
    changes.push({
      kind: 'ingest-pipeline',
      name,
      action: 'delete',
      impact: 'change',
      detail: 'its prefix left the profile and has no index left',
      requests: [
        {
          method: 'DELETE',
          path: requestPath(['_ingest', 'pipeline', one('ingest pipeline', name)]),
          ok: [200, 404],
        },
      ],
    });
  }
  const keptPolicies = new Set(families.kept.map((f) => f.policyId));
  for (const id of state.policies.keys()) {
    if (keptPolicies.has(id)) continue;
    changes.push({
      kind: 'ism-policy',
      name: id,
      action: 'delete',
      impact: 'change',
      detail: 'its indices are all gone',
      requests: [
        {
          method: 'DELETE',
          path: requestPath(['_plugins', '_ism', 'policies', one('ISM policy', id)]),
          ok: [200, 404],
        },
      ],
    });
  }
  return changes;
}
