/**
 * What the benchmarks against the real local OpenSearch node share (bench/indexing-ids.bench.ts,
 * bench/bulk-sizes.bench.ts): the transform's real output as a workload, a request that fails loudly, and the median.
 */
import { gzipSync } from 'node:zlib';
import { transformRecord } from '../core/transform/transform';
import { createHttpClient, type OpenSearchHttpClient } from '../core/opensearch/http';
import { buildIndexTemplate } from '../core/opensearch/index-template';
import { buildIngestPipeline } from '../core/opensearch/ingest-pipeline';
import { resolveOpenSearchSpec } from '../core/opensearch/spec';
import { startOpenSearch } from '../scripts/opensearch-node';
import { CorpusGenerator } from './corpus';

export class BenchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BenchError';
  }
}

/**
 * A source of transform documents (JSON text) in corpus order, handed out `count` at a time: corpus envelopes of 100
 * events through `transformRecord`, each record arriving at `arrivalSeconds` when given (`kfek.arrival`, as the
 * handlers pass it). Timestamps only advance, so a bench can fill an index first and index newer events after.
 */
export function transformDocumentSource(seed: number, arrivalSeconds?: number): (count: number) => string[] {
  const generator = new CorpusGenerator(seed);
  let buffered: string[] = [];
  return (count) => {
    while (buffered.length < count) {
      const data = gzipSync(Buffer.from(JSON.stringify(generator.envelope(100)), 'utf8')).toString('base64');
      const outcome = transformRecord(
        data,
        arrivalSeconds === undefined ? {} : { approximateArrivalTimestamp: arrivalSeconds },
      );
      if (outcome.kind !== 'data') throw new BenchError(`corpus envelope gave ${outcome.kind}`);
      for (const doc of outcome.documents) buffered.push(doc.json);
    }
    const docs = buffered.slice(0, count);
    buffered = buffered.slice(count);
    return docs;
  };
}

/** The first `count` documents of {@link transformDocumentSource}. */
export function transformDocuments(seed: number, count: number, arrivalSeconds?: number): string[] {
  return transformDocumentSource(seed, arrivalSeconds)(count);
}

/** One request; an answer of 300 or more throws with the start of its body. NDJSON strings go as `_bulk` bodies. */
export async function request(
  client: OpenSearchHttpClient,
  method: 'GET' | 'PUT' | 'POST',
  path: string,
  body?: unknown,
): Promise<unknown> {
  const response = await client.request({
    method,
    path,
    body,
    ...(typeof body === 'string' ? { headers: { 'content-type': 'application/x-ndjson' } } : {}),
  });
  if (response.status >= 300) {
    throw new BenchError(
      `${method} ${path} answered HTTP ${response.status}: ${response.text.slice(0, 500)}`,
    );
  }
  return response.body;
}

/** NDJSON `_bulk` bodies of `bulkSize` documents each, every one an `index` action into `index`. */
export function bulkBodies(index: string, docs: readonly string[], bulkSize: number): string[] {
  const bodies: string[] = [];
  for (let i = 0; i < docs.length; i += bulkSize) {
    bodies.push(
      docs
        .slice(i, i + bulkSize)
        .map((json) => `{"index":{"_index":"${index}"}}\n${json}\n`)
        .join(''),
    );
  }
  return bodies;
}

/**
 * Sends NDJSON `_bulk` bodies into `index`, `parallel` requests in flight at once; returns the seconds taken. Any
 * refused item throws: a benchmark that drops documents measures nothing.
 */
export async function sendBulks(
  client: OpenSearchHttpClient,
  index: string,
  bodies: readonly string[],
  parallel: number,
): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (next < bodies.length) {
      const answer = (await request(client, 'POST', '/_bulk', bodies[next++])) as {
        errors?: boolean;
        items?: Array<{ index: { status: number } }>;
      };
      if (answer.errors === true) {
        const bad = answer.items?.find((item) => item.index.status >= 300);
        throw new BenchError(`bulk into ${index} had item errors, first: ${JSON.stringify(bad)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return Number(process.hrtime.bigint() - started) / 1e9;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The node a benchmark runs on: its client and its process id (for the CPU it spends, /proc). */
export interface BenchNode {
  readonly client: OpenSearchHttpClient;
  readonly pid: number;
}

/**
 * Starts the local node, provisions the shipped ingest pipeline and index template for indices `bench-*` (no replica,
 * 1 s refresh), runs `work` and stops the node, also when `work` throws.
 */
export async function withBenchNode(work: (node: BenchNode) => Promise<void>): Promise<void> {
  const node = await startOpenSearch();
  try {
    const client = createHttpClient({ baseUrl: node.url, maxAttempts: 1, timeoutMillis: 120_000 });
    console.log(`OpenSearch ${node.version} at ${node.url}`);
    const spec = resolveOpenSearchSpec({
      indexPrefix: 'bench',
      indexTemplate: { replicas: 0, refreshSeconds: 1 },
    });
    await request(client, 'PUT', `/_ingest/pipeline/${spec.names.ingestPipeline}`, buildIngestPipeline(spec));
    await request(client, 'PUT', `/_index_template/${spec.names.indexTemplate}`, buildIndexTemplate(spec));
    await work({ client, pid: node.pid });
  } finally {
    await node.stop();
  }
}
