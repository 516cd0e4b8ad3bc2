/**
 * Drop rules of a route (issue 24, docs/teams-and-routes.md "Drop rules"): events a team pays not to keep (health
 * checks, debug chatter). A dropped event is never silent: the transform counts it (`DroppedEvents`, and per rule in
 * its log) and the dashboard shows it. Rules see the event after masking, as its document would have shown it.
 * Pure: no SDK, no I/O.
 */
import { compileRoutePattern, type DropRule } from '../../core/contracts/routes';

/** A compiled rule: the name of the first rule an event meets, or undefined. */
export type DropMatcher = (
  message: string,
  fields: Readonly<Record<string, unknown>> | undefined,
) => string | undefined;

/** The value at a dotted path of the app's fields, as the text a pattern is matched against; undefined if none. */
export function fieldText(
  fields: Readonly<Record<string, unknown>> | undefined,
  path: string,
): string | undefined {
  let value: unknown = fields;
  for (const segment of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    if (!Object.prototype.hasOwnProperty.call(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  return undefined;
}

/** Compiles a route's drop rules once per container; every condition a rule gives must hold. */
export function createDropMatcher(rules: readonly DropRule[]): DropMatcher | undefined {
  if (rules.length === 0) return undefined;
  const compiled = rules.map((rule) => ({
    name: rule.name,
    message: rule.messagePattern === undefined ? undefined : compileRoutePattern(rule.messagePattern),
    field: rule.field,
    fieldPattern: rule.fieldPattern === undefined ? undefined : compileRoutePattern(rule.fieldPattern),
  }));
  return (message, fields) => {
    for (const rule of compiled) {
      if (rule.message !== undefined && !rule.message.test(message)) continue;
      if (rule.field !== undefined && rule.fieldPattern !== undefined) {
        const text = fieldText(fields, rule.field);
        if (text === undefined || !rule.fieldPattern.test(text)) continue;
      }
      return rule.name;
    }
    return undefined;
  };
}
