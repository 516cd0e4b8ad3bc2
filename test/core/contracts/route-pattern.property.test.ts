/**
 * Route patterns run on RE2 (core/contracts/route-pattern.ts, issue 29): generated patterns, nested quantifiers
 * included, are either accepted and then answer as JavaScript's RegExp answers on the same lines, or refused with the
 * reason; what backtracking cannot avoid (lookaround, backreferences) is always refused; and the patterns that stall
 * JavaScript's engine run through long hostile lines (no timing here: a backtracking engine would not finish).
 */
import fc from 'fast-check';
import {
  compileRoutePattern,
  MAX_PATTERN_WIDTH,
  RoutePatternError,
} from '../../../core/contracts/route-pattern';
import { translateToRe2 } from '../../../core/contracts/route-pattern-syntax';
import { Problems } from '../../../core/contracts/route-problems';

/** Patterns of the syntax JavaScript and RE2 share: literals, classes, groups, alternation, quantifiers, anchors. */
const regexWith = (quantifiers: readonly string[], quantifiedGroups = true): fc.Memo<string> => {
  const regex: fc.Memo<string> = fc.memo((depth) => {
    const leaf = fc.constantFrom(
      'a',
      'b',
      'ab',
      '\\d',
      '\\w',
      '\\s',
      '.',
      '[ab]',
      '[^a]',
      '[a-c0-9]',
      '\\.',
      '-',
      ' ',
    );
    const quantified = (atom: fc.Arbitrary<string>): fc.Arbitrary<string> =>
      fc.tuple(atom, fc.constantFrom(...quantifiers)).map(([a, q]) => a + q);
    const piece = ((): fc.Arbitrary<string> => {
      if (depth <= 1) return quantified(leaf);
      const groups = fc.oneof(
        regex(depth - 1).map((r) => `(${r})`),
        regex(depth - 1).map((r) => `(?:${r})`),
      );
      return fc.oneof(quantified(leaf), quantifiedGroups ? quantified(groups) : groups);
    })();
    const sequence = fc.array(piece, { minLength: 1, maxLength: 3 }).map((pieces) => pieces.join(''));
    return depth <= 1
      ? sequence
      : fc.oneof(
          sequence,
          fc.tuple(sequence, regex(depth - 1)).map(([a, b]) => `${a}|${b}`),
        );
  });
  return regex;
};
const anchored = (regex: fc.Memo<string>): fc.Arbitrary<string> =>
  regex(4).chain((re) => fc.constantFrom(re, `^${re}`, `${re}$`, `^(?:${re})$`));
const GREEDY = ['', '', '*', '+', '?', '{1,3}', '{2}'];
const pattern = anchored(regexWith([...GREEDY, '*?', '+?']));
/**
 * Without quantified groups. Where a quantified group's iteration can match empty text (a lazy quantifier inside, an
 * empty alternative, `(?:b?|a)*`), the engines may choose different matches: JavaScript refuses an empty iteration
 * and tries on, RE2 takes it as Perl does. Whether a pattern matches a line (what drop rules and multi-line rules ask)
 * is the same either way (above); docs/teams-and-routes.md says so for masks.
 */
const greedyPattern = anchored(regexWith([...GREEDY, '*?', '+?'], false));

const line = fc.stringMatching(/^[ab0-9 .\-x]{0,12}$/);

describe('route patterns on RE2', () => {
  test('property: a generated pattern of the shared syntax compiles, and matches where JavaScript matches', () => {
    fc.assert(
      fc.property(pattern, fc.array(line, { minLength: 1, maxLength: 8 }), (source, lines) => {
        // Counted repetitions of counted repetitions can pass the width bound (route-pattern-cost.test.ts).
        fc.pre(translateToRe2(source).width <= MAX_PATTERN_WIDTH);
        const re2 = compileRoutePattern(source);
        const js = new RegExp(source);
        for (const text of lines)
          expect([source, text, re2.test(text)]).toEqual([source, text, js.test(text)]);
      }),
      { numRuns: 400 },
    );
  });

  test('property: replacing every match gives what String.replace with a g RegExp gives', () => {
    fc.assert(
      fc.property(greedyPattern, line, (source, text) => {
        const js = new RegExp(source, 'g');
        // Mask patterns never match empty text (config refuses them); where a pattern can, the engines may pick
        // different matches (RE2 takes an empty iteration of a lazy loop that JavaScript skips).
        fc.pre(translateToRe2(source).width <= MAX_PATTERN_WIDTH);
        const re2 = compileRoutePattern(source);
        fc.pre(![...text.matchAll(js)].some((m) => m[0].length === 0) && !re2.matchesEmptyIn(text));
        expect(re2.replaceAll(text, '#').text).toBe(text.replace(js, '#'));
      }),
      { numRuns: 300 },
    );
  });

  test.each([
    ['(?=a)b', /lookahead or lookbehind/],
    ['(?<=a)b', /lookahead or lookbehind/],
    ['(?!a)b', /lookahead or lookbehind/],
    ['(a)\\1', /backreference/],
    ['(?<x>a)\\k<x>', /backreference/],
    ['a++', /possessive/],
  ])('refuses %s at synth, saying why', (source, why) => {
    expect(() => compileRoutePattern(source)).toThrow(RoutePatternError);
    expect(() => compileRoutePattern(source)).toThrow(why);
    const problems: string[] = [];
    new Problems(problems).pattern('routes[0].processing.drop[0].messagePattern', source, false);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/does not compile as a route pattern: .*RE2 syntax/);
  });

  test.each(['(a+)+$', '(\\w+\\s?)+$', '^(a|aa)+$', '(.*a){12}', '(a|a?)+b'])(
    'runs %s over long hostile lines to the end',
    (source) => {
      const compiled = compileRoutePattern(source);
      for (const text of ['a'.repeat(100_000) + '!', 'ab '.repeat(30_000) + '!', 'a'.repeat(40)]) {
        expect(typeof compiled.test(text)).toBe('boolean');
        expect(compiled.replaceAll(text, '#').text.length).toBeGreaterThan(0);
      }
    },
  );

  test("accepts JavaScript's \\u escapes", () => {
    expect(compileRoutePattern('\\u0041+').test('xAAy')).toBe(true);
    expect(compileRoutePattern('\\u{1F600}').test('a😀b')).toBe(true);
    expect(compileRoutePattern('\\\\u0041').test('\\u0041')).toBe(true);
  });
});
