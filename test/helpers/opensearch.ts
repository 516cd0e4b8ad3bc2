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

/**
 * How long a node start may take (`startTimeoutMillis`). Generous: the first run also unpacks the 161 MB
 * distribution; two quiet cores start a node in 15-30 s, but on a loaded 2-core machine (several suites at once, or
 * busy loops on both cores) a start has taken over 120 s, which was startOpenSearch's own default bound.
 */
export const NODE_START_MILLIS = 240_000;

/**
 * How every test starts a node: the generous start bound, and the JVM's quick-start compiler (`jit: 'startup'`,
 * half the CPU of a start; scripts/opensearch/node-process.ts). A suite starts about 25 nodes.
 */
export const TEST_NODE = { startTimeoutMillis: NODE_START_MILLIS, jit: 'startup' } as const;

/** The jest timeout of a hook that starts a node: the start, and a minute for what the hook does after it. */
export const OPENSEARCH_START_TIMEOUT_MILLIS = NODE_START_MILLIS + 60_000;

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
    running = await startOpenSearch({ ...TEST_NODE, ...options });
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

/**
 * Creates `index` from its template unless it exists, and waits until its shard has started. The end-to-end and
 * fault suites create the day's index before their first test: on a loaded 2-core machine creating an index
 * (mappings, shard start) has taken longer than the short bulk timeouts and retry durations some of their tests use
 * on purpose, and what those tests are about is not index creation (test/e2e/faults/unrecovered-node.test.ts and
 * test/core/opensearch/provision.integ.test.ts create indices from the template on the first bulk).
 */
export async function createIndexAhead(url: string, index: string): Promise<void> {
  // Longer than the health call's own 120 s wait; one attempt each (a retried PUT would only find the index).
  const client = createHttpClient({ baseUrl: url, maxAttempts: 1, timeoutMillis: 150_000 });
  const created = await client.request({ method: 'PUT', path: `/${index}` });
  if (created.status !== 200 && !created.text.includes('resource_already_exists_exception')) {
    throw new Error(`PUT /${index} answered HTTP ${created.status}: ${created.text.slice(0, 500)}`);
  }
  const health = await client.request({
    method: 'GET',
    path: `/_cluster/health/${index}?wait_for_status=yellow&timeout=120s`,
  });
  if (health.status !== 200) {
    throw new Error(
      `index ${index} did not start within 120 s: HTTP ${health.status} ${health.text.slice(0, 500)}`,
    );
  }
}
