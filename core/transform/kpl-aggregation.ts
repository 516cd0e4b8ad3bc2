/**
 * The Kinesis Producer Library (KPL) aggregation format, written and read by hand.
 *
 * Format (awslabs/amazon-kinesis-producer `aggregation-format.md`): the magic bytes F3 89 9A C2, a protobuf
 * `AggregatedRecord { repeated string partition_key_table = 1; repeated string explicit_hash_key_table = 2;
 * repeated Record records = 3; }` with `Record { required uint64 partition_key_index = 1; optional uint64
 * explicit_hash_key_index = 2; required bytes data = 3; repeated Tag tags = 4; }`, then the MD5 of the protobuf
 * bytes. Amazon Data Firehose de-aggregates such records from a Kinesis source before delivery
 * (https://docs.aws.amazon.com/streams/latest/dev/kpl-with-firehose.html).
 *
 * Why by hand: the encoder runs on the transform's hot path, where protobufjs (what `aws-kinesis-agg` uses) would
 * add a dependency to the bundle and an object per user record. This writes one aggregated record into one
 * exactly sized buffer: sizes are computed first, the JSON text is encoded straight into place.
 *
 * The decoder lives here too, beside the encoder it mirrors, because the local Firehose stand-in
 * (`scripts/local/delivery-loop.ts`) and the tests need it; the Lambda bundle only pulls in what the writer
 * imports. `aws-kinesis-agg` is the reference both are tested against.
 */
import { createHash, hash } from 'node:crypto';
import { TransformError } from './errors';

/** The four bytes every aggregated record starts with. */
export const KPL_MAGIC: Readonly<Uint8Array> = Uint8Array.of(0xf3, 0x89, 0x9a, 0xc2);
/** MD5 digest at the end of an aggregated record. */
const DIGEST_BYTES = 16;
/** Magic plus digest: what an aggregated record carries besides its protobuf message. */
const FRAME_BYTES = KPL_MAGIC.length + DIGEST_BYTES;

/** Protobuf tags (field number << 3 | wire type). */
const TAG_PARTITION_KEY_TABLE = 0x0a; // field 1, length-delimited
const TAG_RECORDS = 0x1a; // field 3, length-delimited
const TAG_PARTITION_KEY_INDEX = 0x08; // Record field 1, varint
const TAG_DATA = 0x1a; // Record field 3, length-delimited

/** Base class of every error this module throws. */
export class KplAggregationError extends TransformError {
  constructor(message: string) {
    super(message);
    this.name = 'KplAggregationError';
  }
}

/** Bytes a non-negative integer takes as a protobuf varint. */
export function varintBytes(value: number): number {
  // Branches, not a loop: this runs twice per document on the hot path, and documents are under 2 MiB.
  if (value < 0x80) return 1;
  if (value < 0x4000) return 2;
  if (value < 0x200000) return 3;
  let bytes = 4;
  // Division, not shifts: shifts work on 32 bits; stays exact for any safe integer.
  for (let v = Math.floor(value / 0x200000); v >= 0x80; v = Math.floor(v / 128)) bytes += 1;
  return bytes;
}

function writeVarint(buffer: Buffer, value: number, offset: number): number {
  // Values under 2^28 (every length here: records are at most 1 MiB) take the 32-bit fast path.
  if (value < 0x10000000) {
    let v = value;
    let at = offset;
    while (v >= 0x80) {
      buffer[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buffer[at++] = v;
    return at;
  }
  let v = value;
  let at = offset;
  while (v >= 0x80) {
    buffer[at++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  buffer[at++] = v;
  return at;
}

/**
 * Bytes of an aggregated record that holds no user record yet: magic, digest, and the one-entry partition key
 * table. Add {@link userRecordBytes} per document; the Kinesis record also counts the partition key itself.
 */
export function aggregateBaseBytes(partitionKeyBytes: number): number {
  return FRAME_BYTES + 1 + varintBytes(partitionKeyBytes) + partitionKeyBytes;
}

/** Bytes one document of `dataBytes` adds to an aggregated record (its `Record` message with tag and length). */
export function userRecordBytes(dataBytes: number): number {
  const inner = 2 + 1 + varintBytes(dataBytes) + dataBytes;
  return 1 + varintBytes(inner) + inner;
}

/** A document as the encoder needs it: its text and that text's exact UTF-8 length. */
export interface EncodableDocument {
  readonly json: string;
  readonly bytes: number;
}

/**
 * Encodes the documents `indices` of `documents` (in that order) as ONE aggregated record under one partition
 * key. Every user record points at partition key table entry 0, so the record and all it holds hash to the same
 * shard: consumers such as the KCL drop user records whose key hashes outside the shard they read.
 * @throws KplAggregationError when a document's text is shorter than its `bytes` say
 */
export function encodeAggregatedRecord(
  partitionKey: string,
  documents: readonly EncodableDocument[],
  indices: readonly number[],
): Buffer {
  const keyBytes = Buffer.byteLength(partitionKey, 'utf8');
  let size = aggregateBaseBytes(keyBytes);
  for (const i of indices) size += userRecordBytes(documents[i].bytes);
  const buffer = Buffer.allocUnsafe(size);
  buffer.set(KPL_MAGIC, 0);
  let at = KPL_MAGIC.length;
  buffer[at++] = TAG_PARTITION_KEY_TABLE;
  at = writeVarint(buffer, keyBytes, at);
  at += buffer.write(partitionKey, at, keyBytes, 'utf8');
  for (const i of indices) {
    const { json, bytes } = documents[i];
    buffer[at++] = TAG_RECORDS;
    at = writeVarint(buffer, 2 + 1 + varintBytes(bytes) + bytes, at);
    buffer[at++] = TAG_PARTITION_KEY_INDEX;
    buffer[at++] = 0;
    buffer[at++] = TAG_DATA;
    at = writeVarint(buffer, bytes, at);
    // `bytes` is trusted (serializeDocument measured it), not measured again: that would scan every document
    // twice on the hot path. A text shorter than claimed is caught here; a longer one is cut at `bytes`.
    // Equal UTF-16 and UTF-8 lengths mean every code unit is ASCII, where latin1 writes the same bytes as UTF-8
    // by a plain copy, without UTF-8 transcoding (most log documents are ASCII).
    const written =
      bytes === 0 ? 0 : buffer.write(json, at, bytes, bytes === json.length ? 'latin1' : 'utf8');
    if (written !== bytes) {
      throw new KplAggregationError(
        `Document ${i} claims ${bytes} UTF-8 bytes but only ${written} were written; ` +
          'serialize documents with serializeDocument, which measures them.',
      );
    }
    at += written;
  }
  // One-shot `hash` (Node >= 20.12; the function runs on 24.x): no Hash stream object per record.
  hash('md5', buffer.subarray(KPL_MAGIC.length, at), 'buffer').copy(buffer, at);
  return buffer;
}

/** What one events-stream record holds, as a de-aggregating consumer sees it. */
export interface DeaggregatedRecord {
  /**
   * True when the data was a valid aggregated record. False for anything else (no magic, too short, a wrong
   * MD5, a malformed message): that data is then ONE user record, exactly as read, as the KCL treats it.
   */
  readonly aggregated: boolean;
  /** The user records' data, in order (views into the input, not copies). */
  readonly records: readonly Uint8Array[];
  /** `partitionKeys[i]`: the partition key of `records[i]` (absent for a record that was not aggregated). */
  readonly partitionKeys: readonly (string | undefined)[];
}

class MalformedMessage extends Error {}

function readVarint(data: Uint8Array, state: { at: number }, end: number): number {
  let value = 0;
  let scale = 1;
  for (;;) {
    if (state.at >= end || scale > 2 ** 49) throw new MalformedMessage('bad varint');
    const byte = data[state.at++];
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 128;
  }
}

/** Skips a field of `wireType`; throws on a wire type protobuf does not define (or groups, which KPL never uses). */
function skipField(data: Uint8Array, state: { at: number }, end: number, wireType: number): void {
  if (wireType === 0) readVarint(data, state, end);
  else if (wireType === 1) state.at += 8;
  else if (wireType === 2) state.at += readVarint(data, state, end);
  else if (wireType === 5) state.at += 4;
  else throw new MalformedMessage(`wire type ${wireType}`);
  if (state.at > end) throw new MalformedMessage('field runs past the end');
}

function readLength(data: Uint8Array, state: { at: number }, end: number): number {
  const length = readVarint(data, state, end);
  if (state.at + length > end) throw new MalformedMessage('length runs past the end');
  return length;
}

const utf8 = new TextDecoder('utf-8');

function parseAggregatedRecord(data: Uint8Array, start: number, end: number): DeaggregatedRecord {
  const keys: string[] = [];
  const records: Uint8Array[] = [];
  const keyIndices: number[] = [];
  const state = { at: start };
  while (state.at < end) {
    const tag = readVarint(data, state, end);
    const field = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (field === 1 && wireType === 2) {
      const length = readLength(data, state, end);
      keys.push(utf8.decode(data.subarray(state.at, state.at + length)));
      state.at += length;
    } else if (field === 3 && wireType === 2) {
      const length = readLength(data, state, end);
      const recordEnd = state.at + length;
      let keyIndex: number | undefined;
      let payload: Uint8Array | undefined;
      while (state.at < recordEnd) {
        const inner = readVarint(data, state, recordEnd);
        const innerField = Math.floor(inner / 8);
        const innerWire = inner % 8;
        if (innerField === 1 && innerWire === 0) keyIndex = readVarint(data, state, recordEnd);
        else if (innerField === 3 && innerWire === 2) {
          const dataLength = readLength(data, state, recordEnd);
          payload = data.subarray(state.at, state.at + dataLength);
          state.at += dataLength;
        } else skipField(data, state, recordEnd, innerWire);
      }
      // Both are `required` in the schema: protobuf parsers reject a message without them.
      if (keyIndex === undefined || payload === undefined) throw new MalformedMessage('missing field');
      keyIndices.push(keyIndex);
      records.push(payload);
    } else {
      skipField(data, state, end, wireType);
    }
  }
  const partitionKeys = keyIndices.map((k) => {
    if (k >= keys.length) throw new MalformedMessage(`partition key index ${k} of ${keys.length}`);
    return keys[k];
  });
  return { aggregated: true, records, partitionKeys };
}

/**
 * De-aggregates one events-stream record's data the way the Kinesis Client Library does
 * (awslabs/amazon-kinesis-client `AggregatorUtil.deaggregate`), which is the behaviour Firehose documents only as
 * "de-aggregates the records": data that does not start with the magic, is not longer than magic plus digest,
 * carries a wrong MD5 or does not parse is not an aggregated record, and is returned whole as one user record.
 * (The KCL logs and stops at a partition key index out of range; here that also counts as "not aggregated", so
 * nothing is lost.)
 */
export function deaggregate(data: Uint8Array): DeaggregatedRecord {
  const plain: DeaggregatedRecord = { aggregated: false, records: [data], partitionKeys: [undefined] };
  if (data.length <= FRAME_BYTES) return plain;
  for (let i = 0; i < KPL_MAGIC.length; i++) if (data[i] !== KPL_MAGIC[i]) return plain;
  const end = data.length - DIGEST_BYTES;
  const digest = createHash('md5').update(data.subarray(KPL_MAGIC.length, end)).digest();
  if (!digest.equals(data.subarray(end))) return plain;
  try {
    return parseAggregatedRecord(data, KPL_MAGIC.length, end);
  } catch (error) {
    if (error instanceof MalformedMessage) return plain;
    throw error;
  }
}
