/**
 * Serialization of documents into Kinesis record data: JSON once, measured in exact UTF-8 bytes,
 * cut to fit one record (1 MiB including the partition key,
 * https://docs.aws.amazon.com/kinesis/latest/APIReference/API_PutRecords.html) and never dropped.
 */
import { createHash } from 'node:crypto';
import { MAX_KINESIS_RECORD_BYTES } from '../../core/contracts/aws-limits';
import type { LogDocument, SerializedDocument } from './types';

/**
 * Partition key for every document of one log stream: a hash of log group and stream, so one
 * stream's events keep their order on one shard while different streams spread over shards.
 * SHA-256 in base64url is 43 characters, well under Kinesis' 256-character limit, whatever the
 * names' lengths.
 */
export function partitionKeyFor(logGroup: string, logStream: string): string {
  return createHash('sha256').update(logGroup).update('\0').update(logStream).digest('base64url');
}

/** Options for `serializeDocument`. */
export interface SerializeOptions {
  /**
   * Largest record, data plus partition key, in bytes.
   * @default MAX_KINESIS_RECORD_BYTES (1 MiB)
   */
  readonly maxRecordBytes?: number;
  /**
   * The event's original text, used when even an empty `message` does not fit because the app
   * fields are huge: the document then carries this text (truncated) instead of the fields.
   * @default the document's `message`
   */
  readonly originalText?: string;
}

/** Bytes of a JSON string's content as `JSON.stringify` writes it, per UTF-16 code unit. */
function escapedBytes(c: number): number {
  if (c < 0x20) return c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  return 3;
}

/**
 * The longest prefix of `text` (in UTF-16 code units) whose JSON-escaped UTF-8 form takes at most
 * `budget` bytes. A surrogate pair is kept or cut as a whole; a lone surrogate is escaped by
 * JSON.stringify as `\udxxx` (6 bytes).
 */
export function fittingPrefixLength(text: string, budget: number): number {
  let used = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    let cost: number;
    let width = 1;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        cost = 4;
        width = 2;
      } else {
        cost = 6;
      }
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      cost = 6;
    } else {
      cost = escapedBytes(c);
    }
    if (used + cost > budget) break;
    used += cost;
    i += width;
  }
  return i;
}

function serialized(json: string, partitionKey: string, truncated: boolean): SerializedDocument {
  return { json, bytes: Buffer.byteLength(json, 'utf8'), partitionKey, truncated };
}

/**
 * The serialized document for `json` if it fits `budget` bytes (the record limit minus the
 * partition key), else undefined.
 */
export function serializedIfFits(
  json: string,
  partitionKey: string,
  budget: number,
): SerializedDocument | undefined {
  // A UTF-16 code unit is at most three UTF-8 bytes: skip exact counting when even the worst case
  // fits (almost every document).
  if (json.length * 3 <= budget) return serialized(json, partitionKey, false);
  const bytes = Buffer.byteLength(json, 'utf8');
  return bytes <= budget ? { json, bytes, partitionKey, truncated: false } : undefined;
}

/**
 * Serializes a document and, if it does not fit one record with its partition key, cuts
 * `message` to fit (setting `kfek.truncated` and `kfek.originalBytes`). If the other fields alone
 * are too big, they are replaced by the event's original text, cut to fit, with
 * `kfek.fieldsInMessage: true`. Every input yields a record within the limit.
 */
export function serializeDocument(
  doc: LogDocument,
  partitionKey: string,
  options: SerializeOptions = {},
): SerializedDocument {
  const maxRecordBytes = options.maxRecordBytes ?? MAX_KINESIS_RECORD_BYTES;
  const budget = maxRecordBytes - Buffer.byteLength(partitionKey, 'utf8');
  const json = JSON.stringify(doc);
  const whole = serializedIfFits(json, partitionKey, budget);
  if (whole !== undefined) return whole;
  const bytes = Buffer.byteLength(json, 'utf8');

  const kfek = { ...(doc.kfek ?? {}), truncated: true as const, originalBytes: bytes };
  const cut = fitMessage({ ...doc, message: '', kfek }, doc.message, budget);
  if (cut !== undefined) return serialized(cut, partitionKey, true);

  // The fields other than `message` are too big on their own: keep kfek's own fields and the
  // original text, which still contains the app's data, and cut that.
  const minimal: LogDocument = {
    '@timestamp': doc['@timestamp'],
    message: '',
    cloudwatch: doc.cloudwatch,
    kfek: { ...kfek, fieldsInMessage: true },
  };
  const last = fitMessage(minimal, options.originalText ?? doc.message, budget);
  if (last !== undefined) return serialized(last, partitionKey, true);
  // Unreachable for validated envelopes (log group and stream names are capped at 512 characters);
  // kept so that a bug shows up as a clear error rather than an oversized record.
  throw new RangeError(`document metadata alone exceeds ${budget} bytes`);
}

/**
 * Sets the longest prefix of `message` on `shell` (whose `message` is '') that keeps the JSON within
 * `budget`; undefined when even the empty message does not fit.
 */
function fitMessage(shell: LogDocument, message: string, budget: number): string | undefined {
  const empty = JSON.stringify(shell);
  const room = budget - Buffer.byteLength(empty, 'utf8');
  if (room < 0) return undefined;
  // The byte arithmetic mirrors JSON.stringify exactly; the loop is a guard that never lets an
  // oversized record out should an engine escape differently. With an empty message it fits.
  for (let messageRoom = room; ;) {
    const json = JSON.stringify({
      ...shell,
      message: message.slice(0, fittingPrefixLength(message, messageRoom)),
    });
    const overshoot = Buffer.byteLength(json, 'utf8') - budget;
    if (overshoot <= 0) return json;
    messageRoom -= overshoot + 8;
  }
}
