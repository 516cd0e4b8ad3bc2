/**
 * Serialization: exact UTF-8 sizes, truncation to one Kinesis record including the partition key,
 * never cutting a character in half, degrading huge app fields, partition keys.
 */
import { DocumentSerializer, type DocumentOptions } from '../../../core/transform/document';
import { fittingPrefixLength, partitionKeyFor } from '../../../core/transform/serialize';
import { MAX_KINESIS_RECORD_BYTES } from '../../../core/contracts/aws-limits';
import type { LogDocument, SerializedDocument } from '../../../core/transform/types';

const SOURCE = {
  logGroup: '/aws/lambda/orders',
  logStream: '2026/11/23/[$LATEST]abc',
  owner: '123456789012',
};
const KEY = partitionKeyFor(SOURCE.logGroup, SOURCE.logStream);
const KEY_BYTES = Buffer.byteLength(KEY);

/** The whole document of one event with this message, without a size limit. */
function jsonOf(message: string): string {
  return new DocumentSerializer(SOURCE).json({ id: '1', timestamp: 0, message });
}

/** The event's record, as the transform writes it. */
function serialize(message: string, options: DocumentOptions = {}): SerializedDocument {
  const record = new DocumentSerializer(SOURCE, options).serialize({ id: '1', timestamp: 0, message });
  if (record === undefined) throw new Error('no route drops here');
  return record;
}

function parsed(json: string): LogDocument {
  return JSON.parse(json) as LogDocument;
}

describe('DocumentSerializer.serialize: one record per event', () => {
  it('serializes once and measures exact UTF-8 bytes', () => {
    const json = jsonOf('héllo 😀 wörld');
    const out = serialize('héllo 😀 wörld');
    expect(out).toEqual({
      json,
      bytes: Buffer.byteLength(json),
      partitionKey: KEY,
      truncated: false,
    });
  });

  it('leaves a document that fits exactly with its partition key alone', () => {
    const base = serialize('').bytes;
    const message = 'a'.repeat(MAX_KINESIS_RECORD_BYTES - KEY_BYTES - base);
    const out = serialize(message);
    expect(out.truncated).toBe(false);
    expect(out.bytes + KEY_BYTES).toBe(MAX_KINESIS_RECORD_BYTES);
  });

  it('cuts an ASCII message to fill the record exactly (data + partition key = 1 MiB)', () => {
    const message = 'a'.repeat(MAX_KINESIS_RECORD_BYTES);
    const original = Buffer.byteLength(jsonOf(message));
    const out = serialize(message);
    expect(out.truncated).toBe(true);
    expect(out.bytes + KEY_BYTES).toBe(MAX_KINESIS_RECORD_BYTES);
    const doc = parsed(out.json);
    expect(message.startsWith(doc.message)).toBe(true);
    expect(doc.kfek).toEqual({ truncated: true, originalBytes: original });
  });

  it.each([
    ['two-byte characters', 'é'],
    ['three-byte characters', '€'],
    ['surrogate pairs', '😀'],
    ['escaped quotes', '"'],
    ['escaped control characters', '\u0001'],
    ['newlines', '\n'],
    ['lone surrogates', '\ud800'],
    ['a mix', 'a€😀"\\\u0007\ud800\udc00\udfff'],
  ])('never cuts %s in half and stays within the limit', (_name, unit) => {
    const message = unit.repeat(Math.ceil((MAX_KINESIS_RECORD_BYTES * 1.5) / unit.length));
    const out = serialize(message);
    expect(out.truncated).toBe(true);
    expect(out.bytes).toBe(Buffer.byteLength(out.json));
    expect(out.bytes + KEY_BYTES).toBeLessThanOrEqual(MAX_KINESIS_RECORD_BYTES);
    // Within one escaped character of the limit: the cut wastes no more than that.
    expect(out.bytes + KEY_BYTES).toBeGreaterThan(MAX_KINESIS_RECORD_BYTES - 12);
    const cut = parsed(out.json).message;
    expect(message.startsWith(cut)).toBe(true);
    // A pair is split when the cut ends on a high surrogate whose low half follows in the input.
    const last = cut.charCodeAt(cut.length - 1);
    const next = message.charCodeAt(cut.length);
    expect(last >= 0xd800 && last <= 0xdbff && next >= 0xdc00 && next <= 0xdfff).toBe(false);
  });

  it('keeps collisions and other kfek fields when it truncates', () => {
    const out = parsed(
      serialize(JSON.stringify({ message: 'x'.repeat(MAX_KINESIS_RECORD_BYTES), kfek: 'app' })).json,
    );
    expect(out.kfek).toMatchObject({ truncated: true, collisions: { kfek: 'app' } });
  });

  it('keeps the app fields as written when it truncates (numbers in their own form)', () => {
    const text = `{"message":"${'x'.repeat(MAX_KINESIS_RECORD_BYTES)}","n":1.0,"id":12345678901234567890}`;
    const out = serialize(text);
    expect(out.truncated).toBe(true);
    expect(out.json).toContain(',"n":1.0,"id":12345678901234567890,"kfek":{"truncated":true');
    expect(out.numbersAsWritten).toBe(true);
  });

  it('moves huge app fields into a truncated message when even an empty message does not fit', () => {
    const text = JSON.stringify({ message: 'small', blob: 'b'.repeat(MAX_KINESIS_RECORD_BYTES), n: 1 });
    const out = serialize(text);
    expect(out.truncated).toBe(true);
    expect(out.bytes + KEY_BYTES).toBe(MAX_KINESIS_RECORD_BYTES);
    const doc = parsed(out.json);
    expect(Object.keys(doc).sort()).toEqual(['@timestamp', 'cloudwatch', 'kfek', 'message']);
    expect(text.startsWith(doc.message)).toBe(true);
    expect(doc.message.length).toBeGreaterThan(MAX_KINESIS_RECORD_BYTES * 0.9);
    expect(doc.kfek).toMatchObject({ truncated: true, fieldsInMessage: true });
  });

  it('honours a smaller maxRecordBytes', () => {
    const out = serialize('z'.repeat(5000), { maxRecordBytes: 1000 });
    expect(out.bytes + KEY_BYTES).toBe(1000);
  });
});

describe('fittingPrefixLength', () => {
  it.each([
    ['abc', 3, 3],
    ['abc', 2, 2],
    ['é', 1, 0],
    ['é', 2, 1],
    ['😀', 3, 0],
    ['😀', 4, 2],
    ['"', 1, 0],
    ['"', 2, 1],
    ['\u0001', 5, 0],
    ['\u0001', 6, 1],
    ['\ud800x', 6, 1],
    ['abc', -1, 0],
  ])('%j within %d bytes -> %d code units', (text, budget, length) => {
    expect(fittingPrefixLength(text, budget)).toBe(length);
  });
});

describe('partitionKeyFor', () => {
  it('is stable per log group and stream, differs otherwise, and is short', () => {
    expect(partitionKeyFor('a', 'b')).toBe(partitionKeyFor('a', 'b'));
    expect(partitionKeyFor('a', 'bc')).not.toBe(partitionKeyFor('ab', 'c'));
    expect(partitionKeyFor('g', 's1')).not.toBe(partitionKeyFor('g', 's2'));
    const long = partitionKeyFor('g'.repeat(512), 's'.repeat(512));
    expect(long.length).toBeLessThanOrEqual(256);
    expect(long.length).toBeGreaterThan(0);
  });
});
