/**
 * Property test of the resume point: for any mix of data, control and poison records, any documents Kinesis
 * refuses for good, any dead-letter uploads S3 refuses, and any chunk size, the partial batch response names
 * exactly the earliest record not fully handled, and every record before it is complete.
 * Kinesis and S3 are aws-sdk-client-mock doubles (no AWS here).
 */
import { KinesisClient, PutRecordsCommand, type PutRecordsCommandInput } from '@aws-sdk/client-kinesis';
import { PutObjectCommand, S3Client, type PutObjectCommandInput } from '@aws-sdk/client-s3';
import type { KinesisStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { S3DeadLetterStore, type DeadLetterObject } from '../../../lambda/transform/dead-letter';
import { processKinesisBatch } from '../../../lambda/transform/kinesis-batch';
import { KinesisWriter } from '../../../lambda/transform/kinesis-writer';
import type { RecordOutcome } from '../../../lambda/transform/types';

const kinesis = mockClient(KinesisClient);
const s3 = mockClient(S3Client);

type Spec =
  | { readonly kind: 'data'; readonly docs: number; readonly refused: number | null }
  | { readonly kind: 'control' }
  | { readonly kind: 'poison'; readonly storeFails: boolean };

const spec: fc.Arbitrary<Spec> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('data' as const),
      docs: fc.integer({ min: 0, max: 6 }),
      refused: fc.option(fc.integer({ min: 0, max: 5 }), { freq: 6 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('control' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('poison' as const), storeFails: fc.boolean() }) },
);

function transformFor(specs: readonly Spec[]) {
  return (data: string): RecordOutcome => {
    const index = Number(Buffer.from(data, 'base64').toString('utf8'));
    const s = specs[index];
    if (s.kind === 'control') return { kind: 'control' };
    if (s.kind === 'poison') return { kind: 'poison', reason: `poison ${index}` };
    return {
      kind: 'data',
      documents: Array.from({ length: s.docs }, (_, i) => {
        const json = JSON.stringify({ message: `${index}.${i}` });
        return { json, bytes: Buffer.byteLength(json), partitionKey: `k${index % 2}`, truncated: false };
      }),
    };
  };
}

function eventFor(specs: readonly Spec[]): KinesisStreamEvent {
  return {
    Records: specs.map((_, i) => ({
      eventSource: 'aws:kinesis',
      eventVersion: '1.0',
      eventID: `shardId-000000000000:${1000 + i}`,
      eventName: 'aws:kinesis:record',
      invokeIdentityArn: 'arn:aws:iam::123456789012:role/r',
      awsRegion: 'eu-west-1',
      eventSourceARN: 'arn:aws:kinesis:eu-west-1:123456789012:stream/raw',
      kinesis: {
        kinesisSchemaVersion: '1.0',
        partitionKey: 'p',
        sequenceNumber: String(1000 + i),
        data: Buffer.from(String(i)).toString('base64'),
        approximateArrivalTimestamp: 1_795_000_000,
      },
    })),
  };
}

/** True when record `index` cannot be completed in this scenario. */
function blocked(s: Spec): boolean {
  if (s.kind === 'poison') return s.storeFails;
  if (s.kind === 'data') return s.refused !== null && s.refused < s.docs;
  return false;
}

test('the resume point is the earliest record not fully handled, and everything before it is complete', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(spec, { maxLength: 25 }),
      fc.integer({ min: 1, max: 12 }),
      async (specs, chunkDocuments) => {
        kinesis.reset();
        s3.reset();
        const written = new Set<string>();
        const stored = new Set<number>();
        let now = 0;
        kinesis.on(PutRecordsCommand).callsFake((input: PutRecordsCommandInput) => {
          now += 10;
          const records = input.Records!.map((r) => {
            const message = (JSON.parse(Buffer.from(r.Data!).toString('utf8')) as { message: string })
              .message;
            const [record, doc] = message.split('.').map(Number);
            const s = specs[record];
            if (s.kind === 'data' && s.refused === doc)
              return { ErrorCode: 'InternalFailure', ErrorMessage: 'no' };
            written.add(message);
            return { SequenceNumber: '1', ShardId: 'shardId-000000000000' };
          });
          return Promise.resolve({ FailedRecordCount: 0, Records: records });
        });
        s3.on(PutObjectCommand).callsFake((input: PutObjectCommandInput) => {
          const body = JSON.parse(input.Body as string) as DeadLetterObject;
          const index = Number(body.source.sequenceNumber) - 1000;
          const s = specs[index];
          if (s.kind === 'poison' && s.storeFails) return Promise.reject(new Error('AccessDenied'));
          stored.add(index);
          return Promise.resolve({});
        });
        const event = eventFor(specs);

        const outcome = await processKinesisBatch(event, () => 2_000 - now, {
          transform: transformFor(specs),
          writer: new KinesisWriter({
            client: new KinesisClient({ region: 'eu-west-1' }),
            streamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/e',
            sleep: (ms) => {
              now += ms;
              return Promise.resolve();
            },
          }),
          deadLetters: new S3DeadLetterStore({
            client: new S3Client({ region: 'eu-west-1' }),
            bucket: 'b',
            prefix: 'p/',
          }),
          logger: { warn: () => undefined, error: () => undefined },
          chunkDocuments,
        });

        const expected = specs.findIndex(blocked);
        expect(outcome.response.batchItemFailures).toEqual(
          expected === -1 ? [] : [{ itemIdentifier: event.Records[expected].kinesis.sequenceNumber }],
        );
        const end = expected === -1 ? specs.length : expected;
        const mustBeWritten = specs
          .slice(0, end)
          .flatMap((s, r) =>
            s.kind === 'data' ? Array.from({ length: s.docs }, (_, d) => `${r}.${d}`) : [],
          );
        const mustBeStored = specs.slice(0, end).flatMap((s, r) => (s.kind === 'poison' ? [r] : []));
        expect(mustBeWritten.filter((m) => !written.has(m))).toEqual([]);
        expect(mustBeStored.filter((r) => !stored.has(r))).toEqual([]);
        expect(outcome.counters.PartialBatchResponses).toBe(expected === -1 ? 0 : 1);
      },
    ),
    { numRuns: 200 },
  );
});
