/**
 * The request-path builder (core/opensearch/request-path.ts) against the REAL node (2.19.4, plain, one start for
 * the file): a request built for a name addresses exactly that one object, over generated hostile and legal names,
 * and a kfek deploy with hostile names beside its own indices changes nothing outside its own set. Roles and role
 * mappings (the security plugin): request-path.secured.test.ts.
 */
import fc from 'fast-check';
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { isAddressable, name, requestPath, type Segment } from '../../../core/opensearch/request-path';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { generatedName, refused } from '../../helpers/hostile-names';
import { useOpenSearchNode } from '../../helpers/opensearch';

/** Hostile and legal names of every shape (test/helpers/hostile-names.ts). */
const hostile = generatedName(6);

async function ok(
  client: OpenSearchHttpClient,
  method: 'GET' | 'PUT' | 'DELETE',
  path: string,
  body?: unknown,
) {
  const answer = await client.request({ method, path, ...(body === undefined ? {} : { body }) });
  if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text}`);
  return answer.body as Record<string, unknown>;
}

/** Every visible index with its settings, every pipeline and template: what a request could change. */
async function snapshot(client: OpenSearchHttpClient): Promise<Record<string, unknown>> {
  const settings = await ok(client, 'GET', '/_all/_settings?flat_settings=true&expand_wildcards=open');
  const visible = Object.fromEntries(
    Object.entries(settings)
      .filter(([index]) => !index.startsWith('.'))
      .map(([index, v]) => [index, (v as { settings: Record<string, unknown> }).settings]),
  );
  const pipelines = await client.request({ method: 'GET', path: '/_ingest/pipeline' });
  const templates = await ok(client, 'GET', '/_index_template');
  return { indices: visible, pipelines: pipelines.status === 200 ? pipelines.body : {}, templates };
}

type Kind = 'index' | 'ingest pipeline' | 'index template';
/** The objects there before the property runs (a generated name equal to one would be that object). */
const FIXTURES: Record<Kind, readonly string[]> = {
  index: ['victim', 'logs-a', 'logs-b'],
  'ingest pipeline': ['victim'],
  'index template': ['victim'],
};

async function namesOf(client: OpenSearchHttpClient, kind: Kind): Promise<string[]> {
  const listed = await snapshot(client);
  if (kind === 'index template') {
    return (listed.templates as { index_templates: { name: string }[] }).index_templates.map((t) => t.name);
  }
  if (kind === 'ingest pipeline') return Object.keys(listed.pipelines as object);
  // Every index, hidden ones too: `..a` is a legal (dot-prefixed) index name.
  const all = await client.request({
    method: 'GET',
    path: '/_cat/indices?format=json&h=index&expand_wildcards=all',
  });
  return (all.body as { index: string }[]).map((i) => i.index);
}

/** Sets a refresh interval on `index` through the builder's path; the indices whose settings then answer. */
async function changeSettings(client: OpenSearchHttpClient, index: string): Promise<string[]> {
  await ok(client, 'PUT', requestPath([name('index', index), '_settings']), {
    index: { refresh_interval: '13s' },
  });
  return Object.keys(await ok(client, 'GET', requestPath([name('index', index), '_settings'])));
}

describe('request paths on a real node', () => {
  const os = useOpenSearchNode();

  beforeAll(async () => {
    const client = os.client();
    for (const index of FIXTURES.index) {
      await ok(client, 'PUT', `/${index}`, { settings: { number_of_replicas: 0, refresh_interval: '42s' } });
    }
    await ok(client, 'PUT', '/_ingest/pipeline/victim', { description: 'not kfek', processors: [] });
    await ok(client, 'PUT', '/_index_template/victim', { index_patterns: ['victim-*'], priority: 1 });
  }, 120_000);

  const objects: Record<Kind, (n: string) => unknown> = {
    index: () => ({ settings: { number_of_replicas: 0 } }),
    'ingest pipeline': (n) => ({ description: n, processors: [] }),
    'index template': (n) => ({ index_patterns: ['zz-generated-*'], priority: 7, _meta: { n } }),
  };
  const base: Record<Kind, string[]> = {
    index: [],
    'ingest pipeline': ['_ingest', 'pipeline'],
    'index template': ['_index_template'],
  };

  test('each request built for a generated name addresses exactly that one object, and nothing else changes', async () => {
    const client = os.client();
    const before = await snapshot(client);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Kind>('index', 'ingest pipeline', 'index template'),
        hostile,
        async (kind, value) => {
          // GIVEN a name, hostile or not, that is not one of the objects already there
          fc.pre(!FIXTURES[kind].includes(value));
          const segments = (): Segment[] => [...base[kind], name(kind, value)];
          const addressable = isAddressable(kind, value);
          // THEN a name that could address another object is never sent
          expect(addressable || refused(() => requestPath(segments()))).toBe(true);
          if (!addressable) return;

          // WHEN it is created, changed and deleted through the builder's paths
          const created = await client.request({
            method: 'PUT',
            path: requestPath(segments()),
            body: objects[kind](value),
          });
          // OpenSearch may refuse a name of its own accord (an index name it reads as not lowercase): then nothing
          // was created, and nothing else may have changed either.
          const made = created.status === 200;
          // THEN the object has exactly that name, and a request for its settings reaches it alone
          expect(made ? await namesOf(client, kind) : [value]).toContain(value);
          const settingsOf = kind === 'index' && made ? await changeSettings(client, value) : [value];
          expect(settingsOf).toEqual([value]);
          if (made) await ok(client, 'DELETE', requestPath(segments()));
          // THEN everything that was there before is as it was
          expect(await snapshot(client)).toEqual(before);
        },
      ),
      { numRuns: 120 },
    );
  }, 300_000);

  test('a deploy leaves a name that reads as two indices (logs-a%2cvictim) and the indices it would name alone', async () => {
    // GIVEN an index under kfek's stem whose name, decoded once more, is "logs-a,victim"
    const client = os.client();
    const spec = resolveOpenSearchSpec({
      indexPrefix: 'logs',
      indexTemplate: { replicas: 0 },
      access: { firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose' },
    });
    await ok(client, 'PUT', '/logs-a%252cvictim', {
      settings: { number_of_replicas: 0, refresh_interval: '42s' },
    });
    const before = await snapshot(client);
    expect(Object.keys(before.indices as object)).toContain('logs-a%2cvictim');

    // WHEN kfek deploys (twice: the second run sees its own template)
    await provisionOpenSearch(client, spec);
    await provisionOpenSearch(client, spec);

    // THEN victim and the hostile name are untouched; kfek's own indices got kfek's settings
    const after = await snapshot(client);
    const indices = after.indices as Record<string, Record<string, string>>;
    expect(indices.victim).toEqual((before.indices as Record<string, unknown>).victim);
    expect(indices['logs-a%2cvictim']).toEqual(
      (before.indices as Record<string, unknown>)['logs-a%2cvictim'],
    );
    expect(indices['logs-a']['index.refresh_interval']).not.toBe('42s');
    await ok(client, 'DELETE', '/logs-a%252cvictim');
  }, 120_000);

  test('a 200-character stem with 20 daily indices deploys: index lists are split by bytes under 4 KiB', async () => {
    // GIVEN
    const client = os.client();
    const stem = `l${'o'.repeat(199)}`;
    const spec = resolveOpenSearchSpec({
      indexPrefix: stem,
      indexTemplate: { replicas: 0 },
      access: { firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose' },
    });
    const days = Array.from({ length: 20 }, (_, d) => `${stem}-2026-11-${String(d + 1).padStart(2, '0')}`);
    for (const index of days) {
      await ok(client, 'PUT', `/${index}`, { settings: { number_of_replicas: 0, refresh_interval: '42s' } });
    }

    // WHEN
    const report = await provisionOpenSearch(client, spec);

    // THEN every index has kfek's settings, and victim kept its own
    const after = await snapshot(client);
    const indices = after.indices as Record<string, Record<string, string>>;
    for (const index of days) expect(indices[index]['index.refresh_interval']).not.toBe('42s');
    expect(indices.victim['index.refresh_interval']).toBe('42s');
    expect(report.steps.some((s) => s.status === 'failed')).toBe(false);
    await ok(client, 'DELETE', `/${stem}-*`);
  }, 180_000);
});
