/**
 * The indexer reading a collection's recorded route pairs (lambda/indexer/routes.ts, `record`), on a fake clock: which
 * pairs its table takes, and what it does when the record is missing or not kfek's.
 */
import type { DeliveryTarget } from '../../../core/delivery/document-plan';
import { profileRouteTable } from '../../../core/opensearch/route-table';
import type { BulkResponse, PipelinePort } from '../../../lambda/indexer/ports';
import { ROUTES_RETRY_MILLIS, RouteSource } from '../../../lambda/indexer/routes';

const RETIRED_AT = '2026-11-29T10:00:00.000Z';
const NOW = Date.parse(RETIRED_AT) + 3_600_000;
const RECORD = {
  found: true,
  _source: {
    keepRetiredHours: 24,
    pairs: [
      { name: 'orders', stem: 'c-orders', retiredAt: null },
      { name: 'orders', stem: 'a-orders', retiredAt: RETIRED_AT },
    ],
  },
};
const target = (routes: { route: string; indexStem: string }[]): DeliveryTarget => ({
  prefix: 'logs',
  rotation: 'OneDay',
  shards: 1,
  table: profileRouteTable(routes),
});
const teamC = [{ route: 'orders', indexStem: 'c-orders' }];
const noPipeline: PipelinePort = { get: () => Promise.reject(new Error('no pipeline on a collection')) };

function source(base: DeliveryTarget, answers: BulkResponse[]) {
  const reads: string[] = [];
  const warnings: string[] = [];
  let now = NOW;
  const routes = new RouteSource({
    base,
    pipeline: undefined,
    port: noPipeline,
    record: '.kfek-registry',
    recordPort: {
      get: (index) => {
        reads.push(index);
        return Promise.resolve(answers.shift() ?? { status: 200, text: JSON.stringify(RECORD) });
      },
    },
    clock: { now: () => now, sleep: () => Promise.resolve() },
    log: { warn: (message) => warnings.push(message) },
  });
  return { routes, reads, warnings, advance: (millis: number) => (now += millis) };
}

describe('RouteSource on a collection record', () => {
  test("takes a retired pair whose stem is still one of the profile's families", async () => {
    // GIVEN team C's profile keeping team A's stem under another route name
    const { routes, reads } = source(
      target([...teamC, { route: 'orderhistory', indexStem: 'a-orders' }]),
      [],
    );
    // WHEN
    const { table } = await routes.target();
    // THEN
    expect(reads).toEqual(['.kfek-registry']);
    expect(table.marks.orders).toEqual(['c-orders', 'a-orders']);
    expect(table.ambiguous).toEqual(['orders']);
  });

  test('leaves out a retired pair whose stem left the profile: the writer may not write it', async () => {
    // GIVEN team C's profile alone
    const { routes, warnings } = source(target(teamC), []);
    // WHEN
    const { table } = await routes.target();
    // THEN: (orders, a-orders) goes to the default index, as with no record, rather than a refused `_bulk`
    expect(table.marks.orders).toEqual(['c-orders']);
    expect(table.names.orders).toBe('c-orders');
    expect(warnings).toEqual([]);
  });

  test.each([
    ['missing (404)', { status: 404, text: '{"found":false}' }],
    ["not kfek's", { status: 200, text: JSON.stringify({ found: true, _source: { pairs: 'x' } }) }],
    ['not JSON', { status: 200, text: '<html>' }],
  ])(
    'fails when the record is %s: the profile routes apply, a warning, and a read again a minute later',
    async (_what, answer) => {
      // GIVEN
      const base = target(teamC);
      const { routes, reads, warnings, advance } = source(base, [answer]);
      // WHEN
      const first = await routes.target();
      advance(ROUTES_RETRY_MILLIS);
      const second = await routes.target();
      // THEN
      expect(first).toBe(base);
      expect(warnings).toEqual([
        expect.stringContaining('aoss:ReadDocument on index/<collection>/.kfek-registry'),
      ]);
      expect(reads).toHaveLength(2);
      expect(second.table.marks.orders).toEqual(['c-orders']);
    },
  );
});
