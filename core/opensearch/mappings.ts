/**
 * What kfek's index template maps (index-template.ts assembles the template around it; the reasons are there and in
 * docs/opensearch.md), and the smallest total-fields limit kfek's own documents fit in. Kept apart from the
 * template so the spec (spec.ts) can check the limit without importing the template, which imports the spec.
 */
import { type IntRule, intProblem } from '../contracts/config-rules';
import {
  APP_FIELD_BUDGET,
  deepObjectPathMatch,
  MAPPED_OBJECT_DEPTH,
  OVERFLOW_KEY,
} from '../contracts/field-budget';
import { ROUTE_KEY, UNKNOWN_ROUTE_KEY } from '../contracts/routes';

/** Strings longer than this are kept in `_source` but not indexed as keywords (Lucene term limit is 32 KiB). */
export const KEYWORD_IGNORE_ABOVE = 1024;

/** The `@timestamp` formats Firehose documents carry (ISO 8601 from the transform) plus epoch millis. */
const DATE_FORMAT = 'strict_date_optional_time||epoch_millis';

const keyword = { type: 'keyword', ignore_above: KEYWORD_IGNORE_ABOVE } as const;

/**
 * A keyword that is found by its value (term, prefix, wildcard and exists queries, `field:value` in Discover) but
 * not aggregated or sorted on: no doc values. Doc values keep every value a second time, column-wise; for the
 * app's own strings and the request id, unique or nearly so per event, they were a seventh of an index (issue 31,
 * npm run bench:storage), and no query of kfek's docs, saved searches or dashboards aggregates on them.
 */
const searchOnlyKeyword = { ...keyword, doc_values: false } as const;

/**
 * Analysed text without norms: norms only weigh a hit's score by the field's length, and kfek's searches sort by
 * `@timestamp` (Discover, the saved searches) or count (the dashboards), never by score. Which documents match is
 * the same; phrase queries keep their positions.
 */
const text = { type: 'text', norms: false } as const;

/** Dynamic templates, in match order (the first matching template wins). */
export function buildDynamicTemplates(
  aggregatableFields: readonly string[] = [],
): ReadonlyArray<Record<string, unknown>> {
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
    // App strings the profile names (openSearch.indexTemplate.aggregatableFields): keywords with doc values, so
    // Dashboards can aggregate on them (top values, split series). Before the prose rule: the profile's word wins.
    ...aggregatableFields.map((path, i) => ({
      [`aggregatable_${i}`]: { path_match: path, match_mapping_type: 'string', mapping: keyword },
    })),
    // Prose under a name that says so: analysed text, not a truncated keyword.
    {
      prose_strings: {
        match_mapping_type: 'string',
        match_pattern: 'regex',
        match: '^(.*[mM]essage|.*[sS]tack.*|.*[dD]escription|msg)$',
        mapping: text,
      },
    },
    // All other strings: keyword (see the file comment for why not text + .keyword), searchable but not
    // aggregatable (no doc values: see searchOnlyKeyword).
    { strings_as_keywords: { match_mapping_type: 'string', mapping: searchOnlyKeyword } },
  ];
}

/** The explicit mappings of the fields kfek's transform writes (core/transform/types.ts `LogDocument`). */
export function buildProperties(): Record<string, unknown> {
  return {
    '@timestamp': { type: 'date', format: DATE_FORMAT },
    message: text,
    // Upper-cased at index and query time, so ERROR, error and Error count as one level in aggregations and
    // `level:error` finds all of them.
    level: { ...keyword, normalizer: 'kfek_uppercase' },
    logger: searchOnlyKeyword,
    thread: searchOnlyKeyword,
    cloudwatch: {
      properties: {
        // Unique per event and, with the log group and stream, already hashed into `_id`: kept in doc values (the
        // local run counts distinct events with a composite aggregation on it) but not in an inverted index. A
        // search by it (`cloudwatch.id:"3861..."`) still answers, from the doc values (OpenSearch 2.12+), by a
        // scan: fine for the rare lookup of one event.
        id: { ...keyword, index: false },
        logGroup: keyword,
        logStream: keyword,
        owner: keyword,
        account: keyword,
        region: keyword,
      },
    },
    lambda: {
      properties: {
        requestId: searchOnlyKeyword,
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
        // A route's multi-line join (docs/teams-and-routes.md): lines joined into the document, and, for a join split
        // over several documents to fit a record, this one's part number and the first part's `cloudwatch.id`.
        joined: { type: 'long' },
        part: { type: 'integer' },
        partOf: keyword,
      },
    },
  };
}

interface MappingNode {
  readonly properties?: Readonly<Record<string, MappingNode>>;
  readonly fields?: Readonly<Record<string, MappingNode>>;
}

/** Fields a mapping holds as `index.mapping.total_fields.limit` counts them: objects, leaves and multi-fields. */
function mappedFields(properties: Readonly<Record<string, MappingNode>> = {}): number {
  let count = 0;
  for (const node of Object.values(properties)) {
    count += 1 + mappedFields(node.properties) + mappedFields(node.fields);
  }
  return count;
}

/** The fields kfek's index template maps explicitly, before any document arrives. */
export const TEMPLATE_FIELDS = mappedFields(buildProperties() as Record<string, MappingNode>);

/**
 * The smallest `index.mapping.total_fields.limit` (config `openSearch.indexTemplate.totalFieldsLimit`) one document
 * of one app fits in: the template's own fields plus the app fields the transform lets one document add
 * (core/contracts/field-budget.ts). Below it, a single app's ordinary document can be refused with "Limit of total
 * fields exceeded" on an index nothing else writes to. The one owner: the config and the spec both check it.
 */
export const MIN_TOTAL_FIELDS_LIMIT = TEMPLATE_FIELDS + APP_FIELD_BUDGET;

/**
 * The rule of `totalFieldsLimit` (core/contracts/config-rules.ts's shape): here beside its floor, which only the
 * template knows; the config (core/config/opensearch-limits.ts) and the spec (spec.ts) both read it.
 */
export const TOTAL_FIELDS_LIMIT_RULE: IntRule & { readonly path: string } = {
  kind: 'int',
  path: 'openSearch.indexTemplate.totalFieldsLimit',
  specPath: 'indexTemplate.totalFieldsLimit',
  min: MIN_TOTAL_FIELDS_LIMIT,
  max: 100_000,
  hint: 'Keep it near 1000: a higher limit only postpones a mapping explosion.',
};

/** The problem of a total-fields limit at `path`: below the floor, the arithmetic that sets it. */
export function totalFieldsLimitProblem(path: string, value: unknown): string | undefined {
  if (typeof value !== 'number' || !Number.isInteger(value) || value >= MIN_TOTAL_FIELDS_LIMIT) {
    return intProblem(TOTAL_FIELDS_LIMIT_RULE, path, value);
  }
  return (
    `${path} is ${value}, too low for kfek's own documents: the index template maps ${TEMPLATE_FIELDS} ` +
    `fields itself and the transform lets one document add up to ${APP_FIELD_BUDGET} app fields ` +
    `(core/contracts/field-budget.ts), so one app's document could be refused. Use at least ` +
    `${MIN_TOTAL_FIELDS_LIMIT} (the default, 1000, leaves room for several apps).`
  );
}

/** The most app fields `openSearch.indexTemplate.aggregatableFields` may name (each is a dynamic template). */
export const MAX_AGGREGATABLE_FIELDS = 50;

const AGGREGATABLE_PATH = /^[A-Za-z0-9_@$*-]+(?:\.[A-Za-z0-9_@$*-]+)*$/;

/** The top-level names kfek maps itself (docs/schema.md). */
const KFEK_TOP_LEVEL: ReadonlySet<string> = new Set(Object.keys(buildProperties()));

/**
 * Why `path` cannot be an aggregatable app field, or undefined when it can: a dotted app field path (`*` any
 * characters, as OpenSearch's `path_match`), not under a field kfek maps itself (those are aggregatable where it makes
 * sense already), and not deeper than the levels kfek maps (an object deeper than that is one `flat_object` field,
 * which has no per-leaf doc values).
 */
function aggregatableFieldProblem(path: unknown): string | undefined {
  if (typeof path !== 'string' || !AGGREGATABLE_PATH.test(path)) {
    return (
      'expected an app field path: names of letters, digits, "_", "-", "@", "$" or "*" joined by dots ' +
      '("status", "http.method", "user.*")'
    );
  }
  const segments = path.split('.');
  if (segments.length > MAPPED_OBJECT_DEPTH + 1) {
    return (
      `it is ${segments.length} levels deep: kfek maps app fields ${MAPPED_OBJECT_DEPTH + 1} levels deep and keeps ` +
      'a deeper object as one flat_object field, which cannot be aggregated by its leaves'
    );
  }
  if (KFEK_TOP_LEVEL.has(segments[0])) {
    return `"${segments[0]}" is a field kfek maps itself (docs/schema.md); list app fields only`;
  }
  return undefined;
}

/**
 * What is wrong with `paths` as `openSearch.indexTemplate.aggregatableFields` (named `setting` in the messages): at
 * most {@link MAX_AGGREGATABLE_FIELDS} app field paths, each once. The one rule for the config and the provisioner's
 * spec; empty when they can be used.
 */
export function aggregatableFieldsProblems(setting: string, paths: readonly unknown[]): string[] {
  const problems: string[] = [];
  if (paths.length > MAX_AGGREGATABLE_FIELDS) {
    problems.push(
      `${setting} names ${paths.length} fields, more than ${MAX_AGGREGATABLE_FIELDS}. Use a pattern ("http.*") ` +
        'for a group of fields.',
    );
  }
  paths.forEach((path, i) => {
    const problem = aggregatableFieldProblem(path);
    if (problem !== undefined) problems.push(`${setting}[${i}] is ${JSON.stringify(path)}: ${problem}.`);
    else if (paths.indexOf(path) !== i)
      problems.push(`${setting}[${i}] ${JSON.stringify(path)} is listed twice.`);
  });
  return problems;
}
