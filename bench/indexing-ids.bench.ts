/**
 * `npm run bench:ids`: what a deterministic document id costs in indexing throughput, measured side by side on
 * the real local OpenSearch node (scripts/opensearch-node.ts, 127.0.0.1, stopped at the end).
 *
 * Five ways to index the same transform output, each into its own index with the shipped template's settings:
 * - `auto id`: no `_id` and no pipeline (what Firehose with NO_DOCUMENT_ID did before kfek set ids): OpenSearch
 *   generates the id and takes its append-only fast path, with no lookup of an existing document.
 * - `client _id`: the bulk action carries `_id` (what FIREHOSE_DEFAULT does, or a client hashing the triple).
 * - `pipeline from field`: the document carries the id in a field and a pipeline `set`s `_id` from it (the
 *   alternative kfek did not take: it would add a field to the public document schema).
 * - `pipeline fingerprint`: the `fingerprint` processor hashes log group, stream and event id on the node. Kept
 *   here because its last column shows why kfek does not use it: it computes wrong hashes under concurrent bulk
 *   requests (opensearch-project/OpenSearch#23027), so some re-sent events get a new id.
 * - `pipeline painless`: the shipped pipeline (core/opensearch/ingest-pipeline.ts), the same hash in a Painless
 *   script.
 *
 * The rounds interleave the variants (rotating their order) so drift on a shared machine hits all of them, and the
 * median per variant is reported. Each round indexes fresh documents (no overwrites), then a final step re-sends
 * one round's documents to show which variants collapse duplicates. The numbers are for this 2-core machine and a
 * 512 MB heap: compare the ratios, not the absolute rates, with a domain.
 */
import { createHttpClient, type OpenSearchHttpClient } from '../core/opensearch/http';
import { buildIndexTemplate } from '../core/opensearch/index-template';
import { buildIngestPipeline, documentIdFor } from '../core/opensearch/ingest-pipeline';
import { resolveOpenSearchSpec, type OpenSearchSpec } from '../core/opensearch/spec';
import { startOpenSearch } from '../scripts/opensearch-node';
import { median, request, sendBulks, transformDocuments } from './opensearch-bench';

const ROUNDS = Number(process.env.KFEK_BENCH_ROUNDS ?? 5);
const DOCS_PER_ROUND = Number(process.env.KFEK_BENCH_DOCS ?? 20_000);
/** About what one Firehose bulk request carries with a 5 MB buffer of ~500-byte documents, split in two. */
const DOCS_PER_BULK = 2_000;
/** Bulk requests in flight at once (Firehose delivers in parallel; the node has 2 cores). */
const PARALLEL_BULKS = 2;

type Variant =
  'auto id' | 'client _id' | 'pipeline from field' | 'pipeline fingerprint' | 'pipeline painless';
const VARIANTS: readonly Variant[] = [
  'auto id',
  'client _id',
  'pipeline from field',
  'pipeline fingerprint',
  'pipeline painless',
];

interface BenchDocument {
  readonly json: string;
  /** The id kfek's pipeline computes ({@link documentIdFor}), for the client and field variants. */
  readonly id: string;
}

/** Real transform output, each document with the id kfek's pipeline computes. */
function corpus(count: number): BenchDocument[] {
  return transformDocuments(9, count).map((json) => {
    const cw = (JSON.parse(json) as { cloudwatch: { logGroup: string; logStream: string; id: string } })
      .cloudwatch;
    return { json, id: documentIdFor(cw.logGroup, cw.logStream, cw.id) };
  });
}

function bulkBody(variant: Variant, index: string, docs: readonly BenchDocument[]): string {
  let body = '';
  for (const doc of docs) {
    if (variant === 'client _id') {
      body += `{"index":{"_index":"${index}","_id":"${doc.id}"}}\n${doc.json}\n`;
    } else if (variant === 'pipeline from field') {
      // The id field written as the transform would write it: one more top-level key.
      body += `{"index":{"_index":"${index}"}}\n${doc.json.slice(0, -1)},"kfek_id":"${doc.id}"}\n`;
    } else {
      body += `{"index":{"_index":"${index}"}}\n${doc.json}\n`;
    }
  }
  return body;
}

/** Indexes `docs` in bulks of {@link DOCS_PER_BULK}, {@link PARALLEL_BULKS} at a time; returns documents/s. */
async function indexAll(
  client: OpenSearchHttpClient,
  variant: Variant,
  index: string,
  docs: readonly BenchDocument[],
): Promise<number> {
  const bodies: string[] = [];
  for (let i = 0; i < docs.length; i += DOCS_PER_BULK) {
    bodies.push(bulkBody(variant, index, docs.slice(i, i + DOCS_PER_BULK)));
  }
  const seconds = await sendBulks(client, index, bodies, PARALLEL_BULKS);
  return docs.length / seconds;
}

async function count(client: OpenSearchHttpClient, index: string): Promise<number> {
  await request(client, 'POST', `/${index}/_refresh`);
  return ((await request(client, 'GET', `/${index}/_count`)) as { count: number }).count;
}

/** More documents than events are duplicates; fewer means distinct events got the same id and overwrote each other. */
function verdict(difference: number): string {
  if (difference > 0) return ` (${difference} duplicates)`;
  if (difference < 0) return ` (${-difference} events LOST: overwritten by another event's id)`;
  return '';
}

/** Puts the variants' pipelines, the shipped template and one index per variant; answers each variant's index. */
async function prepareVariants(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
): Promise<(v: Variant) => string> {
  await request(client, 'PUT', `/_ingest/pipeline/${spec.names.ingestPipeline}`, buildIngestPipeline(spec));
  await request(client, 'PUT', '/_ingest/pipeline/bench-fingerprint', {
    processors: [
      {
        fingerprint: {
          fields: ['cloudwatch.logGroup', 'cloudwatch.logStream', 'cloudwatch.id'],
          target_field: '_id',
          hash_method: 'SHA-256@2.16.0',
        },
      },
    ],
  });
  await request(client, 'PUT', '/_ingest/pipeline/bench-from-field', {
    processors: [{ set: { field: '_id', value: '{{{kfek_id}}}' } }, { remove: { field: 'kfek_id' } }],
  });
  await request(client, 'PUT', `/_index_template/${spec.names.indexTemplate}`, buildIndexTemplate(spec));
  const pipelineOf: Record<Variant, string> = {
    'auto id': '_none',
    'client _id': '_none',
    'pipeline from field': 'bench-from-field',
    'pipeline fingerprint': 'bench-fingerprint',
    'pipeline painless': spec.names.ingestPipeline,
  };
  const indexOf = (v: Variant): string => `bench-${v.replace(/[^a-z]+/g, '-')}`;
  for (const v of VARIANTS) {
    // Index settings in the create request override the template's default_pipeline for this variant. The
    // template requires a routing, which only the shipped pipeline sets (docs/guarantees.md): the other
    // variants' indices do without.
    const shipped = pipelineOf[v] === spec.names.ingestPipeline;
    await request(client, 'PUT', `/${indexOf(v)}`, {
      settings: { index: { default_pipeline: pipelineOf[v] } },
      ...(shipped ? {} : { mappings: { _routing: { required: false } } }),
    });
  }
  return indexOf;
}

async function main(): Promise<void> {
  const docs = corpus(DOCS_PER_ROUND * (ROUNDS + 1));
  const avgBytes = docs.reduce((sum, d) => sum + Buffer.byteLength(d.json), 0) / docs.length;
  console.log(
    `corpus: ${docs.length} transform documents, ${avgBytes.toFixed(0)} bytes average; ` +
      `${ROUNDS} rounds of ${DOCS_PER_ROUND} per variant, bulks of ${DOCS_PER_BULK}, ${PARALLEL_BULKS} in parallel`,
  );
  const node = await startOpenSearch();
  try {
    const client = createHttpClient({ baseUrl: node.url, maxAttempts: 1, timeoutMillis: 120_000 });
    console.log(`OpenSearch ${node.version} at ${node.url}`);
    const spec = resolveOpenSearchSpec({ indexPrefix: 'bench', indexTemplate: { replicas: 0 } });
    const indexOf = await prepareVariants(client, spec);

    // Round 0 warms the JIT and the pipelines up and is not counted.
    const rates: Record<Variant, number[]> = {
      'auto id': [],
      'client _id': [],
      'pipeline from field': [],
      'pipeline fingerprint': [],
      'pipeline painless': [],
    };
    for (let round = 0; round <= ROUNDS; round += 1) {
      const slice = docs.slice(round * DOCS_PER_ROUND, (round + 1) * DOCS_PER_ROUND);
      const order = VARIANTS.map((_, i) => VARIANTS[(i + round) % VARIANTS.length]);
      for (const v of order) {
        const rate = await indexAll(client, v, indexOf(v), slice);
        if (round > 0) rates[v].push(rate);
      }
    }

    // Re-send round 1's documents (a retried batch): which variants end with one document per event?
    const again = docs.slice(DOCS_PER_ROUND, 2 * DOCS_PER_ROUND);
    const expected = docs.length;
    const base = median(rates['auto id']);
    console.log('');
    console.log('variant                  docs/s (median)   vs auto id   documents after a re-sent round');
    for (const v of VARIANTS) {
      await indexAll(client, v, indexOf(v), again);
      const stored = await count(client, indexOf(v));
      const rate = median(rates[v]);
      console.log(
        `${v.padEnd(24)} ${rate.toFixed(0).padStart(15)}   ${((rate / base) * 100).toFixed(0).padStart(9)}%   ` +
          `${stored} for ${expected} events${verdict(stored - expected)}`,
      );
    }
    console.log(
      `\nper round (docs/s): ${VARIANTS.map((v) => `${v}: ${rates[v].map((r) => r.toFixed(0)).join(' ')}`).join('; ')}`,
    );
  } finally {
    await node.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
