/**
 * The field budget: how many mapped fields one document's app fields may add to the daily index, and from which
 * depth app objects stop being mapped field by field. Shared by the index template (core/opensearch), which maps
 * deep app objects as `flat_object`, and the transform (core/transform/document.ts), which keeps a document's
 * app fields within the budget and moves the rest to `kfek.overflow`. docs/field-limits.md explains the design.
 *
 * Why (issue 14, defect 5): a daily index has one mapping for every app. OpenSearch refuses any document that
 * would add a field past `index.mapping.total_fields.limit` (1,000) or nest objects deeper than
 * `index.mapping.depth.limit` (20), so one app logging 960 distinct keys got every other app's next new field
 * refused for the rest of the day. OpenSearch 3.6 has no setting to ignore dynamic fields past the limit (measured:
 * `index.mapping.total_fields.unmap_fields_beyond_limit` is an unknown setting), so kfek bounds what one document
 * can add instead.
 *
 * The count is OpenSearch's own (issue 22, item 1: the former count stopped at an array inside an array, let a later
 * array element hide an earlier one's keys and did not expand dotted keys, so one line could add ~900 fields). What
 * a document maps under kfek's template, measured on 3.6 (test/core/contracts/field-budget-cases.ts, checked against
 * the node by test/core/opensearch/field-budget.integ.test.ts):
 * - every distinct path counts once: a leaf field, and an object too (`{"a":{"b":1}}` maps `a` and `a.b`, even
 *   `{"a":{}}` maps `a`); an object past MAPPED_OBJECT_DEPTH is one `flat_object` field, whatever it holds;
 * - a key's dots make a path: `{"a.b":1}` maps `a` and `a.b`, the same fields as `{"a":{"b":1}}`; trailing dots
 *   are dropped (Java's `String.split`);
 * - an array adds no path level: its elements, at any depth of arrays in arrays, map into the same path, so an
 *   array of objects maps the union of their keys;
 * - `null`, `[]` and `[null]` map nothing, and a dotted key whose value is `null` not even its parents.
 * Kfek's own mapped names (`level`, `lambda.requestId`, ...) are counted as new when an app writes them, and paths
 * another document already mapped too: the count is what a document can add at most, never less.
 *
 * Why one file of about 330 lines: the budget, the depth rule and the counting of mapped fields are one contract
 * that the transform and the template must read alike; kept together so a change to one is seen beside the others.
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

/** The `path_match` of the index template's dynamic template that maps deep app objects as `flat_object`. */
export function deepObjectPathMatch(): string {
  return Array.from({ length: MAPPED_OBJECT_DEPTH + 1 }, () => '*').join('.');
}

/** What {@link quickFieldCost} returns for a value only {@link planAppFields} can count (it needs the paths). */
export const PATHS_NEEDED = -1;

const DOT = 0x2e;

/**
 * Mapped fields one top-level app key adds, counted until `limit` is passed (the caller only needs to know whether
 * it fits), without allocating: the transform's hot path. Exact for every key whose fields cannot share a path
 * with another key's: no dot in a key at a mapped depth (nor an empty key), and no array holding more than one
 * object or array. Otherwise {@link PATHS_NEEDED}: only {@link planAppFields}, which follows the paths, can count it.
 *
 * Looking at every key for a dot is most of its time: 4-6 ns a key, 35-85 ns (2-4%) per JSON line of the bench
 * corpus, about 1% of the transform (CPU time, interleaved with the former count). Reading the dots off the app's JSON
 * text while app-json.ts scans it anyway cost as much (it searches the whole text, about ten times longer than its
 * keys), and a set of keys already seen no less; neither was kept.
 */
export function quickFieldCost(key: string, value: unknown, limit: number): number {
  if (!isPlainKey(key)) return PATHS_NEEDED;
  return valueCost(value, 1, limit);
}

function isPlainKey(key: string): boolean {
  return key.length > 0 && key.indexOf('.') < 0;
}

/** {@link quickFieldCost} for the value at a path `depth` segments deep. */
function valueCost(value: unknown, depth: number, limit: number): number {
  if (typeof value !== 'object') return 1;
  if (value === null) return 0;
  if (Array.isArray(value)) {
    if (depth > MAPPED_OBJECT_DEPTH) return mapsAnything(value) ? 1 : 0;
    return arrayCost(value, depth, limit);
  }
  if (depth > MAPPED_OBJECT_DEPTH) return 1;
  let cost = 1;
  // for...in, not Object.keys: no array per object on the transform's hot path (a parsed JSON object has no
  // inherited enumerable keys).
  for (const key in value) {
    if (!isPlainKey(key)) return PATHS_NEEDED;
    const child = valueCost((value as Record<string, unknown>)[key], depth + 1, limit - cost);
    if (child === PATHS_NEEDED) return PATHS_NEEDED;
    cost += child;
    if (cost > limit) return cost;
  }
  return cost;
}

/** An array's elements map into its own path: one element that is an object or array is counted as the array. */
function arrayCost(values: readonly unknown[], depth: number, limit: number): number {
  let scalar = 0;
  let nested: object | undefined;
  for (let i = 0; i < values.length; i++) {
    const element = values[i];
    if (element === null) continue;
    if (typeof element !== 'object') {
      scalar = 1;
    } else if (nested === undefined) {
      nested = element;
    } else {
      // Several objects (or arrays) share one path: their keys are a union, which takes the paths to count.
      return PATHS_NEEDED;
    }
  }
  if (nested === undefined) return scalar;
  const cost = valueCost(nested, depth, limit);
  // A scalar beside an object at one path is one path (the node refuses such a document anyway).
  return cost === PATHS_NEEDED ? cost : Math.max(cost, scalar);
}

/** True when an array (in a flat_object) holds anything but nulls and empty arrays. */
function mapsAnything(values: readonly unknown[]): boolean {
  for (let i = 0; i < values.length; i++) {
    const element = values[i];
    if (element === null) continue;
    if (!Array.isArray(element) || mapsAnything(element)) return true;
  }
  return false;
}

/** Which app keys a document maps, and what they cost. */
export interface AppFieldPlan {
  /** Mapped fields the app keys that stay at the top level add (to an index holding only the template's fields). */
  readonly fields: number;
  /**
   * The keys kept under `kfek.overflow` instead: the first key that does not fit the budget and every key after it,
   * and any key OpenSearch would refuse to map (see {@link mappableMember}). Undefined when there are none.
   */
  readonly overflow?: ReadonlySet<string>;
}

/**
 * Plans the app keys of one document in their written order: each is mapped while the fields it adds fit the
 * budget; from the first that does not, it and every later key go to overflow. Keys for which `counted` is false
 * (collisions, the `message` the document took) are neither counted nor planned.
 */
export function planAppFields(
  app: Readonly<Record<string, unknown>>,
  counted: (key: string) => boolean = everyKey,
  budget: number = APP_FIELD_BUDGET,
): AppFieldPlan {
  let left = budget;
  let overflow: Set<string> | undefined;
  // Every path mapped so far, once a key needs them (rare: a dotted key, an array of several objects).
  let paths: Set<string> | undefined;
  let full = false;
  for (const key in app) {
    if (!counted(key)) continue;
    const value = app[key];
    if (full) {
      (overflow ??= new Set()).add(key);
      continue;
    }
    let cost = paths === undefined ? quickFieldCost(key, value, left) : PATHS_NEEDED;
    if (cost === PATHS_NEEDED) {
      if (!mappableMember(key, value, 0)) {
        (overflow ??= new Set()).add(key);
        continue;
      }
      paths ??= pathsOfKeysBefore(app, key, counted, overflow);
      const before = paths.size;
      addMemberPaths(paths, '', key, value, 0, before + left);
      cost = paths.size - before;
    }
    if (cost > left) {
      full = true;
      (overflow ??= new Set()).add(key);
    } else {
      left -= cost;
    }
  }
  return overflow === undefined ? { fields: budget - left } : { fields: budget - left, overflow };
}

function everyKey(): boolean {
  return true;
}

/**
 * The paths of the keys mapped before `stop`, counted without paths until then: every counted key before it that
 * is not in `overflow` (which then holds only keys OpenSearch would refuse).
 */
function pathsOfKeysBefore(
  app: Readonly<Record<string, unknown>>,
  stop: string,
  counted: (key: string) => boolean,
  overflow: ReadonlySet<string> | undefined,
): Set<string> {
  const paths = new Set<string>();
  for (const key in app) {
    if (key === stop) break;
    if (counted(key) && overflow?.has(key) !== true) addMemberPaths(paths, '', key, app[key], 0, Infinity);
  }
  return paths;
}

/**
 * Adds the paths the member `key: value` of an object at path `parent` (`depth` segments deep, '' and 0 for the
 * document) maps, until more than `limit` paths are known. The member must be mappable.
 */
function addMemberPaths(
  paths: Set<string>,
  parent: string,
  key: string,
  value: unknown,
  depth: number,
  limit: number,
): void {
  // A null value maps nothing, not even the objects its dotted key names (measured).
  if (value === null) return;
  let path = parent;
  let start = 0;
  const end = keyEnd(key);
  for (;;) {
    const dot = key.indexOf('.', start);
    const last = dot < 0 || dot >= end;
    const segment = key.slice(start, last ? end : dot);
    path = path.length === 0 ? segment : `${path}.${segment}`;
    depth++;
    if (last) break;
    paths.add(path);
    start = dot + 1;
  }
  addValuePaths(paths, path, value, depth, limit);
}

function addValuePaths(paths: Set<string>, path: string, value: unknown, depth: number, limit: number): void {
  if (paths.size > limit || value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) addValuePaths(paths, path, value[i], depth, limit);
    return;
  }
  paths.add(path);
  if (typeof value !== 'object' || depth > MAPPED_OBJECT_DEPTH) return;
  for (const key in value) {
    addMemberPaths(paths, path, key, (value as Record<string, unknown>)[key], depth, limit);
    if (paths.size > limit) return;
  }
}

/** The length of `key` without its trailing dots, which OpenSearch drops. */
function keyEnd(key: string): number {
  let end = key.length;
  while (end > 0 && key.charCodeAt(end - 1) === DOT) end--;
  return end;
}

/**
 * False when OpenSearch would refuse the whole document for the member `key: value` of an object `depth` segments
 * deep (0 for the document), as measured on 3.6 with kfek's template:
 * - the key is empty, or only dots, or a dotted key has an empty segment (`.a`, `a..b`) or one of only whitespace
 *   (`a. .b`; Java's `Character.isWhitespace`): "field name cannot be an empty string", "object field starting or
 *   ending with a [.] makes object resolution ambiguous", "object field cannot contain only whitespace";
 * - a dotted key names an object past MAPPED_OBJECT_DEPTH on the way to its leaf (`{"a.b.c.d":1}` names `a.b.c`),
 *   and the value is not null: the template makes that object a `flat_object`, which OpenSearch cannot open for
 *   the rest of the path (a `class_cast_exception`, "failed to parse");
 * - anything in its value at a mapped depth is so.
 * Inside a `flat_object` (past MAPPED_OBJECT_DEPTH) every key is accepted.
 */
export function mappableMember(key: string, value: unknown, depth: number): boolean {
  const segments = segmentCount(key);
  if (segments === 0) return false;
  if (value === null) return true;
  if (segments > 1 && depth + segments - 1 > MAPPED_OBJECT_DEPTH) return false;
  return mappableValue(value, depth + segments);
}

function mappableValue(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null || depth > MAPPED_OBJECT_DEPTH) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!mappableValue(value[i], depth)) return false;
    return true;
  }
  for (const key in value) {
    if (!mappableMember(key, (value as Record<string, unknown>)[key], depth)) return false;
  }
  return true;
}

/** The path segments of a key as OpenSearch splits it, or 0 when it refuses the key. */
function segmentCount(key: string): number {
  if (key.length === 0) return 0;
  if (key.indexOf('.') < 0) return 1;
  const end = keyEnd(key);
  if (end === 0) return 0;
  let segments = 0;
  let start = 0;
  while (start <= end) {
    let dot = key.indexOf('.', start);
    if (dot < 0 || dot > end) dot = end;
    if (!hasText(key, start, dot)) return 0;
    segments++;
    start = dot + 1;
  }
  return segments;
}

/** True when `key` holds a character between `start` and `end` that Java's `Character.isWhitespace` rejects. */
function hasText(key: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!isJavaWhitespace(key.charCodeAt(i))) return true;
  return false;
}

function isJavaWhitespace(c: number): boolean {
  return (
    (c >= 0x09 && c <= 0x0d) ||
    (c >= 0x1c && c <= 0x20) ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x2006) ||
    (c >= 0x2008 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x205f ||
    c === 0x3000
  );
}
