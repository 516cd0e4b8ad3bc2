/**
 * `npm run bench:decisions`: what the transform's decisions (core/transform/decisions.ts, issue 40) cost, side by side
 * in one process on the corpus of `npm run bench`: the same records with decisions off (`decide: false`: documents
 * only) and on, where "on" reads every decision so that none is left unbuilt. Three profiles: no routes (the plain
 * path, whose decisions are written when read), a route that processes nothing, and a route that drops and joins
 * (every event decided in the processing loop). Each profile is measured two ways:
 * - the transform alone (`transformRecord`): the decisions' cost as a share of the core's own time;
 * - the deployed path, as `npm run bench` measures it: records transformed in the handler's chunks, each chunk's
 *   documents planned into aggregated records and encoded (lambda/transform/record-plan.ts). This is the share of the
 *   transform's time the issue's target (at most 3 %) is about.
 * Sides take turns within each round, slice by slice, so load from other processes hits them alike; the figure per
 * profile and path is the median over rounds of (time on - time off) / time on.
 */
import { RouteTable } from '../core/transform/routing';
import { transformRecord, type TransformOptions } from '../core/transform/transform';
import type { RecordOutcome } from '../core/transform/types';
import type { RouteProcessing } from '../core/contracts/routes';
import { MAX_PUT_RECORDS_BYTES } from '../core/contracts/aws-limits';
import { encodeRecord, planRecords } from '../lambda/transform/record-plan';
import { gc, median } from './helpers/stats';
import { BENCH_ARRIVAL_SECONDS, buildCorpus, forEachChunk } from './helpers/transform-corpus';

/** Rounds per profile and path; `KFEK_BENCH_ROUNDS` makes a quick run shorter. */
const ROUNDS = Number(process.env.KFEK_BENCH_ROUNDS ?? 7);
const SLICES = 40;
/** The target: deciding costs at most this share of the transform's time. */
const TARGET_SHARE = 0.03;

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

/** Reads every decision of an outcome (so a lazily written one is built); a count, so the work is not dropped. */
function readDecisions(outcome: RecordOutcome): number {
  let read = 0;
  if (outcome.kind === 'data') for (const d of outcome.decisions ?? []) read += d.kind === 'dropped' ? 0 : 1;
  return read;
}

/** Milliseconds to transform `records` alone; with decisions on, every decision is read (and so built). */
function runTransform(records: readonly string[], options: TransformOptions, decide: boolean): number {
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
    if (decide) sink += readDecisions(outcome);
  }
  if (sink === 0) throw new Error('the transform produced nothing');
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Milliseconds of the deployed path over `records` (chunks, aggregated records planned and encoded). */
function runAggregated(records: readonly string[], options: TransformOptions, decide: boolean): number {
  const start = process.hrtime.bigint();
  let sink = 0;
  forEachChunk(
    records,
    (documents) => {
      for (const record of planRecords(documents, {
        aggregate: true,
        maxBytesPerCall: MAX_PUT_RECORDS_BYTES,
      })) {
        sink += encodeRecord(record, documents).length;
      }
    },
    { ...options, decide },
    decide ? (outcome) => (sink += readDecisions(outcome)) : undefined,
  );
  if (sink === 0) throw new Error('the deployed path produced nothing');
  return Number(process.hrtime.bigint() - start) / 1e6;
}

type Run = (records: readonly string[], options: TransformOptions, decide: boolean) => number;

/** The decisions' share of one path's time for one profile, over the rounds; prints a line per round. */
function share(label: string, run: Run, slices: readonly string[][], options: TransformOptions): number {
  const all = slices.flat();
  run(all, options, false);
  run(all, options, true);
  const shares: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    gc();
    let off = 0;
    let on = 0;
    for (const [i, slice] of slices.entries()) {
      if ((i + round) % 2 === 0) {
        off += run(slice, options, false);
        on += run(slice, options, true);
      } else {
        on += run(slice, options, true);
        off += run(slice, options, false);
      }
    }
    shares.push((on - off) / on);
    console.log(
      `  ${label}, round ${round + 1}: off ${off.toFixed(0)} ms, on ${on.toFixed(0)} ms, ` +
        `${(((on - off) / on) * 100).toFixed(1)} %`,
    );
  }
  return median(shares);
}

function main(): void {
  const corpus = buildCorpus();
  console.log(`corpus: ${corpus.events} events in ${corpus.records.length} records`);
  const size = Math.ceil(corpus.records.length / SLICES);
  const slices = Array.from({ length: SLICES }, (_, i) => corpus.records.slice(i * size, (i + 1) * size));
  const target = `(target <= ${TARGET_SHARE * 100} %)`;
  for (const profile of PROFILES) {
    const alone = share(`${profile.name}, transform alone`, runTransform, slices, profile.options);
    const deployed = share(`${profile.name}, deployed path`, runAggregated, slices, profile.options);
    console.log(
      `${profile.name}: decisions cost ${(alone * 100).toFixed(1)} % of the transform's time alone, ` +
        `${(deployed * 100).toFixed(1)} % on the deployed path (aggregated, packed and encoded) ${target}`,
    );
  }
}

main();
