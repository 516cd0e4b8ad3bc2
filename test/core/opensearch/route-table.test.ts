/**
 * The route rule (issue 39, core/opensearch/route-table.ts): a document goes to the stem it was marked for, and only
 * when its name pointed at that stem; a name alone goes to the name's one stem, and is refused when the name pointed
 * at two lately. routes.integ.test.ts holds the ingest pipeline's script to this rule on a real node.
 */
import {
  ambiguousReason,
  type RoutePair,
  routeDecision,
  routeTableOf,
} from '../../../core/opensearch/route-table';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-25T12:00:00Z');
const ago = (hours: number): string => new Date(NOW - hours * HOUR).toISOString();
/** orders: team A's a-orders retired 2 hours ago, team C's c-orders now; payments unchanged; billing removed. */
const PAIRS: RoutePair[] = [
  { name: 'orders', stem: 'c-orders', retiredAt: undefined },
  { name: 'payments', stem: 'payments', retiredAt: undefined },
  { name: 'orders', stem: 'a-orders', retiredAt: ago(2) },
  { name: 'billing', stem: 'billing', retiredAt: ago(2) },
];

describe('routeTableOf', () => {
  test('a name that pointed at two stems within the grace is ambiguous alone; each pair stays known', () => {
    expect(routeTableOf(PAIRS, NOW, 24 * HOUR)).toEqual({
      names: { payments: 'payments', billing: 'billing' },
      marks: { orders: ['c-orders', 'a-orders'], payments: ['payments'], billing: ['billing'] },
      ambiguous: ['orders'],
    });
  });

  test('past the grace, a name alone means its current stem; a retired name its latest stem', () => {
    const pairs: RoutePair[] = [
      ...PAIRS,
      { name: 'billing', stem: 'billing-old', retiredAt: ago(200) },
      { name: 'billing', stem: 'billing', retiredAt: ago(100) },
    ];
    expect(routeTableOf(pairs, NOW, HOUR).names).toEqual({
      orders: 'c-orders',
      payments: 'payments',
      billing: 'billing',
    });
  });
});

describe('routeDecision', () => {
  const table = routeTableOf(PAIRS, NOW, 24 * HOUR);

  test.each([
    ['orders', 'a-orders', { kind: 'route', stem: 'a-orders' }],
    ['orders', 'c-orders', { kind: 'route', stem: 'c-orders' }],
    ['payments', 'payments', { kind: 'route', stem: 'payments' }],
    ['billing', 'billing', { kind: 'route', stem: 'billing' }],
    ['payments', undefined, { kind: 'route', stem: 'payments' }],
    ['billing', null, { kind: 'route', stem: 'billing' }],
  ])('a document marked %j with stem %j goes to that stem', (route, stem, decision) => {
    expect(routeDecision(table, route, stem)).toEqual(decision);
  });

  test.each([
    // Another team's stem, a stem the name never pointed at, a name kfek does not know, a forged type.
    ['orders', 'payments'],
    ['payments', 'c-orders'],
    ['orders', 'orders'],
    ['shipping', 'shipping'],
    ['shipping', undefined],
    ['constructor', undefined],
    ['__proto__', 'x'],
    [{ route: 'orders' }, 'a-orders'],
    ['orders', ['a-orders']],
    [undefined, 'a-orders'],
  ])('fails when a document is marked %j with stem %j: it stays in the default index', (route, stem) => {
    expect(routeDecision(table, route, stem)).toEqual({ kind: 'unknown' });
  });

  test('fails when a document of a transform before the stem mark names a route that moved stems: refused', () => {
    expect(routeDecision(table, 'orders', undefined)).toEqual({
      kind: 'refuse',
      reason: ambiguousReason('orders'),
    });
    expect(ambiguousReason('orders')).toMatch(/marked with route orders and no stem.*refused/);
  });
});
