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
import { type OpenSearchHttpClient } from '../core/opensearch/http';
import { profileRouteTable } from '../core/opensearch/route-table';
import { cpuSpan, sampleCpu } from '../scripts/local/cpu-usage';
import { BenchError, median, request, transformDocuments, withBenchNode } from './opensearch-bench';

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
  await withBenchNode(async ({ client, pid }) => {
    const target = { prefix: 'bench', rotation: 'OneDay' as const, shards: 1, table: profileRouteTable([]) };
    const plans = docs.map((text) => {
      const plan = planDocument(target, text, arrival);
      if (plan.kind !== 'index')
        throw new BenchError(`a corpus document was refused: ${JSON.stringify(plan)}`);
      return plan;
    });
    // Round 0 warms the JIT up and is not counted.
    const rates = new Map<number, number[]>(SIZES_KIB.map((kib) => [kib, []]));
    // The node's CPU per document: steadier than the rate on a shared machine, where the node waits for cores.
    const cpu = new Map<number, number[]>(SIZES_KIB.map((kib) => [kib, []]));
    let offset = 0;
    for (let round = 0; round <= ROUNDS; round += 1) {
      for (const kib of SIZES_KIB.map((_, i) => SIZES_KIB[(i + round) % SIZES_KIB.length])) {
        const slice = plans.slice(offset, offset + DOCS_PER_ROUND);
        offset += slice.length;
        const before = sampleCpu();
        const seconds = await indexAll(client, slice, kib * 1024);
        const after = sampleCpu();
        if (round === 0) continue;
        rates.get(kib)?.push(slice.length / seconds);
        if (before !== undefined && after !== undefined) {
          cpu.get(kib)?.push((cpuSpan(before, after, { node: pid }).byRole.node * 1e6) / slice.length);
        }
      }
    }
    console.log(
      '\nKiB/bulk   docs/bulk   docs/s (median)   node core-us/doc (median)   per round (docs/s; core-us/doc)',
    );
    for (const kib of SIZES_KIB) {
      const r = rates.get(kib) ?? [];
      const c = cpu.get(kib) ?? [];
      console.log(
        `${String(kib).padStart(8)}   ${String(Math.round((kib * 1024) / (avgBytes + 100))).padStart(9)}   ` +
          `${median(r).toFixed(0).padStart(15)}   ${(c.length === 0 ? 'n/a' : median(c).toFixed(0)).padStart(25)}   ` +
          `${r.map((x) => x.toFixed(0)).join(' ')}; ${c.map((x) => x.toFixed(0)).join(' ')}`,
      );
    }
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
