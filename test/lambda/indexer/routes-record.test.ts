/**
 * The indexer reading a collection's recorded route pairs (lambda/indexer/routes.ts, `record`), on a fake clock: which
 * pairs its table takes, and what it does when the record is missing or not kfek's.
 */
import type { DeliveryTarget } from '../../../core/delivery/document-plan';
import {
  ambiguousReason,
  profileRouteTable,
  routeDecision,
  withheldReason,
} from '../../../core/opensearch/route-table';
import type { BulkResponse } from '../../../lambda/indexer/ports';
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

function source(base: DeliveryTarget, answers: BulkResponse[]) {
  const reads: string[] = [];
  const warnings: string[] = [];
  let now = NOW;
  const routes = new RouteSource({
    base,
    source: {
      kind: 'record',
      index: '.kfek-registry',
      port: {
        get: (index) => {
          reads.push(index);
          return Promise.resolve(answers.shift() ?? { status: 200, text: JSON.stringify(RECORD) });
        },
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

  test('withholds a retired pair whose stem left the profile: refused and kept, never the default index', async () => {
    // GIVEN team C's profile alone: team A's a-orders is no family of it, so the writer may not write it
    const { routes, warnings } = source(target(teamC), []);
    // WHEN
    const { table } = await routes.target();
    // THEN (orders, c-orders) routes; (orders, a-orders) is refused with the reason, not sent to the default index
    // (which other teams read), and not a `_bulk` the collection would refuse whole
    expect(table.marks.orders).toEqual(['c-orders']);
    expect(routeDecision(table, 'orders', 'c-orders')).toEqual({ kind: 'route', stem: 'c-orders' });
    expect(routeDecision(table, 'orders', 'a-orders')).toEqual({
      kind: 'refuse',
      reason: withheldReason('orders', 'a-orders'),
    });
    // AND a name-only document inside the grace period is still ambiguous (the dropped stem does not make the name
    // look like team C's alone)
    expect(routeDecision(table, 'orders', undefined)).toEqual({
      kind: 'refuse',
      reason: ambiguousReason('orders'),
    });
    // AND a pair kfek never recorded is unknown, as before (the default index with kfek.unknownRoute)
    expect(routeDecision(table, 'orders', 'z-orders')).toEqual({ kind: 'unknown' });
    expect(warnings).toEqual([]);
  });

  test('a name only whose only recorded stem left the profile is withheld, not sent to the default index', async () => {
    // GIVEN the record of a route whose stem left the profile long ago, and a profile without it
    const { routes } = source(target(teamC), [
      {
        status: 200,
        text: JSON.stringify({
          found: true,
          _source: {
            keepRetiredHours: 24,
            pairs: [{ name: 'history', stem: 'a-history', retiredAt: RETIRED_AT }],
          },
        }),
      },
    ]);
    // WHEN
    const { table } = await routes.target();
    // THEN
    expect(routeDecision(table, 'history', undefined)).toEqual({
      kind: 'refuse',
      reason: withheldReason('history', 'a-history'),
    });
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
