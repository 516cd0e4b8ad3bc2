/**
 * The conformance stand-in's rules (scripts/serverless/rules.ts, docs/serverless.md): each refuses what Serverless
 * refuses and passes what it accepts; and kfek's own request bodies (the provisioner's templates and pipeline) are
 * held to them, so a change that makes kfek send what Serverless refuses fails here.
 */
import { resolveConfig } from '../../../core/config';
import { buildIndexTemplate } from '../../../core/opensearch/index-template';
import { buildIngestPipeline } from '../../../core/opensearch/ingest-pipeline';
import { buildServerlessIndexTemplate } from '../../../core/opensearch/serverless-template';
import { openSearchSpecInputOf } from '../../../core/config/opensearch-spec';
import { indexFamilies, resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { refusalOf, type StandinRequest } from '../../../scripts/serverless/rules';
import { CDK_JSON_CONTEXT } from '../../helpers/app';

const req = (
  method: string,
  path: string,
  body: unknown = '',
  query: Record<string, string> = {},
): StandinRequest => ({
  method,
  path,
  query,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const ndjson = (...lines: unknown[]): string => lines.map((l) => JSON.stringify(l)).join('\n') + '\n';

describe('APIs Serverless does not list are refused', () => {
  test.each([
    ['GET', '/_cluster/health'],
    ['PUT', '/_cluster/settings'],
    ['GET', '/_nodes/stats'],
    ['GET', '/_cat/shards'],
    ['PUT', '/_plugins/_ism/policies/kfek-logs-retention'],
    ['PUT', '/_plugins/_security/api/roles/kfek_reader'],
    ['PUT', '/_snapshot/repo'],
    ['GET', '/_tasks'],
    ['PUT', '/_scripts/kfek-id'],
    ['GET', '/'],
    ['POST', '/logs-*/_delete_by_query'],
  ])('fails when %s %s is sent', (method, path) => {
    // WHEN
    const refusal = refusalOf(req(method, path), 'SEARCH');
    // THEN
    expect(refusal?.status).toBe(404);
    expect(refusal?.reason).toMatch(/not among the operations Serverless supports/);
  });

  test.each([
    ['POST', '/_bulk'],
    ['POST', '/logs-2026-11-29/_bulk'],
    ['POST', '/logs-*/_search'],
    ['GET', '/logs-*,payments-*/_count'],
    ['POST', '/_mget'],
    ['GET', '/_cat/indices'],
    ['PUT', '/logs-2026-11-29'],
    ['DELETE', '/logs-2026-11-01'],
    ['GET', '/logs-2026-11-29/_mapping'],
    ['PUT', '/_index_template/kfek-logs'],
    ['PUT', '/_ingest/pipeline/kfek-set'],
    ['POST', '/_aliases'],
    ['PUT', '/logs-2026-11-29/_doc/abc'],
  ])('passes %s %s on a SEARCH collection', (method, path) => {
    // WHEN / THEN
    expect(refusalOf(req(method, path), 'SEARCH')).toBeUndefined();
  });
});

describe('document ids by collection type', () => {
  test.each(['TIMESERIES', 'VECTORSEARCH'] as const)('fails when a document is put by id on %s', (type) => {
    // WHEN
    const refusal = refusalOf(req('PUT', '/logs-1/_doc/abc', { a: 1 }), type);
    // THEN
    expect(refusal?.reason).toMatch(/SEARCH collections only/);
  });

  test.each([
    ['index with _id', ndjson({ index: { _index: 'logs-1', _id: 'a' } }, { a: 1 })],
    ['create with _id', ndjson({ create: { _index: 'logs-1', _id: 'a' } }, { a: 1 })],
    ['delete', ndjson({ delete: { _index: 'logs-1', _id: 'a' } })],
  ])('fails when a TIMESERIES bulk carries %s', (_name, body) => {
    // WHEN
    const refusal = refusalOf(req('POST', '/_bulk', body), 'TIMESERIES');
    // THEN
    expect(refusal?.reason).toMatch(/generates document ids/);
  });

  test('passes a TIMESERIES bulk without ids, and a SEARCH bulk with them', () => {
    // GIVEN
    const noIds = ndjson(
      { index: { _index: 'logs-1' } },
      { a: 1 },
      { create: { _index: 'logs-1' } },
      { b: 2 },
    );
    const ids = ndjson(
      { index: { _index: 'logs-1', _id: 'a' } },
      { a: 1 },
      { delete: { _index: 'logs-1', _id: 'b' } },
    );
    // WHEN / THEN
    expect(refusalOf(req('POST', '/_bulk', noIds), 'TIMESERIES')).toBeUndefined();
    expect(refusalOf(req('POST', '/_bulk', ids), 'SEARCH')).toBeUndefined();
  });

  test('fails when a bulk action or the query carries routing', () => {
    // GIVEN
    const routed = ndjson(
      { index: { _index: 'logs-1', _id: 'a' } },
      { a: 1 },
      { index: { _index: 'logs-1', _id: 'b', routing: 'b' } },
      { b: 1 },
    );
    // WHEN / THEN
    expect(refusalOf(req('POST', '/_bulk', routed), 'SEARCH')?.reason).toMatch(
      /bulk action 1 carries "routing"/,
    );
    expect(refusalOf(req('PUT', '/logs-1/_doc/a', { a: 1 }, { routing: 'a' }), 'SEARCH')?.reason).toMatch(
      /routing/,
    );
  });

  test("fails when an _mget doc carries routing (reconcile's domain lookup); passes one without", () => {
    // GIVEN
    const docs = (routing?: string) => ({
      docs: [
        { _index: 'logs-1', _id: 'a' },
        { _index: 'logs-1', _id: 'b', ...(routing === undefined ? {} : { routing }) },
      ],
    });
    // WHEN / THEN
    expect(refusalOf(req('POST', '/_mget', docs('b')), 'SEARCH')?.reason).toMatch(
      /_mget doc 1 carries "routing"/,
    );
    expect(refusalOf(req('POST', '/logs-1/_mget', docs('b')), 'SEARCH')?.reason).toMatch(/routing/);
    expect(refusalOf(req('POST', '/_mget', docs()), 'SEARCH')).toBeUndefined();
  });

  test('fails when a search opens a scroll or reads one', () => {
    // WHEN / THEN
    expect(
      refusalOf(req('POST', '/logs-*/_search', { size: 10 }, { scroll: '1m' }), 'SEARCH')?.reason,
    ).toMatch(/scroll API is not supported/);
    expect(refusalOf(req('POST', '/_search/scroll', { scroll_id: 'x' }), 'SEARCH')?.status).toBe(404);
    expect(refusalOf(req('POST', '/logs-*/_search', { size: 10 }), 'SEARCH')).toBeUndefined();
  });

  test('passes _bulk?pipeline=, which Serverless applies per request', () => {
    // WHEN / THEN
    expect(
      refusalOf(req('POST', '/_bulk', ndjson({ index: { _index: 'l' } }, {}), { pipeline: 'p' }), 'SEARCH'),
    ).toBeUndefined();
  });
});

describe('settings the service owns', () => {
  test.each([
    ['number_of_shards', 'PUT', '/logs-1', { settings: { index: { number_of_shards: 2 } } }],
    ['number_of_replicas', 'PUT', '/logs-1', { settings: { 'index.number_of_replicas': 1 } }],
    [
      'number_of_shards',
      'PUT',
      '/_index_template/t',
      { template: { settings: { index: { number_of_shards: 1 } } } },
    ],
    ['auto_expand_replicas', 'PUT', '/logs-1/_settings', { index: { auto_expand_replicas: '0-1' } }],
    [
      'index_state_management',
      'PUT',
      '/logs-1',
      { settings: { 'plugins.index_state_management.policy_id': 'p' } },
    ],
    [
      'routing.allocation',
      'PUT',
      '/logs-1/_settings',
      { 'index.routing.allocation.require.box_type': 'warm' },
    ],
  ])('fails when a request sets %s (%s %s)', (key, method, path, body) => {
    // WHEN
    const refusal = refusalOf(req(method, path, body), 'SEARCH');
    // THEN
    expect(refusal?.reason).toMatch(new RegExp(`setting ".*${key.replace(/\./g, '\\.')}.*" is refused`));
  });

  test('passes mappings, a refresh interval and a codec (CloudFormation itself sets RefreshInterval)', () => {
    // GIVEN
    const body = {
      settings: { index: { refresh_interval: '5s', codec: 'best_compression' } },
      mappings: { dynamic: true },
    };
    // WHEN / THEN
    expect(refusalOf(req('PUT', '/logs-1', body), 'SEARCH')).toBeUndefined();
  });
});

describe('no Painless', () => {
  test.each([
    [
      'an ingest script processor',
      'PUT',
      '/_ingest/pipeline/p',
      { processors: [{ script: { source: 'ctx.a = 1' } }] },
    ],
    [
      'a processor condition',
      'PUT',
      '/_ingest/pipeline/p',
      { processors: [{ set: { field: 'a', value: 1, if: 'ctx.b != null' } }] },
    ],
    ['a script query', 'POST', '/logs-*/_search', { query: { script: { script: 'true' } } }],
    ['script fields', 'POST', '/logs-*/_search', { script_fields: { x: { script: '1' } } }],
    ['a scripted update', 'POST', '/logs-1/_update/a', { script: { source: 'ctx._source.a = 1' } }],
  ])('fails when %s is sent', (_name, method, path, body) => {
    // WHEN
    const refusal = refusalOf(req(method, path, body), 'SEARCH');
    // THEN
    expect(refusal?.reason).toMatch(/Painless script/);
  });

  test('fails when a bulk update carries a script', () => {
    // GIVEN
    const body = ndjson(
      { update: { _index: 'logs-1', _id: 'a' } },
      { script: { source: 'ctx._source.n += 1' } },
    );
    // WHEN / THEN
    expect(refusalOf(req('POST', '/_bulk', body), 'SEARCH')?.reason).toMatch(/Painless/);
  });

  test('passes a pipeline of curated processors', () => {
    // GIVEN
    const body = { processors: [{ set: { field: 'a', value: 1 } }, { remove: { field: 'b' } }] };
    // WHEN / THEN
    expect(refusalOf(req('PUT', '/_ingest/pipeline/p', body), 'SEARCH')).toBeUndefined();
  });
});

describe("kfek's own requests", () => {
  const config = resolveConfig(CDK_JSON_CONTEXT, 'teams');
  const spec = resolveOpenSearchSpec(openSearchSpecInputOf(config));
  const families = indexFamilies(spec);

  test.each(families.map((f) => [f.indexPattern, f] as const))(
    'the serverless template of %s passes; the domain template would not',
    (_pattern, family) => {
      // WHEN
      const serverless = refusalOf(
        req(
          'PUT',
          `/_index_template/${family.names.indexTemplate}`,
          buildServerlessIndexTemplate(spec, family),
        ),
        'SEARCH',
      );
      const domain = refusalOf(
        req('PUT', `/_index_template/${family.names.indexTemplate}`, buildIndexTemplate(spec, family)),
        'SEARCH',
      );
      // THEN
      expect(serverless).toBeUndefined();
      expect(domain?.reason).toMatch(/number_of_shards/);
    },
  );

  test("fails when the domain's ingest pipeline is sent: it sets ids with Painless, which is why serverless needs the indexer", () => {
    // WHEN
    const refusal = refusalOf(
      req('PUT', `/_ingest/pipeline/${spec.names.ingestPipeline}`, buildIngestPipeline(spec)),
      'SEARCH',
    );
    // THEN
    expect(refusal?.reason).toMatch(/Painless/);
  });
});
