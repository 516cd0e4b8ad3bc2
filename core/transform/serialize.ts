/**
 * The measures document.ts cuts a document's record with: each document's partition key, and how much of a message
 * fits a number of bytes once JSON-escaped (a record is at most 1 MiB including the partition key,
 * https://docs.aws.amazon.com/kinesis/latest/APIReference/API_PutRecords.html).
 */
import { createHash } from 'node:crypto';

/**
 * Partition key for every document of one log stream: a hash of log group and stream, so one
 * stream's events keep their order on one shard while different streams spread over shards.
 * SHA-256 in base64url is 43 characters, well under Kinesis' 256-character limit, whatever the
 * names' lengths.
 */
export function partitionKeyFor(logGroup: string, logStream: string): string {
  return createHash('sha256').update(logGroup).update('\0').update(logStream).digest('base64url');
}

/** Bytes of a JSON string's content as `JSON.stringify` writes it, per UTF-16 code unit. */
function escapedBytes(c: number): number {
  if (c < 0x20) return c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  return 3;
}

/** Bytes of `text` as JSON.stringify writes a string's content (without the quotes), in UTF-8. */
export function escapedLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
        continue;
      }
      bytes += 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) {
      bytes += 6;
    } else {
      bytes += escapedBytes(c);
    }
  }
  return bytes;
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
