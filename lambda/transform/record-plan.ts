/**
 * How the transform's documents become events-stream records: one per document, or KPL aggregated records
 * (`kpl-aggregation.ts`) of up to 1 MiB per partition key. Pure (no I/O); the writer sends what this plans, and
 * the benchmark measures it.
 */
import {
  encodeAggregatedRecord,
  aggregateBaseBytes,
  userRecordBytes,
} from '../../core/transform/kpl-aggregation';
import { OversizedDocumentError } from './kinesis-writer-errors';
import { MAX_KINESIS_RECORD_BYTES } from '../../core/contracts/aws-limits';
import type { SerializedDocument } from '../../core/transform/types';

/** One events-stream record on its way: which documents it carries and its size with the partition key. */
export interface OutgoingRecord {
  readonly partitionKey: string;
  /** Indices into the documents being written, ascending. */
  readonly documents: number[];
  /** Data plus partition key, UTF-8 bytes (what PutRecords' limits count). */
  bytes: number;
  /** Encoded data, kept between a failed attempt and its retry. */
  data?: Buffer;
}

/** An aggregate still taking documents. */
interface OpenAggregate extends OutgoingRecord {
  readonly keyBytes: number;
  /** Bytes of the aggregated record so far (magic, key table, user records, digest). */
  aggregateBytes: number;
  /** Bytes of its first document as a plain record with its key (used when it stays alone). */
  readonly plainBytes: number;
}

export interface PlanOptions {
  readonly aggregate: boolean;
  /** The writer's per-call byte limit; no record may exceed it either. */
  readonly maxBytesPerCall: number;
}

/**
 * The events-stream records for `documents`, ordered by their first document. Pure; exported for the benchmark.
 *
 * Without aggregation: one record per document. With it: documents of one partition key share aggregated
 * records of at most one Kinesis record's size, in input order; a record is closed as soon as another record of
 * its key has to start, so the records of one key never reorder its documents. A record that ends up holding a
 * single document is written plain (no magic, no digest): de-aggregating consumers pass such records through
 * as one user record (the KCL's `AggregatorUtil.deaggregate` does, and Firehose documents no other behaviour), it
 * costs 20+ bytes less, and it is the only way a document close to 1 MiB fits at all.
 * @throws OversizedDocumentError when a document cannot fit one Kinesis record even alone
 */
export function planRecords(
  documents: readonly SerializedDocument[],
  options: PlanOptions,
): OutgoingRecord[] {
  const limit = Math.min(MAX_KINESIS_RECORD_BYTES, options.maxBytesPerCall);
  const records: OutgoingRecord[] = [];
  const open = new Map<string, OpenAggregate>();
  // The aggregate the previous document went to: consecutive documents mostly share a key (one envelope's events
  // do), so the Map lookup is only needed when the key changes.
  let last: OpenAggregate | undefined;
  for (let i = 0; i < documents.length; i++) {
    const doc = documents[i];
    let current = !options.aggregate
      ? undefined
      : last !== undefined && last.partitionKey === doc.partitionKey
        ? last
        : open.get(doc.partitionKey);
    // Measured once per open record, not per document: keys repeat for thousands of documents.
    const keyBytes = current?.keyBytes ?? Buffer.byteLength(doc.partitionKey, 'utf8');
    const plainBytes = doc.bytes + keyBytes;
    if (plainBytes > limit) throw new OversizedDocumentError(i, plainBytes);
    if (!options.aggregate) {
      records.push({ partitionKey: doc.partitionKey, documents: [i], bytes: plainBytes });
      continue;
    }
    const added = userRecordBytes(doc.bytes);
    if (current !== undefined && current.aggregateBytes + added + keyBytes > limit) {
      close(current);
      current = undefined;
    }
    if (current === undefined) {
      current = {
        partitionKey: doc.partitionKey,
        documents: [],
        bytes: 0,
        keyBytes,
        aggregateBytes: aggregateBaseBytes(keyBytes),
        plainBytes,
      };
      records.push(current);
      open.set(doc.partitionKey, current);
    }
    current.documents.push(i);
    if (current.aggregateBytes + added + keyBytes > limit) {
      // Too big to share a record even alone: a plain record of its own (it fits one, checked above).
      close(current);
      open.delete(doc.partitionKey);
      last = undefined;
      continue;
    }
    current.aggregateBytes += added;
    last = current;
  }
  for (const current of open.values()) close(current);
  return records;
}

/** Fixes the size of an aggregate that takes no more documents. */
function close(record: OpenAggregate): void {
  record.bytes = record.documents.length === 1 ? record.plainBytes : record.aggregateBytes + record.keyBytes;
}

/** The record's data: encoded on first use (so a chunk's records are not all held encoded at once). */
export function encodeRecord(record: OutgoingRecord, documents: readonly SerializedDocument[]): Buffer {
  if (record.data !== undefined) return record.data;
  const data =
    record.documents.length === 1
      ? Buffer.from(documents[record.documents[0]].json, 'utf8')
      : encodeAggregatedRecord(record.partitionKey, documents, record.documents);
  record.data = data;
  return data;
}
