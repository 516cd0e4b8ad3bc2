/**
 * The (route, stem) pairs a collection's provisioner records (core/opensearch/serverless-provision-routes.ts) and
 * the indexer reads back (route-record.ts): which pairs a deploy keeps, retires and forgets, and which answers the
 * indexer refuses to take for a record.
 */
import { routeRecordFrom } from '../../../core/opensearch/route-record';
import { routeTableOf, type RoutePair } from '../../../core/opensearch/route-table';
import type { HttpRequest, OpenSearchHttpClient } from '../../../core/opensearch/http';
import { nextRoutePairs, recordRoutePairs } from '../../../core/opensearch/serverless-provision-routes';
import type { OpenSearchSpecInput } from '../../../core/opensearch/spec';
import { ordersMove } from '../../helpers/route-move';

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-29T10:00:00.000Z');
const base: OpenSearchSpecInput = { indexPrefix: 'logs', keepRetiredHours: 24 };
const { teamA, teamC } = ordersMove(base);
const noIndices = (): Promise<boolean> => Promise.resolve(false);

describe('nextRoutePairs', () => {
  test("a first deploy records the profile's pairs, none retired", async () => {
    // WHEN
    const pairs = await nextRoutePairs([], teamA, T0, noIndices);
    // THEN
    expect(pairs).toEqual([
      { name: 'orders', stem: 'a-orders', retiredAt: undefined },
      { name: 'payments', stem: 'payments', retiredAt: undefined },
    ]);
  });

  test('a pair that left the profile is kept with when it left, and keeps that time on later deploys', async () => {
    // GIVEN team A's profile deployed
    const first = await nextRoutePairs([], teamA, T0, noIndices);
    // WHEN team C's takes `orders`, then is deployed again an hour later
    const second = await nextRoutePairs(first, teamC, T0 + HOUR, noIndices);
    const third = await nextRoutePairs(second, teamC, T0 + 2 * HOUR, noIndices);
    // THEN
    const retired = { name: 'orders', stem: 'a-orders', retiredAt: new Date(T0 + HOUR).toISOString() };
    expect(second).toContainEqual(retired);
    expect(third).toEqual(second);
    // AND the indexer's rule sends a marked document to each team's stem, a name-only one nowhere it cannot tell
    const table = routeTableOf(third, T0 + 2 * HOUR, 24 * HOUR);
    expect(table.marks.orders).toEqual(['c-orders', 'a-orders']);
    expect(table.ambiguous).toEqual(['orders']);
  });

  test('a retired pair past the grace period is forgotten once its stem has no index, kept while it has one', async () => {
    // GIVEN a pair retired 25 hours ago (keepRetiredHours 24)
    const before: RoutePair[] = [
      { name: 'orders', stem: 'a-orders', retiredAt: new Date(T0 - 25 * HOUR).toISOString() },
    ];
    const asked: string[] = [];
    // WHEN
    const withIndex = await nextRoutePairs(before, teamC, T0, (stem) => {
      asked.push(stem);
      return Promise.resolve(true);
    });
    const without = await nextRoutePairs(before, teamC, T0, noIndices);
    // THEN
    expect(asked).toEqual(['a-orders']);
    expect(withIndex).toContainEqual(before[0]);
    expect(without.map((p) => p.stem)).toEqual(['c-orders', 'payments']);
  });

  test('a pair the profile takes back is current again, recorded once', async () => {
    // GIVEN (orders, a-orders) retired
    const retired = await nextRoutePairs(
      await nextRoutePairs([], teamA, T0, noIndices),
      teamC,
      T0,
      noIndices,
    );
    // WHEN team A's profile is deployed again
    const back = await nextRoutePairs(retired, teamA, T0 + HOUR, noIndices);
    // THEN
    expect(back.filter((p) => p.stem === 'a-orders')).toEqual([
      { name: 'orders', stem: 'a-orders', retiredAt: undefined },
    ]);
    expect(back).toContainEqual({
      name: 'orders',
      stem: 'c-orders',
      retiredAt: new Date(T0 + HOUR).toISOString(),
    });
  });
});

describe('recordRoutePairs', () => {
  test('fails when another deploy changed the routes document meanwhile: the conflict names that document', async () => {
    // GIVEN a record whose `routes` document another deploy rewrites between this deploy's read and its write
    const requests: HttpRequest[] = [];
    const client: OpenSearchHttpClient = {
      baseUrl: 'https://collection.example',
      request: (request) => {
        requests.push(request);
        if (request.method === 'PUT') {
          return Promise.resolve({ status: 409, text: 'version_conflict_engine_exception', body: {} });
        }
        const body = request.path.startsWith('/_cat/')
          ? []
          : { found: true, _seq_no: 3, _primary_term: 1, _source: { keepRetiredHours: 24, pairs: [] } };
        return Promise.resolve({ status: 200, text: JSON.stringify(body), body });
      },
    };
    // WHEN / THEN
    await expect(recordRoutePairs(client, teamA, T0)).rejects.toThrow(
      /record of what it owns \(\.kfek-registry\/_doc\/routes\) changed while this deploy ran \(409/,
    );
    expect(requests.find((r) => r.method === 'PUT')?.path).toMatch(/if_seq_no=3&if_primary_term=1$/);
  });
});

describe('routeRecordFrom', () => {
  const answer = (source: unknown): unknown => ({ found: true, _source: source });

  test('reads the pairs, a current pair written with retiredAt null', () => {
    // WHEN
    const record = routeRecordFrom(
      answer({
        keepRetiredHours: 24,
        pairs: [
          { name: 'orders', stem: 'c-orders', retiredAt: null },
          { name: 'orders', stem: 'a-orders', retiredAt: '2026-11-29T10:00:00.000Z' },
        ],
      }),
    );
    // THEN
    expect(record).toEqual({
      keepRetiredHours: 24,
      pairs: [
        { name: 'orders', stem: 'c-orders', retiredAt: undefined },
        { name: 'orders', stem: 'a-orders', retiredAt: '2026-11-29T10:00:00.000Z' },
      ],
    });
  });

  test.each([
    ['no document', { found: false }],
    ['no pairs', answer({ keepRetiredHours: 24 })],
    ['no grace period', answer({ pairs: [] })],
    ['a pair without a stem', answer({ keepRetiredHours: 24, pairs: [{ name: 'orders' }] })],
    [
      'a retirement that is no date',
      answer({ keepRetiredHours: 24, pairs: [{ name: 'o', stem: 's', retiredAt: 'x' }] }),
    ],
  ])('fails when the answer holds %s: no record', (_what, body) => {
    // WHEN / THEN
    expect(routeRecordFrom(body)).toBeUndefined();
  });
});
