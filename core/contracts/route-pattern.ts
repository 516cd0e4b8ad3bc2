/**
 * The patterns a route holds (custom masks, drop rules, a multi-line `pattern`) run on every line of a team's logs,
 * and one team's pattern must never stall the shard every team shares. A backtracking engine (JavaScript's RegExp)
 * can take exponential time on a pattern such as `(a+)+$` (one 30-character line took seconds), so route patterns
 * run on RE2 (re2js, a pure-JavaScript port of RE2/J, https://github.com/le0pard/re2js): its automata match in time
 * linear in the line's length for every pattern it accepts. What RE2 cannot run in linear time it does not accept
 * (lookahead, lookbehind, backreferences), and synth refuses those patterns with the reason, through the same
 * {@link compileRoutePattern} the transform uses. A pattern means what it means to JavaScript's RegExp without flags
 * (docs/teams-and-routes.md): route-pattern-syntax.ts reads it as JavaScript does and writes the RE2 pattern that
 * means the same, and {@link MAX_PATTERN_WIDTH} bounds how many threads a line can keep busy. One owner: the config,
 * the transform's environment reader, the transform and the CLI compile route patterns here and nowhere else.
 * CDK-free, no I/O.
 */
import { RE2JS } from 're2js';
import { PatternAutomaton, type PatternNode } from './route-pattern-automaton';
import { PatternSyntaxRefusal, type Re2Translation, translateToRe2, unitPoint } from './route-pattern-syntax';

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
   * Where the matches {@link RoutePattern.replaceAll} replaces are: start and end of the first, of the second, and so
   * on, in one flat list (empty when there is none).
   */
  spans(text: string): number[];
  /**
   * The fewest code units a match can take (0 when the pattern can match empty text): a mask writes a marker per
   * match, so this bounds how much longer masking can make a text (route-processing.ts refuses a mask whose marker
   * is too long for it).
   */
  readonly shortest: number;
  /**
   * True when every match must start at the text's start or end at its end (`^...`, `...$`, `(a+)+$`): the pattern
   * matches a text at most once, however short its matches.
   */
  readonly once: boolean;
  /**
   * True when the pattern has an anchor (`^`, `$`: the start or end of the text), so a match
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
 * The most character-consuming instructions a pattern's RE2 program may hold (its width, route-pattern-syntax.ts).
 * re2js's automata step every live thread on every character, and a line can keep every instruction alive (a run of
 * letters for `[a-z]{1,1000}@`: 170-310x an ordinary line), so the width bounds what the worst line costs against an
 * ordinary one of the same length. Measured through the transform on 64 KiB lines (bench:processing): `[a-z]{1,39}@`
 * 2.5-11x, `[a-z]{1,99}@` 47-97x. It also bounds the states a DFA step builds (route-pattern-automaton.ts), where a
 * mask finds where its matches are.
 */
export const MAX_PATTERN_WIDTH = 40;

const SURROGATES = /[\ud800-\udfff]/;

/** The text as RE2 reads the translated pattern (each surrogate code unit its own character), and back. */
interface TextView {
  readonly text: string;
  /** The index in the original text of an index in {@link TextView.text}. */
  original(index: number): number;
}

function viewOf(text: string): TextView {
  if (!SURROGATES.test(text)) return { text, original: (index) => index };
  let mapped = '';
  // starts[k]: where the original's code unit k starts in the mapped text (a moved unit takes two).
  const starts: number[] = [];
  for (let k = 0; k < text.length; k++) {
    starts.push(mapped.length);
    mapped += String.fromCodePoint(unitPoint(text.charCodeAt(k)));
  }
  starts.push(mapped.length);
  return {
    text: mapped,
    original(index) {
      let lo = 0;
      let hi = starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (starts[mid] < index) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    },
  };
}

/** The fewest code units a match of `node` can take. */
function shortestOf(node: PatternNode): number {
  switch (node.k) {
    case 'set':
      return 1;
    case 'assert':
      return 0;
    case 'cat':
      return node.items.reduce((sum, item) => sum + shortestOf(item), 0);
    case 'alt':
      return Math.min(...node.items.map(shortestOf));
    case 'repeat':
      return node.min === 0 ? 0 : node.min * shortestOf(node.item);
  }
}

/** True when every match of `node` reads the text's start or end (`^`, `$` on every way through it). */
function anchoredOnEveryWay(node: PatternNode): boolean {
  switch (node.k) {
    case 'set':
      return false;
    case 'assert':
      return node.what === 'begin' || node.what === 'end';
    case 'cat':
      return node.items.some(anchoredOnEveryWay);
    case 'alt':
      return node.items.every(anchoredOnEveryWay);
    case 'repeat':
      return node.min > 0 && anchoredOnEveryWay(node.item);
  }
}

/** The reason a pattern is refused, for the operator. */
function explain(error: unknown): string {
  if (error instanceof PatternSyntaxRefusal) {
    if (!error.message.includes('lookahead')) return error.message;
    return (
      `${error.message}, which kfek's linear-time pattern engine (RE2) does not run: route patterns must take time ` +
      'linear in the line, so that no line can stall the pipeline. Rewrite the pattern without it'
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return `it is not a pattern RE2 accepts (${message.replace(/^error parsing regexp: /, '')})`;
}

/**
 * Compiles a route pattern as every runtime does. Throws {@link RoutePatternError} with the reason for a pattern RE2
 * does not accept.
 */
export function compileRoutePattern(source: string): RoutePattern {
  let translation: Re2Translation;
  let re: RE2JS;
  try {
    translation = translateToRe2(source);
    re = RE2JS.compile(translation.re2);
  } catch (error) {
    throw new RoutePatternError(source, explain(error));
  }
  if (translation.width > MAX_PATTERN_WIDTH) {
    throw new RoutePatternError(
      source,
      `its automaton is ${translation.width} instructions wide (counted repetitions written out), over the ` +
        `${MAX_PATTERN_WIDTH} kfek accepts: a long line can keep every instruction busy on every character ` +
        '(a pattern 100 wide cost 47-97x an ordinary line). Use smaller counts ({1,32} instead of {1,1000}), an ' +
        'unbounded repetition (+, *: one copy whatever the count), or split an alternation into several rules',
    );
  }
  let automaton: PatternAutomaton | undefined;
  const spans = (text: string): number[] => {
    // The lazy DFA answers "no match" at a table lookup per character; only a text that matches pays for finding
    // where, which two more lazy DFAs do (route-pattern-automaton.ts), built on the first line that needs them.
    if (!re.test(viewOf(text).text)) return [];
    automaton ??= new PatternAutomaton(translation.tree);
    return automaton.spans(text);
  };
  return {
    source,
    anchored: translation.anchored,
    shortest: shortestOf(translation.tree),
    once: anchoredOnEveryWay(translation.tree),
    test: (text) => re.test(viewOf(text).text),
    spans,
    replaceAll(text, replacement) {
      const found = spans(text);
      if (found.length === 0) return { text, count: 0 };
      let out = '';
      let copiedTo = 0;
      for (let k = 0; k < found.length; k += 2) {
        out += text.slice(copiedTo, found[k]) + replacement;
        copiedTo = found[k + 1];
      }
      return { text: out + text.slice(copiedTo), count: found.length / 2 };
    },
    matchesEmptyIn(text) {
      const mapped = viewOf(text).text;
      const matcher = re.matcher(mapped);
      for (let from = 0; from <= mapped.length && matcher.find(from);) {
        if (matcher.end() === matcher.start()) return true;
        from = matcher.end();
      }
      return false;
    },
  };
}
