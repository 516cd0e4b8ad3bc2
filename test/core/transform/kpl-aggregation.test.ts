/**
 * kfek's KPL aggregation encoder and decoder against the reference implementation (`aws-kinesis-agg`, awslabs):
 * what kfek writes, the reference reads back exactly; what the reference writes, kfek's decoder reads exactly;
 * and records that are not valid aggregates are passed through whole, as the KCL does.
 */
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  aggregateBaseBytes,
  deaggregate,
  encodeAggregatedRecord,
  KPL_MAGIC,
  KplAggregationError,
  userRecordBytes,
  varintBytes,
} from '../../../core/transform/kpl-aggregation';
import { referenceAggregate, referenceDeaggregate } from '../../helpers/kpl-reference';

const KEY = 'Yx3a8W1c0mQ9b6gk2mVv1p0r5Xw4u8sFQh7jK2nLdZo';

function docs(texts: readonly string[]): Array<{ json: string; bytes: number }> {
  return texts.map((json) => ({ json, bytes: Buffer.byteLength(json, 'utf8') }));
}

function encodeAll(texts: readonly string[], key = KEY): Buffer {
  return encodeAggregatedRecord(
    key,
    docs(texts),
    texts.map((_, i) => i),
  );
}

describe('encodeAggregatedRecord', () => {
  test('writes records the reference de-aggregates to exactly the documents, with their key, in order', () => {
    // GIVEN: unicode (2-, 3- and 4-byte UTF-8), an empty document, JSON with escapes.
    const texts = ['{"message":"héllo €"}', '', '{"emoji":"🦄 \\u0000 \\" \\\\"}', '{"n":1}'];
    // WHEN
    const data = encodeAll(texts);
    // THEN
    const out = referenceDeaggregate(data, KEY);
    expect(out.map((r) => r.data.toString('utf8'))).toEqual(texts);
    expect(out.map((r) => r.partitionKey)).toEqual(texts.map(() => KEY));
    expect(out.map((r) => r.subSequenceNumber)).toEqual([0, 1, 2, 3]);
  });

  test('sizes the record exactly as aggregateBaseBytes + userRecordBytes say', () => {
    const texts = ['a'.repeat(127), 'b'.repeat(128), 'c'.repeat(16_384), ''];
    const data = encodeAll(texts);
    const expected = texts.reduce(
      (sum, t) => sum + userRecordBytes(Buffer.byteLength(t)),
      aggregateBaseBytes(Buffer.byteLength(KEY)),
    );
    expect(data.length).toBe(expected);
    expect(data.subarray(0, 4)).toEqual(Buffer.from(KPL_MAGIC));
    const digest = createHash('md5')
      .update(data.subarray(4, data.length - 16))
      .digest();
    expect(data.subarray(data.length - 16)).toEqual(digest);
  });

  test('a ~1 MiB document round-trips through the reference', () => {
    // GIVEN: one document that fills a Kinesis record up to the byte (1 MiB with the key).
    const room = 1024 * 1024 - Buffer.byteLength(KEY) - aggregateBaseBytes(Buffer.byteLength(KEY)) - 8;
    const big = JSON.stringify({ message: 'x'.repeat(room - 20) });
    const small = '{"m":"after"}';
    // WHEN
    const data = encodeAll([big, small]);
    // THEN
    expect(referenceDeaggregate(data, KEY).map((r) => r.data.toString('utf8'))).toEqual([big, small]);
    expect(deaggregate(data).records.map((r) => Buffer.from(r).toString('utf8'))).toEqual([big, small]);
  });

  test('fails when a document claims more UTF-8 bytes than its text has', () => {
    const wrong = [{ json: '{"m":"é"}', bytes: 11 }];
    expect(() => encodeAggregatedRecord(KEY, wrong, [0])).toThrow(KplAggregationError);
    expect(() => encodeAggregatedRecord(KEY, wrong, [0])).toThrow(
      /claims 11 UTF-8 bytes but only 10 were written/,
    );
  });

  test('varints take as many bytes as protobuf says', () => {
    expect([0, 127, 128, 16_383, 16_384, 1024 * 1024, 2 ** 32].map(varintBytes)).toEqual([
      1, 1, 2, 2, 3, 3, 5,
    ]);
  });
});

describe('deaggregate', () => {
  test('reads records the reference aggregated (several keys) exactly', () => {
    // GIVEN
    const records = [
      { partitionKey: 'a', data: Buffer.from('{"i":0}') },
      { partitionKey: 'b', data: Buffer.from('{"i":"ü"}') },
      { partitionKey: 'a', data: Buffer.alloc(0) },
    ];
    // WHEN
    const out = deaggregate(referenceAggregate(records));
    // THEN
    expect(out.aggregated).toBe(true);
    expect(out.records.map((r) => Buffer.from(r))).toEqual(records.map((r) => r.data));
    expect(out.partitionKeys).toEqual(['a', 'b', 'a']);
  });

  test('passes a plain record through whole, as one user record', () => {
    const json = Buffer.from('{"message":"plain"}');
    expect(deaggregate(json)).toEqual({ aggregated: false, records: [json], partitionKeys: [undefined] });
    expect(referenceDeaggregate(json, KEY).map((r) => r.data)).toEqual([json]);
  });

  test('a record with the magic but a wrong MD5 is not an aggregate: passed through whole (KCL behaviour)', () => {
    // GIVEN
    const data = encodeAll(['{"a":1}', '{"b":2}']);
    data[data.length - 1] ^= 0xff;
    // WHEN
    const out = deaggregate(data);
    // THEN: one user record holding the raw bytes; downstream it is a document OpenSearch rejects (kept in S3).
    expect(out.aggregated).toBe(false);
    expect(out.records).toEqual([data]);
    // The reference library, checking checksums, refuses it outright instead.
    expect(() => referenceDeaggregate(data, KEY)).toThrow(/Invalid record checksum/);
  });

  test('magic plus digest and nothing else, or a message that does not parse, is not an aggregate', () => {
    const empty = Buffer.concat([Buffer.from(KPL_MAGIC), createHash('md5').update(Buffer.alloc(0)).digest()]);
    expect(deaggregate(empty).aggregated).toBe(false);
    const garbage = Buffer.from([0x1a, 0x7f, 0x01]); // a Record whose length runs past the end
    const framed = Buffer.concat([
      Buffer.from(KPL_MAGIC),
      garbage,
      createHash('md5').update(garbage).digest(),
    ]);
    expect(deaggregate(framed)).toMatchObject({ aggregated: false, records: [framed] });
    const noKey = Buffer.from([0x1a, 0x02, 0x1a, 0x00]); // a Record without its required partition_key_index
    const framedNoKey = Buffer.concat([
      Buffer.from(KPL_MAGIC),
      noKey,
      createHash('md5').update(noKey).digest(),
    ]);
    expect(deaggregate(framedNoKey).aggregated).toBe(false);
  });
});

test('property: any batch of documents round-trips through kfek and the reference alike', () => {
  fc.assert(
    fc.property(
      fc.array(fc.string({ unit: 'binary', maxLength: 300 }), { maxLength: 40 }),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 64 }),
      (texts, key) => {
        const data = encodeAll(texts, key);
        expect(referenceDeaggregate(data, key).map((r) => r.data.toString('utf8'))).toEqual(
          texts.map((t) => Buffer.from(t, 'utf8').toString('utf8')),
        );
        const ours = deaggregate(data);
        expect(ours.aggregated).toBe(true);
        expect(ours.records.map((r) => Buffer.from(r).toString('utf8'))).toEqual(
          texts.map((t) => Buffer.from(t, 'utf8').toString('utf8')),
        );
        expect(ours.partitionKeys).toEqual(texts.map(() => key));
      },
    ),
    { numRuns: 300 },
  );
});
