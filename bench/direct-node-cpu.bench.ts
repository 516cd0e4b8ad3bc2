/**
 * `npm run bench:direct-cpu`: the OpenSearch node's CPU per document for each way kfek's documents can reach it
 * (issue 41, "why the node's CPU per event is the same on both paths end to end"), side by side on the real local
 * node (scripts/opensearch-node.ts, 127.0.0.1, stopped at the end), through the shipped template and pipeline:
 *
 * - `firehose`: no id in the action; the default ingest pipeline sets `_id`, routing, route and arrival (what the
 *   Firehose path sends);
 * - `direct`: the action carries `_index`, `_id` and `routing` from core/delivery, `pipeline=_none` (what kfek's
 *   indexer sends);
 * - `direct, time id`: as `direct`, with the time-ordered id of bench/direct-ids.ts (the experiment of issue 41:
 *   whether an id the node looks up more cheaply saves CPU), routed by its hash part;
 * - `direct, bloom`: as `direct`, into an index with `index.optimize_doc_id_lookup.fuzzy_set.enabled` (OpenSearch's
 *   Bloom filter over each segment's `_id`s: a lookup skips the segments that cannot hold the id), today's ids;
 * - `auto ids`: no id, no routing, no pipeline: what `npm run bench:settings`' "no ingest pipeline" variant indexes.
 *   OpenSearch generates the ids, so Lucene appends every document without looking its id up first; that is not a
 *   delivery kfek can use (a redelivered event would be stored twice), and it is why bench:settings' 97-107 core-us
 *   per document is not the direct path's cost.
 *
 * Each variant has one index for all rounds (as a day's index grows), filled first with `KFEK_BENCH_FILL` older
 * documents so every id lookup has segments to probe; rounds send the same newer documents to every variant,
 * interleaved with their order rotating, and the median per variant is reported with the node's core-microseconds
 * per document read from /proc.
 */
import { bulkBodies as directBodies, DIRECT_BULK_PATH } from '../core/delivery/bulk-body';
import { type IndexedDocumentPlan, planDocument } from '../core/delivery/document-plan';
import { type OpenSearchHttpClient } from '../core/opensearch/http';
import { profileRouteTable } from '../core/opensearch/route-table';
import { indexNameFor } from '../core/contracts/index-naming';
import { cpuSpan, sampleCpu } from '../scripts/local/cpu-usage';
import { timeOrderedIdFor, timeOrderedRoutingFor } from './direct-ids';
import {
  BenchError,
  bulkBodies,
  median,
  request,
  transformDocumentSource,
  withBenchNode,
} from './opensearch-bench';

const ROUNDS = Number(process.env.KFEK_BENCH_ROUNDS ?? 4);
const DOCS_PER_ROUND = Number(process.env.KFEK_BENCH_DOCS ?? 20_000);
/** Documents every index holds before the first round: with a near-empty index the id lookups cost nothing. */
const FILL_DOCS = Number(process.env.KFEK_BENCH_FILL ?? 200_000);
/** About the indexer's default 1 MiB body and the Firehose stand-in's. */
const DOCS_PER_BULK = 2_000;
const PARALLEL = 2;

type VariantName = 'firehose' | 'direct' | 'direct, time id' | 'direct, bloom' | 'auto ids';
const VARIANTS: readonly VariantName[] = [
  'firehose',
  'direct',
  'direct, time id',
  'direct, bloom',
  'auto ids',
];

/** The index of each variant but Firehose's, which is named as Firehose names it (the pipeline keeps documents there). */
const INDICES: Readonly<Record<Exclude<VariantName, 'firehose'>, string>> = {
  direct: 'bench-direct',
  'direct, time id': 'bench-direct-time',
  'direct, bloom': 'bench-direct-bloom',
  'auto ids': 'bench-auto',
};

function indexOf(variant: VariantName, arrival: number): string {
  return variant === 'firehose' ? indexNameFor('bench', 'OneDay', new Date(arrival)) : INDICES[variant];
}

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

/** What kfek's indexer sends for `docs` (core/delivery), into `index`, with today's ids or time-ordered ones. */
function directPlans(
  docs: readonly string[],
  arrival: number,
  index: string,
  timeIds: boolean,
): IndexedDocumentPlan[] {
  const target = { prefix: 'bench', rotation: 'OneDay' as const, shards: 1, table: profileRouteTable([]) };
  return docs.map((text): IndexedDocumentPlan => {
    const plan = planDocument(target, text, arrival);
    if (plan.kind !== 'index') throw new BenchError(`a corpus document was refused: ${JSON.stringify(plan)}`);
    if (!timeIds) return { ...plan, index };
    const doc = JSON.parse(text) as {
      '@timestamp': string;
      cloudwatch: { logGroup: string; logStream: string; id: string };
    };
    const cw = doc.cloudwatch;
    const id = timeOrderedIdFor(Date.parse(doc['@timestamp']), cw.logGroup, cw.logStream, cw.id);
    return { ...plan, index, id, routing: timeOrderedRoutingFor(id) };
  });
}

/**
 * The requests of one variant for `docs`: the path and the NDJSON bodies, cut by count, not bytes, so every variant
 * sends the same bulks. `fill` sends Firehose's documents as the indexer does (the same ids, cheaper to send).
 */
function requestsFor(
  variant: VariantName,
  docs: readonly string[],
  arrival: number,
  fill = false,
): { path: string; bodies: string[] } {
  const index = indexOf(variant, arrival);
  if (variant === 'firehose' && !fill)
    return { path: '/_bulk', bodies: bulkBodies(index, docs, DOCS_PER_BULK) };
  // The auto-id index has no default pipeline and no required routing.
  if (variant === 'auto ids') return { path: '/_bulk', bodies: bulkBodies(index, docs, DOCS_PER_BULK) };
  const plans = directPlans(docs, arrival, index, variant === 'direct, time id');
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

/** Each variant's index: documents and segments of its primary, as the node reports them now. */
async function describeIndices(client: OpenSearchHttpClient, arrival: number): Promise<string> {
  const parts: string[] = [];
  // Counts are of what a refresh made searchable.
  await request(client, 'POST', '/bench-*/_refresh');
  for (const v of VARIANTS) {
    const stats = (await request(client, 'GET', `/${indexOf(v, arrival)}/_stats/docs,segments`)) as {
      _all: { primaries: { docs: { count: number }; segments: { count: number } } };
    };
    const p = stats._all.primaries;
    parts.push(`${v}: ${p.docs.count} docs in ${p.segments.count} segments`);
  }
  return parts.join('; ');
}

async function main(): Promise<void> {
  const arrival = Date.now();
  const next = transformDocumentSource(13, arrival / 1000);
  console.log(
    `every index first holds ${FILL_DOCS} transform documents; then ${ROUNDS} rounds of ${DOCS_PER_ROUND} newer ` +
      `ones, the same documents for every variant; bulks of ${DOCS_PER_BULK}, ${PARALLEL} in parallel`,
  );
  await withBenchNode(async ({ client, pid }) => {
    await request(client, 'PUT', '/bench-auto', {
      settings: { index: { default_pipeline: '_none' } },
      mappings: { _routing: { required: false } },
    });
    // OpenSearch's Bloom filter over `_id` per segment (2.19 has it, off by default): a lookup skips a segment the filter
    // says cannot hold the id, with today's ids.
    await request(client, 'PUT', `/${indexOf('direct, bloom', arrival)}`, {
      settings: { index: { optimize_doc_id_lookup: { fuzzy_set: { enabled: true } } } },
    });
    const bloom = JSON.stringify(
      await request(client, 'GET', `/${indexOf('direct, bloom', arrival)}/_settings`),
    );
    if (!bloom.includes('"fuzzy_set":{"enabled":"true"')) {
      throw new BenchError(`the node did not keep the Bloom filter setting: ${bloom}`);
    }
    for (let filled = 0; filled < FILL_DOCS; filled += DOCS_PER_ROUND) {
      const docs = next(Math.min(DOCS_PER_ROUND, FILL_DOCS - filled));
      for (const v of VARIANTS) {
        const { path, bodies } = requestsFor(v, docs, arrival, true);
        await send(client, path, bodies);
      }
    }
    console.log(`filled: ${await describeIndices(client, arrival)}`);
    const cpu = new Map<VariantName, number[]>(VARIANTS.map((v) => [v, []]));
    const rates = new Map<VariantName, number[]>(VARIANTS.map((v) => [v, []]));
    // Round 0 warms the JIT and the pipeline up and is not counted.
    for (let round = 0; round <= ROUNDS; round += 1) {
      const docs = next(DOCS_PER_ROUND);
      for (const v of VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length])) {
        const { path, bodies } = requestsFor(v, docs, arrival);
        const before = sampleCpu();
        const started = process.hrtime.bigint();
        await send(client, path, bodies);
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const after = sampleCpu();
        if (round === 0) continue;
        rates.get(v)!.push(docs.length / seconds);
        if (before !== undefined && after !== undefined) {
          cpu.get(v)!.push((cpuSpan(before, after, { node: pid }).byRole.node * 1e6) / docs.length);
        }
      }
    }
    console.log(`at the end: ${await describeIndices(client, arrival)}`);
    const base = median(cpu.get('firehose')!);
    const direct = median(cpu.get('direct')!);
    console.log(
      '\nvariant           docs/s (median)   node core-us/doc (median)   vs firehose   vs direct   per round (core-us/doc)',
    );
    for (const v of VARIANTS) {
      const c = cpu.get(v)!;
      console.log(
        `${v.padEnd(16)} ${median(rates.get(v)!).toFixed(0).padStart(16)}   ${median(c).toFixed(0).padStart(25)}   ` +
          `${(median(c) / base).toFixed(2).padStart(10)}x   ${(median(c) / direct).toFixed(2).padStart(8)}x   ` +
          `${c.map((x) => x.toFixed(0)).join(' ')}`,
      );
    }
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
