/**
 * The Serverless conformance stand-in (scripts/serverless/standin.ts) in front of the real node: signatures for
 * `aoss` are checked, the data access policy kfek deploys is enforced per index, ids behave per collection type, and
 * kfek's own requests (the serverless index template, the indexer's `_bulk` with ids, reconcile's counts) pass.
 */
import { createHttpClient, type OpenSearchHttpClient } from '../../../core/opensearch/http';
import { collectionAccessPolicy } from '../../../core/opensearch/serverless-access';
import { buildIndexTemplate } from '../../../core/opensearch/index-template';
import { buildServerlessIndexTemplate } from '../../../core/opensearch/serverless-template';
import { openSearchSpecInputOf } from '../../../core/config/opensearch-spec';
import { indexFamilies, resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { resolveConfig } from '../../../core/config';
import { deleteExpiredIndices } from '../../../core/opensearch/serverless-retention';
import { RequestMeter } from '../../../core/reconcile/ports';
import { searchSide } from '../../../core/reconcile/search-side';
import {
  type RunningStandin,
  startServerlessStandin,
  type StandinIdentity,
} from '../../../scripts/serverless/standin';
import { CDK_JSON_CONTEXT } from '../../helpers/app';
import { useOpenSearchNode } from '../../helpers/opensearch';
import { STANDIN_REGION, standinIdentity } from '../../helpers/serverless-standin';

jest.setTimeout(120_000);

const REGION = STANDIN_REGION;
const identity = standinIdentity;
const WRITER = identity('writer');
const ADMIN = identity('admin');
const PAYMENTS_READER = identity('payments');
const STRANGER = identity('stranger');

const config = resolveConfig(CDK_JSON_CONTEXT, 'teams');
const spec = resolveOpenSearchSpec(openSearchSpecInputOf(config));

const POLICY = collectionAccessPolicy({
  collection: 'kfek-standin',
  writers: [WRITER.principal],
  admins: [ADMIN.principal],
  families: [
    { indexPattern: 'logs-*', readers: [] },
    { indexPattern: 'payments-*', readers: [PAYMENTS_READER.principal] },
  ],
});

describe('the Serverless conformance stand-in on the real node', () => {
  const node = useOpenSearchNode();
  let search: RunningStandin;
  let timeseries: RunningStandin;

  beforeAll(async () => {
    const base = {
      upstream: node.node().url,
      region: REGION,
      identities: [WRITER, ADMIN, PAYMENTS_READER, STRANGER],
    };
    search = await startServerlessStandin({ ...base, accessPolicy: POLICY });
    timeseries = await startServerlessStandin({ ...base, collectionType: 'TIMESERIES' });
  });
  afterAll(async () => {
    await search?.close();
    await timeseries?.close();
  });

  const as = (who: StandinIdentity, service = 'aoss', url = search.url): OpenSearchHttpClient =>
    createHttpClient({
      baseUrl: url,
      maxAttempts: 1,
      auth: { kind: 'sigv4', region: REGION, service, credentials: who },
    });
  const bulk = (docs: { index: string; id?: string; n: number }[]): string =>
    docs
      .map((d) =>
        [
          JSON.stringify({ index: { _index: d.index, ...(d.id === undefined ? {} : { _id: d.id }) } }),
          JSON.stringify({ '@timestamp': '2026-11-29T10:00:00.000Z', message: `event ${d.n}` }),
        ].join('\n'),
      )
      .join('\n')
      .concat('\n');
  const post = (client: OpenSearchHttpClient, path: string, body: string) =>
    client.request({ method: 'POST', path, body, headers: { 'content-type': 'application/x-ndjson' } });

  test('fails when a request is unsigned, signed for es, signed with a wrong secret, or by an unknown key', async () => {
    // GIVEN
    const unsigned = createHttpClient({ baseUrl: search.url, maxAttempts: 1 });
    const forged = as({ ...ADMIN, secretAccessKey: 'not-the-secret' });
    const unknown = as({ ...ADMIN, accessKeyId: 'AKIAUNKNOWNXXXXXXXXX' });
    // WHEN
    const answers = await Promise.all(
      [unsigned, as(ADMIN, 'es'), forged, unknown].map((c) =>
        c.request({ method: 'GET', path: '/_cat/indices' }),
      ),
    );
    // THEN
    expect(answers.map((a) => a.status)).toEqual([403, 403, 403, 403]);
    const reasons = answers.map((a) => (a.body as { error: { reason: string } }).error.reason);
    expect(reasons).toEqual([
      expect.stringMatching(/not SigV4-signed/),
      expect.stringMatching(/signed for "es"; a collection takes "aoss"/),
      expect.stringMatching(/SignatureDoesNotMatch/),
      expect.stringMatching(/is unknown/),
    ]);
  });

  test("kfek's serverless templates pass; the domain's template is refused for its shard settings", async () => {
    // GIVEN
    const admin = as(ADMIN);
    // WHEN
    const put = async (body: unknown, name: string) =>
      admin.request({ method: 'PUT', path: `/_index_template/${name}`, body });
    const serverless = await Promise.all(
      indexFamilies(spec).map((f) => put(buildServerlessIndexTemplate(spec, f), f.names.indexTemplate)),
    );
    const domain = await put(buildIndexTemplate(spec), 'kfek-domain-template');
    // THEN
    for (const answer of serverless) {
      expect([answer.status, answer.text]).toEqual([200, expect.stringContaining('acknowledged')]);
    }
    expect(domain.status).toBe(400);
    expect(domain.text).toMatch(/number_of_shards/);
  });

  test('each event once: a redelivered bulk with the same ids overwrites on a SEARCH collection', async () => {
    // GIVEN
    const writer = as(WRITER);
    const docs = [1, 2, 3].map((n) => ({ index: 'logs-2026-11-29', id: `id-${n}`, n }));
    // WHEN the indexer's batch is delivered twice
    const first = await post(writer, '/_bulk?refresh=true', bulk(docs));
    const again = await post(writer, '/_bulk?refresh=true', bulk(docs));
    // THEN
    expect([first.status, again.status]).toEqual([200, 200]);
    expect((again.body as { errors: boolean }).errors).toBe(false);
    const count = await as(ADMIN).request({ method: 'GET', path: '/logs-2026-11-29/_count' });
    expect((count.body as { count: number }).count).toBe(3);
  });

  test('fails when the indexer sends ids to a TIMESERIES collection, which generates its own', async () => {
    // WHEN
    const answer = await post(
      as(WRITER, 'aoss', timeseries.url),
      '/_bulk',
      bulk([{ index: 'logs-2026-11-28', id: 'x', n: 1 }]),
    );
    // THEN
    expect(answer.status).toBe(400);
    expect(answer.text).toMatch(/generates document ids/);
  });

  test('each principal reaches exactly the indices the data access policy gives it', async () => {
    // GIVEN
    await post(as(WRITER), '/_bulk?refresh=true', bulk([{ index: 'payments-2026-11-29', id: 'p1', n: 1 }]));
    const searchBody = { query: { match_all: {} } };
    // WHEN
    const reader = as(PAYMENTS_READER);
    const own = await reader.request({ method: 'POST', path: '/payments-*/_search', body: searchBody });
    const other = await reader.request({ method: 'POST', path: '/logs-*/_search', body: searchBody });
    const readerWrites = await post(
      reader,
      '/_bulk',
      bulk([{ index: 'payments-2026-11-29', id: 'p2', n: 2 }]),
    );
    const writerElsewhere = await post(
      as(WRITER),
      '/_bulk',
      bulk([{ index: 'other-2026-11-29', id: 'o', n: 1 }]),
    );
    const writerReads = await as(WRITER).request({
      method: 'POST',
      path: '/logs-*/_search',
      body: searchBody,
    });
    const stranger = await as(STRANGER).request({
      method: 'POST',
      path: '/payments-*/_search',
      body: searchBody,
    });
    // THEN
    expect(own.status).toBe(200);
    expect((own.body as { hits: { total: { value: number } } }).hits.total.value).toBe(1);
    expect([other, readerWrites, writerElsewhere, writerReads, stranger].map((a) => a.status)).toEqual([
      403, 403, 403, 403, 403,
    ]);
  });

  test("reconcile's counts per minute pass and count what was indexed", async () => {
    // GIVEN documents of one log group in the default route's index
    const docs = [1, 2].map((n) => ({
      index: { _index: 'logs-2026-11-29', _id: `rc-${n}` },
      source: {
        '@timestamp': '2026-11-29T10:01:00.000Z',
        message: `reconciled ${n}`,
        cloudwatch: { logGroup: '/kfek/standin', logStream: 's', owner: '123456789012', id: `${n}` },
      },
    }));
    const body = docs
      .map((d) => `${JSON.stringify({ index: d.index })}\n${JSON.stringify(d.source)}\n`)
      .join('');
    expect((await post(as(WRITER), '/_bulk?refresh=true', body)).status).toBe(200);
    const side = searchSide({
      client: as(ADMIN),
      stems: ['logs'],
      rotation: 'OneDay',
      meter: new RequestMeter(),
    });
    // WHEN
    const start = Date.parse('2026-11-29T10:00:00.000Z');
    const counts = await side.countPerMinute(
      [{ logGroup: '/kfek/standin', owner: '123456789012', filterPattern: '', subscriptionFilters: [] }],
      start,
      start + 10 * 60_000,
    );
    // THEN
    expect([...(counts.events.get('/kfek/standin') ?? new Map()).values()]).toEqual([2]);
    expect(search.refusals.filter((r) => r.reason.includes('_search'))).toEqual([]);
  });

  test("reconcile's lookups find each document by id without routing; fails when _mget sends the domain's routing", async () => {
    // GIVEN two documents in the default route's index, written as the indexer writes them (ids, no routing)
    const at = Date.parse('2026-11-29T10:02:00.000Z');
    const body = ['lk-1', 'lk-2']
      .map(
        (id) =>
          `${JSON.stringify({ index: { _index: 'logs-2026-11-29', _id: id } })}\n` +
          `${JSON.stringify({ '@timestamp': new Date(at).toISOString(), message: id })}\n`,
      )
      .join('');
    expect((await post(as(WRITER), '/_bulk?refresh=true', body)).status).toBe(200);
    const refs = ['lk-1', 'lk-2', 'lk-absent'].map((id) => ({ id, stem: 'logs', at }));
    const side = (routing: boolean) =>
      searchSide({
        client: as(ADMIN),
        stems: ['logs'],
        rotation: 'OneDay',
        meter: new RequestMeter(),
        routing,
      });
    // WHEN
    const found = await side(false).find(refs);
    const withRouting = side(true).find(refs);
    // THEN
    expect([...found.keys()].sort()).toEqual(['lk-1', 'lk-2']);
    expect(found.get('lk-1')).toMatchObject({ index: 'logs-2026-11-29', stem: 'logs' });
    await expect(withRouting).rejects.toThrow(/HTTP 400/);
    expect(search.refusals.at(-1)?.reason).toMatch(/routing/);
  });

  test("reconcile's lookups as a reader of kfek's families go index by index; fails when one root _mget names every index", async () => {
    // GIVEN a document in a payments index, and a principal that reads payments-* only (as the reconcile role reads
    // only kfek's families); one lookup in a day without an index
    const at = Date.parse('2026-11-29T10:03:00.000Z');
    const doc =
      `${JSON.stringify({ index: { _index: 'payments-2026-11-29', _id: 'pi-1' } })}\n` +
      `${JSON.stringify({ '@timestamp': new Date(at).toISOString(), message: 'pi-1' })}\n`;
    expect((await post(as(WRITER), '/_bulk?refresh=true', doc)).status).toBe(200);
    const refs = [
      { id: 'pi-1', stem: 'payments', at },
      { id: 'pi-old', stem: 'payments', at: Date.parse('2026-09-01T00:00:00.000Z') },
    ];
    const side = (lookupPerIndex: boolean) =>
      searchSide({
        client: as(PAYMENTS_READER),
        stems: ['payments'],
        rotation: 'OneDay',
        meter: new RequestMeter(),
        routing: false,
        lookupPerIndex,
      });
    // WHEN
    const found = await side(true).find(refs);
    const root = side(false).find(refs);
    // THEN
    expect([...found.keys()]).toEqual(['pi-1']);
    expect(found.get('pi-1')).toMatchObject({ index: 'payments-2026-11-29', stem: 'payments' });
    await expect(root).rejects.toThrow(/HTTP 403/);
    expect(search.refusals.at(-1)?.reason).toContain('index/kfek-standin/*');
  });

  test("retention by name: kfek's expired indices are deleted through the APIs Serverless lists; a writer cannot", async () => {
    // GIVEN indices of two families and one that is not kfek's, each with a document
    const names = [
      'logs-2026-10-01',
      'logs-2026-11-28',
      'payments-2026-10-01',
      'payments-2026-11-10',
      'logs-restored',
    ];
    const seeded = await post(
      as(ADMIN),
      '/_bulk?refresh=true',
      bulk(names.map((index, n) => ({ index, id: `r-${n}`, n }))),
    );
    expect(seeded.status).toBe(200);
    const plan = {
      families: [
        { stem: 'logs', retentionDays: 14 },
        { stem: 'payments', retentionDays: 30 },
      ],
      rotation: 'OneDay' as const,
      now: Date.parse('2026-11-29T12:00:00Z'),
    };
    // WHEN the writer tries first, then kfek's admin role
    const byWriter = await deleteExpiredIndices(as(WRITER), plan);
    const byAdmin = await deleteExpiredIndices(as(ADMIN), plan);
    // THEN
    expect(byWriter.deleted).toEqual([]);
    // The writer may list its families (DescribeIndex) but deletes nothing: each expired index is a failure.
    expect(byWriter.failed).toEqual([
      { index: 'logs-2026-10-01', reason: expect.stringMatching(/HTTP 403.*aoss:DeleteIndex/) },
      { index: 'payments-2026-10-01', reason: expect.stringMatching(/HTTP 403.*aoss:DeleteIndex/) },
    ]);
    expect(byAdmin).toEqual({ deleted: ['logs-2026-10-01', 'payments-2026-10-01'], failed: [] });
    const left = await node.client().request({ method: 'GET', path: '/_cat/indices?format=json&h=index' });
    const remaining = (left.body as { index: string }[]).map((r) => r.index);
    expect(remaining).toEqual(
      expect.arrayContaining(['logs-2026-11-28', 'payments-2026-11-10', 'logs-restored']),
    );
    expect(remaining).not.toEqual(expect.arrayContaining(['logs-2026-10-01']));
  });
});
