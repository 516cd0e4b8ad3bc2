/**
 * `npm run bench:bulk`: what a smaller Firehose buffer costs the domain, measured on the real local OpenSearch node
 * (scripts/opensearch-node.ts, 127.0.0.1, stopped at the end).
 *
 * A lower `delivery.bufferingIntervalSeconds` makes Firehose send the same documents in more, smaller `_bulk`
 * requests. This indexes the same transform output at several documents per request, through the shipped index
 * template and ingest pipeline (the realtime sandbox's 1 s refresh), and prints the node's indexing rate and its
 * cost per request. Rounds interleave the sizes (rotating their order) so drift on a shared machine hits all of
 * them, and the median per size is reported. The figures are for this 2-core machine and a 512 MB heap: compare
 * the ratios, not the absolute rates, with a domain. docs/latency.md quotes them.
 */
import { type OpenSearchHttpClient } from '../core/opensearch/http';
import { bulkBodies, median, sendBulks, transformDocuments, withBenchNode } from './opensearch-bench';

const ROUNDS = Number(process.env.KFEK_BENCH_ROUNDS ?? 3);
/** Documents per size and round; the smallest sizes index fewer (see {@link docsFor}) to stay bounded in time. */
const DOCS_PER_ROUND = Number(process.env.KFEK_BENCH_DOCS ?? 10_000);
/** Documents per `_bulk` request: one event at a time up to about a 5 MiB Firehose buffer. */
const BULK_SIZES: readonly number[] = [1, 10, 100, 1_000, 5_000];
/** Requests in flight at once (Firehose delivers in parallel; the node has 2 cores). */
const PARALLEL_BULKS = 2;

/** Single-document requests are slow: index at most 1,000 requests' worth per round. */
function docsFor(bulkSize: number): number {
  return Math.min(DOCS_PER_ROUND, bulkSize * 1_000);
}

/** Indexes `docs` in requests of `bulkSize`, {@link PARALLEL_BULKS} at a time; returns seconds taken. */
async function indexAll(
  client: OpenSearchHttpClient,
  index: string,
  docs: readonly string[],
  bulkSize: number,
): Promise<number> {
  return sendBulks(client, index, bulkBodies(index, docs, bulkSize), PARALLEL_BULKS);
}

async function main(): Promise<void> {
  const perRound = BULK_SIZES.reduce((sum, size) => sum + docsFor(size), 0);
  const docs = transformDocuments(12, perRound * (ROUNDS + 1));
  const avgBytes = docs.reduce((sum, d) => sum + Buffer.byteLength(d), 0) / docs.length;
  console.log(
    `corpus: ${docs.length} transform documents, ${avgBytes.toFixed(0)} bytes average; ${ROUNDS} rounds, ` +
      `${PARALLEL_BULKS} requests in parallel, up to ${DOCS_PER_ROUND} documents per size and round`,
  );
  await withBenchNode(async ({ client }) => {
    // Round 0 warms the JIT and the pipeline up and is not counted.
    const rates = new Map<number, number[]>(BULK_SIZES.map((size) => [size, []]));
    let offset = 0;
    for (let round = 0; round <= ROUNDS; round += 1) {
      const order = BULK_SIZES.map((_, i) => BULK_SIZES[(i + round) % BULK_SIZES.length]);
      for (const size of order) {
        const slice = docs.slice(offset, offset + docsFor(size));
        offset += slice.length;
        const seconds = await indexAll(client, `bench-bulk-${size}`, slice, size);
        if (round > 0) rates.get(size)?.push(slice.length / seconds);
      }
    }

    const largest = median(rates.get(BULK_SIZES[BULK_SIZES.length - 1]) ?? []);
    console.log('');
    console.log('docs/bulk   KiB/bulk   docs/s (median)   bulks/s   ms/bulk   vs largest');
    for (const size of BULK_SIZES) {
      const rate = median(rates.get(size) ?? []);
      const bulksPerSecond = rate / size;
      console.log(
        `${String(size).padStart(9)}   ${((size * avgBytes) / 1024).toFixed(1).padStart(8)}   ` +
          `${rate.toFixed(0).padStart(15)}   ${bulksPerSecond.toFixed(1).padStart(7)}   ` +
          `${((1000 * PARALLEL_BULKS) / bulksPerSecond).toFixed(1).padStart(7)}   ` +
          `${((rate / largest) * 100).toFixed(0).padStart(9)}%`,
      );
    }
    console.log(
      `\nper round (docs/s): ${BULK_SIZES.map((s) => `${s}: ${(rates.get(s) ?? []).map((r) => r.toFixed(0)).join(' ')}`).join('; ')}`,
    );
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
