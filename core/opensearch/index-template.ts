import { deepObjectPathMatch, OVERFLOW_KEY } from '../contracts/field-budget';
import { ROUTE_KEY, UNKNOWN_ROUTE_KEY } from '../contracts/routes';
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
 */

/** Strings longer than this are kept in `_source` but not indexed as keywords (Lucene term limit is 32 KiB). */
export const KEYWORD_IGNORE_ABOVE = 1024;

/** The `@timestamp` formats Firehose documents carry (ISO 8601 from the transform) plus epoch millis. */
const DATE_FORMAT = 'strict_date_optional_time||epoch_millis';

const keyword = { type: 'keyword', ignore_above: KEYWORD_IGNORE_ABOVE } as const;

/** Dynamic templates, in match order (the first matching template wins). */
export function buildDynamicTemplates(): ReadonlyArray<Record<string, unknown>> {
  return [
    // An app object nested deeper than MAPPED_OBJECT_DEPTH (field-budget.ts) levels is one flat_object field (every leaf a keyword,
    // searchable by its full path), so neither a wide nor a deep object can fill the index's field limit or
    // pass its depth limit of 20 (docs/field-limits.md). kfek's own objects are mapped explicitly below and never
    // reach a dynamic template.
    {
      app_deep_objects: {
        match_mapping_type: 'object',
        path_match: deepObjectPathMatch(),
        mapping: { type: 'flat_object' },
      },
    },
    // Lambda platform REPORT metrics (durationMs, billedDurationMs, initDurationMs, ...): double, because
    // durations have fractions (0.62 ms) and the first value of a day must not fix the type to long.
    // No match_mapping_type: a numeric string ("12.5") is coerced as well.
    { lambda_millis: { path_match: 'lambda.*Ms', mapping: { type: 'double' } } },
    // memorySizeMB / maxMemoryUsedMB (AWS spells MB; kfek's transform may spell Mb).
    { lambda_megabytes_mb: { path_match: 'lambda.*Mb', mapping: { type: 'double' } } },
    { lambda_megabytes_upper: { path_match: 'lambda.*MB', mapping: { type: 'double' } } },
    // Everything else under cloudwatch.* (ids, account, region) is an identifier.
    { cloudwatch_keywords: { path_match: 'cloudwatch.*', match_mapping_type: 'string', mapping: keyword } },
    // Prose under a name that says so: analysed text, not a truncated keyword.
    {
      prose_strings: {
        match_mapping_type: 'string',
        match_pattern: 'regex',
        match: '^(.*[mM]essage|.*[sS]tack.*|.*[dD]escription|msg)$',
        mapping: { type: 'text' },
      },
    },
    // All other strings: keyword (see the file comment for why not text + .keyword).
    { strings_as_keywords: { match_mapping_type: 'string', mapping: keyword } },
  ];
}

/** The explicit mappings of the fields kfek's transform writes (lambda/transform/types.ts `LogDocument`). */
export function buildProperties(): Record<string, unknown> {
  return {
    '@timestamp': { type: 'date', format: DATE_FORMAT },
    message: { type: 'text' },
    // Upper-cased at index and query time, so ERROR, error and Error count as one level in aggregations and
    // `level:error` finds all of them.
    level: { ...keyword, normalizer: 'kfek_uppercase' },
    logger: keyword,
    thread: keyword,
    cloudwatch: {
      properties: {
        id: keyword,
        logGroup: keyword,
        logStream: keyword,
        owner: keyword,
        account: keyword,
        region: keyword,
      },
    },
    lambda: {
      properties: {
        requestId: keyword,
        durationMs: { type: 'double' },
        billedDurationMs: { type: 'double' },
        initDurationMs: { type: 'double' },
        restoreDurationMs: { type: 'double' },
        memorySizeMb: { type: 'double' },
        maxMemoryUsedMb: { type: 'double' },
      },
    },
    kfek: {
      properties: {
        // App fields moved aside because their names address ours (docs/schema.md, "Collisions"). As one `flat_object`
        // every leaf is a keyword, so what one app moved here can never conflict with what another moved (a value
        // in one document, an object at the same path in the next), which dynamic mapping would reject; the values
        // stay searchable by path (`kfek.collisions.cloudwatch.owner:x`) and cost one field against the limit.
        collisions: { type: 'flat_object' },
        // App fields past the field budget of one document (core/contracts/field-budget.ts): one field, however
        // many keys an app writes, searchable by path (`kfek.overflow.someKey:value`).
        [OVERFLOW_KEY]: { type: 'flat_object' },
        truncated: { type: 'boolean' },
        originalBytes: { type: 'long' },
        error: {
          properties: {
            reason: { type: 'text' },
            // The raw record (base64) is kept for replay, never searched: not indexed, no doc values.
            data: { type: 'keyword', index: false, doc_values: false },
            dataTruncated: { type: 'boolean' },
            // Where the whole raw record is kept (dead-letter bucket and key), for `kfek replay` and people.
            deadLetter: { properties: { bucket: keyword, key: keyword } },
          },
        },
        // Pipes items only: the events-stream partition key the pipe reads; a hash, kept but never searched.
        partitionKey: { type: 'keyword', index: false, doc_values: false },
        // The route the transform chose (docs/teams-and-routes.md); absent on the default route's documents.
        [ROUTE_KEY]: keyword,
        // A `kfek.route` the ingest pipeline did not know: the document stayed in the default route's indices.
        [UNKNOWN_ROUTE_KEY]: keyword,
      },
    },
  };
}

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
    // Above the priority-0 legacy/default templates; two composable templates with overlapping patterns and equal
    // priority are refused by OpenSearch, so a user template must pick another priority (documented). kfek's own
    // patterns never overlap (the config refuses index stems that do).
    priority: 200,
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
