/**
 * The Kinesis writer with KPL aggregation (its default), against a simulated Kinesis (aws-sdk-client-mock; there
 * is no AWS here). Every entry it sends is read back with the reference de-aggregator (`aws-kinesis-agg`), which
 * verifies the MD5, so "written" means "a KPL consumer such as Firehose gets exactly these documents".
 */
import { KinesisClient, PutRecordsCommand, type PutRecordsCommandInput } from '@aws-sdk/client-kinesis';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import { KinesisWriter } from '../../../lambda/transform/kinesis-writer';
import {
  MAX_KINESIS_RECORD_BYTES,
  MAX_PUT_RECORDS_BYTES,
  MAX_PUT_RECORDS_ENTRIES,
} from '../../../core/contracts/aws-limits';
import type { SerializedDocument } from '../../../core/transform/types';
import { referenceDeaggregate } from '../../helpers/kpl-reference';

const kinesis = mockClient(KinesisClient);

function doc(json: string, partitionKey: string): SerializedDocument {
  return { json, bytes: Buffer.byteLength(json, 'utf8'), partitionKey, truncated: false };
}

/** One sent entry, read back with the reference. */
interface SentEntry {
  readonly partitionKey: string;
  readonly bytes: number;
  readonly aggregated: boolean;
  readonly documents: string[];
}

/** Acknowledges every entry unless `refuse` says otherwise; returns the calls, entries read back. */
function simulate(refuse: (documents: readonly string[]) => boolean = () => false): SentEntry[][] {
  const calls: SentEntry[][] = [];
  kinesis.on(PutRecordsCommand).callsFake((input: PutRecordsCommandInput) => {
    const entries = input.Records!.map((e): SentEntry => {
      const user = referenceDeaggregate(e.Data!, e.PartitionKey!);
      for (const u of user) expect(u.partitionKey).toBe(e.PartitionKey);
      return {
        partitionKey: e.PartitionKey!,
        bytes: e.Data!.byteLength + Buffer.byteLength(e.PartitionKey!, 'utf8'),
        aggregated: user[0]?.subSequenceNumber !== undefined,
        documents: user.map((u) => u.data.toString('utf8')),
      };
    });
    calls.push(entries);
    const records = entries.map((e) =>
      refuse(e.documents)
        ? { ErrorCode: 'ProvisionedThroughputExceededException', ErrorMessage: 'Rate exceeded' }
        : { SequenceNumber: '1', ShardId: 'shardId-000000000000' },
    );
    return Promise.resolve({
      FailedRecordCount: records.filter((r) => 'ErrorCode' in r).length,
      Records: records,
    });
  });
  return calls;
}

function writer(): KinesisWriter {
  return new KinesisWriter({
    client: new KinesisClient({ region: 'eu-west-1' }),
    streamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events',
    sleep: () => Promise.resolve(),
    random: () => 0,
  });
}

beforeEach(() => {
  kinesis.reset();
});

test('packs 3,000 small documents of three log streams into one aggregated record per stream', async () => {
  // GIVEN
  const input = Array.from({ length: 3000 }, (_, i) => doc(JSON.stringify({ i, m: 'é' }), `key-${i % 3}`));
  const calls = simulate();
  // WHEN
  const result = await writer().write(input, { remainingMs: () => 60_000 });
  // THEN
  expect(result).toMatchObject({ complete: true, writtenCount: 3000, recordsWritten: 3, calls: 1 });
  const entries = calls.flat();
  expect(entries.map((e) => [e.partitionKey, e.aggregated, e.documents.length])).toEqual([
    ['key-0', true, 1000],
    ['key-1', true, 1000],
    ['key-2', true, 1000],
  ]);
  for (const e of entries) {
    expect(e.documents).toEqual(input.filter((d) => d.partitionKey === e.partitionKey).map((d) => d.json));
  }
});

test('a document alone is written plain; one too big to share a record goes plain between aggregates', async () => {
  // GIVEN: key A: small, ~1 MiB (fits a plain record, not an aggregate), small. Key B: a lone small document.
  const room = MAX_KINESIS_RECORD_BYTES - 1 - 20;
  const big = JSON.stringify({ m: 'x'.repeat(room - 8) });
  const input = [
    doc('{"a":0}', 'A'),
    doc('{"a":1}', 'A'),
    doc(big, 'A'),
    doc('{"a":3}', 'A'),
    doc('{"b":0}', 'B'),
  ];
  expect(input[2].bytes + 1).toBeLessThanOrEqual(MAX_KINESIS_RECORD_BYTES);
  const calls = simulate();
  // WHEN
  const result = await writer().write(input, { remainingMs: () => 60_000 });
  // THEN: order per key holds across records: [a0, a1] before the big one before [a3].
  expect(result).toMatchObject({ complete: true, writtenCount: 5, recordsWritten: 4 });
  const entries = calls.flat();
  expect(entries.map((e) => [e.partitionKey, e.aggregated, e.documents])).toEqual([
    ['A', true, ['{"a":0}', '{"a":1}']],
    ['A', false, [big]],
    ['A', false, ['{"a":3}']],
    ['B', false, ['{"b":0}']],
  ]);
  for (const e of entries) expect(e.bytes).toBeLessThanOrEqual(MAX_KINESIS_RECORD_BYTES);
});

test('a refused record leaves all its documents unwritten, and they are retried together', async () => {
  // GIVEN: key A's record is refused once.
  let refusals = 0;
  const calls = simulate((documents) => documents.includes('{"a":1}') && refusals++ < 1);
  const input = [doc('{"a":0}', 'A'), doc('{"b":0}', 'B'), doc('{"a":1}', 'A')];
  // WHEN
  const result = await writer().write(input, { remainingMs: () => 60_000 });
  // THEN
  expect(result).toMatchObject({ complete: true, recordsWritten: 2, retriedEntries: 1, throttles: 1 });
  expect(calls.map((c) => c.map((e) => e.documents))).toEqual([
    [['{"a":0}', '{"a":1}'], ['{"b":0}']],
    [['{"a":0}', '{"a":1}']],
  ]);
});

test('when the budget runs out, the first unwritten document is the earliest one of a refused record', async () => {
  // GIVEN: key B's record is refused forever; key A's written.
  simulate((documents) => documents.includes('{"b":1}'));
  const input = [doc('{"a":0}', 'A'), doc('{"b":0}', 'B'), doc('{"a":1}', 'A'), doc('{"b":1}', 'B')];
  let now = 0;
  const w = new KinesisWriter({
    client: new KinesisClient({ region: 'eu-west-1' }),
    streamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events',
    sleep: (ms) => {
      now += ms;
      return Promise.resolve();
    },
    random: () => 0.999,
  });
  // WHEN
  const result = await w.write(input, { remainingMs: () => 2_000 - now });
  // THEN
  expect(result).toMatchObject({
    complete: false,
    writtenCount: 2,
    firstUnwritten: 1,
    stoppedBecause: 'budget',
  });
  expect(result.written).toEqual([true, false, true, false]);
});

test('property: every entry is a valid record within Kinesis limits that the reference reads back exactly', async () => {
  const batch = fc.array(
    fc.record({
      key: fc.constantFrom('k0', 'k1', 'k2', 'ключ-3'),
      // Mostly small documents, some large enough to split records and calls.
      size: fc.oneof(
        { weight: 20, arbitrary: fc.integer({ min: 0, max: 400 }) },
        { weight: 1, arbitrary: fc.integer({ min: 100_000, max: 1_040_000 }) },
      ),
      text: fc.constantFrom('a', 'é', '€', '🦄'),
    }),
    { maxLength: 1500, size: 'max' },
  );
  await fc.assert(
    fc.asyncProperty(batch, async (specs) => {
      kinesis.reset();
      const input = specs.map((s, i) => {
        const pad = s.text.repeat(Math.floor(s.size / Buffer.byteLength(s.text)));
        return doc(JSON.stringify({ i, pad }), s.key);
      });
      const calls = simulate();
      const result = await writer().write(input, { remainingMs: () => 600_000 });
      expect(result.complete).toBe(true);
      expect(result.recordsWritten).toBe(calls.flat().length);
      for (const call of calls) {
        expect(call.length).toBeLessThanOrEqual(MAX_PUT_RECORDS_ENTRIES);
        expect(call.reduce((sum, e) => sum + e.bytes, 0)).toBeLessThanOrEqual(MAX_PUT_RECORDS_BYTES);
        for (const e of call) expect(e.bytes).toBeLessThanOrEqual(MAX_KINESIS_RECORD_BYTES);
      }
      // Each key's documents arrive exactly once and in input order.
      const entries = calls.flat();
      for (const key of new Set(input.map((d) => d.partitionKey))) {
        expect(entries.filter((e) => e.partitionKey === key).flatMap((e) => e.documents)).toEqual(
          input.filter((d) => d.partitionKey === key).map((d) => d.json),
        );
      }
    }),
    { numRuns: 25 },
  );
});
