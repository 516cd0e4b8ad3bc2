/**
 * The patterns a route holds (custom masks, drop rules, a multi-line `pattern`) run on every line of a team's logs,
 * and one team's pattern must never stall the shard every team shares. A backtracking engine (JavaScript's RegExp)
 * can take exponential time on a pattern such as `(a+)+$` (one 30-character line took seconds), so route patterns
 * run on RE2 (re2js, a pure-JavaScript port of RE2/J, https://github.com/le0pard/re2js): its automata match in time
 * linear in the line's length for every pattern it accepts. What RE2 cannot run in linear time it does not accept
 * (lookahead, lookbehind, backreferences), and synth refuses those patterns with the reason, through the same
 * {@link compileRoutePattern} the transform uses. One owner: the config, the transform's environment reader, the
 * transform and the CLI compile route patterns here and nowhere else. CDK-free, no I/O.
 */
import { RE2JS } from 're2js';

/** A compiled route pattern. Stateless: safe to share between calls. */
export interface RoutePattern {
  /** The pattern as the profile wrote it. */
  readonly source: string;
  /** True when the pattern matches somewhere in `text` (unanchored, as `RegExp.prototype.test`). */
  test(text: string): boolean;
  /**
   * `text` with every match (leftmost-first, non-overlapping, as `String.prototype.replaceAll` with a `g` RegExp)
   * replaced by `replacement` taken literally; `count` is how many were replaced. Empty matches are never replaced
   * (config refuses mask patterns that match empty text; this keeps the loop finite whatever the pattern).
   */
  replaceAll(text: string, replacement: string): { readonly text: string; readonly count: number };
  /**
   * True when the pattern can match only at the start or end of a text or line (`^`, `$`, `\A`, `\z`), so a match
   * inside one JSON string value may not be one inside the whole message (masking.ts uses this for its pre-check).
   */
  readonly anchored: boolean;
  /** True when the pattern finds an empty match in `text` (`\b`, `(?:)`, `a*` on "b"): config refuses those. */
  matchesEmptyIn(text: string): boolean;
}

/** A route pattern that does not compile, or uses what the linear-time engine does not run. */
export class RoutePatternError extends Error {
  public constructor(
    public readonly source: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'RoutePatternError';
  }
}

/**
 * JavaScript's `\uXXXX` and `\u{X...}` escapes, which RE2 spells `\x{...}`: profiles are written as JavaScript
 * regular expressions (docs/teams-and-routes.md), and these two escapes mean the same character in both.
 */
function translateEscapes(source: string): string {
  if (!source.includes('\\u')) return source;
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c !== '\\') {
      out += c;
      continue;
    }
    const next = source[i + 1];
    if (next === 'u') {
      const four = /^[0-9A-Fa-f]{4}/.exec(source.slice(i + 2, i + 6));
      if (four !== null) {
        out += `\\x{${four[0]}}`;
        i += 5;
        continue;
      }
      const braced = /^\{([0-9A-Fa-f]{1,6})\}/.exec(source.slice(i + 2, i + 11));
      if (braced !== null) {
        out += `\\x{${braced[1]}}`;
        i += 1 + braced[0].length;
        continue;
      }
    }
    // Any other escape is copied whole (so `\\u` stays an escaped backslash before a `u`).
    out += next === undefined ? c : c + next;
    i++;
  }
  return out;
}

/** The features RE2 leaves out because they need backtracking, by the syntax that uses them. */
const UNSUPPORTED: ReadonlyArray<readonly [RegExp, string]> = [
  [/\(\?<?[=!]/, 'lookahead or lookbehind ((?=, (?!, (?<=, (?<!)'],
  [/\\[1-9]|\\k</, 'a backreference (\\1, \\k<name>)'],
  [/[*+?}]\+/, 'a possessive quantifier (*+, ++)'],
];

function explain(source: string, message: string): string {
  for (const [syntax, what] of UNSUPPORTED) {
    if (syntax.test(source)) {
      return (
        `it uses ${what}, which kfek's linear-time pattern engine (RE2) does not run: route patterns must take time ` +
        'linear in the line, so that no line can stall the pipeline. Rewrite the pattern without it'
      );
    }
  }
  return `it is not a pattern RE2 accepts (${message.replace(/^error parsing regexp: /, '')})`;
}

/** Unescaped `^` or `$` outside a character class, or `\A` / `\z`: an anchor. Conservative (may say yes wrongly). */
function hasAnchor(source: string): boolean {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1];
      if (!inClass && (next === 'A' || next === 'z')) return true;
      i++;
    } else if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
    } else if (c === '^' || c === '$') {
      return true;
    }
  }
  return false;
}

/**
 * Compiles a route pattern as every runtime does. Throws {@link RoutePatternError} with the reason for a pattern RE2
 * does not accept.
 */
export function compileRoutePattern(source: string): RoutePattern {
  let re: RE2JS;
  try {
    re = RE2JS.compile(translateEscapes(source));
  } catch (error) {
    throw new RoutePatternError(
      source,
      explain(source, error instanceof Error ? error.message : String(error)),
    );
  }
  return {
    source,
    anchored: hasAnchor(source),
    test: (text) => re.test(text),
    replaceAll(text, replacement) {
      const matcher = re.matcher(text);
      let out = '';
      let copiedTo = 0;
      let count = 0;
      let from = 0;
      while (from <= text.length && matcher.find(from)) {
        const start = matcher.start();
        const end = matcher.end();
        if (end === start) {
          from = end + 1;
          continue;
        }
        out += text.slice(copiedTo, start) + replacement;
        copiedTo = end;
        count++;
        from = end;
      }
      return count === 0 ? { text, count } : { text: out + text.slice(copiedTo), count };
    },
    matchesEmptyIn(text) {
      const matcher = re.matcher(text);
      for (let from = 0; from <= text.length && matcher.find(from);) {
        if (matcher.end() === matcher.start()) return true;
        from = matcher.end();
      }
      return false;
    },
  };
}
