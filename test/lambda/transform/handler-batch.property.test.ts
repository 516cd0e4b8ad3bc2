/**
 * Property test of the resume point: for any mix of data, control and poison records, any documents Kinesis
 * refuses for good, any dead-letter uploads S3 refuses, and any chunk size, the partial batch response names
 * exactly the earliest record not fully handled, and every record before it is complete.
 * Kinesis and S3 are aws-sdk-client-mock doubles (no AWS here). Runs with and without KPL aggregation: an
 * aggregated record that holds a refused document is refused whole, so documents of other source records that
 * share it stay unwritten too, and the resume point must account for that.
 */
import { KinesisClient, PutRecordsCommand, type PutRecordsCommandInput } from '@aws-sdk/client-kinesis';
import { PutObjectCommand, S3Client, type PutObjectCommandInput } from '@aws-sdk/client-s3';
import type { KinesisStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { S3DeadLetterStore } from '../../../lambda/transform/dead-letter';
import { type DeadLetterObject } from '../../../lambda/transform/dead-letter-object';
import { processKinesisBatch } from '../../../lambda/transform/kinesis-batch';
import { KinesisWriter } from '../../../lambda/transform/kinesis-writer';
import { deaggregate } from '../../../core/transform/kpl-aggregation';
import { WRITE_MODES } from '../../helpers/kpl-reference';
import type { RecordOutcome } from '../../../core/transform/types';

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

test.each(WRITE_MODES)(
  '$mode: the resume point is the earliest record not fully handled, and everything before it is complete',
  async ({ aggregate }) => {
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
              const messages = deaggregate(r.Data!).records.map(
                (data) => (JSON.parse(Buffer.from(data).toString('utf8')) as { message: string }).message,
              );
              const refused = messages.some((message) => {
                const [record, doc] = message.split('.').map(Number);
                const s = specs[record];
                return s.kind === 'data' && s.refused === doc;
              });
              if (refused) return { ErrorCode: 'InternalFailure', ErrorMessage: 'no' };
              for (const message of messages) written.add(message);
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
              aggregate,
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

          const complete = (s: Spec, r: number): boolean =>
            s.kind === 'control' ||
            (s.kind === 'poison' && stored.has(r)) ||
            (s.kind === 'data' &&
              Array.from({ length: s.docs }, (_, d) => `${r}.${d}`).every((m) => written.has(m)));
          const failures = outcome.response.batchItemFailures;
          const end =
            failures.length === 0
              ? specs.length
              : event.Records.findIndex((r) => r.kinesis.sequenceNumber === failures[0].itemIdentifier);
          // Everything before the resume point is complete, and the resume point itself is not.
          expect(specs.slice(0, end).every(complete)).toBe(true);
          expect(end === specs.length || !complete(specs[end], end)).toBe(true);
          expect(outcome.counters.PartialBatchResponses).toBe(failures.length === 0 ? 0 : 1);
          // One record per document: refusals are per document, so the resume point is known in advance.
          // Aggregated: a refused document also holds back the documents sharing its record, never later ones.
          const blockedAt = specs.findIndex(blocked);
          const expected = blockedAt === -1 ? specs.length : blockedAt;
          expect(aggregate ? end <= expected : end === expected).toBe(true);
          expect(blockedAt !== -1 || end === specs.length).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  },
);
