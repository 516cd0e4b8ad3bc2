/**
 * `npm run bench:decisions`: what the transform's decisions (core/transform/decisions.ts, issue 40) cost, side by side
 * in one process on the corpus of `npm run bench`: the same records through `transformRecord` with decisions off
 * (`decide: false`: documents only) and on, where "on" reads every decision so that none is left unbuilt. Three
 * profiles: no routes (the plain path, whose decisions are written when read), a route that processes nothing, and a
 * route that drops and joins (every event decided in the processing loop). Sides take turns within each round, slice
 * by slice, so load from other processes hits them alike; the figure per profile is the median over rounds of
 * (time on / time off) - 1. Target: at most 3 % on every profile.
 */
import { RouteTable } from '../core/transform/routing';
import { transformRecord, type TransformOptions } from '../core/transform/transform';
import type { RouteProcessing } from '../core/contracts/routes';
import { gc, median } from './helpers/stats';
import { BENCH_ARRIVAL_SECONDS, buildCorpus } from './helpers/transform-corpus';

const ROUNDS = 9;
const SLICES = 40;

function routes(processing: RouteProcessing): RouteTable {
  return new RouteTable([{ name: 'all', match: { logGroupPattern: '*' }, staticFields: {}, processing }]);
}

const PROFILES: ReadonlyArray<{ readonly name: string; readonly options: TransformOptions }> = [
  { name: 'no routes (plain path)', options: {} },
  { name: 'a route, no processing', options: { routes: routes({ drop: [] }) } },
  {
    name: 'a route that drops and joins (java)',
    options: {
      routes: routes({ drop: [{ name: 'cache', messagePattern: 'cache' }], multiline: { mode: 'java' } }),
    },
  },
];

/** Milliseconds to transform `records`; with decisions on, every decision is read (and so built). */
function run(records: readonly string[], options: TransformOptions, decide: boolean): number {
  const start = process.hrtime.bigint();
  let sink = 0;
  for (const r of records) {
    const outcome = transformRecord(r, {
      ...options,
      approximateArrivalTimestamp: BENCH_ARRIVAL_SECONDS,
      decide,
    });
    if (outcome.kind !== 'data') throw new Error(`benchmark record was ${outcome.kind}`);
    sink += outcome.documents.length;
    if (decide) for (const d of outcome.decisions ?? []) sink += d.kind === 'dropped' ? 0 : 1;
  }
  if (sink === 0) throw new Error('the transform produced nothing');
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function main(): void {
  const corpus = buildCorpus();
  console.log(`corpus: ${corpus.events} events in ${corpus.records.length} records`);
  const size = Math.ceil(corpus.records.length / SLICES);
  const slices = Array.from({ length: SLICES }, (_, i) => corpus.records.slice(i * size, (i + 1) * size));
  for (const profile of PROFILES) {
    run(corpus.records, profile.options, false);
    run(corpus.records, profile.options, true);
    const overheads: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      gc();
      let off = 0;
      let on = 0;
      for (const [i, slice] of slices.entries()) {
        if ((i + round) % 2 === 0) {
          off += run(slice, profile.options, false);
          on += run(slice, profile.options, true);
        } else {
          on += run(slice, profile.options, true);
          off += run(slice, profile.options, false);
        }
      }
      overheads.push(on / off - 1);
      console.log(
        `  ${profile.name}, round ${round + 1}: off ${off.toFixed(0)} ms, on ${on.toFixed(0)} ms, ` +
          `${((on / off - 1) * 100).toFixed(1)} %`,
      );
    }
    console.log(
      `${profile.name}: decisions cost ${(median(overheads) * 100).toFixed(1)} % of the transform's time (target <= 3 %)`,
    );
  }
}

main();
