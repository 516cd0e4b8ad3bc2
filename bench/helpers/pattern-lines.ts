/**
 * The worst lines we can construct for a route pattern (issue 39, core/contracts/route-pattern.ts
 * `MAX_PATTERN_WIDTH`), each against an ordinary line of the same length, through a route that masks with the
 * pattern (a mask is the pattern's dearest use: a line that matches pays for the automaton that finds where). The
 * lines keep the automaton in its widest state: a run of each character the pattern's matches are made of (every
 * counted repetition busy on every character), the longest match with its last character cut off, repeated
 * (near-misses), and a run that ends in a whole match. Matches come from fast-check's `stringMatching`, so the lines
 * follow any pattern, generated ones included.
 */
import fc from 'fast-check';
import { compileRoutePattern, MAX_PATTERN_WIDTH } from '../../core/contracts/route-pattern';
import { translateToRe2 } from '../../core/contracts/route-pattern-syntax';
import { RouteTable } from '../../core/transform/routing';
import { transformRecord } from '../../core/transform/transform';
import { median } from './stats';
import { encode } from './transform-corpus';

/** The widest counted repetition the config accepts in a pattern shaped as `[a-z]{1,n}@`. */
const WIDEST_COUNT = MAX_PATTERN_WIDTH - 1;

/** Hand-picked patterns (the widest of their shape the config accepts) and generated ones. */
export function benchPatterns(generated: number): readonly string[] {
  const chosen = [
    `[a-z]{1,${WIDEST_COUNT}}@`,
    `[^@]{1,${WIDEST_COUNT}}@`,
    'DE\\d{20}',
    'password\\s*[:=]\\s*\\S+',
    '(\\w+\\s?)+$',
    '(a|aa)+$',
    '(.*a){12}',
    `\\d{1,3}(?:\\.\\d{1,3}){3}`,
    '[A-Za-z0-9._%+-]{1,16}@[A-Za-z0-9.-]{1,16}\\.[a-z]{2,6}',
    '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[a-z]{2,6}',
    `\\S\\d(?:a){1,${MAX_PATTERN_WIDTH - 10}}(?:ab)+(?:ab)+`,
    `${'a'.repeat(WIDEST_COUNT)}b`,
  ];
  const atom = fc.constantFrom('a', 'b', '\\d', '\\w', '\\s', '.', '[a-c]', '[^x]', '\\S', 'ab');
  const quantifier = fc.constantFrom('', '+', '*', '?', '{1,8}', '{2,12}', '{1,30}');
  const generator = fc
    .array(fc.tuple(atom, quantifier), { minLength: 2, maxLength: 6 })
    .map((parts) => parts.map(([a, q]) => (q === '' ? a : `(?:${a})${q}`)).join(''))
    .filter((source) => accepted(source) && !compileRoutePattern(source).matchesEmptyIn(''));
  return [...chosen, ...fc.sample(generator, { numRuns: generated, seed: 39 })];
}

function accepted(source: string): boolean {
  try {
    compileRoutePattern(source);
    return true;
  } catch {
    return false;
  }
}

function repeatTo(unit: string, length: number): string {
  return unit.length === 0 ? '' : unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** The candidate worst lines for `source` of `length` characters, by what they do to the automaton. */
export function hostileLinesFor(source: string, length: number): ReadonlyArray<readonly [string, string]> {
  const samples = fc.sample(fc.stringMatching(new RegExp(source)), { numRuns: 40, seed: 39 });
  const matches = samples.map((s) => new RegExp(source).exec(s)?.[0] ?? '').filter((m) => m.length > 0);
  const longest = matches.reduce((a, b) => (b.length > a.length ? b : a), '');
  const chars = [...new Set(matches.join(''))].slice(0, 6);
  const lines: Array<readonly [string, string]> = [];
  for (const c of chars) {
    lines.push([`a run of ${JSON.stringify(c)}`, repeatTo(c, length)]);
    lines.push([
      `runs of ${JSON.stringify(c)} ending in a match`,
      repeatTo(repeatTo(c, 2_000) + longest, length),
    ]);
  }
  if (longest.length > 1)
    lines.push([
      'near-misses (a match without its last character)',
      repeatTo(longest.slice(0, -1) + '\u0001', length),
    ]);
  return lines;
}

/** One record of three copies of `line` (the figure is per line; three keep the envelope's share small). */
function recordOf(line: string): string {
  return encode({
    messageType: 'DATA_MESSAGE',
    owner: '123456789012',
    logGroup: '/bench/patterns',
    logStream: 'stream',
    subscriptionFilters: [],
    logEvents: [0, 1, 2].map((i) => ({
      id: String(1_000_000 + i),
      timestamp: 1_763_888_400_000 + i,
      message: line,
    })),
  });
}

function timeOf(routes: RouteTable, data: string, rounds: number): number {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = process.hrtime.bigint();
    const outcome = transformRecord(data, { routes });
    if (outcome.kind !== 'data') throw new Error(`pattern bench record was ${outcome.kind}`);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(times);
}

/** What one pattern's worst line costs against an ordinary line of the same length. */
export interface PatternFigure {
  readonly pattern: string;
  readonly width: number;
  readonly worst: number;
  readonly line: string;
}

/** Per pattern: its worst line's time over the ordinary line's (`ordinary` builds one of a length). */
export function measurePatterns(
  patterns: readonly string[],
  length: number,
  ordinary: (length: number) => string,
): PatternFigure[] {
  const base = recordOf(ordinary(length));
  return patterns.map((pattern) => {
    const routes = new RouteTable([
      {
        name: 'pattern',
        match: { logGroupPattern: '*' },
        staticFields: {},
        processing: { mask: { detectors: [], custom: [{ name: 'p', pattern }] }, drop: [] },
      },
    ]);
    timeOf(routes, base, 2);
    let worst = 0;
    let line = '';
    for (const [name, text] of hostileLinesFor(pattern, length)) {
      const data = recordOf(text);
      timeOf(routes, data, 1);
      // Taken side by side with the ordinary line, so a busy machine slows both.
      const ratio = timeOf(routes, data, 3) / timeOf(routes, base, 3);
      if (ratio > worst) [worst, line] = [ratio, name];
    }
    return { pattern, width: translateToRe2(pattern).width, worst, line };
  });
}
