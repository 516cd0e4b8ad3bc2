/** Deep merge of a profile over the defaults, and the typed reader that records every problem instead of stopping at the first. */
import { type IntRule, intProblem, type PatternRule, patternProblem } from '../contracts/config-rules';
import { isObject, type Json, type JsonObject, Problems } from '../contracts/route-problems';
import { OPTIONAL_KEYS, REMOVED_KEYS } from './defaults';
import { LOG_RETENTION_DAYS } from './types';

// The config reads JSON with the route readers' vocabulary (core/contracts/route-problems.ts), not a copy of it.
export { isObject, type Json, type JsonObject };

/**
 * `record[key]` when `record` has `key` as an own property, else undefined. Settings are looked up by names that
 * come from cdk.json, so a plain lookup or `in` would find `toString`, `constructor` or `__proto__` on the
 * prototype and take them for settings (issue 22, item 8).
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Deep-merges the section `override` into `base`; reports keys that neither the defaults nor {@link OPTIONAL_KEYS}
 * know, and a section that is not an object. The caller checks that the profile itself is an object.
 */
export function merge(base: JsonObject, override: JsonObject, path: string, problems: string[]): JsonObject {
  const out: JsonObject = { ...base };
  const optional = own(OPTIONAL_KEYS, path) ?? [];
  for (const [key, value] of Object.entries(override)) {
    const keyPath = path === '' ? key : `${path}.${key}`;
    const removed = own(REMOVED_KEYS, keyPath);
    if (removed !== undefined) {
      problems.push(`${keyPath} was removed: ${removed}. Delete it from the profile.`);
      continue;
    }
    if (!Object.hasOwn(base, key) && !optional.includes(key)) {
      problems.push(
        `unknown setting ${keyPath}; known settings here: ${knownKeys(base, optional)}. Check the spelling.`,
      );
      continue;
    }
    const current = base[key];
    if (!isObject(current)) {
      out[key] = value;
    } else if (isObject(value)) {
      out[key] = merge(current, value, keyPath, problems);
    } else {
      // A section set to null (or a scalar) would otherwise be read as every one of its settings missing.
      problems.push(
        `${keyPath} is ${JSON.stringify(value)}; expected an object with the settings ` +
          `${knownKeys(current, own(OPTIONAL_KEYS, keyPath) ?? [])} (or leave it out to keep the defaults).`,
      );
    }
  }
  return out;
}

function knownKeys(base: JsonObject, optional: readonly string[]): string {
  return [...Object.keys(base), ...optional].sort().join(', ');
}

/**
 * Reads typed values from the merged input, recording every problem instead of stopping at the first. Its problems
 * go to the one problem collector the route readers use ({@link Problems}), so the config, the transform's
 * environment reader (core/contracts/transform-env.ts) and the route readers word a problem alike.
 */
export class Reader {
  readonly problems: string[] = [];
  /** The collector over {@link problems}: route readers (core/contracts/route-reader.ts) add to it directly. */
  readonly collector = new Problems(this.problems);

  constructor(private readonly root: JsonObject) {}

  private get(path: string): Json {
    let v: Json = this.root;
    for (const part of path.split('.')) v = isObject(v) ? v[part] : undefined;
    return v;
  }

  private bad(path: string, value: Json, expected: string): void {
    this.collector.bad(path, value, expected);
  }

  int(path: string, min: number, max: number, value: Json = this.get(path)): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.bad(path, value, `an integer from ${min} to ${max}`);
      return min;
    }
    return value;
  }

  /** An integer by one of the shared rules (core/contracts/config-rules.ts): its bounds and its words. */
  ruleInt(rule: IntRule, path: string = rule.path ?? '', value: Json = this.get(path)): number {
    const problem = intProblem(rule, path, value);
    if (problem === undefined) return value as number;
    this.problem(problem);
    return rule.min;
  }

  /** A string by one of the shared rules (core/contracts/config-rules.ts). Returns '' when it is bad. */
  ruleStr(rule: PatternRule, path: string = rule.path ?? '', value: Json = this.get(path)): string {
    const problem = patternProblem(rule, path, value);
    if (problem === undefined) return value as string;
    this.problem(problem);
    return '';
  }

  bool(path: string, value: Json = this.get(path)): boolean {
    if (typeof value !== 'boolean') {
      this.bad(path, value, 'true or false');
      return false;
    }
    return value;
  }

  str(path: string, pattern?: RegExp, hint?: string, value: Json = this.get(path)): string {
    if (typeof value !== 'string' || (pattern !== undefined && !pattern.test(value))) {
      this.bad(path, value, hint ?? (pattern ? `a string matching ${pattern.source}` : 'a string'));
      return '';
    }
    return value;
  }

  optStr(path: string, pattern?: RegExp, hint?: string): string | undefined {
    const value = this.get(path);
    return value === undefined ? undefined : this.str(path, pattern, hint, value);
  }

  oneOf<T extends string>(path: string, allowed: readonly T[], value: Json = this.get(path)): T {
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      this.bad(path, value, `one of ${allowed.map((a) => JSON.stringify(a)).join(', ')}`);
      return allowed[0];
    }
    return value as T;
  }

  retention(path: string, value: Json = this.get(path)): number {
    if (typeof value !== 'number' || !LOG_RETENTION_DAYS.includes(value)) {
      this.bad(path, value, `a CloudWatch Logs retention in days: ${LOG_RETENTION_DAYS.join(', ')}`);
      return 14;
    }
    return value;
  }

  array(path: string, value: Json = this.get(path)): readonly Json[] {
    if (!Array.isArray(value)) {
      this.bad(path, value, 'an array');
      return [];
    }
    return value;
  }

  strings(path: string, pattern?: RegExp, hint?: string, value: Json = this.get(path)): string[] {
    return this.array(path, value).map((v, i) => this.str(`${path}[${i}]`, pattern, hint, v));
  }

  problem(message: string): void {
    this.collector.add(message);
  }

  raw(path: string): Json {
    return this.get(path);
  }
}
