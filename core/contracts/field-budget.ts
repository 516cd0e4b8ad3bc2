/**
 * The field budget: how many mapped fields one document's app fields may add to the daily index, and from which
 * depth app objects stop being mapped field by field. Shared by the index template (core/opensearch), which maps
 * deep app objects as `flat_object`, and the transform (lambda/transform/document.ts), which keeps a document's
 * app fields within the budget and moves the rest to `kfek.overflow`. docs/field-limits.md explains the design.
 *
 * Why (issue 14, defect 5): a daily index has one mapping for every app. OpenSearch refuses any document that
 * would add a field past `index.mapping.total_fields.limit` (1,000) or nest objects deeper than
 * `index.mapping.depth.limit` (20), so one app logging 960 distinct keys got every other app's next new field
 * refused for the rest of the day. OpenSearch 3.6 has no setting to ignore dynamic fields past the limit (measured:
 * `index.mapping.total_fields.unmap_fields_beyond_limit` is an unknown setting), so kfek bounds what one document
 * can add instead.
 */

/**
 * App objects nested at most this deep are mapped field by field (`http.request.method` is a keyword). An app
 * object at a deeper path (`http.request.headers`) is mapped as one `flat_object` by the index template's first
 * dynamic template: one field however wide or deep it is (measured on 3.6: a 25-level object indexes, its leaves
 * searchable by their full dotted path), with every leaf a keyword.
 */
export const MAPPED_OBJECT_DEPTH = 2;

/**
 * At most this many mapped fields (objects count too, as OpenSearch counts them) may come from one document's app
 * fields. Top-level app keys are taken in their written order until the next one does not fit; that key and every
 * later one go to `kfek.overflow`. 100 leaves room for about nine full-budget app shapes beside kfek's own ~40
 * fields in the default 1,000-field limit, and is well above what structured loggers write (10-40 keys).
 */
export const APP_FIELD_BUDGET = 100;

/** Key under `kfek` holding the app fields past the budget, as one `flat_object` (searchable by path). */
export const OVERFLOW_KEY = 'overflow';

/**
 * What a flat_object costs against the total-fields limit. Measured on 3.6: an index with one flat_object and one
 * keyword field is full at a limit of 3, so a flat_object counts as two fields.
 */
const FLAT_OBJECT_FIELDS = 2;

/** The `path_match` of the index template's dynamic template that maps deep app objects as `flat_object`. */
export function deepObjectPathMatch(): string {
  return Array.from({ length: MAPPED_OBJECT_DEPTH + 1 }, () => '*').join('.');
}

/**
 * Mapped fields the value of one app key at `depth` (1 = top level) adds, counted until `limit` is passed (the
 * caller only needs to know whether it fits). A scalar or an array of scalars is one field; an object is one field
 * plus its keys, or {@link FLAT_OBJECT_FIELDS} past {@link MAPPED_OBJECT_DEPTH}; an array of objects maps the union
 * of its elements' keys, as OpenSearch does.
 */
export function mappedFieldCost(value: unknown, depth: number, limit: number): number {
  if (typeof value !== 'object' || value === null) return 1;
  if (Array.isArray(value)) return arrayCost(value, depth, limit);
  if (depth > MAPPED_OBJECT_DEPTH) return FLAT_OBJECT_FIELDS;
  let cost = 1;
  // for...in, not Object.keys: no array per object on the transform's hot path (a parsed JSON object has no
  // inherited enumerable keys).
  for (const key in value) {
    cost += mappedFieldCost((value as Record<string, unknown>)[key], depth + 1, limit - cost);
    if (cost > limit) return cost;
  }
  return cost;
}

function arrayCost(values: readonly unknown[], depth: number, limit: number): number {
  let merged: Record<string, unknown> | undefined;
  for (const element of values) {
    if (typeof element !== 'object' || element === null) continue;
    if (Array.isArray(element)) return Math.max(1, arrayCost(element, depth, limit));
    // Elements share one mapping: the cost is that of one object with every key seen (last value per key, which
    // costs as much as any other value of the same shape; mixed shapes are rare and at worst undercounted). A
    // null-prototype target keeps a `__proto__` key an own key.
    merged ??= Object.create(null) as Record<string, unknown>;
    Object.assign(merged, element);
  }
  return merged === undefined ? 1 : mappedFieldCost(merged, depth, limit);
}
