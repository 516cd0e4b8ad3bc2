import { gzipSync } from 'node:zlib';
import { contentPartitionKey } from '../../../core/kinesis/limits';
import { parseDeadLetter, parseDiscardedBatch, parseFailedDocuments } from '../../../core/kept/parse';
import { ReplayParseError } from '../../../cli/replay/errors';
import type { KeptContainer } from '../../../core/kept/model';
import { encodeEnvelope, makeEnvelope } from '../../helpers/cloudwatch';

const container: KeptContainer = { location: 's3://kept/x.json', handle: 'x.json', sizeBytes: 10 };
const bytes = (value: unknown): Buffer =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));

describe('parseDeadLetter', () => {
  test('gives back the record exactly as received, with its partition key, reason and time', () => {
    // GIVEN a dead-letter object as lambda/transform/dead-letter.ts writes it
    const data = encodeEnvelope(makeEnvelope());
    const object = {
      version: 1,
      reason: 'not gzip',
      receivedAt: '2026-11-23T10:00:00.000Z',
      source: { partitionKey: 'pk-7', shardId: 'shardId-000000000001', sequenceNumber: '42' },
      data,
    };
    // WHEN
    const item = parseDeadLetter(bytes(object), container);
    // THEN
    expect(item).toMatchObject({
      kind: 'dead-letter',
      reason: 'not gzip',
      at: new Date('2026-11-23T10:00:00Z'),
    });
    expect(item.content).toEqual({
      type: 'records',
      records: [{ data: Buffer.from(data, 'base64'), partitionKey: 'pk-7' }],
    });
  });

  test('derives a partition key from the bytes when the record had none', () => {
    const item = parseDeadLetter(bytes({ version: 1, reason: 'r', data: 'AAEC', source: {} }), container);
    expect(item.content).toEqual({
      type: 'records',
      records: [{ data: Buffer.from([0, 1, 2]), partitionKey: contentPartitionKey(Buffer.from([0, 1, 2])) }],
    });
  });

  test.each([
    ['not JSON', '{nope', /is not JSON/],
    ['another version', JSON.stringify({ version: 2, data: 'AA==' }), /not a version 1 dead-letter object/],
    ['data that is not base64', JSON.stringify({ version: 1, data: '*not*' }), /not base64/],
  ])('fails with the place named when the object is %s', (_what, text, message) => {
    expect(() => parseDeadLetter(bytes(text), container)).toThrow(ReplayParseError);
    expect(() => parseDeadLetter(bytes(text), container)).toThrow(message);
    expect(() => parseDeadLetter(bytes(text), container)).toThrow(/s3:\/\/kept\/x\.json/);
  });
});

describe('parseFailedDocuments', () => {
  const line = (doc: object, extra: object = {}): string =>
    JSON.stringify({
      attemptsMade: 1,
      arrivalTimestamp: 1_795_000_000_000,
      errorCode: '400',
      errorMessage: '{"type":"mapper_parsing_exception"}',
      attemptEndingTimestamp: 1_795_000_001_000,
      rawData: Buffer.from(JSON.stringify(doc)).toString('base64'),
      subsequenceNumber: 0,
      esDocumentId: 'shardId-000000000000-1',
      esIndexName: 'logs-2026-11-23',
      esTypeName: '',
      ...extra,
    });

  test('reads one item per line from a gzipped Firehose object, reason from the error', () => {
    // GIVEN two documents, gzipped as Firehose's S3 backup writes them (compressionFormat GZIP)
    const text = `${line({ message: 'a' })}\n${line({ message: 'b' }, { errorCode: '403' })}\n`;
    // WHEN
    const { items, problems } = parseFailedDocuments(gzipSync(text), container);
    // THEN
    expect(problems).toEqual([]);
    expect(items.map((i) => i.reason)).toEqual([
      '400: {"type":"mapper_parsing_exception"}',
      '403: {"type":"mapper_parsing_exception"}',
    ]);
    expect(items[0]).toMatchObject({ kind: 'failed-document', at: new Date(1_795_000_001_000), container });
    const records = items.map((i) => (i.content.type === 'records' ? i.content.records[0] : undefined));
    expect(records.map((r) => JSON.parse(Buffer.from(r!.data).toString()) as unknown)).toEqual([
      { message: 'a' },
      { message: 'b' },
    ]);
  });

  test('reports a broken line by its number and still reads the others', () => {
    const { items, problems } = parseFailedDocuments(bytes(`${line({ a: 1 })}\n{"broken"\n`), container);
    expect(items).toHaveLength(1);
    expect(problems.map((p) => p.location)).toEqual(['s3://kept/x.json line 2']);
  });
});

describe('parseDiscardedBatch', () => {
  const batchInfo = {
    shardId: 'shardId-000000000003',
    startSequenceNumber: '49647238774018758449143790847474952390342044683891376130',
    endSequenceNumber: '49647238774018758449143790941112301748593148785147772930',
    approximateArrivalOfFirstRecord: '2026-11-23T09:59:00.000Z',
    approximateArrivalOfLastRecord: '2026-11-23T10:00:00.000Z',
    batchSize: 3,
    streamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-raw',
  };
  const invocationRecord = {
    requestContext: { requestId: 'r', condition: 'RetryAttemptsExhausted', approximateInvokeCount: 4 },
    responseContext: { statusCode: 200, executedVersion: '$LATEST', functionError: 'Unhandled' },
    version: '1.0',
    timestamp: '2026-11-23T10:01:00.000Z',
    KinesisBatchInfo: batchInfo,
  };

  test('metadata only (as SQS gets it): a range to read back from the raw stream', () => {
    const {
      approximateArrivalOfFirstRecord: _first,
      approximateArrivalOfLastRecord: _last,
      ...range
    } = batchInfo;
    const item = parseDiscardedBatch(bytes(invocationRecord), container, 'discarded-batch');
    expect(item).toMatchObject({
      kind: 'discarded-batch',
      reason: 'RetryAttemptsExhausted, function error Unhandled',
      at: new Date('2026-11-23T10:01:00.000Z'),
      content: { type: 'range', range },
    });
  });

  test.each([
    ['as an object', (records: object[]) => ({ ...invocationRecord, payload: { Records: records } })],
    [
      'as a JSON string',
      (records: object[]) => ({ ...invocationRecord, payload: JSON.stringify({ Records: records }) }),
    ],
  ])('with the invocation record %s (as S3 gets it): the records themselves', (_how, wrap) => {
    // GIVEN Lambda's event records, nested under `kinesis`
    const records = ['one', 'two'].map((text, i) => ({
      kinesis: {
        data: Buffer.from(text).toString('base64'),
        partitionKey: `pk-${i}`,
        sequenceNumber: String(i),
      },
      eventID: `shardId-000000000003:${i}`,
    }));
    // WHEN
    const item = parseDiscardedBatch(bytes(wrap(records)), container, 'discarded-batch');
    // THEN
    expect(item.content).toEqual({
      type: 'records',
      records: [
        { data: Buffer.from('one'), partitionKey: 'pk-0' },
        { data: Buffer.from('two'), partitionKey: 'pk-1' },
      ],
    });
    expect(item.dataBytes).toBe(6);
  });

  test("a pipe's dead-letter message with its range under another key, dated by the message", () => {
    const sentAt = new Date('2026-11-23T11:00:00Z');
    const item = parseDiscardedBatch(bytes({ context: { ...batchInfo } }), container, 'pipes-dlq', sentAt);
    expect(item).toMatchObject({ kind: 'pipes-dlq', content: { type: 'range' } });
    // approximateArrivalOfLastRecord comes before the message's own time
    expect(item.at).toEqual(new Date('2026-11-23T10:00:00.000Z'));
  });

  test('fails when it holds neither records nor a range', () => {
    expect(() => parseDiscardedBatch(bytes({ requestContext: {} }), container, 'pipes-dlq')).toThrow(
      /neither records nor a shard and sequence-number range/,
    );
  });
});
