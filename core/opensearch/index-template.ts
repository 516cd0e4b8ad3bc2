import { templatePriority } from './families';
import { buildDynamicTemplates, buildProperties } from './mappings';
import { contentHash, defaultFamily, type IndexFamily, type OpenSearchSpec } from './spec';

/**
 * The composable index template for the log indices (`PUT _index_template/<name>`).
 *
 * Why these mappings (see docs/opensearch.md, "What the index template maps, and why", for the user-facing version):
 * - Without a template OpenSearch guesses each field's type from the first document of each daily index, so one
 *   app logging `level: 3` turns `level` numeric for everyone that day. The fields kfek itself writes are mapped
 *   explicitly, and every other field is caught by dynamic templates with predictable types.
 * - Unknown strings become `keyword` (exact match, aggregations, `ignore_above` 1024), not `text` + `.keyword`:
 *   application fields in logs are mostly identifiers, paths and codes that people filter and count by, and a
 *   multi-field costs twice the mapped fields against the total-fields limit and more disk. Free text lives in
 *   `message` (analysed `text`); fields whose name says they hold prose (`*message`, `*stack*`, `*description`)
 *   are mapped as `text` too.
 * - `index.mapping.ignore_malformed`: a wrong-typed value in a numeric or date field (`durationMs: "slow"`) is
 *   dropped from the index (and listed in the document's `_ignored`) instead of rejecting the whole log line. On
 *   OpenSearch 3.6 (measured) this also covers an object sent to a keyword/number field (`level: {code: 3}`): the
 *   document is indexed, the value stays in `_source` but is not searchable. The reverse, a plain value where an
 *   object is mapped (`cloudwatch: "x"`), is still rejected; Firehose then keeps the document in the S3
 *   failed-documents prefix.
 * - `date_detection` is off: a string that happens to look like a date in the first document must not turn the
 *   field into a `date` for the rest of the day.
 * - `best_compression` (DEFLATE instead of LZ4 for stored fields): logs are written once and read rarely; the
 *   smaller disk footprint matters more than the slightly slower fetch.
 * - Half the bytes (issue 31, `npm run bench:storage`): a short `_id` and `_routing` (ingest-pipeline.ts), the
 *   index sorted by log group, log stream and time, no norms on text (kfek never ranks by score) and doc values
 *   only where a query aggregates (mappings.ts); every search of kfek's docs, saved searches and dashboards
 *   answers the same (test/core/opensearch/storage-answers.integ.test.ts).
 */

/** `{ slowlog: { threshold: { <phase>: { warn, info } } } }` of `index.search` / `index.indexing`. */
function slowLog(phase: 'query' | 'index', warnMs: number, infoMs: number): Record<string, unknown> {
  return { slowlog: { threshold: { [phase]: { warn: `${warnMs}ms`, info: `${infoMs}ms` } } } };
}

/** `_meta` key holding the content hash, so re-applying identical content is reported as unchanged. */
export const TEMPLATE_HASH_META_KEY = 'kfek_content_sha256';

/** `_meta` key naming the route whose indices a template covers (absent on the default route's template). */
export const TEMPLATE_ROUTE_META_KEY = 'kfek_route';

/**
 * The full `PUT _index_template/<family.names.indexTemplate>` body: the default route's indices, or a route's, with
 * the same mappings and settings (and the same ingest pipeline).
 */
export function buildIndexTemplate(
  spec: OpenSearchSpec,
  family: IndexFamily = defaultFamily(spec),
): Record<string, unknown> {
  const body = buildIndexTemplateContent(spec, family);
  return { ...body, _meta: { ...body._meta, [TEMPLATE_HASH_META_KEY]: contentHash(body) } };
}

function buildIndexTemplateContent(
  spec: OpenSearchSpec,
  family: IndexFamily,
): Record<string, unknown> & { _meta: object } {
  return {
    index_patterns: [family.indexPattern],
    // Above the priority-0 legacy/default templates, and longer stems higher (families.ts): kfek's overlapping
    // patterns (`logs-*`, `logs-audit-*`) never share a priority, which OpenSearch would refuse.
    priority: templatePriority(family.stem),
    _meta: {
      managed_by: 'kfek',
      description: `Mappings and settings of the ${family.indexPattern} log indices`,
      ...(family.route === undefined ? {} : { [TEMPLATE_ROUTE_META_KEY]: family.route }),
    },
    template: {
      settings: {
        index: {
          number_of_shards: spec.indexTemplate.shards,
          number_of_replicas: spec.indexTemplate.replicas,
          // Every document goes through the pipeline that sets its `_id` from the CloudWatch event, so a
          // redelivered event overwrites its document (core/opensearch/ingest-pipeline.ts says why).
          default_pipeline: spec.names.ingestPipeline,
          codec: 'best_compression',
          // Documents of one log stream side by side in every segment, in time order: neighbours in a stored-field
          // block are then alike and DEFLATE finds them (issue 31: a Firehose batch interleaves many apps' streams).
          // Fixed at index creation, so each daily index takes it from the template.
          sort: {
            field: ['cloudwatch.logGroup', 'cloudwatch.logStream', '@timestamp'],
            order: ['asc', 'asc', 'asc'],
          },
          // From config (openSearch.indexTemplate.refreshSeconds): the last stage of ingest-to-searchable
          // latency; docs/latency.md weighs it against the refreshes and merges a shorter interval costs.
          refresh_interval: `${spec.indexTemplate.refreshSeconds}s`,
          mapping: {
            total_fields: { limit: spec.indexTemplate.totalFieldsLimit },
            ignore_malformed: true,
          },
          // Slow logs: OpenSearch logs nothing until a threshold is set (default -1); the domain publishes what
          // these thresholds catch to its slow-log groups.
          search: slowLog('query', spec.indexTemplate.slowSearchWarnMs, spec.indexTemplate.slowSearchInfoMs),
          indexing: slowLog('index', spec.indexTemplate.slowIndexWarnMs, spec.indexTemplate.slowIndexInfoMs),
        },
        analysis: {
          normalizer: {
            kfek_uppercase: { type: 'custom', filter: ['uppercase'] },
          },
        },
      },
      mappings: {
        // The ingest pipeline sets every document's routing; a document indexed without the pipeline has none and
        // is refused instead of stored under an id OpenSearch makes up (core/opensearch/ingest-pipeline.ts says
        // when a node skips the default pipeline).
        _routing: { required: true },
        dynamic: true,
        date_detection: false,
        numeric_detection: false,
        dynamic_templates: buildDynamicTemplates(),
        properties: buildProperties(),
      },
    },
  };
}
