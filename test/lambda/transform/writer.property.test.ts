/**
 * Property tests of the Kinesis writer against a simulated Kinesis (aws-sdk-client-mock; there is no AWS here)
 * with random documents, per-entry failures, whole-call failures and budgets, with and without KPL aggregation
 * (entries are read back with kfek's decoder; writer-aggregation.test.ts checks it against the reference).
 */
import { KinesisClient, PutRecordsCommand, type PutRecordsCommandInput } from '@aws-sdk/client-kinesis';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { KinesisWriter } from '../../../lambda/transform/kinesis-writer';
import { deaggregate } from '../../../core/transform/kpl-aggregation';
import { WRITE_MODES } from '../../helpers/kpl-reference';
import { MAX_PUT_RECORDS_BYTES, MAX_PUT_RECORDS_ENTRIES } from '../../../core/contracts/aws-limits';
import type { SerializedDocument } from '../../../core/transform/types';

const kinesis = mockClient(KinesisClient);
const CALL_MS = 20;

interface Scenario {
  readonly sizes: number[];
  /** Per document: how often it fails before it is accepted; -1 = forever. */
  readonly failures: number[];
  /** Whole-call failures at the start: 't' throttle, '5' 500. */
  readonly callFailures: Array<'t' | '5'>;
  readonly budgetMs: number;
  readonly multibyte: boolean;
}

const scenario: fc.Arbitrary<Scenario> = fc
  .record({
    n: fc.integer({ min: 0, max: 1100 }),
    seed: fc.array(fc.integer({ min: 1, max: 1200 }), { minLength: 1, maxLength: 20 }),
    failureSeed: fc.array(fc.integer({ min: -1, max: 3 }), { minLength: 1, maxLength: 30 }),
    failureDensity: fc.integer({ min: 0, max: 10 }),
    callFailures: fc.array(fc.constantFrom<'t' | '5'>('t', '5'), { maxLength: 4 }),
    budgetMs: fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.constant(600_000)),
    multibyte: fc.boolean(),
  })
  .map(({ n, seed, failureSeed, failureDensity, callFailures, budgetMs, multibyte }) => ({
    sizes: Array.from({ length: n }, (_, i) => seed[i % seed.length]),
    // Permanent failures only with a short budget: with a long one the writer would (rightly) retry them for
    // minutes of simulated time, which is slow to simulate and proves nothing more.
    failures: Array.from({ length: n }, (_, i) => {
      const f = i % 11 < failureDensity ? failureSeed[i % failureSeed.length] : 0;
      return f === -1 && budgetMs > 3000 ? 3 : f;
    }),
    callFailures,
    budgetMs,
    multibyte,
  }));

function documents(s: Scenario): SerializedDocument[] {
  return s.sizes.map((size, i) => {
    const json = JSON.stringify({ i, pad: (s.multibyte ? 'é€' : 'ab').repeat(size) });
    const partitionKey = `group-${i % 3}/strëam`;
    return { json, bytes: Buffer.byteLength(json, 'utf8'), partitionKey, truncated: false };
  });
}

test.each(WRITE_MODES)(
  '$mode: writes exactly what it reports, in input order per key, within limits and budget',
  async ({ aggregate }) => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        kinesis.reset();
        const docs = documents(s);
        const indexOf = new Map(docs.map((d, i) => [d.json, i]));
        const failuresLeft = [...s.failures];
        const callFailures = [...s.callFailures];
        const acknowledged = new Set<number>();
        const calls: number[][] = [];
        let now = 0;
        kinesis.on(PutRecordsCommand).callsFake((input: PutRecordsCommandInput) => {
          now += CALL_MS;
          const entries = input.Records!;
          // Per entry, the documents it holds (one, or several when aggregated), each under the entry's key.
          const held = entries.map((e) => {
            const record = deaggregate(e.Data!);
            expect(record.aggregated).toBe(aggregate && record.records.length > 1);
            for (const key of record.partitionKeys) expect(key ?? e.PartitionKey).toBe(e.PartitionKey);
            return record.records.map((data) => indexOf.get(Buffer.from(data).toString('utf8'))!);
          });
          calls.push(held.flat());
          const bytes = entries.reduce(
            (sum, e) => sum + e.Data!.byteLength + Buffer.byteLength(e.PartitionKey!),
            0,
          );
          if (entries.length > MAX_PUT_RECORDS_ENTRIES || bytes > MAX_PUT_RECORDS_BYTES) {
            return Promise.reject(
              Object.assign(new Error('too big'), { name: 'ValidationException', $metadata: {} }),
            );
          }
          const failure = callFailures.shift();
          if (failure) {
            const name = failure === 't' ? 'ProvisionedThroughputExceededException' : 'InternalFailure';
            const status = failure === 't' ? 400 : 500;
            return Promise.reject(
              Object.assign(new Error(name), {
                name,
                $fault: status === 500 ? 'server' : 'client',
                $metadata: { httpStatusCode: status },
              }),
            );
          }
          // An entry is refused while any document in it still has failures to go (a refusal spends one of each).
          const records = held.map((indices) => {
            const refused = indices.some((i) => failuresLeft[i] !== 0);
            if (refused) {
              for (const i of indices) if (failuresLeft[i] > 0) failuresLeft[i] -= 1;
              return { ErrorCode: 'ProvisionedThroughputExceededException', ErrorMessage: 'Rate exceeded' };
            }
            for (const i of indices) acknowledged.add(i);
            return { SequenceNumber: '1', ShardId: 'shardId-000000000000' };
          });
          return Promise.resolve({
            FailedRecordCount: records.filter((r) => 'ErrorCode' in r).length,
            Records: records,
          });
        });
        const writer = new KinesisWriter({
          client: new KinesisClient({ region: 'eu-west-1' }),
          streamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/e',
          aggregate,
          sleep: (ms) => {
            now += ms;
            return Promise.resolve();
          },
          random: () => 0.999,
        });

        const result = await writer.write(docs, { remainingMs: () => s.budgetMs - now });

        // Exactly the acknowledged documents are reported written; the first unwritten index is right.
        const reported = new Set(result.written.flatMap((w, i) => (w ? [i] : [])));
        expect(reported).toEqual(acknowledged);
        expect(result.writtenCount).toBe(acknowledged.size);
        const firstFalse = result.written.indexOf(false);
        expect(result.firstUnwritten).toBe(firstFalse === -1 ? docs.length : firstFalse);
        // Never a call that had to be refused for size; the documents of one partition key in ascending input
        // order within every call, so a document never overtakes an earlier one of its key.
        for (const call of calls) {
          // One record per document keeps the whole call in input order.
          expect(aggregate || call.every((index, k) => k === 0 || call[k - 1] < index)).toBe(true);
          for (const key of new Set(call.map((i) => docs[i].partitionKey))) {
            const ofKey = call.filter((i) => docs[i].partitionKey === key);
            expect(ofKey.every((index, k) => k === 0 || ofKey[k - 1] < index)).toBe(true);
          }
        }
        // Within budget: no call started with the budget spent.
        expect(now).toBeLessThanOrEqual(Math.max(s.budgetMs, 0) + CALL_MS);
        // With time to spare and no permanent failure, everything is written.
        expect(result.complete || s.budgetMs < 600_000 || s.failures.includes(-1)).toBe(true);
        expect(result.complete).toBe(acknowledged.size === docs.length);
      }),
      { numRuns: 40 },
    );
  },
);
