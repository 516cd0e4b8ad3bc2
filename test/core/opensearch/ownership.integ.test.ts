/**
 * Ownership by kfek's record and drift by content (issue 39) on the REAL plain OpenSearch 2.19.4 node, ISM stood in
 * (test/helpers/ism-on-node.ts): what the node answers for templates and pipelines is normalized so a deploy that
 * changes nothing writes nothing; hand edits made through the API that keep kfek's marks are restored and reported
 * with what changed; a template that lost its mark deploys without a clash with itself; copies under other names
 * stay. One node for the file; the tests run in order on it.
 */
import type { HttpRequest, OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch, type ProvisionReport } from '../../../core/opensearch/provision';
import { registryIndex } from '../../../core/opensearch/registry';
import { resolveOpenSearchSpec, type OpenSearchSpecInput } from '../../../core/opensearch/spec';
import { withFakeIsm, type NodeWithIsm } from '../../helpers/ism-on-node';
import { useOpenSearchNode } from '../../helpers/opensearch';

const input: OpenSearchSpecInput = {
  indexPrefix: 'app',
  indexTemplate: { shards: 1, replicas: 0 },
  retention: { deleteAfterDays: 14 },
  access: { firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose' },
  routes: [{ name: 'orders', indexStem: 'orders', retentionDays: 21, readerBackendRoles: ['orders-team'] }],
};
const spec = resolveOpenSearchSpec(input);

async function send(client: OpenSearchHttpClient, request: HttpRequest): Promise<Record<string, unknown>> {
  const answer = await client.request(request);
  if (answer.status >= 300)
    throw new Error(`${request.method} ${request.path}: ${answer.status} ${answer.text}`);
  return answer.body as Record<string, unknown>;
}

async function template(client: OpenSearchHttpClient, name: string): Promise<Record<string, unknown>> {
  const body = await send(client, { method: 'GET', path: `/_index_template/${name}` });
  return (body.index_templates as Array<{ index_template: Record<string, unknown> }>)[0].index_template;
}

/** The keys kfek's record holds on the node, sorted. */
async function recordKeys(client: OpenSearchHttpClient): Promise<string[]> {
  const record = await send(client, { method: 'GET', path: `/${registryIndex('kfek')}/_doc/objects` });
  return Object.keys((record._source as { objects: object }).objects).sort();
}

const changed = (report: ProvisionReport): string[] =>
  report.steps.filter((s) => s.status !== 'unchanged' && s.status !== 'skipped').map((s) => s.step);

describe('ownership and drift on a real node', () => {
  const os = useOpenSearchNode();
  let domain: NodeWithIsm;
  const deploy = (): Promise<ProvisionReport> => provisionOpenSearch(domain.client, spec);

  beforeAll(async () => {
    domain = withFakeIsm(os.client(), () => Date.now());
    await send(os.client(), { method: 'PUT', path: '/app-2026-11-28' });
    await deploy();
    await domain.ism.runJobs();
  });

  test('a second deploy changes nothing: the live objects compare equal to what kfek renders', async () => {
    // WHEN
    const again = await deploy();
    // THEN
    expect(changed(again)).toEqual([]);
    expect(await recordKeys(os.client())).toEqual([
      'index-template:kfek-app',
      'index-template:kfek-orders',
      'ingest-pipeline:kfek-app-document-id',
      'ism-policy:kfek-app-retention',
      'ism-policy:kfek-orders-retention',
    ]);
  });

  test('the route template edited with _meta kept (extra pattern, default_pipeline _none) is restored and reported', async () => {
    // GIVEN
    const rendered = await template(os.client(), 'kfek-orders');
    const edited = structuredClone(rendered) as {
      index_patterns: string[];
      template: { settings: { index: Record<string, unknown> } };
    };
    edited.index_patterns.push('foo-*');
    edited.template.settings.index.default_pipeline = '_none';
    await send(os.client(), { method: 'PUT', path: '/_index_template/kfek-orders', body: edited });
    // WHEN
    const report = await deploy();
    // THEN
    const step = report.steps.find((s) => s.step === 'index template kfek-orders');
    expect(step).toMatchObject({ status: 'updated', impact: 'drift' });
    expect(step?.detail).toContain('index_patterns + foo-*');
    expect(step?.detail).toContain('template.settings.index.default_pipeline _none -> kfek-app-document-id');
    expect(await template(os.client(), 'kfek-orders')).toEqual(rendered);
    expect(changed(await deploy())).toEqual([]);
  });

  test('the ISM policy edited to delete after 1 day, its description kept, is restored to 21 days as drift', async () => {
    // GIVEN
    const stored = domain.ism.policies.get('kfek-orders-retention');
    if (stored === undefined) throw new Error('no kfek-orders-retention');
    const { policy_id: _id, last_updated_time: _t, schema_version: _v, ...policy } = stored.policy;
    const oneDay = JSON.parse(
      JSON.stringify(policy).replace('"min_index_age":"21d"', '"min_index_age":"1d"'),
    ) as unknown;
    await send(domain.client, {
      method: 'PUT',
      path: `/_plugins/_ism/policies/kfek-orders-retention?if_seq_no=${stored.seqNo}&if_primary_term=${stored.primaryTerm}`,
      body: { policy: oneDay },
    });
    // WHEN
    const report = await deploy();
    // THEN
    const step = report.steps.find((s) => s.step === 'ISM policy kfek-orders-retention');
    expect(step).toMatchObject({ status: 'updated', impact: 'drift' });
    expect(step?.detail).toContain('min_index_age 1d -> 21d');
    expect(JSON.stringify(domain.ism.policies.get('kfek-orders-retention')?.policy.states)).toContain(
      '"min_index_age":"21d"',
    );
  });

  test('a kfek template whose _meta lost its mark deploys without a clash with itself and is restored', async () => {
    // GIVEN
    const rendered = await template(os.client(), 'kfek-app');
    const { _meta: _lost, ...unmarked } = rendered;
    await send(os.client(), { method: 'PUT', path: '/_index_template/kfek-app', body: unmarked });
    // WHEN
    const report = await deploy();
    // THEN
    expect(report.steps.find((s) => s.step === 'index template kfek-app')).toMatchObject({
      status: 'updated',
      impact: 'drift',
    });
    expect(await template(os.client(), 'kfek-app')).toEqual(rendered);
  });

  test('copies of kfek objects under other names, marks kept, survive a deploy that prunes', async () => {
    // GIVEN a copy of kfek's template and pipeline, marks kept
    const rendered = await template(os.client(), 'kfek-app');
    await send(os.client(), {
      method: 'PUT',
      path: '/_index_template/kfek-app-copy',
      body: { ...rendered, index_patterns: ['copy-*'], priority: 7 },
    });
    const pipelines = await send(os.client(), {
      method: 'GET',
      path: '/_ingest/pipeline/kfek-app-document-id',
    });
    await send(os.client(), {
      method: 'PUT',
      path: '/_ingest/pipeline/kfek-copy-document-id',
      body: pipelines['kfek-app-document-id'],
    });
    // WHEN a profile without the route prunes what kfek owns and no longer declares
    const without = resolveOpenSearchSpec({ ...input, routes: [] });
    const report = await provisionOpenSearch(domain.client, without, { previous: spec });
    // THEN the route's own objects go, the copies stay
    expect(report.steps.filter((s) => s.status === 'deleted').map((s) => s.step)).toEqual(
      expect.arrayContaining(['index template kfek-orders', 'ISM policy kfek-orders-retention']),
    );
    expect(changed(report).filter((s) => s.includes('copy'))).toEqual([]);
    expect((await template(os.client(), 'kfek-app-copy')).index_patterns).toEqual(['copy-*']);
    expect(
      Object.keys(
        await send(os.client(), { method: 'GET', path: '/_ingest/pipeline/kfek-copy-document-id' }),
      ),
    ).toEqual(['kfek-copy-document-id']);
  });

  test('a domain without the record (deployed by older kfek) adopts its own objects by name, and no copy', async () => {
    // GIVEN the record is gone; kfek's objects and the marked copies stay
    await send(os.client(), { method: 'DELETE', path: `/${registryIndex('kfek')}` });
    const without = resolveOpenSearchSpec({ ...input, routes: [] });
    // WHEN
    const report = await provisionOpenSearch(domain.client, without, { previous: without });
    // THEN nothing changes, and the new record names kfek's objects only
    expect(changed(report)).toEqual([]);
    expect(await recordKeys(os.client())).toEqual([
      'index-template:kfek-app',
      'ingest-pipeline:kfek-app-document-id',
      'ism-policy:kfek-app-retention',
    ]);
  });
});
