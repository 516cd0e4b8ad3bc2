/**
 * The provisioner on an OpenSearch Serverless collection (issue 42, docs/serverless.md): kfek's index templates (the
 * default route's family and each route's, serverless-template.ts) through the APIs Serverless lists, signed for
 * `aoss` by the caller's client, under the same ownership rules as on a domain (registry.ts):
 *
 * - kfek writes the templates of the names it renders (`<name>-<stem>`) whatever they hold now, as on a domain, and
 *   records the content hash of each in its record (`.<name>-registry`), so `kfek reconcile` trusts a template's
 *   ledger only when the record vouches for exactly what it is (kept-stems.ts);
 * - a template the record names whose live content is not the hash recorded was edited by hand: it is restored and
 *   the step says `drift`;
 * - a template kfek does not own whose patterns overlap a family's at the same priority makes OpenSearch refuse kfek's
 *   PUT: refused before anything is written, naming the template and the fix (as the domain's plan refuses it);
 * - retired families' templates (a route removed) are kept, never deleted: their indices may still be read, and the
 *   scheduled retention (serverless-retention.ts) deletes by name, not by template;
 * - the (route, stem) pairs it served, the retired ones with when they left, go to the record's `routes` document,
 *   where the indexer reads its route table (serverless-provision-routes.ts), as it reads a domain's pipeline.
 *
 * What Serverless does not take is never sent: no `GET /` (not in the API table), no ingest pipeline (the indexer
 * sends ids itself), no ISM policy (there is none), no security roles (the data access policy is the CDK app's), no
 * shard or replica setting on the record's index (the service manages them). The stand-in
 * (scripts/serverless/rules.ts) refuses each of these, so test/core/opensearch/serverless-provision.integ.test.ts
 * fails if this file starts sending one.
 */
import { type Clock, SYSTEM_CLOCK } from '../clock';
import { ownedHash } from './drift';
import { OpenSearchProvisioningError } from './errors';
import { patternsOverlap, templatePriority } from './families';
import type { OpenSearchHttpClient } from './http';
import { call, record } from './provision-client';
import type { ProvisionStep } from './provision-types';
import { readRegistry, registryKey, writeRegistry } from './registry';
import { name as one, requestPath } from './request-path';
import { recordRoutePairs } from './serverless-provision-routes';
import { buildServerlessIndexTemplate } from './serverless-template';
import { indexFamilies, type OpenSearchSpec } from './spec';

/** A foreign template whose patterns and priority clash with one of kfek's families: OpenSearch would refuse kfek's. */
export class CollectionTemplateClashError extends OpenSearchProvisioningError {
  constructor(kfekTemplate: string, other: string, patterns: readonly string[], priority: number) {
    super(
      `Cannot write index template ${kfekTemplate} to the collection: template ${other} (${patterns.join(', ')}) ` +
        `has the same priority ${priority} and overlapping patterns, so OpenSearch refuses kfek's. Give template ` +
        `${other} a priority other than ${priority} (kfek's templates take 200 + the length of their stem), or ` +
        'delete it, then deploy again.',
    );
    this.name = 'CollectionTemplateClashError';
  }
}

export interface CollectionProvisionOptions {
  readonly log?: (line: string) => void;
  /** When a route left the profile is recorded by this clock. @default SYSTEM_CLOCK */
  readonly clock?: Clock;
}

export interface CollectionProvisionReport {
  readonly steps: readonly ProvisionStep[];
}

interface LiveTemplate {
  readonly name: string;
  readonly body: Record<string, unknown>;
  readonly patterns: readonly string[];
  readonly priority?: number;
}

const templatePath = (name: string): string => requestPath(['_index_template', one('index template', name)]);

async function liveTemplates(client: OpenSearchHttpClient): Promise<Map<string, LiveTemplate>> {
  const listed = await call(client, { method: 'GET', path: '/_index_template' }, [200, 404]);
  const out = new Map<string, LiveTemplate>();
  const entries = record(listed.body).index_templates;
  for (const entry of Array.isArray(entries) ? entries : []) {
    const name = String(record(entry).name);
    const body = record(record(entry).index_template);
    const patterns = Array.isArray(body.index_patterns) ? body.index_patterns.map(String) : [];
    const priority = typeof body.priority === 'number' ? body.priority : undefined;
    out.set(name, { name, body, patterns, ...(priority === undefined ? {} : { priority }) });
  }
  return out;
}

/**
 * Converges the collection's index templates to the spec and records them in kfek's record. Running it twice
 * changes nothing the second time (no template PUT, no record write).
 * @throws CollectionTemplateClashError when a template kfek does not own would make OpenSearch refuse one of kfek's
 */
export async function provisionCollection(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
  options: CollectionProvisionOptions = {},
): Promise<CollectionProvisionReport> {
  const log = options.log ?? ((): void => undefined);
  const registry = await readRegistry(client, spec.name);
  const live = await liveTemplates(client);
  const families = indexFamilies(spec);
  const owned = new Set(families.map((f) => f.names.indexTemplate));
  for (const [key] of registry?.objects ?? []) {
    if (key.startsWith('index-template:')) owned.add(key.slice('index-template:'.length));
  }
  const rendered = families.map((family) => ({
    name: family.names.indexTemplate,
    priority: templatePriority(family.stem),
    pattern: `${family.stem}-*`,
    body: buildServerlessIndexTemplate(spec, family),
  }));
  // Every clash first: a refused deploy writes nothing.
  for (const t of rendered) {
    const clash = [...live.values()].find(
      (other) =>
        !owned.has(other.name) &&
        other.priority === t.priority &&
        other.patterns.some((p) => patternsOverlap(p, t.pattern)),
    );
    if (clash !== undefined) {
      throw new CollectionTemplateClashError(t.name, clash.name, clash.patterns, t.priority);
    }
  }
  const steps: ProvisionStep[] = [];
  const objects = new Map(registry?.objects ?? []);
  for (const t of rendered) {
    const key = registryKey('index-template', t.name);
    const stored = live.get(t.name);
    const hash = ownedHash('index-template', t.body);
    const same = stored !== undefined && ownedHash('index-template', stored.body) === hash;
    const recorded = registry?.objects.get(key);
    const edited = stored !== undefined && recorded !== undefined && !same;
    if (!same) await call(client, { method: 'PUT', path: templatePath(t.name), body: t.body }, [200]);
    objects.set(key, hash);
    const step: ProvisionStep = {
      step: `index template ${t.name}`,
      status: same ? 'unchanged' : stored === undefined ? 'created' : 'updated',
      detail: `${t.pattern}, priority ${t.priority}${edited ? ', restored: it was edited by hand' : ''}`,
      ...(edited ? { impact: 'drift' as const } : {}),
    };
    steps.push(step);
    log(`${step.step}: ${step.status} (${step.detail ?? ''})`);
  }
  // The record's index takes no shard or replica setting on a collection (the service manages them).
  await writeRegistry(client, spec.name, registry, objects, { serverless: true });
  // The (route, stem) pairs served, retired ones included: the indexer's route table (serverless-provision-routes.ts).
  const routes = await recordRoutePairs(client, spec, (options.clock ?? SYSTEM_CLOCK).now());
  const retired = routes.pairs.filter((p) => p.retiredAt !== undefined);
  log(`route record: ${routes.pairs.length} pairs, ${retired.length} retired`);
  return { steps };
}
