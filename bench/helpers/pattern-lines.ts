/**
 * The worst lines we can construct for a route pattern (issue 39, core/contracts/route-pattern.ts
 * `MAX_PATTERN_WIDTH`), each against an ordinary line of the same length, through a route that masks with the
 * pattern (a mask is the pattern's dearest use: a line that matches pays for the automaton that finds where). The
 * lines keep the automaton in its widest state: a run of each character the pattern's matches are made of (every
 * counted repetition busy on every character), the longest match with its last character cut off, repeated
 * (near-misses), a run that ends in a whole match, runs of each character before a short match (a thread that
 * starts early and dies late beside one that matches), and random characters of the matches (many automaton states).
 * Matches come from fast-check's `stringMatching`, so the lines follow any pattern, generated ones included.
 */
import fc from 'fast-check';
import { compileRoutePattern, MAX_PATTERN_WIDTH } from '../../core/contracts/route-pattern';
import { maskPatternProblem, shortestMaskMatch } from '../../core/contracts/route-pattern-mask';
import type { CustomMask, RouteProcessing } from '../../core/contracts/routes';
import { translateToRe2 } from '../../core/contracts/route-pattern-syntax';
import { RouteTable } from '../../core/transform/routing';
import { transformRecord } from '../../core/transform/transform';
import { median } from './stats';
import { encode } from './transform-corpus';

/** The widest counted repetition the config accepts in a pattern shaped as `[a-z]{1,n}@`. */
const WIDEST_COUNT = MAX_PATTERN_WIDTH - 1;
/** The name the bench's masks go by: the shortest, so the shortest matches the config accepts. */
const NAME = 'pin';
/** The shortest match a mask named {@link NAME} may take (core/contracts/route-pattern-mask.ts). */
const SHORTEST = shortestMaskMatch(NAME);

/** A class of patterns the config accepts, by what makes a line costly for it. */
export interface PatternClass {
  readonly name: string;
  readonly patterns: readonly string[];
}

/**
 * The classes of accepted patterns the bench tries (issue 39), hand-picked ones (the widest of their shape the config
 * accepts) and generated ones: each class's worst line is printed side by side in one run.
 */
export function benchPatterns(generated: number): readonly PatternClass[] {
  const atom = fc.constantFrom('a', 'b', '\\d', '\\w', '\\s', '.', '[a-c]', '[^x]', '\\S', 'ab');
  const quantifier = fc.constantFrom('', '+', '*', '?', '{1,8}', '{2,12}', '{1,30}');
  const generator = fc
    .array(fc.tuple(atom, quantifier), { minLength: 2, maxLength: 6 })
    .map((parts) => parts.map(([a, q]) => (q === '' ? a : `(?:${a})${q}`)).join(''))
    .filter((source) => accepted(source) && !compileRoutePattern(source).matchesEmptyIn(''))
    // What the config refuses as a mask is no figure of a mask: a short-match pattern is given its shortest count.
    .map((source) => (accepted(source) ? source : `(?:${source}){${SHORTEST},}`))
    .filter(accepted);
  // Alternatives of generated sequences: which one wins depends on what follows (leftmost-first).
  const alternatives = fc
    .tuple(generator, generator)
    .map(([a, b]) => `${a}|${b}`)
    .filter(accepted);
  return [
    {
      name: 'counted repetitions (bounded width)',
      patterns: [
        `[a-z]{${SHORTEST - 1},${WIDEST_COUNT}}@`,
        `[^@]{${SHORTEST - 1},${WIDEST_COUNT}}@`,
        'DE\\d{20}',
        `\\d{1,3}(?:\\.\\d{1,3}){3}`,
        '[A-Za-z0-9._%+-]{1,16}@[A-Za-z0-9.-]{1,16}\\.[a-z]{2,6}',
        `${'a'.repeat(WIDEST_COUNT)}b`,
      ],
    },
    {
      name: 'unbounded repetitions (long or dense matches)',
      patterns: [
        'password\\s*[:=]\\s*\\S+',
        '[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\\.[a-z]{2,6}',
        `\\S\\d(?:a){1,${MAX_PATTERN_WIDTH - 10}}(?:ab)+(?:ab)+`,
        '(.*a){12}',
      ],
    },
    {
      name: 'catastrophic on a backtracking engine',
      patterns: ['(\\w+\\s?)+$', '(a|aa)+$', '(a+)+$', '^(a|aa)+$', '(?:\\w{4}\\s?)+x'],
    },
    {
      name: 'alternatives decided far ahead (leftmost-first)',
      patterns: ['a[^!]*!|b{4}', '\\w+\\d|\\w{4}', '[a-z]+@x|[a-z]{4}', 'x.*y|.{4}'],
    },
    {
      name: 'many automaton states (a counted class after a loop)',
      patterns: ['(?:a|b)*a(?:a|b){18}', '[ab]*a[ab]{12}[cd]', '.*a.{18}', '.*a.{36}', '[ab]*a[ab]{36}c'],
    },
    {
      // A mask writes a marker for every match: a line of the shortest matches the config accepts, back to back or
      // one character apart, is the longest document a line can become (route-pattern-mask.ts).
      name: `short matches (the shortest a mask named "${NAME}" may take, ${SHORTEST} characters)`,
      patterns: [
        `b{${SHORTEST}}`,
        `\\d{${SHORTEST}}`,
        `[a-c]{${SHORTEST},}`,
        `\\w{${SHORTEST}}|x{${SHORTEST + 1}}`,
      ],
    },
    { name: 'generated sequences', patterns: fc.sample(generator, { numRuns: generated, seed: 39 }) },
    {
      name: 'generated alternatives',
      patterns: fc.sample(alternatives, { numRuns: generated / 2, seed: 39 }),
    },
  ];
}

/** True when the config accepts `source` as the pattern of a mask named {@link NAME}. */
function accepted(source: string): boolean {
  try {
    return maskPatternProblem(NAME, compileRoutePattern(source)) === undefined;
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
  const shortest = matches.reduce((a, b) => (b.length < a.length ? b : a), longest);
  const chars = [...new Set(matches.join(''))].slice(0, 6);
  const lines: Array<readonly [string, string]> = [];
  for (const c of chars) {
    lines.push([`a run of ${JSON.stringify(c)}`, repeatTo(c, length)]);
    lines.push([
      `runs of ${JSON.stringify(c)} ending in a match`,
      repeatTo(repeatTo(c, 2_000) + longest, length),
    ]);
  }
  // Runs of each character before a short match: a thread that starts on the character and one that matches soon
  // after (the lines that made a search read the rest of the line again after every match).
  lines.push([
    'runs of each character, then a short match',
    repeatTo(chars.map((c) => c.repeat(16) + shortest).join(''), length),
  ]);
  // The shortest matches back to back, and one character apart: a marker per match, the most a line can grow.
  lines.push(['the shortest matches back to back', repeatTo(shortest, length)]);
  lines.push(['the shortest matches one character apart', repeatTo(`${shortest}\u0001`, length)]);
  // Random characters of the matches: as many automaton states as the pattern has.
  let seed = 39;
  const random = Array.from({ length }, () => {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
    return chars[seed % chars.length] ?? 'a';
  }).join('');
  lines.push(['random characters of its matches', random]);
  // The same without the character a longest match ends with: a line that keeps every state of the automaton in
  // reach and never completes a match (a drop or join rule's lazy DFA then builds states to the line's end).
  const last = longest.slice(-1);
  if (chars.length > 1 && chars.includes(last)) {
    const others = chars.filter((c) => c !== last);
    lines.push([
      `random characters of its matches but ${JSON.stringify(last)}`,
      Array.from(random, (c) => (c === last ? others[c.charCodeAt(0) % others.length] : c)).join(''),
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
    // The process's CPU time, not the wall clock's: on a machine other processes load, the wall time of a line is
    // mostly how long this process waited for a core, which no side-by-side ratio cancels.
    const start = process.cpuUsage();
    const outcome = transformRecord(data, { routes });
    if (outcome.kind !== 'data') throw new Error(`pattern bench record was ${outcome.kind}`);
    const used = process.cpuUsage(start);
    times.push((used.user + used.system) / 1e3);
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

/** What a route does with the pattern it is measured through. */
export type PatternUse = 'mask' | 'drop' | 'join';

function processingOf(pattern: string, use: PatternUse): RouteProcessing {
  switch (use) {
    case 'mask':
      return { mask: { detectors: [], custom: [{ name: NAME, pattern }] }, drop: [] };
    case 'drop':
      return { drop: [{ name: NAME, messagePattern: pattern }] };
    case 'join':
      return { drop: [], multiline: { mode: 'pattern', pattern } };
  }
}

/**
 * Per pattern: its worst line's time over the ordinary line's (`ordinary` builds one of a length), through a route
 * that uses the pattern as `use` says (a mask by default).
 */
export function measurePatterns(
  patterns: readonly string[],
  length: number,
  ordinary: (length: number) => string,
  use: PatternUse = 'mask',
): PatternFigure[] {
  return patterns.map((pattern) => {
    const { worst, line } = measureRoute(
      processingOf(pattern, use),
      hostileLinesFor(pattern, length),
      length,
      ordinary,
    );
    return { pattern, width: translateToRe2(pattern).width, worst, line };
  });
}

/** The worst of `lines` through a route that processes as `processing` says, against an ordinary line. */
export function measureRoute(
  processing: RouteProcessing,
  lines: ReadonlyArray<readonly [string, string]>,
  length: number,
  ordinary: (length: number) => string,
): { readonly worst: number; readonly line: string } {
  const base = recordOf(ordinary(length));
  const routes = new RouteTable([
    { name: 'pattern', match: { logGroupPattern: '*' }, staticFields: {}, processing },
  ]);
  timeOf(routes, base, 2);
  let worst = 0;
  let line = '';
  for (const [name, text] of lines) {
    const data = recordOf(text);
    timeOf(routes, data, 1);
    // Taken side by side with the ordinary line, round by round, so a busy machine slows both; the median of the
    // rounds' ratios, so one pause (a collection, another process) in one round does not make the figure.
    const ratios = Array.from({ length: 5 }, () => timeOf(routes, data, 1) / timeOf(routes, base, 1));
    const ratio = median(ratios);
    if (ratio > worst) [worst, line] = [ratio, name];
  }
  return { worst, line };
}

/**
 * Several masks on one line (the built-in detectors and custom patterns): lines made of the shortest values each
 * one masks, side by side, so every mask finds matches beside the others' markers (mask-custom.ts keeps markers
 * opaque to the patterns after them, so masks never compound).
 */
export function severalMasks(length: number): {
  readonly custom: CustomMask[];
  readonly lines: Array<readonly [string, string]>;
} {
  const custom: CustomMask[] = [
    { name: 'a', pattern: `[a-z]{${shortestMaskMatch('a')}}` },
    { name: 'b', pattern: `[a-z:\\[\\]]{${shortestMaskMatch('b')}}` },
    { name: 'c', pattern: `[^ ]{${shortestMaskMatch('c')}}` },
  ];
  const values = ['a@b.co', '1:: ', '1.1.1.1', 'abcd', 'efgh ', '[masked:a]'];
  return {
    custom,
    lines: [
      ['the shortest values of every mask, back to back', repeatTo(values.join(''), length)],
      ['the shortest values of every mask, one character apart', repeatTo(values.join('\u0001'), length)],
      ['built-in markers written by the app', repeatTo('[masked:email]', length)],
    ],
  };
}
