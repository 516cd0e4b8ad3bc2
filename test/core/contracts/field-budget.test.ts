/**
 * The field budget's arithmetic (core/contracts/field-budget.ts): what one app value costs against the index's
 * total-fields limit, as OpenSearch would map it under kfek's index template. The real node proves the design in
 * test/core/opensearch/field-limits.integ.test.ts; this pins the counting rules.
 */
import {
  APP_FIELD_BUDGET,
  deepObjectPathMatch,
  MAPPED_OBJECT_DEPTH,
  mappedFieldCost,
} from '../../../core/contracts/field-budget';

const NO_LIMIT = Number.MAX_SAFE_INTEGER;

describe('mappedFieldCost', () => {
  test('a scalar, null or an array of scalars is one field', () => {
    for (const value of ['x', 3, true, null, ['a', 'b'], []]) {
      expect([value, mappedFieldCost(value, 1, NO_LIMIT)]).toEqual([value, 1]);
    }
  });

  test('an object is one field plus its keys, down to MAPPED_OBJECT_DEPTH', () => {
    // GIVEN http (depth 1) > request (depth 2) > headers (depth 3, past the mapped depth)
    const http = { status: 500, request: { method: 'GET', headers: { a: 1, b: 2, c: { d: 3 } } } };
    // THEN http 1 + status 1 + request 1 + method 1 + headers as one flat_object (2)
    expect(MAPPED_OBJECT_DEPTH).toBe(2);
    expect(mappedFieldCost(http, 1, NO_LIMIT)).toBe(6);
  });

  test('an object past the mapped depth costs the same however wide or deep it is', () => {
    const wide = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    expect(mappedFieldCost(wide, MAPPED_OBJECT_DEPTH + 1, NO_LIMIT)).toBe(2);
  });

  test('an array of objects maps the union of its elements keys once', () => {
    const items = [{ id: 1 }, { id: 2, name: 'x' }, { id: 3 }, 'stray scalar'];
    expect(mappedFieldCost(items, 1, NO_LIMIT)).toBe(3);
  });

  test('stops counting once past the limit (the caller only needs to know it does not fit)', () => {
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));
    const cost = mappedFieldCost(wide, 1, 10);
    expect(cost).toBeGreaterThan(10);
    expect(cost).toBeLessThan(20);
  });

  test('a __proto__ key in an array element is counted as data', () => {
    const items = JSON.parse('[{"__proto__":{"a":1}},{"b":2}]') as unknown;
    // object 1 + __proto__ object (1 + a) + b
    expect(mappedFieldCost(items, 1, NO_LIMIT)).toBe(4);
  });
});

describe('the index template side of the contract', () => {
  test('the dynamic template path matches objects one level past the mapped depth', () => {
    expect(deepObjectPathMatch()).toBe('*.*.*');
  });

  test('the budget leaves room for several apps in the default 1,000-field limit', () => {
    expect(APP_FIELD_BUDGET * 5).toBeLessThan(1000);
  });
});
