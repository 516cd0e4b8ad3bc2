/**
 * `npm run bench:bulk-bytes`: the best `_bulk` body size for kfek's own indexer (direct delivery, issue 41),
 * measured on the real local node (scripts/opensearch-node.ts, 127.0.0.1, stopped at the end) as
 * bench/bulk-sizes.bench.ts measures Firehose's: the transform's real documents planned by core/delivery (each with
 * `_index`, `_id` and `routing`, `pipeline=_none`), cut by bytes at several sizes, two requests in flight (the
 * indexer's default), through the shipped index template. Rounds interleave the sizes (rotating their order) so
 * drift on a shared machine hits all of them; the median per size is reported, and lambda/indexer/env.ts's
 * `DEFAULT_BULK_MAX_BYTES` quotes the result. Compare the ratios, not the absolute rates, with a domain.
 */
import { bulkBodies, DIRECT_BULK_PATH } from '../core/delivery/bulk-body';
import { type IndexedDocumentPlan, planDocument } from '../core/delivery/document-plan';
import { createHttpClient, type OpenSearchHttpClient } from '../core/opensearch/http';
import { buildIndexTemplate } from '../core/opensearch/index-template';
import { profileRouteTable } from '../core/opensearch/route-table';
import { resolveOpenSearchSpec } from '../core/opensearch/spec';
import { startOpenSearch } from '../scripts/opensearch-node';
import { BenchError, median, request, transformDocuments } from './opensearch-bench';

const ROUNDS = Number(process.env.KFEK_BENCH_ROUNDS ?? 3);
const DOCS_PER_ROUND = Number(process.env.KFEK_BENCH_DOCS ?? 20_000);
/** Body sizes in KiB: a small Lambda batch up to Firehose's 5 MiB buffer. */
const SIZES_KIB: readonly number[] = [64, 256, 1024, 4096];
const PARALLEL = 2;

async function indexAll(
  client: OpenSearchHttpClient,
  plans: readonly IndexedDocumentPlan[],
  maxBytes: number,
): Promise<number> {
  const bodies = bulkBodies(plans, (p) => p, maxBytes);
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const answer = (await request(client, 'POST', DIRECT_BULK_PATH, bodies[next++].body)) as {
        errors?: boolean;
      };
      if (answer.errors === true) throw new BenchError('a direct bulk had item errors');
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function main(): Promise<void> {
  const arrival = Date.now();
  const docs = transformDocuments(12, DOCS_PER_ROUND * SIZES_KIB.length * (ROUNDS + 1), arrival / 1000);
  const avgBytes = docs.reduce((sum, d) => sum + Buffer.byteLength(d), 0) / docs.length;
  console.log(
    `corpus: ${docs.length} transform documents, ${avgBytes.toFixed(0)} bytes average; ${ROUNDS} rounds, ${PARALLEL} in parallel`,
  );
  const node = await startOpenSearch();
  try {
    const client = createHttpClient({ baseUrl: node.url, maxAttempts: 1, timeoutMillis: 120_000 });
    const spec = resolveOpenSearchSpec({
      indexPrefix: 'bench',
      indexTemplate: { replicas: 0, refreshSeconds: 1 },
    });
    await request(client, 'PUT', `/_index_template/${spec.names.indexTemplate}`, buildIndexTemplate(spec));
    const target = { prefix: 'bench', rotation: 'OneDay' as const, shards: 1, table: profileRouteTable([]) };
    const plans = docs.map((text) => {
      const plan = planDocument(target, text, arrival);
      if (plan.kind !== 'index')
        throw new BenchError(`a corpus document was refused: ${JSON.stringify(plan)}`);
      return plan;
    });
    // Round 0 warms the JIT up and is not counted.
    const rates = new Map<number, number[]>(SIZES_KIB.map((kib) => [kib, []]));
    let offset = 0;
    for (let round = 0; round <= ROUNDS; round += 1) {
      for (const kib of SIZES_KIB.map((_, i) => SIZES_KIB[(i + round) % SIZES_KIB.length])) {
        const slice = plans.slice(offset, offset + DOCS_PER_ROUND);
        offset += slice.length;
        const seconds = await indexAll(client, slice, kib * 1024);
        if (round > 0) rates.get(kib)?.push(slice.length / seconds);
      }
    }
    console.log('\nKiB/bulk   docs/bulk   docs/s (median)   per round');
    for (const kib of SIZES_KIB) {
      const r = rates.get(kib) ?? [];
      console.log(
        `${String(kib).padStart(8)}   ${String(Math.round((kib * 1024) / (avgBytes + 100))).padStart(9)}   ` +
          `${median(r).toFixed(0).padStart(15)}   ${r.map((x) => x.toFixed(0)).join(' ')}`,
      );
    }
  } finally {
    await node.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
