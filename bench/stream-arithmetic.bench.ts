/**
 * What the events stream carries and costs per 1,000 events of the corpus, with and without KPL aggregation:
 * records, record data, Kinesis PUT payload units, Firehose billed bytes, and the time to plan and encode them.
 */
import { encodeRecord, planRecords } from '../lambda/transform/record-plan';
import { MAX_PUT_RECORDS_BYTES } from '../core/contracts/aws-limits';
import { CHUNK_DOCUMENTS, forEachChunk } from './helpers/transform-corpus';

/** Kinesis counts PUT payload units per 25 KB of each record (https://aws.amazon.com/kinesis/data-streams/pricing/). */
const PUT_PAYLOAD_UNIT_BYTES = 25 * 1024;
/** Firehose bills ingestion per record rounded up to 5 KB (https://aws.amazon.com/firehose/pricing/). */
const FIREHOSE_ROUNDING_BYTES = 5 * 1024;

interface StreamArithmetic {
  readonly events: number;
  readonly records: number;
  readonly dataBytes: number;
  readonly putPayloadUnits: number;
  readonly firehoseBilledBytes: number;
  /** Time spent planning and encoding the records (the transform's time excluded). */
  readonly encodeMs: number;
}

/** What the events stream carries for the corpus, record by record, with or without aggregation. */
export function streamArithmetic(records: readonly string[], aggregate: boolean): StreamArithmetic {
  let events = 0;
  let count = 0;
  let dataBytes = 0;
  let putPayloadUnits = 0;
  let firehoseBilledBytes = 0;
  let encodeNs = 0n;
  forEachChunk(records, (documents) => {
    events += documents.length;
    const start = process.hrtime.bigint();
    const planned = planRecords(documents, { aggregate, maxBytesPerCall: MAX_PUT_RECORDS_BYTES });
    for (const record of planned) encodeRecord(record, documents);
    encodeNs += process.hrtime.bigint() - start;
    for (const record of planned) {
      const data = (record.data as Buffer).length;
      count += 1;
      dataBytes += data;
      // The record's size as Kinesis counts it (data plus partition key) for PUT payload units; Firehose is
      // assumed to bill each events-stream record it reads as one record of its data's size.
      putPayloadUnits += Math.ceil(record.bytes / PUT_PAYLOAD_UNIT_BYTES);
      firehoseBilledBytes += Math.max(1, Math.ceil(data / FIREHOSE_ROUNDING_BYTES)) * FIREHOSE_ROUNDING_BYTES;
    }
  });
  return {
    events,
    records: count,
    dataBytes,
    putPayloadUnits,
    firehoseBilledBytes,
    encodeMs: Number(encodeNs) / 1e6,
  };
}

export function printArithmetic(without: StreamArithmetic, withAggregation: StreamArithmetic): void {
  const per1000 = (value: number, a: StreamArithmetic): number => (value / a.events) * 1000;
  const row = (label: string, f: (a: StreamArithmetic) => string): string =>
    `  ${label.padEnd(44)} ${f(without).padStart(16)} ${f(withAggregation).padStart(16)}`;
  const saving = (f: (a: StreamArithmetic) => number): string => (f(without) / f(withAggregation)).toFixed(1);
  console.log(
    `events stream for the corpus (${without.events} events, the handler's chunks of <= ${CHUNK_DOCUMENTS} documents):`,
  );
  console.log(`  ${''.padEnd(44)} ${'one per document'.padStart(16)} ${'aggregated'.padStart(16)}`);
  console.log(row('documents per events-stream record', (a) => (a.events / a.records).toFixed(1)));
  console.log(row('events-stream records per 1,000 events', (a) => per1000(a.records, a).toFixed(1)));
  console.log(row('record data per 1,000 events (KiB)', (a) => (per1000(a.dataBytes, a) / 1024).toFixed(1)));
  console.log(
    row('Kinesis PUT payload units per 1,000 events', (a) => per1000(a.putPayloadUnits, a).toFixed(1)),
  );
  console.log(
    row('Firehose billed KiB per 1,000 events', (a) => (per1000(a.firehoseBilledBytes, a) / 1024).toFixed(1)),
  );
  // One pass each, not interleaved: a rough figure for what the write path adds beyond the transform (the plain
  // path's Buffer.from per document vs UTF-8 encoding plus MD5 into aggregated records).
  console.log(row('plan + encode all records (ms, one pass)', (a) => a.encodeMs.toFixed(0)));
  console.log(
    `  aggregation: ${saving((a) => a.records)}x fewer records, ${saving((a) => a.putPayloadUnits)}x fewer PUT payload ` +
      `units, ${saving((a) => a.firehoseBilledBytes)}x fewer Firehose billed bytes`,
  );
}
