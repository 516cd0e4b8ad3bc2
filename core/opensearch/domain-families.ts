/**
 * The families of indices a deploy leaves in the domain (issue 30): the profile's (the default route's and each
 * route's), and the retired ones, whose stem left the profile (a route removed or given another stem, a new
 * `indexPrefix`) but whose indices are still there. History stays readable and retained: a retired family keeps its
 * template, its retention policy (untouched, so its indices are deleted on the schedule they had), its readers and,
 * for a route, its name in the ingest pipeline's table, until its last index is gone and nothing marked with its
 * names can still arrive ({@link OpenSearchSpec.keepRetiredHours}). Then the next deploy removes them all.
 *
 * A retired family is keyed by its stem, not by its route's name (issue 39): a route name is not a team, and the
 * next profile may give it to another team's stem. So a retired route's indices are read through a role of their
 * own stem ({@link stemReaderRole}), mapped to exactly the members the route's reader had when the stem left
 * (recorded in the template's ledger, {@link LEDGER.readers}), and the route's reader role reads its current stem
 * only; documents are routed by the stem they were marked for (route-table.ts).
 */
import { owningStem } from '../contracts/index-naming';
import { type IndexState, LEDGER, type StoredPolicy, type StoredTemplate } from './domain-state';
import { familyNames, ingestPipelineName } from './route-spec';
import { type RoutePair, type RouteTable, routeTableOf } from './route-table';
import type { RoleMappingBody } from './security';
import type { OpenSearchSpec } from './spec';

export interface Family {
  readonly stem: string;
  /** The route it belongs (or belonged) to; undefined for a default route's family. */
  readonly route: string | undefined;
  /** In the profile. */
  readonly current: boolean;
  /** The role that reads its indices; undefined when unknown (a retired family found only by its policy). */
  readonly readerRole: string | undefined;
  /**
   * The members of {@link readerRole} when kfek keeps them for the family itself: a retired route's stem role,
   * mapped to whom the route's reader had when the stem left. Undefined: the profile says (a current family).
   */
  readonly readers: Readers | undefined;
  readonly templateName: string;
  readonly policyId: string;
  /** The ingest pipeline its template names as `default_pipeline`. */
  readonly pipeline: string;
  /** A default route's family: Firehose writes its indices, its own pipeline routes from them. */
  readonly isDefault: boolean;
  /** When it left the profile (ISO); undefined while current. */
  readonly retiredAt: string | undefined;
  /** Route names retired onto it that documents may still carry, with when they were retired. */
  readonly retiredNames: Readonly<Record<string, string>>;
  /** The domain's indices that belong to it. */
  readonly indices: readonly IndexState[];
}

export interface Families {
  /** Current first (default, then routes in profile order), then the retired ones kfek keeps. */
  readonly kept: readonly Family[];
  /** Retired families with no index left and nothing in flight: the deploy removes their objects. */
  readonly pruned: readonly Family[];
  /** Every stem kfek knows (current, kept and pruned), for the ownership of indices. */
  readonly stems: ReadonlySet<string>;
  /** The ingest pipeline's table (route-table.ts). */
  readonly routeTable: RouteTable;
}

/** The members of a role mapping kfek keeps. */
export interface Readers {
  readonly backend_roles: readonly string[];
  readonly users: readonly string[];
}

const defaultReader = (spec: OpenSearchSpec): string => spec.names.readerRole;
const routeReader = (spec: OpenSearchSpec, route: string): string => `${spec.name}_${route}_reader`;

/**
 * The reader role of a retired route's stem: `<name>_stem_<stem>_reader`. No route's reader can have this name (a
 * route name has no `_`), and each stem has its own.
 */
export function stemReaderRole(name: string, stem: string): string {
  return `${name}_stem_${stem}_reader`;
}

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? [...new Set(v.filter((x): x is string => typeof x === 'string'))].sort() : [];

function readersOf(raw: unknown): Readers | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  return { backend_roles: strings(r.backend_roles), users: strings(r.users) };
}

/**
 * Who reads a retired route's stem: the ledger's record; else (the deploy that retires it, or a family retired
 * before issue 39) the members of the role that read it until now, as the domain has them.
 */
function retiredReaders(
  stored: StoredTemplate | undefined,
  mappings: ReadonlyMap<string, RoleMappingBody>,
  fallbackRole: string,
): Readers {
  const recorded = readersOf(stored?.meta[LEDGER.readers]);
  if (recorded !== undefined) return recorded;
  const role = stored?.meta[LEDGER.readerRole];
  const mapped = mappings.get(typeof role === 'string' ? role : fallbackRole);
  return { backend_roles: strings(mapped?.backend_roles), users: strings(mapped?.users) };
}

function retiredNamesOf(template: StoredTemplate | undefined): Record<string, string> {
  const raw = template?.meta[LEDGER.retiredNames];
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return {};
  return Object.fromEntries(
    Object.entries(raw as Record<string, unknown>).filter(
      (e): e is [string, string] => typeof e[1] === 'string',
    ),
  );
}

/** The stem an ISM policy of kfek's retains (`<name>-<stem>-retention`). */
export function policyStem(spec: OpenSearchSpec, id: string): string | undefined {
  const m = new RegExp(`^${spec.name}-(.+)-retention$`).exec(id);
  return m?.[1];
}

export interface FamilyInputs {
  readonly spec: OpenSearchSpec;
  readonly templates: ReadonlyMap<string, StoredTemplate>;
  readonly policies: ReadonlyMap<string, StoredPolicy>;
  readonly indices: readonly IndexState[];
  /** Now, epoch milliseconds. */
  readonly now: number;
  /** The domain's role mappings: who read a route's stem when it retires. @default - none */
  readonly mappings?: ReadonlyMap<string, RoleMappingBody>;
}

/** Every stem kfek knows: the profile's, its templates' and its policies'. */
export function knownStems(inputs: Omit<FamilyInputs, 'indices' | 'now'>): Set<string> {
  const { spec } = inputs;
  return new Set([
    spec.indexPrefix,
    ...spec.routes.map((r) => r.indexStem),
    ...[...inputs.templates.values()].map((t) => t.stem),
    ...[...inputs.policies.keys()].flatMap((id) => policyStem(spec, id) ?? []),
  ]);
}

/** What every family of one deploy is sorted with: the inputs read once, and the grace period's clock. */
interface Sorting {
  readonly spec: OpenSearchSpec;
  readonly nowIso: string;
  readonly inGrace: (at: string) => boolean;
  readonly currentRoutes: ReadonlySet<string>;
  readonly templateOf: (stem: string) => StoredTemplate | undefined;
  readonly indicesOf: (stem: string) => IndexState[];
  readonly mappings: ReadonlyMap<string, RoleMappingBody>;
}

/** The route names retired onto a stem that are still in their grace period and not the profile's again. */
function stillRetiredNames(sorting: Sorting, stored: StoredTemplate | undefined): Record<string, string> {
  return Object.fromEntries(
    Object.entries(retiredNamesOf(stored)).filter(
      ([n, at]) => !sorting.currentRoutes.has(n) && sorting.inGrace(at),
    ),
  );
}

/** The profile's families: the default route's, then each route's. */
function currentFamilies(sorting: Sorting): Family[] {
  const { spec } = sorting;
  return [
    { stem: spec.indexPrefix, route: undefined, reader: defaultReader(spec), isDefault: true },
    ...spec.routes.map((r) => ({
      stem: r.indexStem,
      route: r.route,
      reader: r.names.readerRole,
      isDefault: false,
    })),
  ].map(({ stem, route, reader, isDefault }) => {
    const stored = sorting.templateOf(stem);
    // A route name that pointed here before and is no longer the profile's stays known for a while.
    const retiredNames = stillRetiredNames(sorting, stored);
    if (stored?.route !== undefined && stored.route !== route && !sorting.currentRoutes.has(stored.route)) {
      retiredNames[stored.route] ??= sorting.nowIso;
    }
    return {
      stem,
      route,
      current: true,
      readerRole: reader,
      readers: undefined,
      templateName: familyNames(spec.name, stem).indexTemplate,
      policyId: familyNames(spec.name, stem).ismPolicy,
      pipeline: spec.names.ingestPipeline,
      isDefault,
      retiredAt: undefined,
      retiredNames,
      indices: sorting.indicesOf(stem),
    };
  });
}

/** A stem kfek knows that the profile no longer names, as its template's ledger records it. */
function retiredFamily(sorting: Sorting, stem: string): Family & { readonly retiredAt: string } {
  const { spec } = sorting;
  const stored = sorting.templateOf(stem);
  const route = stored?.route;
  const storedReader = stored?.meta[LEDGER.readerRole];
  // A retired route's stem is read through its own role (see the file comment); a default route's as before.
  const readerRole =
    route !== undefined
      ? stemReaderRole(spec.name, stem)
      : typeof storedReader === 'string'
        ? storedReader
        : stored === undefined
          ? undefined
          : defaultReader(spec);
  const readers =
    route === undefined ? undefined : retiredReaders(stored, sorting.mappings, routeReader(spec, route));
  const storedAt = stored?.meta[LEDGER.retiredAt];
  const retiredAt =
    typeof storedAt === 'string' && !Number.isNaN(Date.parse(storedAt)) ? storedAt : sorting.nowIso;
  const isDefault = stored !== undefined ? route === undefined : false;
  return {
    stem,
    route,
    current: false,
    readerRole,
    readers,
    templateName: stored?.name ?? familyNames(spec.name, stem).indexTemplate,
    policyId: familyNames(spec.name, stem).ismPolicy,
    pipeline: isDefault ? ingestPipelineName(spec.name, stem) : spec.names.ingestPipeline,
    isDefault,
    retiredAt,
    retiredNames: stillRetiredNames(sorting, stored),
    indices: sorting.indicesOf(stem),
  };
}

/** Sorts the families out: current, retired and kept, retired and pruned; and builds the route table. */
export function familiesOf(inputs: FamilyInputs): Families {
  const { spec, now } = inputs;
  const stems = knownStems(inputs);
  const byStem = new Map<string, IndexState[]>();
  for (const index of inputs.indices) {
    const stem = owningStem(index.name, stems);
    if (stem !== undefined) byStem.set(stem, [...(byStem.get(stem) ?? []), index]);
  }
  const graceMillis = spec.keepRetiredHours * 3_600_000;
  const inGrace = (at: string): boolean => now - Date.parse(at) < graceMillis;
  const sorting: Sorting = {
    spec,
    nowIso: new Date(now).toISOString(),
    inGrace,
    currentRoutes: new Set(spec.routes.map((r) => r.route)),
    templateOf: (stem) =>
      inputs.templates.get(familyNames(spec.name, stem).indexTemplate) ??
      [...inputs.templates.values()].find((t) => t.stem === stem),
    indicesOf: (stem) => byStem.get(stem) ?? [],
    mappings: inputs.mappings ?? new Map(),
  };
  const current = currentFamilies(sorting);
  const currentStems = new Set(current.map((f) => f.stem));
  const kept: Family[] = [...current];
  const pruned: Family[] = [];
  for (const stem of [...stems].sort()) {
    if (currentStems.has(stem)) continue;
    const family = retiredFamily(sorting, stem);
    // Kept while it has indices, or while documents marked with its names may still arrive.
    const retained =
      family.indices.length > 0 || inGrace(family.retiredAt) || Object.keys(family.retiredNames).length > 0;
    (retained ? kept : pruned).push(family);
  }

  const routeTable = routeTableOf(routePairs(kept), now, graceMillis);
  return { kept, pruned, stems, routeTable };
}

/** The (name, stem) pairs documents may carry: each kept family's route and the names retired onto its stem. */
function routePairs(kept: readonly Family[]): RoutePair[] {
  return kept.flatMap((family) => [
    ...(family.route === undefined
      ? []
      : [{ name: family.route, stem: family.stem, retiredAt: family.retiredAt }]),
    ...Object.entries(family.retiredNames).map(([name, at]) => ({ name, stem: family.stem, retiredAt: at })),
  ]);
}
