/**
 * `kfek.arrival` (issue 30.5): every document carries when its raw record reached the raw stream, on both transports,
 * so the ingest pipeline can put every copy of a record in one index (test/core/opensearch/routes.integ.test.ts holds
 * the pipeline's side on a real node). What matters here: the value is the record's own `approximateArrivalTimestamp`
 * in milliseconds, it is the same for every read of the record, it never pushes a document past its record, and a
 * missing or absurd arrival writes no member rather than a wrong one.
 */
import { ARRIVAL_KEY } from '../../../core/contracts/index-naming';
import { MAX_KINESIS_RECORD_BYTES } from '../../../core/contracts/aws-limits';
import { arrivalMillisOf } from '../../../core/transform/document';
import { processKinesisBatch } from '../../../lambda/transform/kinesis-batch';
import { processPipesBatch } from '../../../lambda/transform/pipes-batch';
import { toErrorDocument, transformRecord } from '../../../core/transform/transform';
import type { SerializedDocument } from '../../../core/transform/types';
import { encodeEnvelope, makeEnvelope, makeKinesisEvent } from '../../helpers/cloudwatch';
import { completeWrite } from '../../helpers/write-results';

/** 2026-12-01T23:59:59.987Z, as Kinesis reports it: seconds with a fraction. */
const ARRIVAL_SECONDS = 1_796_169_599.987;
const ARRIVAL_MILLIS = 1_796_169_599_987;

function arrivalOf(json: string): unknown {
  return (JSON.parse(json) as { kfek?: Record<string, unknown> }).kfek?.[ARRIVAL_KEY];
}

const logger = { warn: () => undefined, error: () => undefined };

describe('kfek.arrival', () => {
  const datas = [
    encodeEnvelope(makeEnvelope({}, [{ message: 'one' }, { message: '{"level":"info","msg":"two"}' }])),
    encodeEnvelope(makeEnvelope({}, [{ message: 'three' }])),
  ];

  it('the Lambda transport writes each record its own arrival, in milliseconds', async () => {
    // GIVEN two records that arrived 1 ms apart
    const event = makeKinesisEvent(datas, { approximateArrivalTimestamp: ARRIVAL_SECONDS });
    const written: SerializedDocument[] = [];
    // WHEN
    await processKinesisBatch(event, () => 60_000, {
      transform: (data, options) => transformRecord(data, options),
      writer: { write: (docs) => (written.push(...docs), Promise.resolve(completeWrite(docs))) },
      deadLetters: { put: () => Promise.reject(new Error('no poison expected')) },
      logger,
    });
    // THEN
    expect(written.map((d) => arrivalOf(d.json))).toEqual([
      ARRIVAL_MILLIS,
      ARRIVAL_MILLIS,
      ARRIVAL_MILLIS + 1,
    ]);
  });

  it('the Pipes transport writes the same arrival into the same documents', async () => {
    const event = makeKinesisEvent(datas, { approximateArrivalTimestamp: ARRIVAL_SECONDS });
    const outcome = await processPipesBatch(
      event.Records.map(({ kinesis, ...rest }) => ({ ...kinesis, ...rest })),
      {
        transform: transformRecord,
        errorDocument: toErrorDocument,
        writer: { write: (docs) => Promise.resolve(completeWrite(docs)) },
        deadLetters: { put: () => Promise.reject(new Error('no poison expected')) },
        deadLetterBucket: 'bucket',
        logger,
        remainingMs: () => 60_000,
      },
    );
    expect(outcome.items.map((item) => (item.kfek as Record<string, unknown>)[ARRIVAL_KEY])).toEqual([
      ARRIVAL_MILLIS,
      ARRIVAL_MILLIS,
      ARRIVAL_MILLIS + 1,
    ]);
  });

  it('reading a record again gives the same text, so its copies are one document in one index', () => {
    const a = transformRecord(datas[0], { approximateArrivalTimestamp: ARRIVAL_SECONDS });
    const b = transformRecord(datas[0], { approximateArrivalTimestamp: ARRIVAL_SECONDS });
    expect(a).toEqual(b);
    expect(a.kind === 'data' && a.documents[0].json).toContain(`"kfek":{"${ARRIVAL_KEY}":${ARRIVAL_MILLIS}}`);
  });

  it('a document cut to fit its record counts the member: it stays within the limit, arrival included', () => {
    const maxRecordBytes = 4_096;
    const data = encodeEnvelope(makeEnvelope({}, [{ message: 'x'.repeat(10_000) }]));
    const outcome = transformRecord(data, { maxRecordBytes, approximateArrivalTimestamp: ARRIVAL_SECONDS });
    if (outcome.kind !== 'data') throw new Error(outcome.kind);
    const [doc] = outcome.documents;
    expect(doc.truncated).toBe(true);
    expect(doc.bytes + Buffer.byteLength(doc.partitionKey)).toBeLessThanOrEqual(maxRecordBytes);
    expect(doc.bytes + Buffer.byteLength(doc.partitionKey)).toBeGreaterThan(maxRecordBytes - 16);
    expect(arrivalOf(doc.json)).toBe(ARRIVAL_MILLIS);
    const full = transformRecord(data, { approximateArrivalTimestamp: ARRIVAL_SECONDS });
    expect(full.kind === 'data' && full.documents[0].bytes).toBeLessThanOrEqual(MAX_KINESIS_RECORD_BYTES);
  });

  it.each([
    ['missing', undefined],
    ['not a number', '1796169599.987'],
    ['NaN', Number.NaN],
    ['zero', 0],
    ['negative', -5],
    ['after the year 9999', 253_402_300_800],
    ['infinite', Number.POSITIVE_INFINITY],
  ])(
    'an arrival that is %s writes no member (Firehose then names the index, as before)',
    (_name, seconds) => {
      expect(arrivalMillisOf(seconds)).toBeUndefined();
      const outcome = transformRecord(datas[1], { approximateArrivalTimestamp: seconds });
      expect(outcome.kind === 'data' && outcome.documents[0].json).not.toContain(`"${ARRIVAL_KEY}"`);
    },
  );

  it('an app cannot write or change the arrival: its keys named like it are kept under kfek.collisions', () => {
    const data = encodeEnvelope(
      makeEnvelope({}, [
        { message: JSON.stringify({ 'kfek.arrival': 1, kfek: { arrival: 2 } }) },
        { message: '{"kfek":{"arrival":5}}' },
      ]),
    );
    const outcome = transformRecord(data, { approximateArrivalTimestamp: ARRIVAL_SECONDS });
    if (outcome.kind !== 'data') throw new Error(outcome.kind);
    const kfeks = outcome.documents.map((d) => (JSON.parse(d.json) as { kfek: unknown }).kfek);
    expect(kfeks).toEqual([
      { collisions: { 'kfek.arrival': 1, kfek: { arrival: 2 } }, [ARRIVAL_KEY]: ARRIVAL_MILLIS },
      { collisions: { kfek: { arrival: 5 } }, [ARRIVAL_KEY]: ARRIVAL_MILLIS },
    ]);
  });

  it('rounds a fractional millisecond the way every read of the record does', () => {
    expect(arrivalMillisOf(1_545_084_650.987)).toBe(1_545_084_650_987);
    expect(arrivalMillisOf(1_545_084_650.9876)).toBe(1_545_084_650_988);
  });
});
