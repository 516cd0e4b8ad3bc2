/**
 * A switch of `delivery.mode` inside OpenSearch (issue 41), on the secured node with the real security plugin: the
 * provisioner's spec of each mode applied in turn, as the switch's deploys apply it, and after each step who may write
 * the log indices and what a second copy of an event does.
 *
 * The indexer's requests are written here as the shared contract says it sends them (`POST /_bulk?pipeline=_none`,
 * each document with `_index`, `_id` from `documentIdFor` and `routing` from `routingFor`); the indexer function
 * itself (lambda/indexer, issue 41's other half) is not in this branch. What this proves is the Pipeline stack's side
 * of the switch: the writer mapping never takes access from the delivery that still runs on a switch back, a copy
 * written by the other delivery overwrites by id (no event stored twice), and the default pipeline does not run on
 * the direct path.
 */
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { documentIdFor, routingFor } from '../../../core/opensearch/ingest-pipeline';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import {
  resolveOpenSearchSpec,
  type OpenSearchSpec,
  type OpenSearchSpecInput,
} from '../../../core/opensearch/spec';
import { FakeOpenSearch } from '../../helpers/fake-opensearch-service';
import { withFakeIsm, type NodeWithIsm } from '../../helpers/ism-on-node';
import { useSecuredOpenSearchNode } from '../../helpers/secured-opensearch';

const FIREHOSE = 'arn:aws:iam::123456789012:role/kfek-test-delivery';
const INDEXER = 'arn:aws:iam::123456789012:role/kfek-test-indexer';
const INDEX = 'logs-2026-11-29';
const BASE = { indexPrefix: 'logs', indexTemplate: { replicas: 0 }, retention: { deleteAfterDays: 14 } };
/** What the Pipeline stack gives the provisioner with Firehose delivering: the indexer's fixed name mapped too. */
const FIREHOSE_MODE: OpenSearchSpecInput = {
  ...BASE,
  access: { firehoseRoleArn: FIREHOSE, writerBackendRoles: [INDEXER] },
};
/** With the indexer delivering: its role is the writer. */
const DIRECT_MODE: OpenSearchSpecInput = { ...BASE, access: { firehoseRoleArn: INDEXER } };

const GROUP = '/kfek/switch';
const STREAM = 's1';
/** An event as the transform writes it to the events stream. */
const documentFor = (id: number): Record<string, unknown> => ({
  '@timestamp': '2026-11-29T09:00:00.000Z',
  message: `event ${id}`,
  cloudwatch: { id: String(id), logGroup: GROUP, logStream: STREAM, owner: '123456789012' },
});

interface BulkItem {
  readonly status: number;
  readonly result?: string;
}

describe('switching delivery.mode on the secured 2.11 node', () => {
  const os = useSecuredOpenSearchNode({
    users: [
      { name: 'firehose', backendRoles: [FIREHOSE] },
      { name: 'indexer', backendRoles: [INDEXER] },
    ],
  });
  let domain: NodeWithIsm;
  let previous: OpenSearchSpec | undefined;
  const dashboards = new FakeOpenSearch({ dashboards: true });

  async function deploy(input: OpenSearchSpecInput): Promise<void> {
    const spec = resolveOpenSearchSpec(input);
    await provisionOpenSearch(domain.client, spec, {
      dashboards: dashboards.dashboardsClient(),
      now: Date.now,
      ...(previous === undefined ? {} : { previous }),
    });
    previous = spec;
  }

  /** The item results of one bulk, or the refusal of the whole request. */
  async function bulk(
    client: OpenSearchHttpClient,
    path: string,
    lines: readonly unknown[],
  ): Promise<string[]> {
    const response = await client.request({
      method: 'POST',
      path,
      body: lines.map((l) => `${JSON.stringify(l)}\n`).join(''),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    if (response.status !== 200) return [`refused ${response.status}`];
    const items = (response.body as { items: Array<Record<string, BulkItem>> }).items;
    return items.map((i) => Object.values(i)[0]).map((i) => i.result ?? `refused ${i.status}`);
  }

  /** Firehose's bulk: no id; the index template's default pipeline sets it. */
  const viaFirehose = (ids: readonly number[]): Promise<string[]> =>
    bulk(
      os.client('firehose'),
      '/_bulk?refresh=true',
      ids.flatMap((id) => [{ index: { _index: INDEX } }, documentFor(id)]),
    );

  /** The indexer's bulk: each document's index, id and routing, and no pipeline. */
  const viaIndexer = (
    ids: readonly number[],
    idOf = (id: number): string => documentIdFor(GROUP, STREAM, String(id)),
  ) =>
    bulk(
      os.client('indexer'),
      '/_bulk?refresh=true&pipeline=_none',
      ids.flatMap((id) => [
        { index: { _index: INDEX, _id: idOf(id), routing: routingFor(idOf(id)) } },
        documentFor(id),
      ]),
    );

  async function count(): Promise<number> {
    const response = await os.client('admin').request({ method: 'GET', path: `/${INDEX}/_count` });
    return (response.body as { count: number }).count;
  }

  beforeAll(() => {
    domain = withFakeIsm(os.client('admin'), Date.now);
  });

  test('1. Firehose delivers; the indexer, mapped by its fixed name, may write too', async () => {
    await deploy(FIREHOSE_MODE);
    expect(await viaFirehose([1, 2, 3])).toEqual(['created', 'created', 'created']);
    expect(await viaIndexer([4])).toEqual(['created']);
    expect(await count()).toBe(4);
  });

  test('2. switched to direct: the indexer re-reads what Firehose delivered and overwrites it by id', async () => {
    await deploy(DIRECT_MODE);
    // The re-read from the events stream's oldest record: every event again, one more new one.
    expect(await viaIndexer([1, 2, 3, 4, 5])).toEqual([
      'updated',
      'updated',
      'updated',
      'updated',
      'created',
    ]);
    expect(await count()).toBe(5);
    // Firehose's role left the writer mapping: its last retries until CloudFormation deletes it are refused (and
    // kept under the failed-documents prefix; the indexer has indexed them).
    expect((await viaFirehose([6])).every((r) => r.startsWith('refused 403'))).toBe(true);
  });

  test('3. switched back to Firehose: the indexer keeps its access until its mapping is deleted, no copy twice', async () => {
    await deploy(FIREHOSE_MODE);
    expect(await viaIndexer([5, 6])).toEqual(['updated', 'created']);
    expect(await viaFirehose([6, 7])).toEqual(['updated', 'created']);
    expect(await count()).toBe(7);
  });

  test('the default pipeline does not run on the direct path: a document keeps the id it was sent with', async () => {
    // GIVEN an id the pipeline would never give (it sets the id from group, stream and event id)
    expect(await viaIndexer([8], () => 'sent-as-is')).toEqual(['created']);
    // THEN it is stored under that id
    const response = await os.client('admin').request({
      method: 'GET',
      path: `/${INDEX}/_doc/sent-as-is?routing=${routingFor('sent-as-is')}`,
    });
    expect(response.status).toBe(200);
  });
});
