/**
 * The time-ordered document id `npm run bench:direct-cpu` compares with kfek's (issue 41, "an id the node looks up
 * more cheaply"). An experiment, not a contract: kfek's ids are core/contracts/document-id.ts `documentIdFor`.
 *
 * Why it could be cheaper: before indexing a document with an id, the node looks the id up in every segment of the
 * shard (the version check of an overwrite). Lucene answers "not here" without reading a segment's terms when the id
 * falls outside the segment's smallest and largest `_id`. kfek's ids are random (SHA-256), so every segment's range
 * spans nearly all ids and every lookup reads every segment. An id that starts with the event's time makes each
 * segment hold a narrow range, and a new event's id is above all of the older segments' ranges.
 *
 * The layout: 6 bytes of the event's timestamp (epoch milliseconds, big-endian, so byte order is time order until
 * the year 10889) followed by the same 12 SHA-256 bytes `documentIdFor` keeps, in base64url: 24 characters.
 * OpenSearch stores a base64url `_id` as the bytes it encodes, so the terms are sorted by those bytes, i.e. by time.
 * It stays a pure function of the event (a redelivery overwrites) and keeps the hash's 96 bits for uniqueness.
 * The routing comes from the hash part (characters 8 on): a time prefix would send every event of a period to one
 * shard.
 */
import { documentIdFor, ID_BYTES } from '../core/contracts/document-id';
import { routingLength } from '../core/opensearch/ingest-pipeline';
import { BenchError } from './opensearch-bench';

/** Bytes of the time prefix: 2^48 milliseconds is 8,900 years. */
const TIME_BYTES = 6;
/** Where the hash starts in the base64url text: 6 bytes are exactly 8 characters. */
const HASH_OFFSET = (TIME_BYTES / 3) * 4;

/** The time-ordered id of one CloudWatch event (layout above). */
export function timeOrderedIdFor(
  timestampMillis: number,
  logGroup: string,
  logStream: string,
  eventId: string,
): string {
  if (
    !Number.isSafeInteger(timestampMillis) ||
    timestampMillis < 0 ||
    timestampMillis >= 2 ** (8 * TIME_BYTES)
  ) {
    throw new BenchError(
      `an event's timestamp must be a non-negative integer of milliseconds below 2^48, got ${timestampMillis}`,
    );
  }
  const bytes = Buffer.alloc(TIME_BYTES + ID_BYTES);
  bytes.writeUIntBE(timestampMillis, 0, TIME_BYTES);
  Buffer.from(documentIdFor(logGroup, logStream, eventId), 'base64url').copy(bytes, TIME_BYTES);
  return bytes.toString('base64url');
}

/** The routing of a time-ordered id: the first characters of its hash part, as `routingFor` takes today's. */
export function timeOrderedRoutingFor(id: string, shards = 1): string {
  return id.slice(HASH_OFFSET, HASH_OFFSET + routingLength(shards));
}
