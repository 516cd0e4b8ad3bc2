/**
 * Route patterns mean what they mean to JavaScript's RegExp without flags (docs/teams-and-routes.md, issue 39): every
 * class, escape and character whose meaning differs between RE2 and JavaScript is translated
 * (core/contracts/route-pattern-syntax.ts) or refused with the reason. Generated patterns over the syntax where the two
 * engines differ (`\s`, `\S`, `.`, negated classes, control and hex escapes, braces, surrogates) against generated
 * Unicode lines (Unicode spaces, line terminators, emoji, lone surrogates, Kelvin sign, long s): RE2's answer is
 * JavaScript's, match or not, and the text a mask replaces.
 */
import fc from 'fast-check';
import {
  compileRoutePattern,
  MAX_PATTERN_WIDTH,
  RoutePatternError,
} from '../../../core/contracts/route-pattern';
import { translateToRe2 } from '../../../core/contracts/route-pattern-syntax';

/** Atoms whose meaning differs between the engines, or that read differently in their syntax. */
const LEAVES = [
  'a',
  'K',
  'k',
  's',
  '\\s',
  '\\S',
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '.',
  '[^a]',
  '[^\\s]',
  '[\\s\\d]',
  '[a-z]',
  '[\\d-z]',
  '[\\b]',
  '[]',
  '[^]',
  '\\u00a0',
  '\\u2028',
  '\\x41',
  '\\cJ',
  '\\v',
  '\\0',
  '\\t',
  '\\uD83D',
  '[\\uD800-\\uDBFF]',
  '\\/',
  '\\-',
  '{',
  '}',
  ']',
  '\u00a0',
  '\u3000',
  '😀',
  '\u212a',
  '\u017f',
];
/** Syntax RE2 reads and JavaScript reads otherwise or refuses, and plain syntax errors. */
const FOREIGN = [
  '\\z',
  '\\A',
  '\\pL',
  '\\p{Lu}',
  '\\Q.\\E',
  '\\C',
  '(?i)',
  '(?s:.)',
  '(?P<n>a)',
  '[[:alpha:]]',
  '\\x{41}',
  '\\1',
  '\\k<n>',
  '(?=a)',
  'a**',
  '^*',
  '[z-a]',
  '(',
  ')',
  '[',
  '\\',
  '\\c',
  '{2}',
  '*',
  '\\e',
  '\\a',
  '\\h',
];
const BOUNDARIES = ['\\b', '\\B', '^', '$'];
const QUANTIFIERS = ['', '', '', '*', '+', '?', '{1,2}', '{2}', '{,2}', '*?', '+?'];

const pattern: fc.Arbitrary<string> = fc.letrec<{ re: string; term: string }>((tie) => ({
  term: fc.oneof(
    {
      weight: 6,
      arbitrary: fc.tuple(fc.constantFrom(...LEAVES), fc.constantFrom(...QUANTIFIERS)).map(([a, q]) => a + q),
    },
    { weight: 1, arbitrary: fc.constantFrom(...BOUNDARIES) },
    { weight: 1, arbitrary: tie('re').map((r) => `(?:${r})`) },
  ),
  re: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.array(tie('term'), { minLength: 1, maxLength: 4 }).map((t) => t.join('')),
    fc.tuple(tie('term'), tie('term')).map(([a, b]) => `${a}|${b}`),
  ),
})).re;

/** Characters where the engines' classes differ, and any code unit at all. */
const SPECIAL = [
  ' ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\f',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u200a',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
  '\u200b',
  '\u0085',
  '\u212a',
  '\u017f',
  'K',
  'k',
  's',
  'a',
  'z',
  '0',
  '9',
  '-',
  '_',
  '{',
  '}',
  ']',
  '/',
  '\0',
  '\b',
  'A',
  '😀',
  '\ud83d',
  '\ude00',
];
const char = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...SPECIAL) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x10ffff }).map((p) => String.fromCodePoint(p)) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((u) => String.fromCharCode(u)) },
);
const line = fc.array(char, { maxLength: 12 }).map((chars) => chars.join(''));

function jsAccepts(source: string): boolean {
  try {
    new RegExp(source);
    return true;
  } catch {
    return false;
  }
}

describe('route patterns mean what JavaScript means', () => {
  test('property: an accepted pattern matches exactly the lines JavaScript matches, and masks the same text', () => {
    fc.assert(
      fc.property(pattern, fc.array(line, { minLength: 1, maxLength: 6 }), (source, lines) => {
        fc.pre(jsAccepts(source) && translateToRe2(source).width <= MAX_PATTERN_WIDTH);
        const re2 = compileRoutePattern(source);
        const js = new RegExp(source);
        const global = new RegExp(source, 'g');
        for (const text of lines) {
          // Where a repeated group may match empty text the engines may pick other matches (docs say so).
          const spansComparable =
            ![...text.matchAll(global)].some((m) => m[0].length === 0) && !re2.matchesEmptyIn(text);
          expect([source, text, re2.test(text), spansComparable && re2.replaceAll(text, '#').text]).toEqual([
            source,
            text,
            js.test(text),
            spansComparable && text.replace(global, '#'),
          ]);
        }
      }),
      // A fixed seed: JavaScript's own RegExp (the reference) backtracks without bound on some generated pattern and
      // long line pairs, and a synchronous regex cannot be timed out, so a random draw could hang the suite.
      { numRuns: 1500, seed: 20261129 },
    );
  });

  test('property: on long lines, a mask replaces what JavaScript replaces', () => {
    // Lines of hundreds to thousands of characters (once searched window by window; now by route-pattern-automaton.ts),
    // with matches across their edges.
    const longLine = fc
      .array(
        fc.oneof(
          line,
          fc.constantFrom('a'.repeat(300), 'ab '.repeat(120), '7'.repeat(280), 'Kk s'.repeat(70)),
        ),
        {
          minLength: 20,
          maxLength: 80,
        },
      )
      .map((parts) => parts.join(''));
    // Patterns whose matches have a longest length (no *, +, anchors), and the rest.
    const term = fc
      .tuple(fc.constantFrom(...LEAVES, '\\b'), fc.constantFrom('', '?', '{1,2}', '{2}', '{1,3}', '{0,2}'))
      .map(([a, q]) => (a === '\\b' ? a : a + q));
    const bounded = fc
      .tuple(fc.array(term, { minLength: 1, maxLength: 4 }), fc.array(term, { maxLength: 3 }))
      .map(([a, b]) => (b.length === 0 ? a.join('') : `${a.join('')}|${b.join('')}`));
    fc.assert(
      fc.property(fc.oneof(bounded, bounded, pattern), longLine, (source, text) => {
        fc.pre(jsAccepts(source) && translateToRe2(source).width <= MAX_PATTERN_WIDTH);
        const re2 = compileRoutePattern(source);
        const global = new RegExp(source, 'g');
        fc.pre(![...text.matchAll(global)].some((m) => m[0].length === 0) && !re2.matchesEmptyIn(text));
        expect([source, re2.replaceAll(text, '#').text]).toEqual([source, text.replace(global, '#')]);
      }),
      // A fixed seed: JavaScript's own RegExp (the reference) backtracks without bound on some generated pattern and
      // long line pairs, and a synchronous regex cannot be timed out, so a random draw could hang the suite.
      { numRuns: 150, seed: 20261129 },
    );
  });

  test.each([
    ['a{1,3}', 'a'.repeat(3000)],
    ['ab', 'ab '.repeat(1000)],
    ['\\w{1,2}', 'Kk s'.repeat(700)],
    ['k{1,3}\\s', 'Kk s'.repeat(700) + '7'.repeat(900)],
    ['\\d{2}|a\\b', `${'7'.repeat(901)} a ${'a'.repeat(700)}`],
  ])('%s on a long line masks what JavaScript masks', (source, text) => {
    expect(compileRoutePattern(source).replaceAll(text, '#').text).toBe(
      text.replace(new RegExp(source, 'g'), '#'),
    );
  });

  test('property: with RE2-only or invalid syntax spliced in, a pattern is refused or means what JavaScript means', () => {
    const spliced = fc
      .tuple(pattern, fc.constantFrom(...FOREIGN), fc.nat())
      .map(
        ([re, foreign, at]) => re.slice(0, at % (re.length + 1)) + foreign + re.slice(at % (re.length + 1)),
      );
    fc.assert(
      fc.property(spliced, fc.array(line, { minLength: 1, maxLength: 4 }), (source, lines) => {
        let re2;
        try {
          re2 = compileRoutePattern(source);
        } catch (error) {
          if (error instanceof RoutePatternError) return;
          throw error;
        }
        expect([source, jsAccepts(source)]).toEqual([source, true]);
        for (const text of lines)
          expect([source, text, re2.test(text)]).toEqual([source, text, new RegExp(source).test(text)]);
      }),
      // A fixed seed: JavaScript's own RegExp (the reference) backtracks without bound on some generated pattern and
      // long line pairs, and a synchronous regex cannot be timed out, so a random draw could hang the suite.
      { numRuns: 1000, seed: 20261129 },
    );
  });

  test.each([
    ['password\\s*[:=]\\s*\\S+', 'password\u00a0: hunter2', '#'],
    ['password\\s*[:=]\\s*\\S+', 'password\u3000=\u2003hunter2', '#'],
    ['a\\sb', 'a\ufeffb', '#'],
    ['^.$', '😀', '😀'],
    ['^..$', '😀', '#'],
    ['a.b', 'a\u2028b', 'a\u2028b'],
    ['a[^x]b', 'a\rb', '#'],
    ['^\\S$', '\ud83d', '#'],
    ['\\cJ', 'x\ny', 'x#y'],
    ['[]', 'anything', 'anything'],
    ['[^]+', 'a\nb', '#'],
    ['x{,2}', 'x{,2}', '#'],
    ['\\w+', 'stra\u00dfe', '#\u00df#'],
  ])('%s on %j gives what JavaScript gives', (source, text, masked) => {
    // GIVEN a pattern whose classes mean other characters on RE2
    const compiled = compileRoutePattern(source);
    // WHEN it runs THEN it answers as JavaScript does
    expect(compiled.test(text)).toBe(new RegExp(source).test(text));
    expect(compiled.replaceAll(text, '#').text).toBe(masked);
    expect(masked).toBe(text.replace(new RegExp(source, 'g'), '#'));
  });

  test.each([
    ['\\z', /not an escape in JavaScript/],
    ['a\\Z', /not an escape in JavaScript/],
    ['\\Aa', /not an escape in JavaScript/],
    ['\\pL', /not an escape in JavaScript/],
    ['\\p{Greek}', /not an escape in JavaScript/],
    ['\\Qa.b\\E', /not an escape in JavaScript/],
    ['\\C', /not an escape in JavaScript/],
    ['(?i)k', /inline flags/],
    ['(?s).', /inline flags/],
    ['(?m)^a', /inline flags/],
    ['(?i:k)', /inline flags/],
    ['(?P<x>a)', /inline flags/],
    ['(?U)a+', /inline flags/],
    ['\\x{41}', /two hex digits/],
    ['\\c1', /not followed by a letter/],
    ['\\012', /legacy octal/],
    ['[\\1]', /legacy octal/],
    ['\\k<x>', /backreference/],
    ['[\\u{1F600}]', /inside a class/],
    ['[z-a]', /out of order/],
    ['a{2,1}', /out of order/],
    ['^*', /repeats an anchor/],
    ['a**', /repeats a repetition/],
  ])('fails when a pattern uses %s, which RE2 and JavaScript read differently, saying why', (source, why) => {
    expect(() => compileRoutePattern(source)).toThrow(RoutePatternError);
    expect(() => compileRoutePattern(source)).toThrow(why);
  });
});
