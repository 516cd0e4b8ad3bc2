/**
 * Drop rules of a route (docs/teams-and-routes.md "Drop rules"): events a team pays not to keep (health checks, debug
 * chatter). A dropped event is never silent: the transform counts it (`DroppedEvents`, and per rule in its log) and
 * the dashboard shows it. Rules see the event as its document will be indexed (document-view.ts): after masking, with
 * the `level` a text prefix gave, and a field found whether the app wrote it nested or dotted. Patterns run on RE2
 * (core/contracts/route-pattern.ts), in time linear in the line. Pure: no SDK, no I/O.
 */
import { compileRoutePattern } from '../contracts/route-pattern';
import type { DropRule } from '../contracts/routes';

/** What a drop rule reads of an event. */
export interface DropSubject {
  /** The document's `message`. */
  readonly message: string;
  /** The values at a dotted path of the document as it will be indexed; empty when there is none. */
  values(path: string): readonly unknown[];
}

/** A compiled rule set: the name of the first rule an event meets, or undefined. */
export type DropMatcher = (subject: DropSubject) => string | undefined;

/** A value as the text a pattern is matched against: strings as they are, numbers and booleans as JSON. */
export function valueText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return undefined;
}

/**
 * Every value at `segments[from..]` under `node`, however the app split the path between nesting and dotted keys
 * (`{"http":{"status":500}}`, `{"http.status":500}`, `{"http":{"a.b":1}}`): OpenSearch indexes all of them at the same
 * path. An array holds its elements at its own path (a list of objects holds each object's fields), as OpenSearch
 * indexes arrays. Own keys only; `keep` filters the keys of `node` itself (not those below). Bounded by the path's
 * segments (at most 16, core/contracts/route-problems.ts).
 */
export function pathValues(
  node: unknown,
  segments: readonly string[],
  from: number,
  out: unknown[],
  keep?: (key: string) => boolean,
): void {
  if (Array.isArray(node)) {
    for (const element of node) pathValues(element, segments, from, out);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  let key = '';
  for (let end = from; end < segments.length; end++) {
    key = end === from ? segments[end] : `${key}.${segments[end]}`;
    if (!Object.prototype.hasOwnProperty.call(node, key) || (keep !== undefined && !keep(key))) continue;
    const value = (node as Record<string, unknown>)[key];
    if (end === segments.length - 1) {
      if (Array.isArray(value)) {
        for (const element of value as unknown[])
          if (typeof element !== 'object' || element === null) out.push(element);
      } else {
        out.push(value);
      }
    } else {
      pathValues(value, segments, end + 1, out);
    }
  }
}

/** Compiles a route's drop rules once per container; every condition a rule gives must hold. */
export function createDropMatcher(rules: readonly DropRule[]): DropMatcher | undefined {
  if (rules.length === 0) return undefined;
  const compiled = rules.map((rule) => ({
    name: rule.name,
    message: rule.messagePattern === undefined ? undefined : compileRoutePattern(rule.messagePattern),
    field:
      rule.field === undefined
        ? undefined
        : { path: rule.field, pattern: compileRoutePattern(rule.fieldPattern) },
  }));
  return (subject) => {
    for (const rule of compiled) {
      if (rule.message !== undefined && !rule.message.test(subject.message)) continue;
      if (rule.field !== undefined) {
        const pattern = rule.field.pattern;
        const hit = subject.values(rule.field.path).some((value) => {
          const text = valueText(value);
          return text !== undefined && pattern.test(text);
        });
        if (!hit) continue;
      }
      return rule.name;
    }
    return undefined;
  };
}
