/**
 * The reference implementation of the KPL aggregation format, `aws-kinesis-agg` (awslabs; protobufjs inside),
 * wrapped with types. Tests only: kfek's own encoder and decoder (core/transform/kpl-aggregation.ts) are checked
 * against it, never replaced by it.
 */
import * as reference from 'aws-kinesis-agg';

/** What the reference reads out of one Kinesis record. */
export interface ReferenceUserRecord {
  readonly partitionKey: string;
  readonly data: Buffer;
  /** Absent for a record that was not aggregated. */
  readonly subSequenceNumber?: number;
}

/**
 * De-aggregates one Kinesis record with the reference, verifying the MD5 (`computeChecksums`), the way a
 * consumer of the events stream would. Rejects when the reference rejects the record.
 */
export function referenceDeaggregate(data: Uint8Array, partitionKey: string): ReferenceUserRecord[] {
  let out: ReferenceUserRecord[] | undefined;
  let failure: Error | undefined;
  reference.deaggregateSync(
    {
      data: Buffer.from(data).toString('base64'),
      partitionKey,
      sequenceNumber: '49590338271490256608559692538361571095921575989136588898',
      approximateArrivalTimestamp: 1_795_000_000,
      kinesisSchemaVersion: '1.0',
    },
    true,
    (error, records) => {
      if (error) failure = error;
      else
        out = (records ?? []).map((r) => ({
          partitionKey: r.partitionKey,
          data: Buffer.from(r.data, 'base64'),
          ...(r.subSequenceNumber === undefined ? {} : { subSequenceNumber: r.subSequenceNumber }),
        }));
    },
  );
  if (failure) throw failure;
  if (out === undefined) throw new Error('the reference de-aggregator did not call back');
  return out;
}

interface RecordAggregator {
  addUserRecord(record: { partitionKey: string; data: Buffer }): void;
  build(): { partitionKey: string; data: Buffer };
}

/** Aggregates user records with the reference into one Kinesis record's data. */
export function referenceAggregate(records: ReadonlyArray<{ partitionKey: string; data: Buffer }>): Buffer {
  const Aggregator = (reference as unknown as { RecordAggregator: new () => RecordAggregator })
    .RecordAggregator;
  const aggregator = new Aggregator();
  for (const record of records) aggregator.addUserRecord({ ...record });
  return aggregator.build().data;
}

/** The writer's two modes, for `test.each`: tests of the write path run in both. */
export const WRITE_MODES = [
  { aggregate: false, mode: 'one record per document' },
  { aggregate: true, mode: 'aggregated records' },
] as const;
