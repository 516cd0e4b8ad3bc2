/**
 * Fault test against a REAL OpenSearch node: bulks that reach a restarted node before its cluster state is
 * recovered. OpenSearch resolves a bulk's default pipeline from the state the node has when the bulk arrives, which
 * after a restart holds no indices and no templates yet; the bulk then waits out the "state not recovered" block
 * and, before kfek required a routing, was indexed without the pipeline, under ids OpenSearch made up. The opensearch
 * outage suite met it by chance (a retried bulk stored each event twice: its own id and a random one); here the
 * window is held open on purpose: the node restarts with `gateway.expected_data_nodes: 2`, so a single node waits
 * `gateway.recover_after_time` before it recovers its state. Proves: such a bulk indexes nothing (OpenSearch 3.6
 * fails it as a whole with a 500, which Firehose retries), for an index that exists and for a new day's index, and
 * its retry after the recovery stores every event once, under the id the pipeline gives it. On the direct path
 * (kfek's indexer, its shipped delivery code) no pipeline runs: bulks sent in the same window, each document with
 * its own `_id` and routing, end with every event stored once under that id, in its arrival's index.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHttpClient, type OpenSearchHttpClient } from '../../../core/opensearch/http';
import { documentIdFor } from '../../../core/opensearch/ingest-pipeline';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { freePort, type RunningOpenSearch, startOpenSearch } from '../../../scripts/opensearch-node';
import { deliveryTargetOf, indexerOnNode } from '../../helpers/indexer-on-node';
import { TEST_NODE } from '../../helpers/opensearch';
import { NODE_START_TIMEOUT_MILLIS } from './fault-suite';

/** How long the restarted node holds its state back: the window the test's bulks must arrive in. */
const RECOVERY_DELAY_SECONDS = 30;
const LOG_GROUP = '/kfek/faults/unrecovered';

const spec = resolveOpenSearchSpec({ indexPrefix: 'logs', indexTemplate: { replicas: 0 } });
let workDir: string | undefined;
let node: RunningOpenSearch | undefined;

afterAll(async () => {
  try {
    await node?.stop();
  } finally {
    if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  }
}, 60_000);

function client(url: string): OpenSearchHttpClient {
  // One attempt, and longer than the recovery delay: a bulk that arrives during the block waits it out.
  return createHttpClient({ baseUrl: url, maxAttempts: 1, timeoutMillis: 4 * RECOVERY_DELAY_SECONDS * 1000 });
}

/** Firehose's bulk shape with NO_DOCUMENT_ID: `index` actions with the index name only. */
function firehoseBulk(http: OpenSearchHttpClient, index: string, stream: string, ids: readonly string[]) {
  const lines = ids.flatMap((id, i) => [
    JSON.stringify({ index: { _index: index } }),
    JSON.stringify(eventDocument(stream, id, i)),
  ]);
  return http.request({
    method: 'POST',
    path: '/_bulk',
    body: `${lines.join('\n')}\n`,
    headers: { 'content-type': 'application/x-ndjson' },
  });
}

/** A document as the transform writes it (without the arrival the indexer reads: Firehose's index names it). */
function eventDocument(stream: string, id: string, i: number): Record<string, unknown> {
  return {
    '@timestamp': new Date(Date.UTC(2026, 10, 23, 9, 0, i)).toISOString(),
    message: `${stream} event ${id}`,
    cloudwatch: { id, logGroup: LOG_GROUP, logStream: stream, owner: '123456789012' },
  };
}

/** `_id` of every document of one log stream in `index`, sorted. */
async function idsOf(http: OpenSearchHttpClient, index: string, stream: string): Promise<string[]> {
  await http.request({ method: 'POST', path: `/${index}/_refresh` });
  const answer = await http.request({
    method: 'POST',
    path: `/${index}/_search`,
    body: { size: 100, query: { term: { 'cloudwatch.logStream': stream } } },
  });
  expect(answer.status).toBe(200);
  return (answer.body as { hits: { hits: Array<{ _id: string }> } }).hits.hits.map((h) => h._id).sort();
}

function pipelineIds(stream: string, ids: readonly string[]): string[] {
  return ids.map((id) => documentIdFor(LOG_GROUP, stream, id)).sort();
}

/** True when nothing of a bulk answer was indexed: a whole-request failure, or every item refused. */
function indexedNothing(answer: { status: number; body: unknown }): boolean {
  if (answer.status >= 300) return true;
  const items = (answer.body as { items: Array<{ index: { status: number } }> }).items;
  return items.every((item) => item.index.status >= 300);
}

test(
  'a bulk that reaches a restarted node before its state is recovered indexes nothing; its retry stores each event once under its id',
  async () => {
    // GIVEN a provisioned node whose day's index holds an event, killed and started again on the same data with its
    // state recovery held back, and answering HTTP already
    workDir = mkdtempSync(path.join(tmpdir(), 'kfek-unrecovered-'));
    // The node runs as `nobody` when tests run as root: its data folder's parents must be traversable.
    chmodSync(workDir, 0o755);
    const dataDir = path.join(workDir, 'opensearch-data');
    const httpPort = await freePort();
    node = await startOpenSearch({
      httpPort,
      dataDir,
      ...TEST_NODE,
    });
    const http = client(node.url);
    await provisionOpenSearch(createHttpClient({ baseUrl: node.url }), spec);
    const existing = 'logs-2026-11-23';
    const fresh = 'logs-2026-11-24';
    expect((await firehoseBulk(http, existing, 'before', ['0'])).status).toBe(200);
    process.kill(-node.pid, 'SIGKILL');
    await node.stop();
    node = await startOpenSearch({
      httpPort,
      dataDir,
      ...TEST_NODE,
      readyWhen: 'listening',
      settings: {
        'gateway.expected_data_nodes': 2,
        'gateway.recover_after_time': `${RECOVERY_DELAY_SECONDS}s`,
      },
    });
    const blocks = await http.request({ method: 'GET', path: '/_cluster/state/blocks' });
    expect(blocks.text).toContain('state not recovered');

    // WHEN Firehose-shaped bulks (no ids) arrive now, for the day's index and for a new day's index, and the
    // indexer delivers a batch for each of the two days (records that arrived then), within a budget longer than
    // the recovery delay
    const ids = ['1', '2', '3'];
    const indexer = indexerOnNode(() => http, deliveryTargetOf(spec));
    const direct = [existing, fresh].map((index) =>
      indexer.deliver(
        ids.map((id, i) => eventDocument('direct', id, i)),
        Date.parse(`${index.slice(-10)}T12:00:00Z`),
        3 * RECOVERY_DELAY_SECONDS * 1000,
      ),
    );
    const [toExisting, toFresh] = await Promise.all([
      firehoseBulk(http, existing, 'during', ids),
      firehoseBulk(http, fresh, 'during', ids),
    ]);

    // THEN they indexed nothing (OpenSearch 3.6: a whole-request 500; an item-level refusal would do as well)
    expect({ existing: indexedNothing(toExisting), fresh: indexedNothing(toFresh) }).toEqual({
      existing: true,
      fresh: true,
    });
    expect(await idsOf(http, existing, 'during')).toEqual([]);
    // ... and once the state is recovered, the same bulks again (Firehose's retry) store each event once, under
    // the pipeline's id
    const health = await http.request({
      method: 'GET',
      path: `/_cluster/health?wait_for_status=yellow&timeout=${2 * RECOVERY_DELAY_SECONDS}s`,
    });
    expect(health.status).toBe(200);
    for (const index of [existing, fresh]) {
      const retry = await firehoseBulk(http, index, 'during', ids);
      expect(retry.status).toBe(200);
      expect(retry.body).toMatchObject({ errors: false });
      expect(await idsOf(http, index, 'during')).toEqual(pipelineIds('during', ids));
    }
    expect(await idsOf(http, existing, 'before')).toEqual(pipelineIds('before', ['0']));
    // THEN the indexer's batches were acknowledged whole, each event stored once under its own id, in its day's index
    for (const result of await Promise.all(direct)) {
      expect(result).toMatchObject({ failures: [], counts: { IndexedDocuments: 3, RefusedDocuments: 0 } });
    }
    for (const index of [existing, fresh]) {
      expect(await idsOf(http, index, 'direct')).toEqual(pipelineIds('direct', ids));
    }
  },
  2 * NODE_START_TIMEOUT_MILLIS + 4 * RECOVERY_DELAY_SECONDS * 1000,
);
