/**
 * Routes on the REAL local OpenSearch node (issue 24), through the shipped templates and ingest pipeline: documents
 * Firehose would write to the default route's index of the day land in their route's index of the same day (any
 * rotation), keep their id and routing, and a document naming an unknown route, or a route that is no string,
 * stays in the default index with a marker. Every document lands in the period its raw record reached the raw stream
 * in (`kfek.arrival`, issue 30.5), so a record read again overwrites its first copy. The plain node has no ISM or security plugin: their per-route objects
 * are covered against FakeOpenSearch in routes.test.ts.
 */
import fc from 'fast-check';
import { indexNameFor, type IndexRotation } from '../../../core/contracts/index-naming';
import { buildIngestPipeline, documentIdFor } from '../../../core/opensearch/ingest-pipeline';
import {
  ambiguousReason,
  type RoutePair,
  routeDecision,
  routeTableOf,
} from '../../../core/opensearch/route-table';
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec, type OpenSearchSpecInput } from '../../../core/opensearch/spec';
import { bulkIndex, useOpenSearchNode } from '../../helpers/opensearch';

const input: OpenSearchSpecInput = {
  indexPrefix: 'logs',
  // One node: replicas would leave every index yellow.
  indexTemplate: { replicas: 0 },
  routes: [
    { name: 'payments', indexStem: 'payments', retentionDays: 30 },
    { name: 'search', indexStem: 'team-search', retentionDays: 7 },
  ],
};
const spec = resolveOpenSearchSpec(input);

let eventId = 0;
/** A document as the transform writes it, marked with `route` under `kfek` when given. */
function documentFor(route: unknown, message: string): Record<string, unknown> {
  return {
    '@timestamp': '2026-11-25T09:00:00.000Z',
    message,
    cloudwatch: { id: String(++eventId), logGroup: '/kfek/teams/x', logStream: 's1', owner: '123456789012' },
    ...(route === undefined ? {} : { kfek: { route } }),
  };
}

/** A document as the transform writes it from a raw record that arrived at `arrival` (`kfek.arrival`, issue 30.5). */
function arrivedDocument(
  arrival: string,
  route: string | undefined,
  message: string,
): Record<string, unknown> {
  const doc = documentFor(route, message);
  const kfek = (doc.kfek ?? {}) as Record<string, unknown>;
  return { ...doc, kfek: { ...kfek, arrival: Date.parse(arrival) } };
}

interface SimulateAnswer {
  readonly docs: ReadonlyArray<{
    readonly doc?: { readonly _index: string; readonly _source: Record<string, unknown> };
    readonly error?: unknown;
  }>;
}

/** The index and source the shipped pipeline gives each document Firehose would write to `index` (`_simulate`). */
async function simulate(
  client: OpenSearchHttpClient,
  docs: ReadonlyArray<{ readonly index: string; readonly source: Record<string, unknown> }>,
): Promise<Array<{ index: string; source: Record<string, unknown> }>> {
  const response = await client.request({
    method: 'POST',
    path: `/_ingest/pipeline/${spec.names.ingestPipeline}/_simulate`,
    body: { docs: docs.map((d) => ({ _index: d.index, _source: d.source })) },
  });
  expect(response.status).toBe(200);
  return (response.body as SimulateAnswer).docs.map((d) => {
    if (d.doc === undefined) throw new Error(`the pipeline failed a document: ${JSON.stringify(d.error)}`);
    return { index: d.doc._index, source: d.doc._source };
  });
}

interface BulkItem {
  readonly index: { readonly _index: string; readonly _id: string; readonly status: number };
}

async function hits(client: OpenSearchHttpClient, index: string, query: string): Promise<unknown[]> {
  const response = await client.request({
    method: 'POST',
    path: `/${index}/_search`,
    body: { query: { query_string: { query } }, size: 100 },
  });
  expect(response.status).toBe(200);
  return (response.body as { hits: { hits: Array<{ _source: unknown }> } }).hits.hits.map((h) => h._source);
}

describe('routes through the shipped template and pipeline, on a real local node', () => {
  const os = useOpenSearchNode();

  beforeAll(async () => {
    await provisionOpenSearch(os.client(), spec);
  }, 60_000);

  test('applying the routes twice changes nothing the second time', async () => {
    const again = await provisionOpenSearch(os.client(), spec);
    expect(again.steps.slice(0, 4)).toEqual([
      expect.objectContaining({ step: 'index template kfek-payments', status: 'unchanged' }),
      expect.objectContaining({ step: 'index template kfek-team-search', status: 'unchanged' }),
      expect.objectContaining({ step: 'ingest pipeline kfek-logs-document-id', status: 'unchanged' }),
      expect.objectContaining({ step: 'index template kfek-logs', status: 'unchanged' }),
    ]);
    expect(again.steps.filter((s) => s.status !== 'unchanged' && s.status !== 'skipped')).toEqual([]);
  });

  test.each([
    ['OneDay', 'logs-2026-11-25', 'payments-2026-11-25', 'team-search-2026-11-25'],
    ['OneHour', 'logs-2026-11-25-09', 'payments-2026-11-25-09', 'team-search-2026-11-25-09'],
    ['OneWeek', 'logs-2026-w47', 'payments-2026-w47', 'team-search-2026-w47'],
    ['OneMonth', 'logs-2026-11', 'payments-2026-11', 'team-search-2026-11'],
  ])(
    '%s: each route lands in its own index of the same period; unmarked, unknown and forged routes stay in %s',
    async (_rotation, index, paymentsIndex, searchIndex) => {
      // GIVEN documents Firehose writes to the default route's index of the period
      const docs = [
        documentFor('payments', 'pay one'),
        documentFor('search', 'search one'),
        documentFor(undefined, 'plain one'),
        documentFor('billing', 'forged one'),
        documentFor({ route: 'payments' }, 'object one'),
        documentFor('PAYMENTS', 'upper one'),
      ];

      // WHEN
      const bulk = await bulkIndex(os.client(), index, docs);

      // THEN every document is indexed, in the index its route names, or in the default one
      const items = (bulk.body as { errors: boolean; items: BulkItem[] }).items;
      expect((bulk.body as { errors: boolean }).errors).toBe(false);
      expect(items.map((i) => i.index._index)).toEqual([
        paymentsIndex,
        searchIndex,
        index,
        index,
        index,
        index,
      ]);
      // AND the id (and routing) are the ones the pipeline gives every document, whatever index it lands in
      const [pay] = docs as Array<{ cloudwatch: { id: string } }>;
      expect(items[0].index._id).toBe(documentIdFor('/kfek/teams/x', 's1', pay.cloudwatch.id));
      // AND a route's document keeps its route; the others carry what they named as unknownRoute
      expect(await hits(os.client(), paymentsIndex, 'kfek.route:payments')).toEqual([
        expect.objectContaining({ message: 'pay one' }),
      ]);
      expect(await hits(os.client(), searchIndex, 'kfek.route:search')).toHaveLength(1);
      const unknown = (await hits(os.client(), index, 'kfek.unknownRoute:*')) as Array<{
        message: string;
        kfek: Record<string, unknown>;
      }>;
      expect(unknown.map((d) => [d.message, d.kfek]).sort()).toEqual([
        ['forged one', { unknownRoute: 'billing' }],
        ['object one', { unknownRoute: '{route=payments}' }],
        ['upper one', { unknownRoute: 'PAYMENTS' }],
      ]);
      expect(await hits(os.client(), index, 'kfek.route:*')).toEqual([]);
    },
  );

  test("a route's index is made from the route's template: the shipped mappings, routing required, the pipeline", async () => {
    // GIVEN the index the OneDay case created
    const mapping = await os.client().request({ method: 'GET', path: '/payments-2026-11-25/_mapping' });
    const settings = await os.client().request({ method: 'GET', path: '/payments-2026-11-25/_settings' });
    // THEN
    expect(mapping.body).toMatchObject({
      'payments-2026-11-25': {
        mappings: {
          _routing: { required: true },
          properties: { kfek: { properties: { route: { type: 'keyword' } } }, message: { type: 'text' } },
        },
      },
    });
    expect(settings.body).toMatchObject({
      'payments-2026-11-25': { settings: { index: { default_pipeline: 'kfek-logs-document-id' } } },
    });
  });

  test('a redelivered document overwrites itself in its route index', async () => {
    // GIVEN one payments document delivered twice
    const doc = documentFor('payments', 'delivered twice');
    // WHEN
    await bulkIndex(os.client(), 'logs-2026-11-26', [doc]);
    await bulkIndex(os.client(), 'logs-2026-11-26', [doc]);
    // THEN
    expect(await hits(os.client(), 'payments-2026-11-26', 'message:"delivered twice"')).toHaveLength(1);
  });

  describe("the index of the raw record's arrival (issue 30.5)", () => {
    const ROTATIONS: readonly IndexRotation[] = ['OneHour', 'OneDay', 'OneWeek', 'OneMonth'];
    const MIN = Date.parse('1999-12-25T00:00:00.000Z');
    const MAX = Date.parse('2100-01-07T00:00:00.000Z');

    test.each(ROTATIONS)(
      '%s: property: the pipeline names the index of the arrival exactly as indexNameFor does, for any delivery delay',
      async (rotation) => {
        // GIVEN any arrival (weighted to the edges of years, weeks, days and hours), delivered by Firehose any time
        // up to 40 days later (a lagging reader, a transport switch re-reading the stream)
        const edge = fc
          .tuple(
            fc.integer({ min: 2000, max: 2099 }),
            fc.constantFrom(0, 11),
            fc.integer({ min: -2, max: 2 }),
          )
          .map(([year, month, hours]) => Date.UTC(year, month, month === 0 ? 1 : 31) + hours * 3_600_000 - 1);
        const arrival = fc.oneof(fc.integer({ min: MIN, max: MAX }), edge);
        const cases = fc.array(fc.record({ arrival, delay: fc.integer({ min: 0, max: 40 * 86_400_000 }) }), {
          minLength: 1,
          maxLength: 60,
        });
        await fc.assert(
          fc.asyncProperty(cases, async (batch) => {
            // WHEN Firehose writes each to the default route's index of its delivery
            const out = await simulate(
              os.client(),
              batch.map((c, n) => ({
                index: indexNameFor('logs', rotation, new Date(c.arrival + c.delay)),
                source: arrivedDocument(
                  new Date(c.arrival).toISOString(),
                  n % 2 === 0 ? 'payments' : undefined,
                  'x',
                ),
              })),
            );
            // THEN each lands in the index of the period it arrived in, its route's or the default's
            expect(out.map((o) => o.index)).toEqual(
              batch.map((c, n) =>
                indexNameFor(n % 2 === 0 ? 'payments' : 'logs', rotation, new Date(c.arrival)),
              ),
            );
          }),
          { numRuns: 25 },
        );
      },
      120_000,
    );

    test('the arrival is never stored, and a document with nothing else under kfek has no kfek', async () => {
      const [plain, routed] = await simulate(os.client(), [
        { index: 'logs-2026-11-27', source: arrivedDocument('2026-11-26T23:59:59.999Z', undefined, 'plain') },
        {
          index: 'logs-2026-11-27',
          source: arrivedDocument('2026-11-26T23:59:59.999Z', 'payments', 'routed'),
        },
      ]);
      expect(plain).toEqual({
        index: 'logs-2026-11-26',
        source: expect.not.objectContaining({ kfek: expect.anything() }),
      });
      expect(routed).toEqual({
        index: 'payments-2026-11-26',
        source: expect.objectContaining({ kfek: { route: 'payments' } }),
      });
    });

    test.each([
      [
        'an arrival after the delivery period (a clock that is off)',
        'logs-2026-11-27',
        Date.parse('2026-11-28T00:00:00.000Z'),
        'logs-2026-11-27',
      ],
      ['an arrival that is no number', 'logs-2026-11-27', '2026-11-20', 'logs-2026-11-27'],
      [
        "an index that is not the default route's own",
        'team-search-2026-11-27',
        Date.parse('2026-11-20T00:00:00.000Z'),
        'team-search-2026-11-27',
      ],
      [
        'an index whose suffix has no date shape',
        'logs-archive',
        Date.parse('2026-11-20T00:00:00.000Z'),
        'logs-archive',
      ],
    ])(
      '%s keeps the index Firehose chose, and the key is removed',
      async (_name, index, arrival, expected) => {
        const [out] = await simulate(os.client(), [
          { index, source: { ...documentFor(undefined, 'odd arrival'), kfek: { arrival, joined: 2 } } },
        ]);
        expect(out).toEqual({ index: expected, source: expect.objectContaining({ kfek: { joined: 2 } }) });
      },
    );

    test('a record read again on a later day (a transport switch) overwrites its first copy instead of adding one', async () => {
      // GIVEN two events that reached the raw stream just before midnight and were indexed that day
      const first = [
        arrivedDocument('2026-11-20T23:59:59.900Z', undefined, 'switch plain'),
        arrivedDocument('2026-11-20T23:59:59.900Z', 'payments', 'switch payments'),
      ];
      await bulkIndex(os.client(), 'logs-2026-11-20', first);
      // WHEN the new reader reads the stream from TRIM_HORIZON and Firehose delivers the copies the next day
      const again = await bulkIndex(os.client(), 'logs-2026-11-21', first);
      // THEN each copy lands in the index of its first copy, under the same id: one document each
      expect(
        (again.body as { items: BulkItem[] }).items.map((i) => [i.index._index, i.index.status]),
      ).toEqual([
        ['logs-2026-11-20', 200],
        ['payments-2026-11-20', 200],
      ]);
      expect(await hits(os.client(), 'logs-*', 'message:"switch plain"')).toHaveLength(1);
      expect(await hits(os.client(), 'payments-*', 'message:"switch payments"')).toHaveLength(1);
      const day = await os.client().request({ method: 'HEAD', path: '/logs-2026-11-21' });
      expect(day.status).toBe(404);
    });
  });

  test("after a route is removed, documents still marked with it go to its kept indices, not the default's", async () => {
    // GIVEN the search route removed from the config and applied, while its indices are still there
    const without = resolveOpenSearchSpec({ ...input, routes: [input.routes![0]] });
    const report = await provisionOpenSearch(os.client(), without, { previous: spec });
    // WHEN the transform (not redeployed yet) still marks documents with it
    const bulk = await bulkIndex(os.client(), 'logs-2026-11-27', [documentFor('search', 'stale route')]);
    // THEN (issue 30) the route's indices, template and name are kept, so the document lands with its team
    expect(report.steps.filter((s) => s.impact === 'kept').map((s) => s.step)).toContain(
      'indices team-search-*',
    );
    expect((bulk.body as { items: BulkItem[] }).items[0].index._index).toBe('team-search-2026-11-27');
    expect(await hits(os.client(), 'team-search-2026-11-27', 'message:"stale route"')).toHaveLength(1);
    const kept = await os.client().request({ method: 'GET', path: '/_index_template/kfek-team-search' });
    expect(kept.status).toBe(200);
    await provisionOpenSearch(os.client(), spec, { previous: without });
  });

  describe('the route a document was marked for (issue 39)', () => {
    const NAMES = ['orders', 'payments', 'billing'];
    const STEMS = ['a-orders', 'c-orders', 'payments', 'billing'];
    const NOW = Date.parse('2026-11-25T12:00:00Z');
    const pair = fc.record({
      name: fc.constantFrom(...NAMES),
      stem: fc.constantFrom(...STEMS),
      retiredAt: fc.option(
        fc.integer({ min: 0, max: 100 }).map((h) => new Date(NOW - h * 3_600_000).toISOString()),
        { nil: undefined },
      ),
    });
    const mark = fc.record({
      route: fc.oneof(fc.constantFrom<unknown>(...NAMES, 'shipping', 7), fc.constant({ route: 'orders' })),
      stem: fc.oneof(fc.constantFrom<unknown>(...STEMS, 'logs', undefined), fc.constant(['a-orders'])),
      // Written to a stem's own index (the pipeline run again after a move, or a direct write): never moved.
      into: fc.constantFrom('logs-2026-11-25', 'payments-2026-11-25'),
    });

    test('property: the pipeline decides as routeDecision does, for any table and any marks', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(pair, { minLength: 1, maxLength: 6 }),
          fc.integer({ min: 0, max: 50 }),
          fc.array(mark, { minLength: 1, maxLength: 12 }),
          async (pairs: RoutePair[], graceHours, marks) => {
            // GIVEN a pipeline with the table of these pairs
            const table = routeTableOf(pairs, NOW, graceHours * 3_600_000);
            const put = await os.client().request({
              method: 'PUT',
              path: '/_ingest/pipeline/kfek-rule-check',
              body: buildIngestPipeline(spec, { prefix: 'logs', table }),
            });
            expect(put.status).toBe(200);
            // WHEN Firehose writes marked documents to the default index
            const answer = await os.client().request({
              method: 'POST',
              path: '/_ingest/pipeline/kfek-rule-check/_simulate',
              body: {
                docs: marks.map((m) => ({
                  _index: m.into,
                  _source: {
                    ...documentFor(undefined, 'marked'),
                    kfek: { route: m.route, ...(m.stem === undefined ? {} : { stem: m.stem }) },
                  },
                })),
              },
            });
            // THEN each lands where the TypeScript rule says, or is refused with its reason
            const got = (answer.body as SimulateAnswer).docs.map((d, n) => {
              if (d.doc === undefined) {
                const reason = ambiguousReason(String(marks[n].route));
                return JSON.stringify(d.error).includes(reason)
                  ? 'refused'
                  : `refused: ${JSON.stringify(d.error)}`;
              }
              const kfek = d.doc._source.kfek as Record<string, unknown>;
              return 'unknownRoute' in kfek
                ? `${d.doc._index} unknown`
                : `${d.doc._index} ${JSON.stringify(kfek)}`;
            });
            const want = marks.map((m) => {
              const decision = routeDecision(table, m.route, m.stem);
              // On a stem's own index only the marks are checked: nothing is moved, and a name alone is kept.
              if (m.into !== 'logs-2026-11-25') {
                return decision.kind === 'unknown'
                  ? `${m.into} unknown`
                  : `${m.into} ${JSON.stringify({ route: m.route })}`;
              }
              return decision.kind === 'refuse'
                ? 'refused'
                : decision.kind === 'route'
                  ? `${decision.stem}-2026-11-25 ${JSON.stringify({ route: m.route })}`
                  : 'logs-2026-11-25 unknown';
            });
            expect(got).toEqual(want);
          },
        ),
        { numRuns: 30 },
      );
    }, 120_000);
  });
});
