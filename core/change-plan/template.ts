/**
 * Reading template JSON: values at the resource schemas' JSON pointers, and what a value refers to (resources in its
 * template, exports). Values are compared in their canonical form (core/canonical-json.ts).
 */
import { ChangePlanError } from './errors';
import type { CfnResource, CfnTemplate } from './types';
import { isObject } from '../json';

type JsonObject = Readonly<Record<string, unknown>>;

/**
 * The value a template object holds under `key` itself, never one it inherits: a logical id or stack name such as
 * `constructor`, `toString` or `valueOf` is an ordinary name in CloudFormation, not a property of every object.
 */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** `{ "Ref": ... }` or `{ "Fn::...": ... }`: a value CloudFormation computes at deploy time. */
function isIntrinsic(value: unknown): boolean {
  if (!isObject(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::'));
}

const decodeSegment = (s: string): string => s.replace(/~1/g, '/').replace(/~0/g, '~');

function pick(value: unknown, segments: readonly string[]): unknown {
  if (segments.length === 0 || value === undefined) return value;
  // An intrinsic in the way (an Fn::If choosing the whole block, say) stands for everything below it.
  if (isIntrinsic(value)) return value;
  const [head, ...rest] = segments;
  if (head === '*') return Array.isArray(value) ? value.map((v) => pick(v, rest)) : undefined;
  return isObject(value) ? pick(value[decodeSegment(head)], rest) : undefined;
}

/**
 * The value at a resource schema pointer (`/properties/A/B`, with `*` for every element of an array) in a
 * resource's Properties; undefined when absent.
 */
export function valueAt(properties: JsonObject | undefined, pointer: string): unknown {
  const segments = pointer.split('/').slice(1);
  if (segments[0] !== 'properties') return undefined;
  return pick(properties ?? {}, segments.slice(1));
}

/** Names `${X}` and `${X.Attr}` of an Fn::Sub string refers to (`${!X}` is a literal `${X}`). */
function subNames(text: string): string[] {
  return [...text.matchAll(/\$\{([^}!][^}]*)\}/g)].map((m) => m[1].split('.')[0].trim());
}

const isArray = (v: unknown): v is readonly unknown[] => Array.isArray(v);

/** Calls `visit` on the logical id of every Ref, Fn::GetAtt and Fn::Sub reference inside `value`. */
function visitReferences(value: unknown, visit: (name: string) => void): void {
  if (isArray(value)) {
    for (const v of value) visitReferences(v, visit);
    return;
  }
  if (!isObject(value)) return;
  for (const [key, arg] of Object.entries(value)) {
    if (key === 'Ref' && typeof arg === 'string') visit(arg);
    else if (key === 'Fn::GetAtt') {
      const target = isArray(arg) ? arg[0] : typeof arg === 'string' ? arg.split('.')[0] : undefined;
      if (typeof target === 'string') visit(target);
      else visitReferences(arg, visit);
    } else if (key === 'Fn::Sub') {
      const [text, variables] = isArray(arg) ? [arg[0], arg[1]] : [arg, undefined];
      const local = isObject(variables) ? variables : {};
      if (typeof text === 'string') for (const name of subNames(text)) if (!(name in local)) visit(name);
      visitReferences(Object.values(local), visit);
    } else visitReferences(arg, visit);
  }
}

/** The resources of `among` that `value` refers to with Ref, Fn::GetAtt or Fn::Sub. */
export function referencedAmong(value: unknown, among: ReadonlySet<string>): string[] {
  const found = new Set<string>();
  visitReferences(value, (name) => {
    if (among.has(name)) found.add(name);
  });
  return [...found];
}

/** Every export name the template imports with a literal `Fn::ImportValue`. */
export function importsOf(template: CfnTemplate | undefined): ReadonlySet<string> {
  const found = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (isObject(value)) {
      for (const [key, arg] of Object.entries(value)) {
        if (key === 'Fn::ImportValue' && typeof arg === 'string') found.add(arg);
        else walk(arg);
      }
    }
  };
  if (template !== undefined) walk(template);
  return found;
}

/** The template's exports by (literal) export name, with their values. */
export function exportsOf(template: CfnTemplate | undefined): ReadonlyMap<string, unknown> {
  const found = new Map<string, unknown>();
  for (const output of Object.values(template?.Outputs ?? {})) {
    const name = output.Export?.Name;
    if (typeof name === 'string') found.set(name, output.Value);
  }
  return found;
}

export function resourcesOf(template: CfnTemplate | undefined): Readonly<Record<string, CfnResource>> {
  return template?.Resources ?? {};
}

const RETAIN = new Set(['Retain', 'RetainExceptOnCreate']);

/** A DeletionPolicy or UpdateReplacePolicy that keeps the resource. */
export const keeps = (policy: string | undefined): boolean => policy !== undefined && RETAIN.has(policy);

/**
 * Checks that JSON is shaped like a template (an object whose Resources each have a string Type, whose Outputs are
 * objects) and types it as one; `what` names it in the error.
 */
export function asTemplate(json: unknown, what: string): CfnTemplate {
  const fail = (problem: string): never => {
    throw new ChangePlanError(`${what} is not a CloudFormation template: ${problem}`);
  };
  if (!isObject(json)) return fail('not a JSON object');
  for (const section of ['Resources', 'Outputs'] as const) {
    const entries = json[section];
    if (entries === undefined) continue;
    if (!isObject(entries)) return fail(`${section} is not an object`);
    for (const [id, entry] of Object.entries(entries)) {
      if (!isObject(entry)) return fail(`${section}.${id} is not an object`);
      if (section === 'Resources' && typeof entry.Type !== 'string') fail(`Resources.${id} has no Type`);
    }
  }
  return json;
}
