/**
 * The field budget's arithmetic (core/contracts/field-budget.ts): what one document's app keys map against the
 * index's total-fields limit, as OpenSearch maps them under kfek's index template. The figures are the real node's
 * (field-budget-cases.ts), and test/core/opensearch/field-budget.integ.test.ts measures them again there.
 */
import fc from 'fast-check';
import {
  APP_FIELD_BUDGET,
  deepObjectPathMatch,
  MAPPED_OBJECT_DEPTH,
  PATHS_NEEDED,
  planAppFields,
  quickFieldCost,
} from '../../../core/contracts/field-budget';
import { appKey as key, appValue as value, MEASURED_CASES } from './field-budget-cases';

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

describe('planAppFields', () => {
  test.each(MEASURED_CASES.filter(([, , measured]) => measured !== 'refused'))(
    '%s: %j maps %s fields, as measured on the node',
    (_, app, measured) => {
      expect(planAppFields(app)).toEqual({ fields: measured });
    },
  );

  test.each(MEASURED_CASES.filter(([, , measured]) => measured === 'refused'))(
    '%s: %j, which the node refuses, goes to kfek.overflow',
    (_, app) => {
      expect(planAppFields(app)).toEqual({ fields: 0, overflow: new Set(Object.keys(app)) });
    },
  );

  test('takes keys in written order until one does not fit; it and every later key overflow', () => {
    // GIVEN 98 fields, an object of five, then a key of one field that would fit
    const app = { ...keys('k', 98), wide: keys('w', 4), after: 1 };
    // THEN
    expect(planAppFields(app)).toEqual({ fields: 98, overflow: new Set(['wide', 'after']) });
  });

  test('a key OpenSearch refuses overflows alone; the keys after it are still mapped', () => {
    const app = { a: 1, 'b.c.d.e': 1, f: { g: 1 } };
    expect(planAppFields(app)).toEqual({ fields: 3, overflow: new Set(['b.c.d.e']) });
  });

  test('counts a path once, whichever key maps it first, in either order', () => {
    expect(planAppFields({ a: { b: 1 }, 'a.c': 1, 'a.b': 2 })).toEqual({ fields: 3 });
    expect(planAppFields({ 'a.c': 1, 'a.b': 2, a: { b: 1 } })).toEqual({ fields: 3 });
    // The dotted key costs only what it adds: `a` was mapped by the key before it.
    expect(planAppFields({ ...keys('k', 97), a: { b: 1 }, 'a.c': 1 })).toEqual({ fields: 100 });
    expect(planAppFields({ ...keys('k', 97), a: { b: 1 }, 'a.c.d': 1 })).toEqual({
      fields: 99,
      overflow: new Set(['a.c.d']),
    });
  });

  test('leaves out the keys the caller does not count (collisions, the message)', () => {
    const app = { message: 'm', 'cloudwatch.owner': { a: 1 }, ...keys('k', 100) };
    expect(planAppFields(app, (key) => key.startsWith('k'))).toEqual({ fields: 100 });
  });

  test('a budget of many fields in one key stops counting early, and still overflows it', () => {
    const plan = planAppFields({ 'wide.x': keys('k', 100_000) });
    expect(plan).toEqual({ fields: 0, overflow: new Set(['wide.x']) });
  });

  test('no document maps more than the budget, whatever its shape', () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 40 }), (app) => {
        const plan = planAppFields(app);
        expect(plan.fields).toBeLessThanOrEqual(APP_FIELD_BUDGET);
        // The kept keys map exactly what the reference model says, and the budget is never exceeded.
        const kept = Object.fromEntries(Object.entries(app).filter(([k]) => plan.overflow?.has(k) !== true));
        expect(referencePaths(kept).size).toBe(plan.fields);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('quickFieldCost (the hot path)', () => {
  test.each([
    ['a leaf', 'x', 1],
    ['null', null, 0],
    ['an array of scalars', [1, 2], 1],
    ['an array of one object among scalars', [null, { a: 1 }], 2],
    [
      'an object down to the mapped depth',
      { status: 500, request: { method: 'GET', headers: { a: { b: 1 } } } },
      5,
    ],
  ])('%s', (_, value, cost) => {
    expect(quickFieldCost('k', value, NO_LIMIT)).toBe(cost);
  });

  test.each([
    ['a dotted key', 'a.b', 1],
    ['an empty key', '', 1],
    ['a dotted key in the value', 'k', { a: { 'b.c': 1 } }],
    ['an array of two objects', 'k', [{ a: 1 }, { b: 1 }]],
    ['an array of two arrays', 'k', [[1], [2]]],
  ])('leaves %s to planAppFields', (_, k, value) => {
    expect(quickFieldCost(k, value, NO_LIMIT)).toBe(PATHS_NEEDED);
  });

  test('agrees with planAppFields wherever it counts', () => {
    fc.assert(
      fc.property(key, value, (k, v) => {
        const quick = quickFieldCost(k, v, NO_LIMIT);
        fc.pre(quick !== PATHS_NEEDED);
        expect(quick).toBe(planAppFields({ [k]: v }, undefined, NO_LIMIT).fields);
      }),
      { numRuns: 2000 },
    );
  });

  test('stops counting once past the limit (the caller only needs to know it does not fit)', () => {
    const cost = quickFieldCost('wide', keys('k', 10_000), 10);
    expect(cost).toBeGreaterThan(10);
    expect(cost).toBeLessThan(20);
  });
});

describe('the index template side of the contract', () => {
  test('the dynamic template path matches objects one level past the mapped depth', () => {
    expect(MAPPED_OBJECT_DEPTH).toBe(2);
    expect(deepObjectPathMatch()).toBe('*.*.*');
  });

  test('the budget leaves room for several apps in the default 1,000-field limit', () => {
    expect(APP_FIELD_BUDGET * 5).toBeLessThan(1000);
  });
});

function keys(prefix: string, count: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, i]));
}

/**
 * An independent model of what OpenSearch maps, written from the measured rules rather than from the code under
 * test: the set of paths, each key split on its dots, objects past the mapped depth as one path.
 */
function referencePaths(app: Record<string, unknown>): Set<string> {
  const paths = new Set<string>();
  const visit = (value: unknown, path: string[]): void => {
    if (value === null) return;
    if (Array.isArray(value)) {
      value.forEach((element) => visit(element, path));
      return;
    }
    paths.add(path.join('.'));
    if (typeof value !== 'object' || path.length > MAPPED_OBJECT_DEPTH) return;
    for (const [k, v] of Object.entries(value)) {
      if (v === null) continue;
      const segments = k.split('.');
      while (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
      for (let i = 1; i < segments.length; i++) paths.add([...path, ...segments.slice(0, i)].join('.'));
      visit(v, [...path, ...segments]);
    }
  };
  for (const [k, v] of Object.entries(app)) visit({ [k]: v }, []);
  // The document itself is not a field.
  paths.delete('');
  return paths;
}
