/**
 * `npm run bench:storage`: the bytes an event costs on disk with the shipped index template and ingest pipeline,
 * before and after issue 31, side by side on one real local node (scripts/opensearch-node.ts: the deployed line,
 * 127.0.0.1, stopped at the end) and one corpus (bench/storage-corpus.ts: both of kfek's generators through the
 * real transform, interleaved as one Firehose buffer mixes apps).
 *
 * "Before" is the template and pipeline main shipped before issue 31, frozen in bench/fixtures/storage-before.json;
 * "after" is what core/opensearch builds now. Each gets its own index (one shard, no replicas), the same documents
 * in bulks of 2,000 (two in flight), then a refresh, a force merge to one segment and a flush: the size is what one
 * copy of a finished daily index occupies (store size of the primary, old segments gone). The file breakdown says
 * where the bytes are (Lucene file extensions: tim terms, fdt stored fields, dvd doc values, doc/pos postings, kdd
 * points, nvd norms). docs/costs.md turns the ratio into money.
 *
 * Options: `--events N` (default 100,000). The last line is always `storage: before <B> B/event, after <A>
 * B/event, after/before <R>`.
 */
import { loadavg } from 'node:os';
import { createHttpClient, type OpenSearchHttpClient } from '../core/opensearch/http';
import { buildIndexTemplate } from '../core/opensearch/index-template';
import { buildIngestPipeline } from '../core/opensearch/ingest-pipeline';
import { resolveOpenSearchSpec } from '../core/opensearch/spec';
import { startOpenSearch } from '../scripts/opensearch-node';
import before from './fixtures/storage-before.json';
import { request, sendBulks } from './opensearch-bench';
import { storageCorpus } from './storage-corpus';

const DOCS_PER_BULK = 2_000;
const PARALLEL_BULKS = 2;
const INDEX_DAY = '2026-11-23';

interface Footprint {
  readonly bytes: number;
  readonly documents: number;
  readonly files: Readonly<Record<string, number>>;
  readonly seconds: number;
}

interface TemplateUnderTest {
  readonly name: 'before' | 'after';
  readonly pipelineName: string;
  readonly pipeline: unknown;
  readonly template: unknown;
  readonly index: string;
}

function variants(): TemplateUnderTest[] {
  const spec = resolveOpenSearchSpec({ indexPrefix: 'after', indexTemplate: { shards: 1, replicas: 0 } });
  return [
    {
      name: 'before',
      pipelineName: before.pipelineName,
      pipeline: before.pipeline,
      template: before.template,
      index: `before-${INDEX_DAY}`,
    },
    {
      name: 'after',
      pipelineName: spec.names.ingestPipeline,
      pipeline: buildIngestPipeline(spec),
      template: buildIndexTemplate(spec),
      index: `after-${INDEX_DAY}`,
    },
  ];
}

/** Indexes `documents` through `variant`'s template and pipeline and measures the finished index. */
async function footprint(
  client: OpenSearchHttpClient,
  variant: TemplateUnderTest,
  documents: readonly string[],
): Promise<Footprint> {
  await request(client, 'PUT', `/_ingest/pipeline/${variant.pipelineName}`, variant.pipeline);
  await request(client, 'PUT', `/_index_template/bench-storage-${variant.name}`, variant.template);
  const action = `${JSON.stringify({ index: { _index: variant.index } })}\n`;
  const bodies: string[] = [];
  for (let i = 0; i < documents.length; i += DOCS_PER_BULK) {
    bodies.push(
      documents
        .slice(i, i + DOCS_PER_BULK)
        .map((d) => `${action}${d}\n`)
        .join(''),
    );
  }
  const seconds = await sendBulks(client, variant.index, bodies, PARALLEL_BULKS);
  await request(client, 'POST', `/${variant.index}/_refresh`);
  await request(client, 'POST', `/${variant.index}/_forcemerge?max_num_segments=1`);
  // The merged-away segments' files go once no reader holds them: a flush and a refresh release them.
  await request(client, 'POST', `/${variant.index}/_flush`);
  await request(client, 'POST', `/${variant.index}/_refresh`);
  const stats = (await request(
    client,
    'GET',
    `/${variant.index}/_stats/store,docs,segments?include_segment_file_sizes=true`,
  )) as {
    indices: Record<
      string,
      {
        primaries: {
          store: { size_in_bytes: number };
          docs: { count: number };
          segments: { file_sizes: Record<string, { size_in_bytes: number }> };
        };
      }
    >;
  };
  const primaries = stats.indices[variant.index].primaries;
  return {
    bytes: primaries.store.size_in_bytes,
    documents: primaries.docs.count,
    files: Object.fromEntries(
      Object.entries(primaries.segments.file_sizes).map(([ext, f]) => [ext, f.size_in_bytes]),
    ),
    seconds,
  };
}

function perEvent(bytes: number, events: number): string {
  return (bytes / events).toFixed(0);
}

async function main(argv: readonly string[]): Promise<void> {
  const flag = argv.indexOf('--events');
  const events = flag < 0 ? 100_000 : Number(argv[flag + 1]);
  if (!Number.isInteger(events) || events < 1000)
    throw new Error('--events takes an integer of 1000 or more');
  const loadAtStart = loadavg()[0];
  const documents = storageCorpus(events);
  const jsonBytes = documents.reduce((sum, d) => sum + Buffer.byteLength(d, 'utf8'), 0);
  const node = await startOpenSearch({});
  try {
    const client = createHttpClient({ baseUrl: node.url, maxAttempts: 1, timeoutMillis: 600_000 });
    const results = new Map<string, Footprint>();
    for (const variant of variants()) results.set(variant.name, await footprint(client, variant, documents));
    const b = results.get('before') as Footprint;
    const a = results.get('after') as Footprint;
    for (const [name, f] of results) {
      if (f.documents !== events) throw new Error(`${name}: ${f.documents} documents for ${events} events`);
    }
    const exts = [...new Set([...Object.keys(b.files), ...Object.keys(a.files)])]
      .filter((e) => (b.files[e] ?? 0) + (a.files[e] ?? 0) >= events / 2)
      .sort((x, y) => (b.files[y] ?? 0) - (b.files[x] ?? 0));
    console.log(
      `bench:storage ${events} events on OpenSearch ${node.version}, one shard, no replicas, force-merged; ` +
        `2 cores, load average ${loadAtStart.toFixed(1)} at start, ${loadavg()[0].toFixed(1)} at end`,
    );
    console.log(`  the transform's JSON                ${perEvent(jsonBytes, events)} B/event`);
    console.log(
      `  before (main before issue 31)       ${perEvent(b.bytes, events)} B/event ` +
        `(${(b.bytes / jsonBytes).toFixed(2)}x the JSON), indexed in ${b.seconds.toFixed(1)} s`,
    );
    console.log(
      `  after (this template and pipeline)  ${perEvent(a.bytes, events)} B/event ` +
        `(${(a.bytes / jsonBytes).toFixed(2)}x the JSON), indexed in ${a.seconds.toFixed(1)} s`,
    );
    console.log('  where the bytes are, B/event        before  after');
    for (const ext of exts) {
      console.log(
        `    ${ext.padEnd(32)} ${perEvent(b.files[ext] ?? 0, events).padStart(6)} ${perEvent(a.files[ext] ?? 0, events).padStart(6)}`,
      );
    }
    console.log(
      `storage: before ${perEvent(b.bytes, events)} B/event, after ${perEvent(a.bytes, events)} B/event, ` +
        `after/before ${(a.bytes / b.bytes).toFixed(3)}`,
    );
  } finally {
    await node.stop();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
