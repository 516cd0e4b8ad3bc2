/**
 * `npm run bench:processing`: what a route's processing costs (issue 24, docs/teams-and-routes.md), side by side in
 * one process on the bench corpus of `npm run bench`: the transform with no routes (the default path), with a route
 * that matches every log group and does nothing, with masking (every built-in detector; and those plus one custom
 * pattern, which has no cheap check and runs on every event),
 * with a drop rule, with the Java multi-line join, and with a route of patterns that would backtrack catastrophically
 * on JavaScript's engine (they run on RE2, core/contracts/route-pattern.ts). Each side runs every record once per
 * round, sides taking turns; the line per side is its median time against the default path's. Then the worst lines
 * we could construct against that route, each against an ordinary line of the same length, on both transports
 * (helpers/hostile-lines.ts). Then, per class of route pattern (counted and unbounded repetitions, shapes that are
 * catastrophic on a backtracking engine, alternatives decided far ahead, many automaton states, the shortest matches
 * a mask may take, generated ones), the worst line we could construct for each pattern against an ordinary line of
 * 64 KiB, through a route that masks with it, then through a drop rule and a join rule (helpers/pattern-lines.ts,
 * issue 39), several masks on one line, and each class's worst, side by side in one run. Times are the process's CPU
 * time. Targets: masking with all detectors at most 1.5x the default transform; the worst hostile line at most 10x
 * an ordinary one.
 */
import { RouteTable } from '../core/transform/routing';
import { transformRecord, type TransformOptions } from '../core/transform/transform';
import { MASK_DETECTORS, type RouteProcessing } from '../core/contracts/routes';
import { MAX_PATTERN_WIDTH } from '../core/contracts/route-pattern';
import { HOSTILE_PATTERNS, hostileRoutes, measureHostileLines, ordinaryLine } from './helpers/hostile-lines';
import {
  benchPatterns,
  measurePatterns,
  measureRoute,
  type PatternFigure,
  type PatternUse,
  severalMasks,
} from './helpers/pattern-lines';
import { gc, median } from './helpers/stats';
import { buildCorpus } from './helpers/transform-corpus';

const ROUNDS = 7;
/** The line length of the route-pattern figures: the 64 KiB. */
const PATTERN_LINE = 65_536;

function routes(processing: RouteProcessing): RouteTable {
  return new RouteTable([{ name: 'all', match: { logGroupPattern: '*' }, staticFields: {}, processing }]);
}

const SIDES: ReadonlyArray<{ readonly name: string; readonly options: TransformOptions }> = [
  { name: 'default path (no routes)', options: {} },
  { name: 'a route, no processing', options: { routes: routes({ drop: [] }) } },
  {
    name: 'masking, all built-in detectors',
    options: { routes: routes({ mask: { detectors: [...MASK_DETECTORS], custom: [] }, drop: [] }) },
  },
  {
    name: 'masking, all built-in detectors and a custom pattern',
    options: {
      routes: routes({
        mask: { detectors: [...MASK_DETECTORS], custom: [{ name: 'iban', pattern: 'DE\\d{20}' }] },
        drop: [],
      }),
    },
  },
  {
    name: 'one drop rule',
    options: { routes: routes({ drop: [{ name: 'cache', messagePattern: 'cache' }] }) },
  },
  { name: 'multi-line join (java)', options: { routes: routes({ drop: [], multiline: { mode: 'java' } }) } },
  {
    name: `hostile patterns (drop ${HOSTILE_PATTERNS.drop}, mask ${HOSTILE_PATTERNS.mask}, join ${HOSTILE_PATTERNS.multiline}, all detectors)`,
    options: { routes: hostileRoutes() },
  },
];

/**
 * The process's CPU time for one pass (not the wall clock's: on a machine other processes load, a pass's wall time is
 * mostly how long this process waited for a core, which turns about the sides cannot cancel).
 */
function run(records: readonly string[], options: TransformOptions): number {
  const start = process.cpuUsage();
  for (const r of records) {
    const outcome = transformRecord(r, options);
    if (outcome.kind !== 'data') throw new Error(`benchmark record was ${outcome.kind}`);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e3;
}

async function main(): Promise<void> {
  const corpus = buildCorpus();
  console.log(`corpus: ${corpus.events} events in ${corpus.records.length} records`);
  for (const side of SIDES) run(corpus.records, side.options);
  const times: number[][] = SIDES.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    gc();
    for (let k = 0; k < SIDES.length; k++) {
      const i = (k + round) % SIDES.length;
      times[i].push(run(corpus.records, SIDES[i].options));
    }
  }
  const base = median(times[0]);
  for (const [i, side] of SIDES.entries()) {
    const ms = median(times[i]);
    console.log(
      `${side.name}: ${Math.round((corpus.events / ms) * 1000)} events/s, ${(ms / base).toFixed(2)}x the default path`,
    );
  }
  const masking = median(times[2]) / base;
  console.log(`masking (all built-in detectors) / default path: ${masking.toFixed(2)} (target <= 1.50)`);
  console.log(
    'hostile lines against an ordinary line of the same length, through the hostile-patterns route:',
  );
  const worst = await measureHostileLines([1_000, 32_000, 250_000], (line) => console.log(line));
  console.log(`worst hostile line / ordinary line: ${worst.toFixed(2)} (target <= 10.00)`);
  console.log(
    `route patterns (width bound ${MAX_PATTERN_WIDTH}): the worst line we could construct against an ordinary line ` +
      `of ${PATTERN_LINE} characters, masking with the pattern:`,
  );
  const classes = benchPatterns(8).map((c) => ({
    name: c.name,
    figures: measurePatterns(c.patterns, PATTERN_LINE, ordinaryLine),
  }));
  printClasses(classes);
  const several = severalMasks(PATTERN_LINE);
  const mixed = measureRoute(
    { mask: { detectors: [...MASK_DETECTORS], custom: several.custom }, drop: [] },
    several.lines,
    PATTERN_LINE,
    ordinaryLine,
  );
  console.log(
    `  several masks on one line (every built-in detector, ${several.custom.map((c) => c.pattern).join(', ')}): ` +
      `${mixed.worst.toFixed(2)}x (${mixed.line})`,
  );
  // Drop and join rules only ask whether a line matches (re2js's lazy DFA, which falls back to its thread-per-
  // instruction automaton when a line makes too many states): the same classes through a drop rule and a join rule.
  const deciding = (use: PatternUse): Array<{ name: string; figures: PatternFigure[] }> =>
    benchPatterns(4)
      .filter((c) => !c.name.startsWith('short matches'))
      .map((c) => ({
        name: `${c.name}, as a ${use} rule`,
        figures: measurePatterns(c.patterns, PATTERN_LINE, ordinaryLine, use),
      }));
  const decided = [...deciding('drop'), ...deciding('join')];
  printClasses(decided);
  const all = [...classes, ...decided];
  console.log('worst line per class of pattern, against an ordinary line of the same length:');
  for (const c of all) {
    const worst = c.figures.reduce((a, b) => (b.worst > a.worst ? b : a));
    console.log(`  ${c.name}: ${worst.worst.toFixed(2)}x (${worst.pattern}, ${worst.line})`);
  }
  console.log(`  several masks on one line: ${mixed.worst.toFixed(2)}x (${mixed.line})`);
  const worstPattern = Math.max(mixed.worst, ...all.flatMap((c) => c.figures.map((f) => f.worst)));
  console.log(`worst pattern line / ordinary line: ${worstPattern.toFixed(2)} (target <= 10.00)`);
  console.log(`masking (all built-in detectors) / default path: ${masking.toFixed(2)} (target <= 1.50)`);
}

function printClasses(classes: ReadonlyArray<{ name: string; figures: readonly PatternFigure[] }>): void {
  for (const c of classes) {
    console.log(`  ${c.name}:`);
    for (const f of c.figures)
      console.log(`    ${f.pattern} (width ${f.width}): ${f.worst.toFixed(2)}x (${f.line})`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
