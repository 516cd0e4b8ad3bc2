/**
 * `npm run bench`: runs the benchmarks of this folder in one process, in this order, and prints their lines:
 * transform throughput against a bare-decode floor (throughput.bench.ts), what the events stream carries and costs
 * per 1,000 events with and without KPL aggregation (stream-arithmetic.bench.ts), memory (memory.bench.ts, in
 * child processes), the handler bundle's cold start against the CommonJS build (cold-start.bench.ts) and how fast
 * `kfek --help` answers (cli-start.bench.ts). The last line printed is exactly
 * `transform: <N> events/s, floor: <M> events/s, ratio: <M/N>` (target: ratio <= 1.9, issue 40), where the transform
 * includes packing and encoding the aggregated records, as deployed.
 */
import { cliStartLines } from './cli-start.bench';
import { coldStartLines } from './cold-start.bench';
import { printMemoryCases } from './memory.bench';
import { mb } from './helpers/stats';
import { buildCorpus, LARGE_BATCH_SIZE } from './helpers/transform-corpus';
import { printArithmetic, streamArithmetic } from './stream-arithmetic.bench';
import { runThroughput, throughputLines } from './throughput.bench';

async function main(): Promise<void> {
  const t0 = Date.now();
  const corpus = buildCorpus();
  const base64Bytes = corpus.records.reduce((s, r) => s + r.length, 0);
  console.log(
    `corpus: ${corpus.events} events in ${corpus.records.length} records ` +
      `(${corpus.smallRecords} small batches of 1-50 events, ${corpus.largeRecords} of ${LARGE_BATCH_SIZE}), ` +
      `${mb(base64Bytes)} base64, built in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  const throughput = await runThroughput(corpus);
  printArithmetic(streamArithmetic(corpus.records, false), streamArithmetic(corpus.records, true));
  printMemoryCases();
  for (const line of coldStartLines()) console.log(line);
  for (const line of cliStartLines()) console.log(line);
  // The line CI and the README quote comes last: the transform as deployed, aggregation on.
  for (const line of throughputLines(throughput)) console.log(line);
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
