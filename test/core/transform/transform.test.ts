/**
 * The core's entry points: outcomes of transformRecord and the Pipes error document.
 */
import { MAX_ERROR_DATA_CHARS, toErrorDocument, transformRecord } from '../../../core/transform/transform';
import { partitionKeyFor } from '../../../core/transform/serialize';
import { LogDocument } from '../../../core/transform/types';
import {
  DEFAULT_LOG_GROUP,
  DEFAULT_LOG_STREAM,
  encodeEnvelope,
  makeEnvelope,
  makeLogEvents,
} from '../../helpers/cloudwatch';

describe('transformRecord', () => {
  it('one document per event, in order, all with the stream partition key', () => {
    // GIVEN
    const events = makeLogEvents(25, (i) =>
      i % 2 === 0 ? `line ${i}` : JSON.stringify({ message: `json ${i}`, i }),
    );
    // WHEN
    const outcome = transformRecord(encodeEnvelope(makeEnvelope({ logEvents: events })));
    // THEN
    if (outcome.kind !== 'data') throw new Error(outcome.kind);
    const docs = outcome.documents.map((d) => JSON.parse(d.json) as LogDocument);
    expect(docs.map((d) => d.message)).toEqual(
      events.map((_, i) => (i % 2 === 0 ? `line ${i}` : `json ${i}`)),
    );
    expect(docs.map((d) => d.cloudwatch.id)).toEqual(events.map((e) => e.id));
    expect(new Set(outcome.documents.map((d) => d.partitionKey))).toEqual(
      new Set([partitionKeyFor(DEFAULT_LOG_GROUP, DEFAULT_LOG_STREAM)]),
    );
    expect(outcome.documents.every((d) => !d.truncated && d.bytes === Buffer.byteLength(d.json))).toBe(true);
  });

  it('reports truncation on the serialized document', () => {
    const outcome = transformRecord(encodeEnvelope(makeEnvelope({}, [{ message: 'x'.repeat(1_100_000) }])));
    if (outcome.kind !== 'data') throw new Error(outcome.kind);
    expect(outcome.documents[0].truncated).toBe(true);
  });

  it('keeps a message nested too deeply to serialize as text, and the rest of its record', () => {
    const depth = 20_000;
    const deep = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    const outcome = transformRecord(
      encodeEnvelope(makeEnvelope({}, [{ message: 'before' }, { message: deep }, { message: 'after' }])),
    );
    if (outcome.kind !== 'data') throw new Error(outcome.kind);
    const docs = outcome.documents.map((d) => JSON.parse(d.json) as LogDocument);
    expect(docs.map((d) => d.message)).toEqual(['before', deep, 'after']);
    expect(docs[1].kfek).toEqual({ parseError: expect.stringMatching(/nests deeper than 1000 levels/) });
  });
});

describe('toErrorDocument', () => {
  it('has the schema fields, empty cloudwatch strings, the reason and the raw data', () => {
    expect(
      toErrorDocument(
        'bm90IGd6aXA=',
        'gzip: unexpected end of file',
        new Date(Date.UTC(2026, 10, 23, 9, 30)),
      ),
    ).toEqual({
      '@timestamp': '2026-11-23T09:30:00.000Z',
      message: 'kfek could not decode a Kinesis record: gzip: unexpected end of file',
      cloudwatch: { id: '', logGroup: '', logStream: '', owner: '' },
      kfek: { error: { reason: 'gzip: unexpected end of file', data: 'bm90IGd6aXA=' } },
    });
  });

  it('caps the raw data and flags the cut', () => {
    const data = 'A'.repeat(MAX_ERROR_DATA_CHARS + 100);
    const doc = toErrorDocument(data, 'not base64');
    expect(doc.kfek?.error?.data).toHaveLength(MAX_ERROR_DATA_CHARS);
    expect(doc.kfek?.error?.dataTruncated).toBe(true);
  });

  it('defaults @timestamp to now', () => {
    // GIVEN the clock at a known instant (jest's fake clock: toErrorDocument reads `new Date()` by default)
    jest.useFakeTimers({ now: Date.parse('2026-11-23T09:00:05.000Z') });
    try {
      // THEN
      expect(toErrorDocument('', 'x')['@timestamp']).toBe('2026-11-23T09:00:05.000Z');
    } finally {
      jest.useRealTimers();
    }
  });
});
