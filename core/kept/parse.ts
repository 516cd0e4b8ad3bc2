/**
 * Reading kept data: pure functions from the bytes of one object, file or message to {@link KeptItem}s. Anything
 * that does not parse becomes a {@link KeptParseError} naming the place, so the caller reports it and keeps it.
 */
import { gunzipSync } from 'node:zlib';
import { isObject, type JsonObject } from '../json';
import { contentPartitionKey } from '../kinesis/limits';
import type { KeptContainer, KeptItem, KeptKind, ReplayRecord, StreamRange } from './model';
import { KeptParseError } from './errors';

/**
 * Firehose gzips its S3 backup (kfek sets `compressionFormat: GZIP`); local folders are plain text. Bytes that start
 * with the gzip magic but do not inflate are a broken object, reported like any other unreadable one.
 */
export function textOf(bytes: Uint8Array, container: KeptContainer): string {
  const gzipped = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
  if (!gzipped) return Buffer.from(bytes).toString('utf8');
  try {
    return gunzipSync(bytes).toString('utf8');
  } catch (error) {
    throw new KeptParseError(
      container.location,
      `starts like gzip but does not inflate (${(error as Error).message})`,
    );
  }
}

function parseJson(text: string, container: KeptContainer, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new KeptParseError(
      container.location,
      `is not JSON (${(error as Error).message}), expected ${what}`,
    );
  }
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function dateOf(value: unknown): Date | undefined {
  const date =
    typeof value === 'number'
      ? new Date(value)
      : typeof value === 'string' && value !== ''
        ? new Date(value)
        : undefined;
  return date !== undefined && Number.isFinite(date.getTime()) ? date : undefined;
}

function base64Bytes(value: string, container: KeptContainer, field: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
    throw new KeptParseError(container.location, `has a ${field} that is not base64`);
  }
  return Buffer.from(value, 'base64');
}

/** A dead-letter object (lambda/transform/dead-letter.ts `DeadLetterObject`, version 1): one raw record. */
export function parseDeadLetter(bytes: Uint8Array, container: KeptContainer): KeptItem {
  const doc = parseJson(textOf(bytes, container), container, 'a dead-letter object');
  if (!isObject(doc) || doc.version !== 1 || typeof doc.data !== 'string') {
    throw new KeptParseError(container.location, 'is not a version 1 dead-letter object (no `data`)');
  }
  const data = base64Bytes(doc.data, container, '`data`');
  const source = isObject(doc.source) ? doc.source : {};
  const key = str(source.partitionKey);
  const stream = str(source.streamArn);
  return {
    kind: 'dead-letter',
    container,
    at: dateOf(doc.receivedAt),
    reason: str(doc.reason) ?? 'unknown',
    // Same partition key as the original record, so it lands on the shard it came from when the shards are
    // the same; a record without one (not from Kinesis) gets one derived from its bytes.
    content: {
      type: 'records',
      records: [{ data, partitionKey: key !== undefined && key !== '' ? key : contentPartitionKey(data) }],
    },
    dataBytes: data.length,
    ...(stream !== undefined ? { namedStreams: [stream] } : {}),
  };
}

/**
 * Firehose's failed-document records, one JSON object per line (`rawData` base64, `errorCode`, `errorMessage`,
 * `attemptEndingTimestamp`, `esDocumentId`, `esIndexName`, ...). One item per document. Lines that do not parse are
 * returned as problems; the other lines are still read.
 */
export function parseFailedDocuments(
  bytes: Uint8Array,
  container: KeptContainer,
): { items: KeptItem[]; problems: KeptParseError[] } {
  const items: KeptItem[] = [];
  const problems: KeptParseError[] = [];
  textOf(bytes, container)
    .split('\n')
    .forEach((line, index) => {
      if (line.trim() === '') return;
      const where: KeptContainer = { ...container, location: `${container.location} line ${index + 1}` };
      try {
        const doc = parseJson(line, where, 'a failed-document record');
        if (!isObject(doc) || typeof doc.rawData !== 'string') {
          throw new KeptParseError(where.location, 'is not a failed-document record (no `rawData`)');
        }
        const data = base64Bytes(doc.rawData, where, '`rawData`');
        const code =
          str(doc.errorCode) ?? (typeof doc.errorCode === 'number' ? String(doc.errorCode) : 'unknown');
        items.push({
          kind: 'failed-document',
          container,
          at: dateOf(doc.attemptEndingTimestamp) ?? dateOf(doc.arrivalTimestamp),
          reason: `${code}: ${oneLine(str(doc.errorMessage) ?? JSON.stringify(doc.errorMessage ?? ''))}`,
          content: { type: 'records', records: [{ data, partitionKey: contentPartitionKey(data) }] },
          dataBytes: data.length,
        });
      } catch (error) {
        if (!(error instanceof KeptParseError)) throw error;
        problems.push(error);
      }
    });
  return { items, problems };
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 160 ? `${flat.slice(0, 157)}...` : flat;
}

/**
 * A discarded batch: Lambda's on-failure invocation record, or a message of the pipe's dead-letter queue.
 *
 * AWS documents that an S3 on-failure destination gets the invocation record (the records, data included) beside
 * the metadata, but not the field that holds it; SQS (and the pipe's queue) get metadata only. So this looks for
 * records anywhere in the document (also inside JSON strings): Lambda's `{ kinesis: { data, partitionKey } }` and
 * Pipes' flat `{ data, partitionKey, sequenceNumber }`. Without records it takes the first object that names a
 * shard and a sequence-number range (`KinesisBatchInfo` for Lambda), to be re-read from the stream.
 */
export function parseDiscardedBatch(
  bytes: Uint8Array,
  container: KeptContainer,
  kind: KeptKind,
  keptAt?: Date,
): KeptItem {
  const doc = parseJson(textOf(bytes, container), container, 'an invocation record');
  if (!isObject(doc)) throw new KeptParseError(container.location, 'is not a JSON object');
  const nodes = [...walk(doc)];
  const records = nodes.flatMap((node) => recordOf(node, container));
  const range = nodes.map((node) => rangeOf(node, container)).find((r): r is StreamRange => r !== undefined);
  const namedStreams = [
    ...new Set([
      ...nodes.flatMap(streamsNamedBy),
      ...(range?.streamArn !== undefined ? [range.streamArn] : []),
    ]),
  ];
  const request = isObject(doc.requestContext) ? doc.requestContext : {};
  const response = isObject(doc.responseContext) ? doc.responseContext : {};
  const reason =
    [
      str(request.condition),
      str(response.functionError) !== undefined ? `function error ${str(response.functionError)}` : undefined,
      str(doc.kfekReason),
      str(doc.errorMessage),
    ]
      .filter((part): part is string => part !== undefined && part !== '')
      .join(', ') || 'unknown';
  const at =
    dateOf(doc.timestamp) ??
    nodes.map((node) => dateOf(node.approximateArrivalOfLastRecord)).find((d) => d !== undefined) ??
    keptAt;
  const named = namedStreams.length > 0 ? { namedStreams } : {};
  if (records.length > 0) {
    return {
      kind,
      container,
      at,
      reason,
      content: { type: 'records', records },
      dataBytes: records.reduce((sum, r) => sum + r.data.length, 0),
      ...named,
    };
  }
  if (range === undefined) {
    throw new KeptParseError(
      container.location,
      'holds neither records nor a shard and sequence-number range (shardId, startSequenceNumber, endSequenceNumber)',
    );
  }
  return { kind, container, at, reason, content: { type: 'range', range }, dataBytes: 0, ...named };
}

/** Keys under which Lambda's and Pipes' records and batch metadata name the stream they were read from. */
const STREAM_KEYS = new Set(['streamArn', 'eventSourceARN', 'eventSourceArn']);

function streamsNamedBy(node: JsonObject): string[] {
  return Object.entries(node).flatMap(([key, value]) =>
    STREAM_KEYS.has(key) && typeof value === 'string' && value !== '' ? [value] : [],
  );
}

/** Every object in the document, depth first, including objects serialized inside JSON strings. */
function* walk(value: unknown, depth = 0): Generator<JsonObject> {
  if (depth > 64) return;
  if (typeof value === 'string' && value.startsWith('{')) {
    try {
      yield* walk(JSON.parse(value) as unknown, depth + 1);
    } catch {
      // An ordinary string that happens to start with a brace.
    }
    return;
  }
  if (Array.isArray(value)) {
    for (const entry of value) yield* walk(entry, depth + 1);
    return;
  }
  if (!isObject(value)) return;
  yield value;
  for (const entry of Object.values(value)) yield* walk(entry, depth + 1);
}

function recordOf(node: JsonObject, container: KeptContainer): ReplayRecord[] {
  const flat = typeof node.data === 'string' && typeof node.sequenceNumber === 'string' ? node : undefined;
  // Lambda's records are `{ kinesis: {...} }`; the inner object is visited too, so take it only there.
  if (flat === undefined) return [];
  const data = base64Bytes(flat.data as string, container, 'record `data`');
  const key = str(flat.partitionKey);
  return [{ data, partitionKey: key !== undefined && key !== '' ? key : contentPartitionKey(data) }];
}

function rangeOf(node: JsonObject, container: KeptContainer): StreamRange | undefined {
  const shardId = str(node.shardId);
  const start = str(node.startSequenceNumber);
  const end = str(node.endSequenceNumber);
  if (shardId === undefined || start === undefined || end === undefined) return undefined;
  // Kinesis sequence numbers are decimal strings (`0|([1-9]\d{0,128})`); a range that ends before it starts would
  // read nothing and count as re-sent, so --delete-after would delete it.
  const sequence = /^(0|[1-9]\d{0,128})$/;
  if (!sequence.test(start) || !sequence.test(end) || BigInt(start) > BigInt(end)) {
    throw new KeptParseError(
      container.location,
      `has a sequence-number range that is not one (${JSON.stringify(start)} to ${JSON.stringify(end)})`,
    );
  }
  const arn = str(node.streamArn) ?? str(node.eventSourceArn) ?? str(node.sourceArn);
  const size =
    typeof node.batchSize === 'number' && Number.isSafeInteger(node.batchSize) && node.batchSize >= 0
      ? node.batchSize
      : undefined;
  return {
    shardId,
    startSequenceNumber: start,
    endSequenceNumber: end,
    ...(arn !== undefined ? { streamArn: arn } : {}),
    ...(size !== undefined ? { batchSize: size } : {}),
  };
}
