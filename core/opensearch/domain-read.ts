/**
 * Reading a domain as the provisioner sees it, for the provisioner itself and for `kfek doctor` (which plans a
 * deploy against the live domain before it happens), and the stand-in state the doctor plans against when it cannot
 * reach the domain: what the previous deploy's spec made the provisioner write.
 */
import { owningStem } from '../contracts/index-naming';
import { familiesOf, knownStems } from './domain-families';
import { desiredDynamicSettings, desiredTemplate } from './domain-plan-indices';
import { desiredRoles } from './domain-plan-roles';
import type { DomainState, IndexState, ReadOptions, StoredPolicy, StoredTemplate } from './domain-state';
import { readDomainState } from './domain-state-read';
import type { OpenSearchHttpClient } from './http';
import { buildIngestPipeline } from './ingest-pipeline';
import { buildIsmPolicy } from './ism-policy';
import { call, detectFeatures, record } from './provision-client';
import { renderedKeys } from './registry';
import { ADMIN_ROLES, DASHBOARDS_USER_ROLE, type RoleMappingBody } from './security';
import { indexFamilies, type OpenSearchSpec, writerBackendRolesOf } from './spec';

/** The indices kfek describes (settings, ISM): those under a stem it knows. */
export function kfekIndices(spec: OpenSearchSpec): ReadOptions['describe'] {
  return (indices, templates, policies) => {
    const stems = knownStems({ spec, templates, policies });
    return new Set(indices.filter((i) => owningStem(i.name, stems) !== undefined).map((i) => i.name));
  };
}

/** What kfek claims by name (the profile's) and, on a domain without its record, adopts when marked (registry.ts). */
export function ownedNames(
  spec: OpenSearchSpec,
  previous: OpenSearchSpec | undefined,
): Pick<ReadOptions, 'claim' | 'adopt'> {
  return { claim: renderedKeys(spec), adopt: previous === undefined ? new Set() : renderedKeys(previous) };
}

/** Version, plugins and kfek's objects and indices (Dashboards not read). */
export async function readDomainFor(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
  previous?: OpenSearchSpec,
): Promise<DomainState> {
  const root = await call(client, { method: 'GET', path: '/' }, [200]);
  const versionNumber = record(record(root.body).version).number;
  const { features } = await detectFeatures(client, {});
  return readDomainState(client, {
    name: spec.name,
    version: typeof versionNumber === 'string' ? versionNumber : 'unknown',
    features,
    describe: kfekIndices(spec),
    ...ownedNames(spec, previous),
  });
}

const EMPTY: DomainState = {
  version: 'unknown',
  features: { ism: true, security: true, dashboards: false },
  templates: new Map(),
  foreignTemplates: [],
  pipelines: new Map(),
  policies: new Map(),
  indices: [],
  roles: new Map(),
  mappings: new Map(),
};

/**
 * The domain as the provisioner would have left it after applying `spec` to an empty one, with one index per
 * family created an hour before `now`, each on its family's policy: what `kfek doctor` plans against when it cannot
 * read the domain. Objects of deploys before that spec, hand edits and the real indices are not in it.
 */
export function stateFromSpec(spec: OpenSearchSpec, now: number): DomainState {
  const day = new Date(now).toISOString().slice(0, 10);
  const families = familiesOf({ spec, templates: new Map(), policies: new Map(), indices: [], now });
  const templates = new Map<string, StoredTemplate>();
  const policies = new Map<string, StoredPolicy>();
  const indices: IndexState[] = [];
  const settings = desiredDynamicSettings(spec);
  for (const family of families.kept) {
    const body = desiredTemplate(spec, family);
    templates.set(family.templateName, {
      name: family.templateName,
      stem: family.stem,
      route: family.route,
      body,
      meta: record(body._meta),
    });
    const current = indexFamilies(spec).find((f) => f.stem === family.stem);
    if (current !== undefined) {
      policies.set(family.policyId, {
        id: family.policyId,
        seqNo: 1,
        primaryTerm: 1,
        policy: buildIsmPolicy(spec, current).policy,
      });
    }
    indices.push({
      name: `${family.stem}-${day}`,
      creationDate: now - 3_600_000,
      primaryShards: spec.indexTemplate.shards,
      replicas: spec.indexTemplate.replicas,
      managed: { policyId: family.policyId, policySeqNo: 1, state: 'hot' },
      settings,
    });
  }
  const roles = new Map(
    [...desiredRoles(spec, families)].map(([name, role]) => [
      name,
      role as unknown as Record<string, unknown>,
    ]),
  );
  const members = (backend: readonly string[], users: readonly string[] = []): RoleMappingBody => ({
    backend_roles: [...new Set(backend)].sort(),
    hosts: [],
    users: [...users],
  });
  const mappings = new Map<string, RoleMappingBody>();
  const owned: Array<[string, RoleMappingBody]> = [
    [spec.names.writerRole, members(writerBackendRolesOf(spec))],
    [spec.names.readerRole, members(spec.access.readerBackendRoles, spec.access.readerUsers)],
    [spec.names.reconcileRole, members(spec.access.reconcileBackendRoles)],
    ...spec.routes.map((r): [string, RoleMappingBody] => [r.names.readerRole, members(r.readerBackendRoles)]),
    [
      DASHBOARDS_USER_ROLE,
      members(
        [...spec.access.readerBackendRoles, ...spec.routes.flatMap((r) => r.readerBackendRoles)],
        spec.access.readerUsers,
      ),
    ],
    ...ADMIN_ROLES.map((r): [string, RoleMappingBody] => [r, members(spec.access.adminBackendRoles)]),
  ];
  for (const [role, m] of owned) if (m.backend_roles.length + m.users.length > 0) mappings.set(role, m);
  return {
    ...EMPTY,
    templates,
    pipelines: new Map([
      [
        spec.names.ingestPipeline,
        buildIngestPipeline(spec, { prefix: spec.indexPrefix, table: families.routeTable }),
      ],
    ]),
    policies,
    indices,
    roles,
    mappings,
  };
}
