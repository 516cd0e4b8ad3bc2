import fc from 'fast-check';

/**
 * What OpenSearch 3.6 maps for app values under kfek's index template, measured on the real node (issue 22, item 1):
 * the least `index.mapping.total_fields.limit` above the template's own fields at which the document is accepted,
 * or `'refused'` when the node refuses the document whatever the limit (the transform keeps such a key under
 * `kfek.overflow`). test/core/contracts/field-budget.test.ts holds the field budget to these figures;
 * test/core/opensearch/field-budget.integ.test.ts measures each of them again on the node.
 */
export type MappedFields = number | 'refused';

export const MEASURED_CASES: ReadonlyArray<
  readonly [string, Readonly<Record<string, unknown>>, MappedFields]
> = [
  // Leaves, and what maps nothing.
  ['a string', { a: 'x' }, 1],
  ['a number', { a: 1.5 }, 1],
  ['a boolean', { a: true }, 1],
  ['null', { a: null }, 0],
  ['an empty array', { a: [] }, 0],
  ['an array of null', { a: [null] }, 0],
  ['an array in an array', { a: [[1]] }, 1],
  ['an empty array in an array', { a: [[]] }, 0],
  ['a key of whitespace', { ' ': 1 }, 1],
  // Objects count as fields too; past the mapped depth an object is one flat_object, whatever it holds.
  ['an empty object', { a: {} }, 1],
  ['an object in an object', { a: { b: {} } }, 2],
  ['a null in an object', { a: { b: null } }, 1],
  ['a leaf at depth three', { a: { b: { c: 'x' } } }, 3],
  ['an empty object at depth three (flat_object)', { a: { b: { c: {} } } }, 3],
  ['an object at depth three (flat_object)', { a: { b: { c: { d: 1, e: { f: 2 } } } } }, 3],
  ['an array of objects at depth three (flat_object)', { a: { b: { c: [{ x: 1 }, { y: 2 }] } } }, 3],
  ['arrays of arrays at depth three (flat_object)', { a: { b: { c: [[{ x: 1 }]] } } }, 3],
  ['an empty array at depth three', { a: { b: { c: [] } } }, 2],
  ['an array of scalars at depth three', { a: { b: { c: [1, 2] } } }, 3],
  ['keys OpenSearch refuses, inside a flat_object', { a: { b: { c: { 'd..e': 1, '.f': 2, '': 3 } } } }, 3],
  ['a dotted key with a null value inside a flat_object', { a: { b: { c: { 'd.e': null } } } }, 3],
  // Arrays: elements map into the array's own path; objects in them, the union of their keys.
  ['an array of one empty object', { a: [{}] }, 1],
  ['an array of objects (union)', { a: [{ b: 1 }, { c: 1 }] }, 3],
  ['an empty object beside another', { a: [{}, { b: 1 }] }, 2],
  ['arrays of arrays of objects (union)', { a: [[{ b: 1 }], [{ c: 1 }]] }, 3],
  ['an array after an empty array', { a: [[], [{ b: 1, c: 1, d: 1 }]] }, 4],
  ['a later element with fewer keys', { a: [{ b: { x: 1, y: 1 } }, { b: { z: 1 } }] }, 5],
  ['an array of arrays of objects in an object', { a: { b: [[{ c: 1 }]] } }, 3],
  ['an array of objects holding a deep object', { a: { b: [{ c: { d: 1 } }] } }, 3],
  ['null beside an object in an array', { a: { b: [null, { c: 1 }] } }, 3],
  // Dotted keys are paths: every object on the way counts, and they merge with the same path written nested.
  ['a dotted key', { 'a.b': 1 }, 2],
  ['a dotted key of three segments', { 'a.b.c': 1 }, 3],
  ['a dotted key in an object', { a: { 'b.c': 1 } }, 3],
  ['a dotted key in an object, holding an object', { a: { 'b.c': { d: 1 } } }, 3],
  ['a dotted key holding a deep object', { a: 'x', 'b.c': { d: { e: 1 } } }, 4],
  ['a dotted key holding a dotted key', { 'a.b.c': { 'd.e': 1 } }, 3],
  ['a dotted key beside the same object nested', { 'a.b': 1, a: { c: 1 } }, 3],
  ['a dotted key naming a leaf written nested too', { a: { b: { c: 'x' } }, 'a.b.c': 'y' }, 3],
  ['a dotted key holding an array of objects', { 'a.b.c': [{ x: 1 }, { y: 1 }] }, 3],
  ['a dotted key holding objects with the same deep key', { 'a.b': [{ c: { x: 1 } }, { c: { y: 1 } }] }, 3],
  ['a dotted key with a trailing dot', { 'a.': 1 }, 1],
  ['a dotted key with trailing dots', { 'a..': 1 }, 1],
  ['a dotted key of three segments, trailing dots', { 'a...': 1 }, 1],
  ['a dotted key of two segments and a trailing dot', { 'a.b.': 1 }, 2],
  ['a dotted key of three segments and a trailing dot', { 'a.b.c.': 1 }, 3],
  ['a nested key with a trailing dot', { a: { 'b.': { c: 1 } } }, 3],
  ['a dotted key with a no-break space segment', { 'a.\u00a0.b': 1 }, 3],
  // A null value maps nothing, not even the objects of its dotted key; an empty array maps them.
  ['a dotted key with a null value', { 'a.b': null }, 0],
  ['a deep dotted key with a null value', { 'a.b.c.d': null }, 0],
  ['a dotted key in an object with a null value', { x: { 'a.b': null } }, 1],
  ['a dotted key holding a dotted key with a null value', { 'x.a': { 'b.c': null } }, 2],
  ['a dotted key with an empty array', { 'a.b': [] }, 1],
  ['a dotted key with an array of null', { 'a.b': [null] }, 1],
  ['a dotted key of three segments with an array of null', { 'a.b.c': [null] }, 2],
  ['a dotted key with an empty object', { 'a.b': {} }, 2],
  // Refused whatever the limit: the whole document.
  ['an empty key', { '': 1 }, 'refused'],
  ['an empty key with a null value', { '': null }, 'refused'],
  ['an empty key in an object', { x: { '': 1 } }, 'refused'],
  ['a key of one dot', { '.': 1 }, 'refused'],
  ['a leading dot', { '.a': 1 }, 'refused'],
  ['a leading dot with a null value', { '.a': null }, 'refused'],
  ['an empty segment', { 'a..b': 1 }, 'refused'],
  ['an empty segment with a null value', { 'a..b': null }, 'refused'],
  ['a segment of a space', { 'a. ': 1 }, 'refused'],
  ['a first segment of a space', { ' .a': 1 }, 'refused'],
  ['a segment of a tab', { 'a.\t.b': 1 }, 'refused'],
  ['a segment of an ideographic space', { 'a.\u3000.b': 1 }, 'refused'],
  ['a dotted key opening an object at depth three', { 'a.b.c.d': 1 }, 'refused'],
  ['a dotted key opening an object at depth three, empty array', { 'a.b.c.d': [] }, 'refused'],
  ['a dotted key opening an object at depth three, array of null', { 'a.b.c.d': [null] }, 'refused'],
  ['a dotted key holding a dotted key past depth two', { 'a.b': { 'c.d': 1 } }, 'refused'],
  ['a dotted key at depth two opening depth three', { a: { b: { 'c.d': 1 } } }, 'refused'],
  ['a dotted key in an array element, past depth two', { a: [{ 'b.c.d': 1 }] }, 'refused'],
];

/** App keys that share paths: plain, dotted (with trailing dots), and a few OpenSearch refuses. */
export const appKey = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'b', 'c') },
  { weight: 4, arbitrary: fc.constantFrom('a.b', 'b.c', 'a.b.c', 'a.', 'c.a.b', 'a.b.c.d') },
  { weight: 1, arbitrary: fc.constantFrom('', '.a', 'a..b', 'a. ') },
);

/** App values of every type under those keys, a path written with two types included. */
export const appValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('x', 1, 1.5, true, null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(appKey, tie('value'), { maxKeys: 6 }),
  ),
})).value;
