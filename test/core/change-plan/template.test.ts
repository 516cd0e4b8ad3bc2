/**
 * Reading template JSON for the change planner: canonical comparison, schema pointers with `*`, references.
 */
import { canonicalJson as canonical } from '../../../core/canonical-json';
import { importsOf, referencedAmong, valueAt } from '../../../core/change-plan/template';

describe('change-plan template reading', () => {
  test('canonical JSON ignores key order and nothing else', () => {
    // GIVEN / WHEN / THEN
    expect(canonical({ b: 1, a: [2, { d: 3, c: 4 }] })).toBe(canonical({ a: [2, { c: 4, d: 3 }], b: 1 }));
    expect(canonical({ a: '1' })).not.toBe(canonical({ a: 1 }));
    expect(canonical([1, 2])).not.toBe(canonical([2, 1]));
    expect(canonical(undefined)).not.toBe(canonical(null));
  });

  test('a pointer reads nested properties, every element under *, and stops at an intrinsic', () => {
    // GIVEN
    const properties = {
      A: { B: 'x' },
      Tags: [{ Key: 'k1', Value: 'v1' }, { Key: 'k2' }],
      Chosen: { 'Fn::If': ['C', { B: 1 }, { B: 2 }] },
      'With/Slash': 1,
    };
    // WHEN / THEN
    expect(valueAt(properties, '/properties/A/B')).toBe('x');
    expect(valueAt(properties, '/properties/A/Missing')).toBeUndefined();
    expect(valueAt(properties, '/properties/Tags/*/Key')).toEqual(['k1', 'k2']);
    expect(valueAt(properties, '/properties/Tags/*/Value')).toEqual(['v1', undefined]);
    expect(valueAt(properties, '/properties/Chosen/B')).toEqual(properties.Chosen);
    expect(valueAt(properties, '/properties/With~1Slash')).toBe(1);
    expect(valueAt(undefined, '/properties/A')).toBeUndefined();
  });

  test('references: Ref, both Fn::GetAtt forms and Fn::Sub, without pseudo parameters, literals or Sub variables', () => {
    // GIVEN
    const among = new Set(['A', 'B', 'C', 'D', 'E']);
    const value = {
      'Fn::Join': [
        '',
        [
          { Ref: 'A' },
          { 'Fn::GetAtt': ['B', 'Arn'] },
          { 'Fn::GetAtt': 'C.Arn' },
          { 'Fn::Sub': ['${D.Arn}/${E}/${!A}/${AWS::Region}', { E: 'literal' }] },
        ],
      ],
    };
    // WHEN / THEN
    expect(referencedAmong(value, among).sort()).toEqual(['A', 'B', 'C', 'D']);
    expect(referencedAmong({ 'Fn::Sub': '${!B}' }, among)).toEqual([]);
  });

  test('imports are the literal Fn::ImportValue names anywhere in the template', () => {
    // GIVEN
    const template = {
      Resources: { R: { Type: 'T', Properties: { A: [{ 'Fn::ImportValue': 'x' }] } } },
      Outputs: { O: { Value: { 'Fn::ImportValue': 'y' } } },
    };
    // WHEN / THEN
    expect([...importsOf(template)].sort()).toEqual(['x', 'y']);
  });
});
