/**
 * The index template kfek applies to an OpenSearch Serverless collection (issue 42, docs/serverless.md): the
 * domain's template (./index-template.ts: the same mappings, analysis and codec, so documents are searched alike)
 * without what a collection does not take or does not need:
 *
 * - `number_of_shards` / `number_of_replicas`: the service manages shards and replicas;
 * - `default_pipeline`: the domain's pipeline sets `_id` and routing with a Painless script, which Serverless does
 *   not run; the direct-delivery indexer sends each document's `_id` itself (issue 41), so no pipeline is needed;
 * - `_routing: { required: true }`: the indexer sends no routing to a collection (Serverless places documents);
 * - the slow-log thresholds: they feed the domain's slow-log groups, which a collection does not have.
 *
 * The conformance stand-in (scripts/serverless/rules.ts) refuses the domain's template and accepts this one
 * (test/scripts/serverless/standin.test.ts).
 */
import { buildIndexTemplate, TEMPLATE_HASH_META_KEY } from './index-template';
import { contentHash, defaultFamily, type IndexFamily, type OpenSearchSpec } from './spec';

type Json = Record<string, unknown>;

/** `value` without `keys`. */
function omit(value: Json, keys: readonly string[]): Json {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k)));
}

export function buildServerlessIndexTemplate(
  spec: OpenSearchSpec,
  family: IndexFamily = defaultFamily(spec),
): Json {
  const domain = buildIndexTemplate(spec, family) as Json & {
    _meta: Json;
    template: { settings: { index: Json }; mappings: Json };
  };
  const index = omit(domain.template.settings.index, [
    'number_of_shards',
    'number_of_replicas',
    'default_pipeline',
    'search',
    'indexing',
  ]);
  const body = {
    ...domain,
    _meta: omit(domain._meta, [TEMPLATE_HASH_META_KEY]),
    template: {
      ...domain.template,
      settings: { ...domain.template.settings, index },
      mappings: omit(domain.template.mappings, ['_routing']),
    },
  };
  return { ...body, _meta: { ...body._meta, [TEMPLATE_HASH_META_KEY]: contentHash(body) } };
}
