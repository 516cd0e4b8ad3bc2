/**
 * The problem collector of the route readers (route-reader.ts, route-processing.ts) and the name rules they share.
 * Problems are worded as the config words its own: `<path> is <value>; expected <what>.`, then the fix.
 */
import { compileRoutePattern, type RoutePattern, RoutePatternError } from './route-pattern';
import { MAX_PATTERN_LENGTH } from './routes';

/** Texts a pattern is tried on for an empty match: each kind of character a log line starts or ends with. */
const EMPTY_MATCH_PROBES = ['', ' ', 'a', 'A', '0', '-', '\t', '\n', 'a b', 'x@y.z', '\u00e9'];

/** True when the pattern matches the empty string, or finds an empty match in an ordinary text (`\b`, `a*`). */
function matchesEmpty(pattern: RoutePattern): boolean {
  return EMPTY_MATCH_PROBES.some((probe) => pattern.matchesEmptyIn(probe));
}

export const NAME = /^[a-zA-Z][a-zA-Z0-9_-]{0,31}$/;
export const NAME_HINT =
  'a name of letters, digits, "_" and "-", starting with a letter, at most 32 characters';
// CreateLogGroup's characters, as core/config/names.ts checks a log group name (the config imports contracts,
// never the other way round).
export const LOG_GROUP_CHARS = /^[\w\-/.#]{1,512}$/;
export const LOG_GROUP_GLOB = /^[\w\-/.#*?]{1,512}$/;
export const ACCOUNT = /^\d{12}$/;
export const FIELD_PATH = /^[^.\s]+(?:\.[^.\s]+){0,15}$/;

export type Json = unknown;
import { isObject, type JsonObject } from '../json';

export { isObject, type JsonObject };

/** Collects problems in the config's words: `<path> is <value>; expected <what>.` */
export class Problems {
  constructor(readonly list: string[]) {}

  bad(path: string, value: Json, expected: string): void {
    this.list.push(`${path} is ${JSON.stringify(value)}; expected ${expected}.`);
  }

  /** Adds `message`; undefined (a rule's "no problem") adds nothing. */
  add(message: string | undefined): void {
    if (message !== undefined) this.list.push(message);
  }

  /** Unknown keys of `obj` (a misspelt setting must not pass as "not set"). */
  keys(path: string, obj: JsonObject, known: readonly string[]): void {
    for (const key of Object.keys(obj)) {
      if (!known.includes(key)) {
        this.add(`unknown setting ${path}.${key}; known settings here: ${[...known].sort().join(', ')}.`);
      }
    }
  }

  str(path: string, value: Json, pattern: RegExp, hint: string): string | undefined {
    if (typeof value === 'string' && pattern.test(value)) return value;
    this.bad(path, value, hint);
    return undefined;
  }

  object(path: string, value: Json, hint: string): JsonObject | undefined {
    if (isObject(value)) return value;
    this.bad(path, value, hint);
    return undefined;
  }

  array(path: string, value: Json, hint: string): readonly Json[] | undefined {
    if (Array.isArray(value)) return value as readonly Json[];
    this.bad(path, value, hint);
    return undefined;
  }

  /** A pattern that compiles; `nonEmpty`: it must not match empty text. */
  pattern(path: string, value: Json, nonEmpty: boolean): string | undefined {
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_PATTERN_LENGTH) {
      this.bad(path, value, `a regular expression (RE2 syntax) of 1-${MAX_PATTERN_LENGTH} characters`);
      return undefined;
    }
    let compiled: RoutePattern;
    try {
      compiled = compileRoutePattern(value);
    } catch (error) {
      const reason = error instanceof RoutePatternError ? error.message : String(error);
      this.add(
        `${path} is ${JSON.stringify(value)}, which does not compile as a route pattern: ${reason}. ` +
          "Route patterns are regular expressions in RE2 syntax (JavaScript's, without lookaround or " +
          'backreferences); in JSON every backslash is written twice ("\\\\d+").',
      );
      return undefined;
    }
    if (nonEmpty && matchesEmpty(compiled)) {
      this.add(
        `${path} is ${JSON.stringify(value)}, which matches empty text (a "*" or "?" on everything, or an anchor ` +
          'alone): it would mark or join where nothing is. Make it match at least one character, e.g. "\\\\d+" ' +
          'instead of "\\\\d*".',
      );
      return undefined;
    }
    return value;
  }

  /** Names listed twice under `path`. */
  unique(path: string, names: readonly (string | undefined)[], what: string): void {
    const seen = new Set<string>();
    names.forEach((name, i) => {
      if (name === undefined) return;
      if (seen.has(name))
        this.add(`${path}[${i}] ${what} ${JSON.stringify(name)} is used twice; use each once.`);
      seen.add(name);
    });
  }
}
