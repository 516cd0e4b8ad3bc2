/**
 * The provisioning code against a REAL OpenSearch 3.6 node (integ-test zip from Maven Central, see
 * scripts/opensearch-node.ts). That node has no security, ISM or Dashboards plugins, so this file checks the index
 * template end to end and that those steps are detected as absent and skipped; their payloads are checked against
 * the documented schemas in the unit tests (builders.test.ts).
 */
import { MIN_TOTAL_FIELDS_LIMIT } from '../../../core/opensearch/mappings';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { toDocument } from '../../../core/transform/document';
import { toErrorDocument } from '../../../core/transform/transform';
import { documentIdFor } from '../../../core/opensearch/ingest-pipeline';
import { createHttpClient, type OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { DEFAULT_OPENSEARCH_VERSION } from '../../../scripts/opensearch-node';
import { bulkIndex, useOpenSearchNode } from '../../helpers/opensearch';

const spec = resolveOpenSearchSpec({
  indexPrefix: 'logs',
  // One node: replicas would leave every index yellow.
  indexTemplate: { shards: 1, replicas: 0, totalFieldsLimit: MIN_TOTAL_FIELDS_LIMIT },
  retention: { deleteAfterDays: 7 },
  access: { firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose' },
});
const INDEX = 'logs-2026-11-22';

async function search(client: OpenSearchHttpClient, body: unknown): Promise<unknown> {
  const response = await client.request({ method: 'POST', path: `/${INDEX}/_search`, body });
  expect(response.status).toBe(200);
  return response.body;
}

async function get(client: OpenSearchHttpClient, path: string): Promise<unknown> {
  const response = await client.request({ method: 'GET', path });
  expect(response.status).toBe(200);
  return response.body;
}

describe('provisionOpenSearch against a real local node', () => {
  const os = useOpenSearchNode();

  function dashboardsClient(): OpenSearchHttpClient {
    return createHttpClient({ baseUrl: `${os.node().url}/_dashboards`, maxAttempts: 1 });
  }

  test('applies the template, skips the absent plugins, and is idempotent', async () => {
    // WHEN
    const first = await provisionOpenSearch(os.client(), spec, { dashboards: dashboardsClient() });
    const second = await provisionOpenSearch(os.client(), spec, { dashboards: dashboardsClient() });

    // THEN
    expect(first.version).toBe(DEFAULT_OPENSEARCH_VERSION);
    expect(first.features).toEqual({ ism: false, security: false, dashboards: false });
    expect(first.steps.map((s) => [s.step, s.status])).toEqual([
      ['ingest pipeline kfek-logs-document-id', 'created'],
      ['index template kfek-logs', 'created'],
      ['ISM policy', 'skipped'],
      ['security role', 'skipped'],
      ['dashboards saved objects', 'skipped'],
    ]);
    expect(second.steps.slice(0, 2)).toEqual([
      { step: 'ingest pipeline kfek-logs-document-id', status: 'unchanged' },
      { step: 'index template kfek-logs', status: 'unchanged' },
    ]);
    expect(await get(os.client(), '/_index_template/kfek-logs')).toMatchObject({
      index_templates: [
        {
          index_template: {
            index_patterns: ['logs-*'],
            template: {
              settings: {
                index: {
                  number_of_shards: '1',
                  number_of_replicas: '0',
                  codec: 'best_compression',
                  mapping: {
                    total_fields: { limit: String(MIN_TOTAL_FIELDS_LIMIT) },
                    ignore_malformed: 'true',
                  },
                },
              },
            },
          },
        },
      ],
    });
  });

  test('fails when ISM is required but the node lacks it', async () => {
    await expect(provisionOpenSearch(os.client(), spec, { features: { ism: true } })).rejects.toThrow(
      /ism plugin was required/,
    );
  });

  test('maps documents as the template says, in a daily index', async () => {
    // GIVEN
    await provisionOpenSearch(os.client(), spec);
    // Distinct event ids: the pipeline gives documents of the same event one id, and these are five events.
    let eventId = 0;
    const base = (): Record<string, unknown> => ({
      cloudwatch: {
        logGroup: '/aws/lambda/orders',
        logStream: 's1',
        id: String(++eventId),
        owner: '123456789012',
      },
    });

    // WHEN
    const bulk = await bulkIndex(os.client(), INDEX, [
      {
        ...base(),
        '@timestamp': '2026-11-22T10:00:00.000Z',
        message: 'order failed',
        level: 'ERROR',
        userId: 'u-1',
      },
      { ...base(), '@timestamp': '2026-11-22T10:00:01.000Z', message: 'boom', level: 'error', orderId: 42 },
      {
        ...base(),
        '@timestamp': '2026-11-22T10:00:02.000Z',
        message: 'ok',
        level: 'info',
        releasedAt: '2026-11-22',
      },
      {
        ...base(),
        '@timestamp': '2026-11-22T10:00:03.000Z',
        message: 'REPORT RequestId: r1 Duration: 12.5 ms',
        lambda: {
          requestId: 'r1',
          durationMs: 12.5,
          billedDurationMs: 13,
          memorySizeMb: 128,
          maxMemoryUsedMb: 70,
        },
      },
      {
        ...base(),
        '@timestamp': '2026-11-22T10:00:04.000Z',
        message: 'REPORT RequestId: r2 Duration: 1503.2 ms',
        lambda: { requestId: 'r2', durationMs: 1503.2, initDurationMs: 250.1 },
        errorMessage: 'Task timed out after 1.50 seconds',
      },
    ]);

    // THEN
    expect(bulk.body).toMatchObject({ errors: false });
    expect(await get(os.client(), `/${INDEX}/_mapping`)).toMatchObject({
      [INDEX]: {
        mappings: {
          properties: {
            '@timestamp': { type: 'date' },
            message: { type: 'text' },
            level: { type: 'keyword', normalizer: 'kfek_uppercase' },
            cloudwatch: { properties: { logGroup: { type: 'keyword' } } },
            lambda: {
              properties: {
                durationMs: { type: 'double' },
                initDurationMs: { type: 'double' },
                memorySizeMb: { type: 'double' },
                requestId: { type: 'keyword' },
              },
            },
            userId: { type: 'keyword', ignore_above: 1024 },
            orderId: { type: 'long' },
            // date_detection is off: a date-looking string stays a keyword.
            releasedAt: { type: 'keyword' },
            errorMessage: { type: 'text' },
          },
        },
      },
    });
    expect(await get(os.client(), `/${INDEX}/_settings`)).toMatchObject({
      [INDEX]: { settings: { index: { codec: 'best_compression' } } },
    });
  });

  test('a numeric range query on lambda.durationMs works', async () => {
    const result = await search(os.client(), {
      query: { range: { 'lambda.durationMs': { gte: 1000 } } },
    });
    expect(result).toMatchObject({
      hits: { total: { value: 1 }, hits: [{ _source: { lambda: { requestId: 'r2' } } }] },
    });
  });

  test('level is a keyword: a terms aggregation counts ERROR and error as one level', async () => {
    const result = await search(os.client(), {
      size: 0,
      aggs: { levels: { terms: { field: 'level' } } },
    });
    expect(result).toMatchObject({
      aggregations: {
        levels: {
          buckets: expect.arrayContaining([
            { key: 'ERROR', doc_count: 2 },
            { key: 'INFO', doc_count: 1 },
          ]),
        },
      },
    });
    const byLowercaseTerm = await search(os.client(), { query: { term: { level: 'error' } } });
    expect(byLowercaseTerm).toMatchObject({ hits: { total: { value: 2 } } });
  });

  test('a malformed number is dropped from the index (ignore_malformed), the document is kept', async () => {
    // WHEN
    const bulk = await bulkIndex(os.client(), INDEX, [
      {
        '@timestamp': '2026-11-22T11:00:00.000Z',
        message: 'odd report',
        lambda: { requestId: 'r3', durationMs: 'slow' },
      },
    ]);

    // THEN
    expect(bulk.body).toMatchObject({ errors: false, items: [{ index: { status: 201 } }] });
    const found = await search(os.client(), { query: { term: { 'lambda.requestId': 'r3' } } });
    expect(found).toMatchObject({
      hits: { hits: [{ _ignored: ['lambda.durationMs'], _source: { lambda: { durationMs: 'slow' } } }] },
    });
    const slowRange = await search(os.client(), { query: { range: { 'lambda.durationMs': { gte: 0 } } } });
    expect(slowRange).toMatchObject({ hits: { total: { value: 2 } } });
  });

  test('an object where the template maps a keyword is kept in _source but not indexed (ignore_malformed)', async () => {
    // Measured on OpenSearch 3.6: with index.mapping.ignore_malformed an object sent to a keyword field no longer
    // fails the document (without the setting it is a mapper_parsing_exception); unlike a malformed number it gets
    // no _ignored marker.
    // WHEN
    const bulk = await bulkIndex(os.client(), INDEX, [
      { '@timestamp': '2026-11-22T11:00:01.000Z', message: 'level as object', level: { code: 3 } },
    ]);

    // THEN
    expect(bulk.body).toMatchObject({ errors: false, items: [{ index: { status: 201 } }] });
    const found = await search(os.client(), { query: { match: { message: 'level as object' } } });
    expect(found).toMatchObject({ hits: { hits: [{ _source: { level: { code: 3 } } }] } });
    const byLevel = await search(os.client(), {
      query: {
        bool: { filter: [{ match: { message: 'level as object' } }, { exists: { field: 'level' } }] },
      },
    });
    expect(byLevel).toMatchObject({ hits: { total: { value: 0 } } });
  });

  test('a plain value where the template maps an object is rejected (Firehose keeps it in S3)', async () => {
    // WHEN
    const bulk = await bulkIndex(os.client(), INDEX, [
      { '@timestamp': '2026-11-22T11:00:02.000Z', message: 'cloudwatch as string', cloudwatch: 'oops' },
    ]);

    // THEN
    expect(bulk.body).toMatchObject({
      errors: true,
      items: [
        {
          index: {
            status: 400,
            error: {
              type: 'mapper_parsing_exception',
              reason: expect.stringMatching(/object mapping for \[cloudwatch\].*found a concrete value/),
            },
          },
        },
      ],
    });
  });

  test('the total-fields limit holds', async () => {
    // GIVEN: 150 new fields on top of the ~35 already mapped exceed the smallest limit kfek allows (template + budget).
    const wide: Record<string, string> = { '@timestamp': '2026-11-22T12:00:00.000Z', message: 'wide' };
    for (let i = 0; i < 150; i++) {
      wide[`field${i}`] = `v${i}`;
    }

    // WHEN
    const bulk = await bulkIndex(os.client(), INDEX, [wide]);

    // THEN
    expect(bulk.body).toMatchObject({
      errors: true,
      items: [
        {
          index: {
            status: 400,
            error: {
              reason: expect.stringMatching(
                new RegExp(`Limit of total fields \\[${MIN_TOTAL_FIELDS_LIMIT}\\] has been exceeded`),
              ),
            },
          },
        },
      ],
    });
  });

  test('the template sets search and indexing slow-log thresholds, and an index created from it carries them', async () => {
    // GIVEN: thresholds from the spec (config openSearch.indexTemplate.slow*Ms); without them OpenSearch logs no slow
    // query or indexing operation at all (the thresholds default to -1) and the domain's slow-log groups stay empty.
    const withThresholds = resolveOpenSearchSpec({
      indexPrefix: 'slow',
      indexTemplate: {
        shards: 1,
        replicas: 0,
        slowSearchWarnMs: 4000,
        slowSearchInfoMs: 1500,
        slowIndexWarnMs: 3000,
        slowIndexInfoMs: 1000,
      },
    });

    // WHEN: the real node accepts the template, and the first document creates an index from it.
    const report = await provisionOpenSearch(os.client(), withThresholds);
    await bulkIndex(os.client(), 'slow-2026-11-23', [
      { '@timestamp': '2026-11-23T00:00:00.000Z', message: 'x' },
    ]);

    // THEN
    expect(report.steps).toContainEqual(
      expect.objectContaining({ step: 'index template kfek-slow', status: 'created' }),
    );
    expect(await get(os.client(), '/slow-2026-11-23/_settings')).toMatchObject({
      'slow-2026-11-23': {
        settings: {
          index: {
            search: { slowlog: { threshold: { query: { warn: '4000ms', info: '1500ms' } } } },
            indexing: { slowlog: { threshold: { index: { warn: '3000ms', info: '1000ms' } } } },
          },
        },
      },
    });
  });

  test('a changed spec updates the template; the next daily index gets the new settings', async () => {
    // GIVEN
    const changed = resolveOpenSearchSpec({
      indexPrefix: 'logs',
      indexTemplate: { shards: 2, replicas: 0, totalFieldsLimit: 200 },
    });

    // WHEN
    const report = await provisionOpenSearch(os.client(), changed);
    await bulkIndex(os.client(), 'logs-2026-11-23', [
      { '@timestamp': '2026-11-23T00:00:00.000Z', message: 'next day' },
    ]);

    // THEN
    expect(report.steps.find((s) => s.step === 'index template kfek-logs')).toMatchObject({
      status: 'updated',
      // Mappings and static settings reach the next index only (doctor says so too).
      impact: 'next-index',
    });
    expect(await get(os.client(), '/logs-2026-11-23/_settings')).toMatchObject({
      'logs-2026-11-23': {
        settings: { index: { number_of_shards: '2', mapping: { total_fields: { limit: '200' } } } },
      },
    });
  });

  test('app strings named in aggregatableFields can be aggregated; every other app string is searchable only', async () => {
    // GIVEN a profile that keeps `status` and everything under `http` aggregatable
    const aggregatable = resolveOpenSearchSpec({
      indexPrefix: 'logs',
      indexTemplate: {
        shards: 1,
        replicas: 0,
        totalFieldsLimit: MIN_TOTAL_FIELDS_LIMIT,
        aggregatableFields: ['status', 'http.*'],
      },
    });
    await provisionOpenSearch(os.client(), aggregatable);
    const index = 'logs-2026-11-24';
    await bulkIndex(os.client(), index, [
      {
        '@timestamp': '2026-11-24T00:00:00.000Z',
        message: 'a',
        status: 'ok',
        http: { method: 'GET' },
        user: 'ann',
      },
      {
        '@timestamp': '2026-11-24T00:00:01.000Z',
        message: 'b',
        status: 'ok',
        http: { method: 'PUT' },
        user: 'bob',
      },
    ]);
    const terms = (field: string): Promise<{ status: number; body: unknown }> =>
      os.client().request({
        method: 'POST',
        path: `/${index}/_search`,
        body: { size: 0, aggs: { top: { terms: { field } } } },
      });
    // WHEN / THEN
    expect(await terms('status')).toMatchObject({
      status: 200,
      body: { aggregations: { top: { buckets: [{ key: 'ok', doc_count: 2 }] } } },
    });
    expect(await terms('http.method')).toMatchObject({ status: 200 });
    // `user` is not listed: no doc values, the aggregation is refused, but a search finds it
    expect((await terms('user')).status).toBe(400);
    const byUser = await os.client().request({
      method: 'POST',
      path: `/${index}/_search`,
      body: { query: { term: { user: 'ann' } } },
    });
    expect(byUser.body).toMatchObject({ hits: { total: { value: 1 } } });
    await provisionOpenSearch(os.client(), spec);
  });

  test('the pipeline gives each event the id documentIdFor computes; an event sent twice is one document', async () => {
    // GIVEN three events (unicode and a `|` in the stream name, a 56-digit id), each sent twice in one bulk and
    // once more in a second bulk, through the local Firehose stand-in's bulk shape (no _id in the action)
    await provisionOpenSearch(os.client(), spec);
    const index = 'logs-2026-11-25';
    const events = [
      {
        logGroup: '/aws/lambda/orders',
        logStream: '2026/11/25/[$LATEST]abc',
        id: '39494971786919662926967737244165955921131981322179969024',
      },
      { logGroup: '/aws/lambda/orders', logStream: 'straße/日本語/😀|x', id: '7' },
      { logGroup: '/aws/lambda/orders', logStream: '7', id: 'straße/日本語/😀|x' },
    ];
    const docs = events.map((cw, i) => ({
      '@timestamp': `2026-11-25T10:00:0${i}.000Z`,
      message: `event ${i}`,
      cloudwatch: { ...cw, owner: '123456789012' },
    }));

    // WHEN
    const first = await bulkIndex(os.client(), index, [...docs, ...docs]);
    const again = await bulkIndex(os.client(), index, docs);

    // THEN
    expect(first.body).toMatchObject({ errors: false });
    const results = (again.body as { items: { index: { result: string; _id: string } }[] }).items;
    expect(results.map((r) => r.index.result)).toEqual(['updated', 'updated', 'updated']);
    expect(results.map((r) => r.index._id)).toEqual(
      events.map((cw) => documentIdFor(cw.logGroup, cw.logStream, cw.id)),
    );
    expect(await get(os.client(), `/${index}/_count`)).toMatchObject({ count: 3 });
  });

  test('error documents (no event id) keep ids OpenSearch generates: two stay two', async () => {
    // GIVEN the Pipes transport's error documents, whose cloudwatch fields are empty
    await provisionOpenSearch(os.client(), spec);
    const index = 'logs-2026-11-26';
    const receivedAt = new Date(Date.UTC(2026, 10, 26, 9));

    // WHEN
    const bulk = await bulkIndex(os.client(), index, [
      toErrorDocument('bm90IGd6aXA=', 'not gzip', receivedAt),
      toErrorDocument('bm90IGpzb24=', 'not json', receivedAt),
    ]);

    // THEN
    expect(bulk.body).toMatchObject({ errors: false });
    expect(await get(os.client(), `/${index}/_count`)).toMatchObject({ count: 2 });
  });

  test('the real transform output of every fixture log line is indexed without a rejection', async () => {
    // GIVEN: the shipped template (default limits) and the documents lambda/transform makes from real log lines.
    await provisionOpenSearch(
      os.client(),
      resolveOpenSearchSpec({ indexPrefix: 'logs', indexTemplate: { replicas: 0 } }),
    );
    const fixtures = [
      'app-json-log-lines.jsonl',
      'lambda-platform-and-app-lines__json-log-format.jsonl',
      'lambda-platform-and-runtime-lines__text-format.jsonl',
    ];
    const lines = fixtures.flatMap((f) =>
      readFileSync(join(__dirname, '..', '..', 'fixtures', f), 'utf8')
        .split('\n')
        .filter((l) => l.trim().length > 0)
        .map((l) => (JSON.parse(l) as { message: string }).message),
    );
    const source = {
      logGroup: '/aws/lambda/orders',
      logStream: '2026/11/24/[$LATEST]abc',
      owner: '123456789012',
    };
    const documents = lines.map((message, i) =>
      toDocument({ id: String(i), timestamp: Date.UTC(2026, 10, 24, 8, 0, i), message }, source),
    );

    // WHEN
    const bulk = await bulkIndex(os.client(), 'logs-2026-11-24', documents);

    // THEN
    const items = (bulk.body as { items: { index: { status: number; error?: unknown } }[] }).items;
    expect(items).toHaveLength(lines.length);
    expect(items.filter((item) => item.index.status !== 201).map((item) => item.index.error)).toEqual([]);
    const reports = await os.client().request({
      method: 'POST',
      path: '/logs-2026-11-24/_search',
      body: { size: 0, query: { range: { 'lambda.durationMs': { gt: 0 } } } },
    });
    const withDuration = documents.filter(
      (d) => typeof (d.lambda as { durationMs?: unknown } | undefined)?.durationMs === 'number',
    );
    expect(withDuration.length).toBeGreaterThan(0);
    expect(reports.body).toMatchObject({ hits: { total: { value: withDuration.length } } });
  });
});
