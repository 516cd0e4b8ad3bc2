/**
 * `kfek proxy` in front of the real local OpenSearch node: a whole OpenSearch conversation (create an index, a
 * `_bulk` NDJSON request, a search with a query string, a HEAD, an error answer) goes through the proxy and
 * comes back intact. The local node has no security plugin and ignores the signature; the signature itself is
 * verified in cli-proxy.test.ts. This test proves the relaying is faithful to a real server.
 */
import { createHttpClient, type OpenSearchHttpClient } from '../../../core/opensearch/http';
import { createSigningProxy, type SigningProxy } from '../../../cli/proxy';
import { useOpenSearchNode } from '../../helpers/opensearch';

const os = useOpenSearchNode();
let proxy: SigningProxy;
let viaProxy: OpenSearchHttpClient;

beforeAll(async () => {
  proxy = await createSigningProxy({
    endpoint: os.node().url,
    region: 'eu-west-1',
    port: 0,
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
  });
  // A plain client pointed at the proxy: the proxy, not the client, signs.
  viaProxy = createHttpClient({ baseUrl: proxy.url, maxAttempts: 1 });
}, 30_000);

afterAll(async () => {
  await proxy?.close(); // undefined when beforeAll failed (e.g. the node did not start): report that, not a TypeError
});

test('indexes with _bulk NDJSON and searches it back through the proxy', async () => {
  // GIVEN an index created through the proxy
  const create = await viaProxy.request({
    method: 'PUT',
    path: '/proxy-test',
    body: { settings: { number_of_shards: 1, number_of_replicas: 0 } },
  });
  expect(create.status).toBe(200);

  // WHEN documents (one with non-ASCII text) are bulk-indexed and searched with a Lucene query string
  const docs = [
    { level: 'ERROR', message: 'disk full on /var/log', n: 1 },
    { level: 'INFO', message: 'h\u00e9llo w\u00f6rld \u2603', n: 2 },
    { level: 'ERROR', message: 'timeout calling payments', n: 3 },
  ];
  const ndjson = docs
    .map(
      (d, i) =>
        `${JSON.stringify({ index: { _index: 'proxy-test', _id: String(i) } })}\n${JSON.stringify(d)}\n`,
    )
    .join('');
  const bulk = await viaProxy.request({
    method: 'POST',
    path: '/_bulk?refresh=true',
    body: ndjson,
    headers: { 'content-type': 'application/x-ndjson' },
  });
  const search = await viaProxy.request({
    method: 'GET',
    path: `/proxy-test/_search?q=${encodeURIComponent('level:ERROR AND message:timeout')}&size=10`,
  });
  const snowman = await viaProxy.request({ method: 'GET', path: '/proxy-test/_doc/1' });

  // THEN
  expect(bulk.status).toBe(200);
  expect((bulk.body as { errors: boolean; items: unknown[] }).errors).toBe(false);
  expect((bulk.body as { items: unknown[] }).items).toHaveLength(3);
  expect(search.status).toBe(200);
  const hits = (search.body as { hits: { hits: { _source: { n: number } }[] } }).hits.hits;
  expect(hits.map((h) => h._source.n)).toEqual([3]);
  expect((snowman.body as { _source: { message: string } })._source.message).toBe(
    'h\u00e9llo w\u00f6rld \u2603',
  );
});

test('relays HEAD and error answers as the node gave them', async () => {
  const head = await viaProxy.request({ method: 'HEAD', path: '/no-such-index' });
  const missing = await viaProxy.request({ method: 'GET', path: '/no-such-index/_search' });

  expect(head.status).toBe(404);
  expect(head.text).toBe('');
  expect(missing.status).toBe(404);
  expect(JSON.stringify(missing.body)).toContain('index_not_found_exception');
});
