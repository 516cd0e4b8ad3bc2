/**
 * `npm run bench:settings`: what the shipped index settings cost in indexing throughput (issue 31, item 4), side by
 * side on the real local OpenSearch node (scripts/opensearch-node.ts, 127.0.0.1, stopped at the end).
 *
 * Every variant indexes the same transform output through the shipped ingest pipeline (id, routing, arrival), into
 * its own index made from the shipped template with one setting changed:
 * - `shipped`: the template as kfek provisions it (`best_compression`, index sorting by log group, stream, time);
 * - `no sort`: without `index.sort` (documents of a stream no longer side by side in a segment);
 * - `default codec`: LZ4 stored fields instead of DEFLATE;
 * - `no sort, default codec`: both, the template before issue 31's "half the bytes";
 * - `no ingest pipeline`: the shipped settings without the default pipeline (and so without a required routing):
 *   what the pipeline's `_id`, routing, route and arrival cost the node. Not a setting a user can choose: without
 *   it a redelivered event is stored twice and routes do not work (core/opensearch/ingest-pipeline.ts).
 *
 * Each variant's index takes every round, as a day's index grows, so its refreshes and merges cost what they cost
 * there. The rounds interleave the variants (rotating their order) so drift on a shared machine hits all of them;
 * the median per variant is reported, with the bytes each index takes at the end (refreshed, not force-merged: the
 * storage answer is `npm run bench:storage`'s). Compare the ratios, not the absolute rates, with a domain.
 * On Linux it also prints the node's CPU per document (core-microseconds, /proc): the figure that bounds what a
 * 2-core machine running the whole local pipeline can reach (docs/local.md, "Where the time goes").
 */
import { createHttpClient, type OpenSearchHttpClient } from '../core/opensearch/http';
import { buildIndexTemplate } from '../core/opensearch/index-template';
import { buildIngestPipeline } from '../core/opensearch/ingest-pipeline';
import { resolveOpenSearchSpec } from '../core/opensearch/spec';
import { startOpenSearch } from '../scripts/opensearch-node';
import { cpuSpan, sampleCpu } from '../scripts/local/cpu-usage';
import { bulkBodies, median, request, sendBulks, transformDocuments } from './opensearch-bench';

const ROUNDS = Number(process.env.KFEK_BENCH_ROUNDS ?? 5);
const DOCS_PER_ROUND = Number(process.env.KFEK_BENCH_DOCS ?? 20_000);
/** The local Firehose stand-in's bulk: 1 MiB, about 2,000 documents. */
const DOCS_PER_BULK = 2_000;
/** Bulk requests in flight at once, as the local Firehose stand-in sends them. */
const PARALLEL_BULKS = 3;

interface Variant {
  readonly name: string;
  readonly sort: boolean;
  readonly codec: 'best_compression' | 'default';
  /** @default true */
  readonly pipeline?: boolean;
}
const VARIANTS: readonly Variant[] = [
  { name: 'shipped', sort: true, codec: 'best_compression' },
  { name: 'no sort', sort: false, codec: 'best_compression' },
  { name: 'default codec', sort: true, codec: 'default' },
  { name: 'no sort, default codec', sort: false, codec: 'default' },
  { name: 'no ingest pipeline', sort: true, codec: 'best_compression', pipeline: false },
];

/** One index per variant for all rounds, as a day's index grows: its merges cost what they cost in a day's index. */
function indexOf(v: Variant): string {
  return `bench-${v.name.replace(/[^a-z]+/g, '-')}`;
}

async function indexAll(
  client: OpenSearchHttpClient,
  index: string,
  docs: readonly string[],
): Promise<number> {
  const seconds = await sendBulks(client, index, bulkBodies(index, docs, DOCS_PER_BULK), PARALLEL_BULKS);
  return docs.length / seconds;
}

async function bytesOf(client: OpenSearchHttpClient, index: string): Promise<number> {
  await request(client, 'POST', `/${index}/_refresh`);
  const stats = (await request(client, 'GET', `/${index}/_stats/store`)) as {
    _all: { primaries: { store: { size_in_bytes: number } } };
  };
  return stats._all.primaries.store.size_in_bytes;
}

async function main(): Promise<void> {
  // Arriving now, as the handlers pass it: the pipeline computes the period and moves nothing.
  const docs = transformDocuments(11, DOCS_PER_ROUND * (ROUNDS + 1), Date.now() / 1000);
  console.log(
    `corpus: ${docs.length} transform documents; ${ROUNDS} rounds of ${DOCS_PER_ROUND} per variant, ` +
      `bulks of ${DOCS_PER_BULK}, ${PARALLEL_BULKS} in parallel`,
  );
  const node = await startOpenSearch();
  try {
    const client = createHttpClient({ baseUrl: node.url, maxAttempts: 1, timeoutMillis: 120_000 });
    console.log(`OpenSearch ${node.version} at ${node.url}`);
    const refreshSeconds = Number(process.env.KFEK_BENCH_REFRESH_SECONDS ?? 1);
    const spec = resolveOpenSearchSpec({
      indexPrefix: 'bench',
      indexTemplate: { replicas: 0, refreshSeconds },
    });
    await request(client, 'PUT', `/_ingest/pipeline/${spec.names.ingestPipeline}`, buildIngestPipeline(spec));
    await request(client, 'PUT', `/_index_template/${spec.names.indexTemplate}`, buildIndexTemplate(spec));
    const rates = new Map<string, number[]>(VARIANTS.map((v) => [v.name, []]));
    /** The node's core-microseconds per document, per round (empty where there is no /proc). */
    const cpuPerDoc = new Map<string, number[]>(VARIANTS.map((v) => [v.name, []]));
    // Round 0 warms the JIT and the pipeline up and is not counted.
    for (let round = 0; round <= ROUNDS; round += 1) {
      const slice = docs.slice(round * DOCS_PER_ROUND, (round + 1) * DOCS_PER_ROUND);
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
      for (const v of order) {
        const index = indexOf(v);
        if (round === 0) {
          // Settings in the create request override the template's; a setting left out keeps the template's.
          await request(client, 'PUT', `/${index}`, {
            settings: {
              index: {
                codec: v.codec,
                ...(v.sort ? {} : { sort: { field: [], order: [] } }),
                ...(v.pipeline === false ? { default_pipeline: '_none' } : {}),
              },
            },
            ...(v.pipeline === false ? { mappings: { _routing: { required: false } } } : {}),
          });
        }
        const before = sampleCpu();
        const rate = await indexAll(client, index, slice);
        const after = sampleCpu();
        if (round > 0) {
          rates.get(v.name)!.push(rate);
          if (before !== undefined && after !== undefined) {
            const nodeSeconds = cpuSpan(before, after, { node: node.pid }).byRole.node;
            cpuPerDoc.get(v.name)!.push((nodeSeconds * 1e6) / slice.length);
          }
        }
      }
    }
    const base = median(rates.get('shipped')!);
    console.log('');
    console.log(
      'variant                  docs/s (median)   vs shipped   node core-us/doc   bytes/doc (refreshed, not merged)',
    );
    for (const v of VARIANTS) {
      const rate = median(rates.get(v.name)!);
      const perDoc = (await bytesOf(client, indexOf(v))) / (DOCS_PER_ROUND * (ROUNDS + 1));
      const cpu = cpuPerDoc.get(v.name)!;
      console.log(
        `${v.name.padEnd(24)} ${rate.toFixed(0).padStart(15)}   ${((rate / base) * 100).toFixed(0).padStart(9)}%   ` +
          `${(cpu.length === 0 ? 'n/a' : median(cpu).toFixed(0)).padStart(16)}   ${perDoc.toFixed(0)}`,
      );
    }
    console.log(
      `\nper round (docs/s): ${VARIANTS.map(
        (v) =>
          `${v.name}: ${rates
            .get(v.name)!
            .map((r) => r.toFixed(0))
            .join(' ')}`,
      ).join('; ')}`,
    );
  } finally {
    await node.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
