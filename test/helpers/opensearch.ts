/**
 * Jest helpers around the real local OpenSearch node (scripts/opensearch-node.ts).
 *
 * `useOpenSearchNode()` starts one node in `beforeAll` and stops it in `afterAll` (also when tests fail), so one
 * test file costs one ~15-30 s start. The node listens on 127.0.0.1 only.
 */
import { createHttpClient, type HttpResponse, type OpenSearchHttpClient } from '../../core/opensearch/http';
import {
  startOpenSearch,
  type RunningOpenSearch,
  type StartOpenSearchOptions,
} from '../../scripts/opensearch-node';

export { startOpenSearch, type RunningOpenSearch } from '../../scripts/opensearch-node';

/** Generous: the first run also unpacks the 161 MB distribution; two busy cores start a node in 15-30 s. */
export const OPENSEARCH_START_TIMEOUT_MILLIS = 180_000;

export interface OpenSearchNodeHandle {
  /** The running node; throws when called outside a test (before beforeAll). */
  node(): RunningOpenSearch;
  /** A plain-HTTP client for the node. */
  client(): OpenSearchHttpClient;
}

export function useOpenSearchNode(options: StartOpenSearchOptions = {}): OpenSearchNodeHandle {
  let running: RunningOpenSearch | undefined;
  let http: OpenSearchHttpClient | undefined;
  beforeAll(async () => {
    running = await startOpenSearch(options);
    http = createHttpClient({ baseUrl: running.url, maxAttempts: 1 });
  }, OPENSEARCH_START_TIMEOUT_MILLIS);
  afterAll(async () => {
    await running?.stop();
  }, 60_000);
  return {
    node: () => {
      if (running === undefined) {
        throw new Error('The OpenSearch node is not running: use node() inside a test.');
      }
      return running;
    },
    client: () => {
      if (http === undefined) {
        throw new Error('The OpenSearch node is not running: use client() inside a test.');
      }
      return http;
    },
  };
}

/** Sends an NDJSON `_bulk` request with `refresh=true`; returns the parsed response. */
export async function bulkIndex(
  client: OpenSearchHttpClient,
  index: string,
  documents: readonly unknown[],
): Promise<HttpResponse> {
  return bulkIndexTexts(
    client,
    index,
    documents.map((d) => JSON.stringify(d)),
  );
}

/** `bulkIndex` for documents already serialized (the transform's own JSON text, sent as it is). */
export async function bulkIndexTexts(
  client: OpenSearchHttpClient,
  index: string,
  documents: readonly string[],
): Promise<HttpResponse> {
  const ndjson = documents.map((d) => `${JSON.stringify({ index: { _index: index } })}\n${d}\n`).join('');
  return client.request({
    method: 'POST',
    path: '/_bulk?refresh=true',
    body: ndjson,
    headers: { 'content-type': 'application/x-ndjson' },
  });
}

/** Documents of `index` that a Lucene `query_string` matches. */
export async function searchHits(
  client: OpenSearchHttpClient,
  index: string,
  query: string,
): Promise<number> {
  const response = await client.request({
    method: 'POST',
    path: `/${index}/_search`,
    body: { query: { query_string: { query } }, size: 0 },
  });
  expect(response.status).toBe(200);
  return (response.body as { hits: { total: { value: number } } }).hits.total.value;
}
