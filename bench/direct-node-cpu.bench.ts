/**
 * `npm run bench:direct-cpu`: the OpenSearch node's CPU per document for each way kfek's documents can reach it
 * (issue 41, "why the node's CPU per event is the same on both paths end to end"), side by side on the real local
 * node (scripts/opensearch-node.ts, 127.0.0.1, stopped at the end), through the shipped template and pipeline:
 *
 * - `firehose`: no id in the action; the default ingest pipeline sets `_id`, routing, route and arrival (what the
 *   Firehose path sends);
 * - `direct`: the action carries `_index`, `_id` and `routing` from core/delivery, `pipeline=_none` (what kfek's
 *   indexer sends);
 * - `auto ids`: no id, no routing, no pipeline: what `npm run bench:settings`' "no ingest pipeline" variant indexes.
 *   OpenSearch generates the ids, so Lucene appends every document without looking its id up first; that is not a
 *   delivery kfek can use (a redelivered event would be stored twice), and it is why bench:settings' 97-107 core-us
 *   per document is not the direct path's cost.
 *
 * Each variant has one index for all rounds (as a day's index grows); rounds interleave the variants, rotating their
 * order, and the median per variant is reported with the node's core-microseconds per document read from /proc.
 */
import { bulkBodies as directBodies, DIRECT_BULK_PATH } from '../core/delivery/bulk-body';
import { type IndexedDocumentPlan, planDocument } from '../core/delivery/document-plan';
import { type OpenSearchHttpClient } from '../core/opensearch/http';
import { profileRouteTable } from '../core/opensearch/route-table';
import { indexNameFor } from '../core/contracts/index-naming';
import { cpuSpan, sampleCpu } from '../scripts/local/cpu-usage';
import {
  BenchError,
  bulkBodies,
  median,
  request,
  transformDocuments,
  withBenchNode,
} from './opensearch-bench';

const ROUNDS = Number(process.env.KFEK_BENCH_ROUNDS ?? 4);
const DOCS_PER_ROUND = Number(process.env.KFEK_BENCH_DOCS ?? 20_000);
/** About the indexer's default 1 MiB body and the Firehose stand-in's. */
const DOCS_PER_BULK = 2_000;
const PARALLEL = 2;

type VariantName = 'firehose' | 'direct' | 'auto ids';
const VARIANTS: readonly VariantName[] = ['firehose', 'direct', 'auto ids'];

/** Sends bodies to `path`, `PARALLEL` at once; any refused item throws (a bench that drops documents measures nothing). */
async function send(client: OpenSearchHttpClient, path: string, bodies: readonly string[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const answer = (await request(client, 'POST', path, bodies[next++])) as { errors?: boolean };
      if (answer.errors === true) throw new BenchError(`a bulk to ${path} had item errors`);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

/** The requests of one variant for `docs`: the path and the NDJSON bodies. */
function requestsFor(
  variant: VariantName,
  docs: readonly string[],
  arrival: number,
): { path: string; bodies: string[] } {
  if (variant === 'firehose') {
    // Named as Firehose names it; the pipeline keeps a document arriving now in this index.
    return {
      path: '/_bulk',
      bodies: bulkBodies(indexNameFor('bench', 'OneDay', new Date(arrival)), docs, DOCS_PER_BULK),
    };
  }
  if (variant === 'auto ids')
    return { path: '/_bulk', bodies: bulkBodies('bench-auto', docs, DOCS_PER_BULK) };
  const target = { prefix: 'bench', rotation: 'OneDay' as const, shards: 1, table: profileRouteTable([]) };
  const plans = docs.map((text): IndexedDocumentPlan => {
    const plan = planDocument(target, text, arrival);
    if (plan.kind !== 'index') throw new BenchError(`a corpus document was refused: ${JSON.stringify(plan)}`);
    return { ...plan, index: 'bench-direct' };
  });
  // Cut by count, not bytes, so every variant sends the same bulks.
  const bodies: string[] = [];
  for (let i = 0; i < plans.length; i += DOCS_PER_BULK) {
    bodies.push(
      ...directBodies(plans.slice(i, i + DOCS_PER_BULK), (p) => p, Number.MAX_SAFE_INTEGER).map(
        (b) => b.body,
      ),
    );
  }
  return { path: DIRECT_BULK_PATH, bodies };
}

async function main(): Promise<void> {
  const arrival = Date.now();
  const docs = transformDocuments(13, DOCS_PER_ROUND * (ROUNDS + 1) * VARIANTS.length, arrival / 1000);
  console.log(
    `corpus: ${docs.length} transform documents; ${ROUNDS} rounds of ${DOCS_PER_ROUND} per variant, bulks of ` +
      `${DOCS_PER_BULK}, ${PARALLEL} in parallel`,
  );
  await withBenchNode(async ({ client, pid }) => {
    await request(client, 'PUT', '/bench-auto', {
      settings: { index: { default_pipeline: '_none' } },
      mappings: { _routing: { required: false } },
    });
    const cpu = new Map<VariantName, number[]>(VARIANTS.map((v) => [v, []]));
    const rates = new Map<VariantName, number[]>(VARIANTS.map((v) => [v, []]));
    let offset = 0;
    // Round 0 warms the JIT and the pipeline up and is not counted.
    for (let round = 0; round <= ROUNDS; round += 1) {
      for (const v of VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length])) {
        const slice = docs.slice(offset, offset + DOCS_PER_ROUND);
        offset += slice.length;
        const { path, bodies } = requestsFor(v, slice, arrival);
        const before = sampleCpu();
        const started = process.hrtime.bigint();
        await send(client, path, bodies);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const after = sampleCpu();
        if (round === 0) continue;
        rates.get(v)!.push(slice.length / seconds);
        if (before !== undefined && after !== undefined) {
          cpu.get(v)!.push((cpuSpan(before, after, { node: pid }).byRole.node * 1e6) / slice.length);
        }
      }
    }
    const base = median(cpu.get('firehose')!);
    console.log(
      '\nvariant     docs/s (median)   node core-us/doc (median)   vs firehose   per round (core-us/doc)',
    );
    for (const v of VARIANTS) {
      const c = cpu.get(v)!;
      console.log(
        `${v.padEnd(10)} ${median(rates.get(v)!).toFixed(0).padStart(16)}   ${median(c).toFixed(0).padStart(25)}   ` +
          `${(median(c) / base).toFixed(2).padStart(10)}x   ${c.map((x) => x.toFixed(0)).join(' ')}`,
      );
    }
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
