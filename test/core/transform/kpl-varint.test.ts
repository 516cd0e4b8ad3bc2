/**
 * varintBytes has branch fast paths (1-3 bytes) and a division loop beyond: every boundary of both, and any safe
 * integer, must agree with protobuf's rule (7 bits per byte), computed here independently with BigInt.
 */
import fc from 'fast-check';
import { varintBytes } from '../../../core/transform/kpl-aggregation';

function protobufVarintBytes(value: number): number {
  let bytes = 1;
  for (let v = BigInt(value); v >= 128n; v >>= 7n) bytes += 1;
  return bytes;
}

describe('varintBytes', () => {
  test('agrees with protobuf at every 7-bit boundary up to 2^53', () => {
    for (let bits = 7; bits <= 49; bits += 7) {
      for (const v of [2 ** bits - 1, 2 ** bits, 2 ** bits + 1]) {
        expect([v, varintBytes(v)]).toEqual([v, protobufVarintBytes(v)]);
      }
    }
    expect(varintBytes(Number.MAX_SAFE_INTEGER)).toBe(protobufVarintBytes(Number.MAX_SAFE_INTEGER));
  });

  test('agrees with protobuf for any safe integer', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (v) => {
        expect(varintBytes(v)).toBe(protobufVarintBytes(v));
      }),
      { numRuns: 2000 },
    );
  });
});
