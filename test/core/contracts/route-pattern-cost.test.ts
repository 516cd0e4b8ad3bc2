/**
 * The hostile-line cost bound (issue 39, core/contracts/route-pattern.ts `MAX_PATTERN_WIDTH`): a pattern whose
 * automaton can keep more threads alive than the bound is refused at synth, naming the pattern, the bound and the
 * fix; what stays under it is accepted, however long its text. The figures themselves come from
 * `npm run bench:processing` (no timing in unit tests: bench/README.md).
 */
import {
  compileRoutePattern,
  MAX_PATTERN_WIDTH,
  RoutePatternError,
} from '../../../core/contracts/route-pattern';
import { translateToRe2 } from '../../../core/contracts/route-pattern-syntax';
import { processingProblems } from '../../helpers/route-problems';

function problemsOf(pattern: string): string[] {
  // A drop rule: the width bound holds for every route pattern (a mask's own bound on short matches:
  // route-pattern-mask.test.ts).
  return processingProblems({ drop: [{ name: 'p', messagePattern: pattern }] });
}

describe('the cost bound of route patterns', () => {
  test.each([
    '[a-z]{1,1000}@',
    '[a-z]{1,100}@',
    '(?:[a-z]{1,10}){1,10}x',
    '\\d{41}',
    '(?:ab|cd){1,30}!',
    `(?:${Array.from({ length: 45 }, (_, i) => `w${i}`).join('|')})`,
    'a{1000}',
  ])('fails when %s is wider than the bound, naming the bound and the fix', (source) => {
    // GIVEN a pattern whose automaton a line can keep busy in more places than the bound
    expect(translateToRe2(source).width).toBeGreaterThan(MAX_PATTERN_WIDTH);
    // THEN it is refused, at synth as in the transform
    expect(() => compileRoutePattern(source)).toThrow(RoutePatternError);
    expect(() => compileRoutePattern(source)).toThrow(
      new RegExp(`over the ${MAX_PATTERN_WIDTH}.*smaller counts`),
    );
    expect(problemsOf(source)).toEqual([
      expect.stringMatching(/routes\[0\]\.processing\.drop\[0\]\.messagePattern is ".*instructions wide/),
    ]);
  });

  test.each([
    '[a-z]{1,39}@',
    'DE\\d{20}',
    'password\\s*[:=]\\s*\\S+',
    '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[a-z]{2,6}',
    `x${'y'.repeat(900)}`,
    '(a+)+$',
    '(.*a){12}',
  ])('accepts %s, which stays within the bound', (source) => {
    expect(translateToRe2(source).width).toBeLessThanOrEqual(MAX_PATTERN_WIDTH);
    expect(problemsOf(source)).toEqual([]);
  });

  test('a literal run is as wide as its longest self-overlap, not as long as it is', () => {
    expect(translateToRe2('xyyyyyyyyy').width).toBe(1);
    expect(translateToRe2('abcabcabd').width).toBe(3);
    expect(translateToRe2('aaaaaaaaaa').width).toBe(10);
  });
});
