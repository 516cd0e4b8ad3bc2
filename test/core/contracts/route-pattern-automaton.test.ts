/**
 * Where a mask's matches are (core/contracts/route-pattern-automaton.ts, issue 39): the spans JavaScript's
 * `String.prototype.replace` with a `g` RegExp replaces, found in two passes that read no position twice. Alternatives
 * whose winner is decided far ahead (leftmost-first), patterns with many automaton states, anchors and word
 * boundaries, on generated lines made of the pattern's own characters (where the preferred way dies late), and the
 * hostile lines that made a search read the rest of a 64 KiB line again after every match (20 s to a minute on
 * main's engine, so these also fail there by the test's timeout).
 */
import fc from 'fast-check';
import { compileRoutePattern } from '../../../core/contracts/route-pattern';

/** What JavaScript replaces (an empty match replaces nothing: config refuses mask patterns that match empty text). */
const jsMask = (source: string, text: string): string =>
  text.replace(new RegExp(source, 'g'), (m) => (m.length === 0 ? '' : '#'));

const PATTERNS = [
  'a[^!]*!|b',
  '\\w+\\d|\\w',
  '[a-z]+@x|[a-z]',
  'x.*y|.',
  '(?:ab|a)(?:bc|c)?',
  '(?:a|ab)(?:c|bcd)',
  'a*?b|a',
  '(?:a|b)*a(?:a|b){6}',
  '\\ba\\w*\\b|\\Bb',
  '^a+|b+$|c',
  '(?:a+)+b|a',
  '[^ab]?a{2,5}?b*',
];

describe('mask spans', () => {
  test.each(PATTERNS)('property: %s masks what JavaScript masks on lines of its own characters', (source) => {
    const pattern = compileRoutePattern(source);
    const line = fc
      .array(fc.constantFrom('a', 'b', 'c', '!', 'x', 'y', '@', ' ', '1', 'ab', 'aaaa', 'bbbb'), {
        maxLength: 40,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(line, (text) => {
        expect(pattern.replaceAll(text, '#').text).toBe(jsMask(source, text));
      }),
      { numRuns: 400, seed: 39 },
    );
  });

  test.each([
    ['a[^!]*!|b', 'ab '.repeat(21_846), 'a# '.repeat(21_846)],
    ['\\w+\\d|\\w', 'a'.repeat(65_536), '#'.repeat(65_536)],
    ['\\w+\\d|\\w', `${'a'.repeat(65_535)}1`, '#'],
    ['[a-z]+@x|[a-z]', 'ab@'.repeat(21_846), '##@'.repeat(21_846)],
  ])(
    '%s on a 64 KiB line that made every match read the rest of the line again',
    (source, text, expected) => {
      // WHEN
      const masked = compileRoutePattern(source).replaceAll(text, '#');
      // THEN (written out: JavaScript's own engine reads ahead the same way, for seconds on these lines)
      expect(masked.text).toBe(expected);
    },
  );

  test('a pattern with more states than the cache holds masks what JavaScript masks, line after line', () => {
    // GIVEN a pattern whose automaton has 2^15 states (over the 4,096 a pattern caches) and lines that visit many
    const source = '[ab]*a[ab]{14}c';
    const pattern = compileRoutePattern(source);
    let seed = 39;
    const line = (): string =>
      Array.from({ length: 20_000 }, (_, i) => {
        seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
        return i % 997 === 996 ? 'c' : 'ab'[seed % 2];
      }).join('');
    // WHEN several lines are masked by the same pattern (the caches start again between them)
    for (let k = 0; k < 3; k++) {
      const text = line();
      // THEN each is masked as JavaScript masks it
      expect(pattern.replaceAll(text, '#').text).toBe(jsMask(source, text));
    }
  });
});
