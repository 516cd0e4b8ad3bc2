/**
 * Half the bytes, the same answers (issue 31, item 3): one corpus (bench/storage-corpus.ts, the transform's output
 * of both generators) indexed on the deployed line's node through the template and pipeline main shipped before
 * (bench/fixtures/storage-before.json) and through today's (no doc values where no query aggregates, no norms, a
 * sorted index, cloudwatch.id in doc values only, a short id and routing). Every search kfek's docs, saved searches,
 * dashboards and tools run must answer the same on both: the dashboards' aggregations, the saved "Errors" search,
 * the local run's summary and latency probe, `kfek verify`, the `--keep` examples, and the lookups the docs show.
 * Documents are compared by what identifies an event (log group, stream, event id), since the ids differ.
 */
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { buildIndexTemplate } from '../../../core/opensearch/index-template';
import { buildIngestPipeline } from '../../../core/opensearch/ingest-pipeline';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import before from '../../../bench/fixtures/storage-before.json';
import { storageCorpus } from '../../../bench/storage-corpus';
import { countDistinctEvents, errorsPer15Minutes } from '../../../scripts/local/summary';
import { localSearchHttp } from '../../../scripts/local/search-http';
import { useOpenSearchNode } from '../../helpers/opensearch';

const EVENTS = 4_000;
const DAY = '2026-11-23';
const spec = resolveOpenSearchSpec({ indexPrefix: 'logs', indexTemplate: { replicas: 0 } });

interface Event {
  readonly cloudwatch: { readonly id: string; readonly logGroup: string; readonly logStream: string };
  readonly '@timestamp': string;
  readonly lambda?: { readonly requestId?: string };
}

const documents = storageCorpus(EVENTS);
const events = documents.map((d) => JSON.parse(d) as Event);
const logStreams = [...new Set(events.map((e) => e.cloudwatch.logStream))];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- search answers, read field by field below
type Answer = any;

async function call(
  client: OpenSearchHttpClient,
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  const response = await client.request({ method: method as 'POST', path, body });
  if (response.status >= 300)
    throw new Error(`${method} ${path}: ${response.status} ${response.text.slice(0, 300)}`);
  return response.body;
}

async function indexAll(client: OpenSearchHttpClient, index: string): Promise<void> {
  const action = `${JSON.stringify({ index: { _index: index } })}\n`;
  for (let i = 0; i < documents.length; i += 2000) {
    const answer = await client.request({
      method: 'POST',
      path: '/_bulk',
      body: documents
        .slice(i, i + 2000)
        .map((d) => `${action}${d}\n`)
        .join(''),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect((answer.body as { errors: boolean }).errors).toBe(false);
  }
  await call(client, 'POST', `/${index}/_refresh`);
}

/** Hits as sorted event keys (every hit: size above the corpus). */
async function hitKeys(client: OpenSearchHttpClient, pattern: string, query: unknown): Promise<string[]> {
  const answer = await call(client, 'POST', `/${pattern}/_search`, {
    size: EVENTS,
    track_total_hits: true,
    _source: ['cloudwatch.id', 'cloudwatch.logGroup', 'cloudwatch.logStream'],
    query,
  });
  return (answer.hits.hits as Array<{ _source: Event }>)
    .map(
      (h) => `${h._source.cloudwatch.logGroup}|${h._source.cloudwatch.logStream}|${h._source.cloudwatch.id}`,
    )
    .sort();
}

async function aggregations(client: OpenSearchHttpClient, pattern: string, body: unknown): Promise<unknown> {
  return (await call(client, 'POST', `/${pattern}/_search`, { size: 0, ...(body as object) })).aggregations;
}

describe('the same answers before and after the storage changes (OpenSearch 2.19.4)', () => {
  const os = useOpenSearchNode();
  const BEFORE = `before-*`;
  const AFTER = `${spec.indexPrefix}-*`;

  beforeAll(async () => {
    const client = os.client();
    await call(client, 'PUT', `/_ingest/pipeline/${before.pipelineName}`, before.pipeline);
    await call(client, 'PUT', '/_index_template/before', before.template);
    await call(client, 'PUT', `/_ingest/pipeline/${spec.names.ingestPipeline}`, buildIngestPipeline(spec));
    await call(client, 'PUT', `/_index_template/${spec.names.indexTemplate}`, buildIndexTemplate(spec));
    await indexAll(client, `before-${DAY}`);
    await indexAll(client, `logs-${DAY}`);
  }, 300_000);

  /** Runs `ask` on both index patterns and holds the answers equal; returns the answer (to check it is not empty). */
  async function same<T>(ask: (client: OpenSearchHttpClient, pattern: string) => Promise<T>): Promise<T> {
    const [old, now] = [await ask(os.client(), BEFORE), await ask(os.client(), AFTER)];
    expect(now).toEqual(old);
    return now;
  }

  test('the dashboards: errors over time, top log groups, Lambda duration percentiles', async () => {
    const errors = { query: { query_string: { query: 'level:ERROR' } } };
    const histogram = await same((c, p) =>
      aggregations(c, p, {
        ...errors,
        aggs: { t: { date_histogram: { field: '@timestamp', fixed_interval: '1m', min_doc_count: 1 } } },
      }),
    );
    expect(JSON.stringify(histogram)).toContain('doc_count');
    const groups = (await same((c, p) =>
      aggregations(c, p, { aggs: { g: { terms: { field: 'cloudwatch.logGroup', size: 10 } } } }),
    )) as { g: { buckets: unknown[] } };
    expect(groups.g.buckets.length).toBeGreaterThan(1);
    // Percentiles are estimates (t-digest) whose error depends on the order values come in, and the sorted index
    // reads them in another order: held within 1 % of each other, and the exact min and max equal.
    const ask = (c: OpenSearchHttpClient, p: string): Promise<Answer> =>
      aggregations(c, p, {
        aggs: {
          d: { percentiles: { field: 'lambda.durationMs', percents: [50, 95, 99] } },
          s: { stats: { field: 'lambda.durationMs' } },
        },
      });
    const [old, now] = [await ask(os.client(), BEFORE), await ask(os.client(), AFTER)];
    expect(now.s).toEqual(old.s);
    expect(now.s.count).toBeGreaterThan(100);
    for (const key of ['50.0', '95.0', '99.0']) {
      expect(Math.abs(now.d.values[key] - old.d.values[key])).toBeLessThanOrEqual(0.01 * old.d.values[key]);
    }
  });

  test('the saved "Errors" search and the docs\' queries find the same events', async () => {
    const sample = events[2345];
    const request = events.find((e) => e.lambda?.requestId !== undefined)?.lambda?.requestId as string;
    const queries: unknown[] = [
      { query_string: { query: 'level:ERROR' } },
      { query_string: { query: 'lambda.durationMs:>100' } },
      { query_string: { query: 'message:"kfek_run=bench-storage"' } },
      { match_phrase: { message: 'cache miss' } },
      { term: { 'cloudwatch.id': sample.cloudwatch.id } },
      { query_string: { query: `cloudwatch.id:"${sample.cloudwatch.id}"` } },
      { term: { 'lambda.requestId': request } },
      { query_string: { query: 'cloudwatch.logGroup:\\/aws\\/lambda\\/orders*' } },
      { exists: { field: 'thread' } },
      { query_string: { query: 'service:checkout' } },
      { range: { '@timestamp': { gte: sample['@timestamp'], lt: events[EVENTS - 1]['@timestamp'] } } },
    ];
    for (const query of queries) {
      const keys = await same((c, p) => hitKeys(c, p, query));
      expect({ query, found: keys.length > 0 }).toEqual({ query, found: true });
    }
  });

  test("the local run's summary, latency probe and kfek verify count the same", async () => {
    const search = localSearchHttp(os.node().url);
    expect(await same((_c, p) => countDistinctEvents(search, p, logStreams))).toBe(EVENTS);
    expect((await same((_c, p) => errorsPer15Minutes(search, p, logStreams))).length).toBeGreaterThan(0);
    // The probe: one event by its log stream and exact @timestamp.
    for (const e of [events[7], events[EVENTS - 3]]) {
      const query = {
        bool: {
          filter: [
            { term: { 'cloudwatch.logStream': e.cloudwatch.logStream } },
            { term: { '@timestamp': e['@timestamp'] } },
          ],
        },
      };
      expect((await same((c, p) => hitKeys(c, p, query))).length).toBeGreaterThan(0);
    }
  });
});
