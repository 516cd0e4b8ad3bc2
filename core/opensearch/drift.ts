/**
 * Convergence on content (issue 39): what kfek compares to tell whether one of its objects is as the profile renders
 * it, and what a hand edit changed. A mark on the object (`_meta`, a description hash) says nothing about its
 * content: an ISM policy edited to delete after one day keeps its description, so only its content can show the
 * edit. Each kind is reduced to what kfek sets, with what OpenSearch adds on its own taken out, so the live object
 * and the rendered one compare equal exactly when they mean the same. Pure.
 */
import { canonicalJson } from '../canonical-json';
import { record } from './provision-client';
import { normalizedRole } from './security';
import { contentHash } from './spec';

/** The kinds of object kfek records (registry.ts) and compares. */
export type OwnedKind =
  'index-template' | 'ingest-pipeline' | 'ism-policy' | 'security-role' | 'saved-object';

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** A scalar as text; anything else as its canonical JSON (a hand edit may put an object where kfek puts a number). */
const text = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : canonicalJson(v);

/** Numbers and booleans as strings: OpenSearch answers template settings as strings whatever was sent. */
function scalarsAsStrings(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scalarsAsStrings);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scalarsAsStrings(v)]));
  }
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
}

/** Settings as flat `index.`-prefixed keys: `{ analysis: ... }` is answered as `index.analysis`, nested or not. */
function flatSettings(value: unknown, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(record(value))) {
    const full = prefix === '' ? key : `${prefix}.${key}`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) Object.assign(out, flatSettings(v, full));
    else out[full.startsWith('index.') ? full : `index.${full}`] = scalarsAsStrings(v);
  }
  return out;
}

/**
 * A composable index template (`index_template` of `GET _index_template`, or the body kfek PUTs): patterns (a set),
 * priority, settings (flat, as strings), mappings, aliases, `composed_of` (OpenSearch adds `[]`), `data_stream`,
 * `_meta` and `version`.
 */
export function normalizeTemplate(body: Record<string, unknown>): Record<string, unknown> {
  const template = record(body.template);
  return {
    index_patterns: list(body.index_patterns).map(String).sort(),
    priority: text(body.priority ?? 0),
    composed_of: list(body.composed_of),
    ...(body.data_stream === undefined ? {} : { data_stream: scalarsAsStrings(body.data_stream) }),
    ...(body.version === undefined ? {} : { version: text(body.version) }),
    template: {
      settings: flatSettings(template.settings),
      mappings: scalarsAsStrings(record(template.mappings)),
      aliases: scalarsAsStrings(record(template.aliases)),
    },
    _meta: scalarsAsStrings(record(body._meta)),
  };
}

/** ISM's default retry of an action, which it adds to every stored action. */
const DEFAULT_RETRY = canonicalJson(scalarsAsStrings({ count: 3, backoff: 'exponential', delay: '1m' }));

/**
 * An ISM policy (`policy` of `GET _plugins/_ism/policies/<id>`, or the one kfek PUTs): its description, states,
 * transitions, actions and ISM templates. What ISM adds is left out: `policy_id`, `last_updated_time`,
 * `schema_version`, `error_notification` when null, `user` (with security), each action's default `retry`, each
 * ISM template's `last_updated_time`.
 */
export function normalizePolicy(policy: Record<string, unknown>): Record<string, unknown> {
  return {
    description: text(policy.description ?? ''),
    default_state: text(policy.default_state ?? ''),
    // ISM stores `null` when none was given; one set by hand is an edit.
    ...(policy.error_notification === null || policy.error_notification === undefined
      ? {}
      : { error_notification: scalarsAsStrings(policy.error_notification) }),
    states: list(policy.states).map((s) => {
      const state = record(s);
      return {
        name: text(state.name),
        actions: list(state.actions).map((a) => {
          const { retry, ...action } = record(a);
          return scalarsAsStrings(
            retry === undefined || canonicalJson(scalarsAsStrings(retry)) === DEFAULT_RETRY
              ? action
              : { ...action, retry },
          );
        }),
        transitions: list(state.transitions).map(scalarsAsStrings),
      };
    }),
    ism_template: list(policy.ism_template).map((t) => {
      const { last_updated_time: _updated, ...template } = record(t);
      return scalarsAsStrings(template);
    }),
  };
}

/** A content form of each kind: what {@link contentOf} compares and {@link ownedHash} hashes. */
export function normalizeOwned(kind: OwnedKind, body: unknown): unknown {
  switch (kind) {
    case 'index-template':
      return normalizeTemplate(record(body));
    case 'ism-policy':
      return normalizePolicy(record(record(body).policy ?? body));
    case 'security-role':
      return JSON.parse(normalizedRole(body)) as unknown;
    default:
      return body;
  }
}

/** The content hash kfek records for an object (registry.ts): of its normalized form. */
export function ownedHash(kind: OwnedKind, body: unknown): string {
  return contentHash(normalizeOwned(kind, body));
}

/** Whether the live object has the content kfek renders. */
export function sameContent(kind: OwnedKind, live: unknown, rendered: unknown): boolean {
  return canonicalJson(normalizeOwned(kind, live)) === canonicalJson(normalizeOwned(kind, rendered));
}

/** Leaves of a normalized value by path; arrays of named objects (ISM states) are keyed by their name. */
function leaves(value: unknown, path: string, out: Map<string, unknown>): void {
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object' || v === null)) {
      out.set(path, value);
      return;
    }
    value.forEach((v, i) => {
      const name = record(v).name;
      leaves(v, `${path}${typeof name === 'string' ? `.${name}` : `[${i}]`}`, out);
    });
    return;
  }
  if (value !== null && typeof value === 'object') {
    // An empty object has no leaf: `_meta {} -> (none)` beside `_meta.managed_by (none) -> kfek` would say nothing.
    for (const [k, v] of Object.entries(value)) leaves(v, path === '' ? k : `${path}.${k}`, out);
    return;
  }
  out.set(path, value);
}

const show = (v: unknown): string =>
  v === undefined ? '(none)' : typeof v === 'string' && v !== '' ? v : JSON.stringify(v);

/**
 * What differs between the live object and the rendered one, live first: `min_index_age 1d -> 14d`,
 * `index_patterns + foo-*` (the live object has it, kfek's has not: removed on restore),
 * `template.settings.index.default_pipeline _none -> kfek-logs-document-id`.
 */
export function describeDrift(kind: OwnedKind, live: unknown, rendered: unknown): string[] {
  const before = new Map<string, unknown>();
  const after = new Map<string, unknown>();
  leaves(normalizeOwned(kind, live), '', before);
  leaves(normalizeOwned(kind, rendered), '', after);
  const out: string[] = [];
  for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const a = before.get(path);
    const b = after.get(path);
    if (canonicalJson(a) === canonicalJson(b)) continue;
    if (Array.isArray(a) && Array.isArray(b)) {
      const added = a.filter((x) => !b.some((y) => canonicalJson(y) === canonicalJson(x)));
      const removed = b.filter((x) => !a.some((y) => canonicalJson(y) === canonicalJson(x)));
      if (added.length + removed.length > 0) {
        out.push(
          [...added.map((x) => `${path} + ${show(x)}`), ...removed.map((x) => `${path} - ${show(x)}`)].join(
            ', ',
          ),
        );
        continue;
      }
    }
    out.push(`${path} ${show(a)} -> ${show(b)}`);
  }
  return out;
}

/** At most `n` differences in a line, and how many more. */
export function driftSummary(changes: readonly string[], n = 6): string {
  return changes.length <= n
    ? changes.join('; ')
    : `${changes.slice(0, n).join('; ')} and ${changes.length - n} more`;
}
