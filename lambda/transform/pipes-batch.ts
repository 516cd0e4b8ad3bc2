/**
 * One EventBridge Pipes enrichment batch: transform the records, keep every poison record whole in the dead-letter
 * bucket, and answer the pipe with items it can deliver, or deliver them here when it cannot.
 *
 * The pipe writes each returned item as one events-stream record, but only within its limits: a Kinesis target
 * takes at most 500 items per invocation, and Pipes does not invoke it at all with more
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-batching-concurrency.html); an enrichment's
 * answer is at most 6 MB (https://docs.aws.amazon.com/eventbridge/latest/userguide/pipes-enrichment.html). One
 * CloudWatch Logs envelope holds up to 10,000 events, so no source batch size keeps every answer inside. When the
 * answer would not fit, this writes ALL the batch's items to the events stream itself (the Kinesis handler's
 * writer, in chunks as the records are transformed) and answers with an empty array, which makes the pipe skip the target: nothing is lost, the batch keeps
 * its order, and the overflow is counted (`OverflowDocuments`). If that write cannot finish, the invocation fails
 * and Pipes retries the batch (at-least-once: items already written appear again).
 *
 * Every item carries its events-stream partition key in `kfek.partitionKey` (the pipe's target reads it with a
 * JSON path): the same 43-character hash the Kinesis handler uses (`partitionKeyFor`), always within Kinesis'
 * 1..256 characters, and documents are sized so that item plus key fit one Kinesis record.
 *
 * Kept apart from `pipes.ts` (which only wires env, adapters, the core and metrics) so it can be tested with any
 * transform, writer and dead-letter store: it sees them only as the ports in ports.ts.
 *
 * Why one file of about 320 lines: the pipe's answer limits (500 results, 6 MB), the overflow write and the
 * dead-lettering decide together what one batch answers; split, the one decision would be spread over files.
 */
import { createHash } from 'node:crypto';
import { shardIdOf, type DeadLetterSource } from './dead-letter-object';
import {
  WRITE_CHUNK_BYTES,
  WRITE_CHUNK_DOCUMENTS,
  type BatchLogger,
  type DeadLetterData,
  type DeadLetterStore,
  type ErrorDocumentBuilder,
  type EventsWriter,
  type RecordTransform,
} from './ports';
import { TransformError } from '../../core/transform/errors';
import { KinesisWriteRejectedError } from './kinesis-writer-errors';
import { type BatchCounts, RecordLoop } from './record-loop';
import { partitionKeyFor } from '../../core/transform/serialize';
import { MAX_KINESIS_RECORD_BYTES, PIPES_KINESIS_TARGET_MAX_ITEMS } from '../../core/contracts/aws-limits';
import type { LogDocument, SerializedDocument } from '../../core/transform/types';
import type { PipesKinesisRecord } from '../../core/contracts/pipes-target';

/**
 * Largest answer returned to the pipe, as JSON bytes. Enrichment responses are limited to 6 MB; this leaves room
 * for any re-encoding on the way and is also PutRecords' 5 MiB per call.
 */
export const PIPES_MAX_ANSWER_BYTES = 5 * 1024 * 1024;

/**
 * Bytes kept free in every item below the Kinesis record limit, for the `kfek.partitionKey` member the document gets
 * after it is fitted (document.ts `PARTITION_KEY_MEMBER_BYTES`, 68 bytes), with room to spare for the pipe's own
 * encoding of the item.
 */
export const PIPES_ITEM_RESERVED_BYTES = 128;

/** Base class of the Pipes batch's errors: each fails the invocation, so Pipes retries the batch. */
export class PipesBatchError extends TransformError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PipesBatchError';
  }
}

/** A poison record could not be stored; answering without it would lose it. */
export class PipesDeadLetterError extends PipesBatchError {
  constructor(sequenceNumber: string, options?: ErrorOptions) {
    super(
      `Could not store poison record ${sequenceNumber || '(no sequence number)'} in the dead-letter bucket; ` +
        'failing the batch so Pipes retries it. Check the bucket and the enrichment role (s3:PutObject, KMS).',
      options,
    );
    this.name = 'PipesDeadLetterError';
  }
}

/** The answer did not fit the pipe and writing it to the events stream did not finish. */
export class PipesOverflowWriteError extends PipesBatchError {
  constructor(written: number, options?: ErrorOptions) {
    super(
      `Wrote ${written} documents of a batch too large for one pipe answer to the events stream, then had to ` +
        'stop; failing the batch so Pipes retries it (documents already written may appear twice). ' +
        'Check the events stream (throttling, permissions) and the enrichment timeout.',
      options,
    );
    this.name = 'PipesOverflowWriteError';
  }
}

/** The record shape is the pipe's contract (core/contracts/pipes-target.ts), shared with the local pipe stand-in. */
export type { PipesKinesisRecord };

/** An item for the pipe: a document with its partition key under `kfek`. */
export type PipesItem = LogDocument & { readonly kfek: { readonly partitionKey: string } };

/** What a batch needs, all ports (ports.ts): `pipes.ts` wires the real ones, tests pass fakes. */
export interface PipesBatchDeps {
  /** The pure transform core (`transformRecord`). */
  readonly transform: RecordTransform;
  /** Builds the error document that stands for a poison record (`toErrorDocument`). */
  readonly errorDocument: ErrorDocumentBuilder;
  readonly writer: EventsWriter;
  readonly deadLetters: DeadLetterStore;
  /** Bucket name written into error documents next to the object key. */
  readonly deadLetterBucket: string;
  readonly logger: BatchLogger;
  /**
   * What the dead-letter bucket keeps of a poison record (`deadLetterData`: masked when a route masks).
   * @default - the record's data as received
   */
  readonly deadLetterData?: DeadLetterData;
  /** Milliseconds left for I/O. */
  readonly remainingMs: () => number;
  /**
   * Clock for error documents' `@timestamp`; injected by tests.
   * @default () => new Date()
   */
  readonly now?: () => Date;
}

export interface PipesBatchOutcome extends BatchCounts {
  /** What the pipe gets: every item, or none when they were written here. */
  readonly items: PipesItem[];
}

/** Partition key of an error document: the same rule, over the source record's own key (no log stream known). */
export function errorPartitionKey(sourcePartitionKey: string): string {
  return partitionKeyFor('', sourcePartitionKey);
}

/**
 * Processes one batch. Resolves with the answer; rejects with a `PipesBatchError` only when something could not
 * be kept (a dead-letter object, or an overflow write), so that Pipes retries instead of losing it.
 */
export async function processPipesBatch(event: unknown, deps: PipesBatchDeps): Promise<PipesBatchOutcome> {
  const now = deps.now ?? (() => new Date());
  const records: unknown[] = Array.isArray(event) ? event : [event];
  // The one record loop (record-loop.ts): a throwing core and a document too big for one record make the record
  // poison here as on the Kinesis path, and it keeps the counters.
  const loop = new RecordLoop(deps.transform, {
    maxRecordBytes: MAX_KINESIS_RECORD_BYTES - PIPES_ITEM_RESERVED_BYTES,
    partitionKeyInDocument: true,
  });
  loop.prepare(records.length);
  const counters = loop.counters;
  // Items not yet answered or written. Once the answer cannot fit the pipe, they are written in chunks as records
  // are transformed, so memory holds one chunk (plus one record's documents), not the whole batch's.
  let pending: SerializedDocument[] = [];
  let pendingBytes = 0;
  let answerBytes = 2; // the brackets of the JSON array
  let overflowing = false;
  const add = (item: SerializedDocument): void => {
    pending.push(item);
    pendingBytes += item.bytes;
    answerBytes += item.bytes + 1;
  };
  const flush = async (): Promise<void> => {
    await writeOverflow(pending, deps, loop);
    pending = [];
    pendingBytes = 0;
  };

  for (const record of records) {
    const data = dataOf(record);
    const outcome = loop.process(data, arrivalOf(record));
    if (outcome.kind === 'poison') {
      const raw = data ?? rawOf(record);
      const source = sourceOf(record, raw);
      let key: string;
      try {
        key = await deps.deadLetters.put(source, deps.deadLetterData?.(raw) ?? raw, outcome.reason);
      } catch (error) {
        throw new PipesDeadLetterError(source.sequenceNumber, { cause: error });
      }
      loop.deadLettered();
      deps.logger.warn('Poison record stored in the dead-letter bucket', { key, reason: outcome.reason });
      const doc = deps.errorDocument(raw, outcome.reason, now(), { bucket: deps.deadLetterBucket, key });
      add(withPartitionKey(doc, errorPartitionKey(source.partitionKey)));
    } else if (outcome.kind === 'data') {
      for (const doc of outcome.documents) add(doc);
    }
    if (
      !overflowing &&
      (pending.length > PIPES_KINESIS_TARGET_MAX_ITEMS || answerBytes > PIPES_MAX_ANSWER_BYTES)
    ) {
      overflowing = true;
      deps.logger.warn('The answer does not fit the pipe target; writing the batch to the events stream', {
        maxItems: PIPES_KINESIS_TARGET_MAX_ITEMS,
        maxAnswerBytes: PIPES_MAX_ANSWER_BYTES,
      });
    }
    // Once the answer overflows, items are written in the chunks the Kinesis handler writes its batches in.
    if (overflowing && (pending.length >= WRITE_CHUNK_DOCUMENTS || pendingBytes >= WRITE_CHUNK_BYTES)) {
      await flush();
    }
  }

  if (!overflowing) {
    counters.EventsOut = pending.length;
    return { items: pending.map(toItem), ...loop.clean() };
  }
  if (pending.length > 0) await flush();
  return { items: [], ...loop.clean() };
}

/** Writes overflow items to the events stream; throws unless all are written. */
async function writeOverflow(
  items: readonly SerializedDocument[],
  deps: PipesBatchDeps,
  loop: RecordLoop,
): Promise<void> {
  const counters = loop.counters;
  let result;
  try {
    result = await deps.writer.write(items, { remainingMs: deps.remainingMs });
  } catch (error) {
    const written = error instanceof KinesisWriteRejectedError ? error.progress.writtenCount : 0;
    throw new PipesOverflowWriteError(counters.OverflowDocuments + written, { cause: error });
  }
  loop.wrote(result, result.complete ? items.length : 0);
  if (!result.complete) {
    throw new PipesOverflowWriteError(counters.OverflowDocuments + result.writtenCount);
  }
  counters.OverflowDocuments += items.length;
}

/**
 * The answer item of a document whose text already carries `kfek.partitionKey`. The Lambda runtime serializes the
 * answer with JSON.stringify, which gives the document's text back (document.ts writes it in that form), except
 * for numbers written in a form JavaScript would change (`1.0`, `-0`, beyond 2^53): for a document holding such a
 * number, each of those is parsed into `JSON.rawJSON(source)` so the runtime writes it as the app did. `rawJSON` and
 * the reviver's source text are in Node.js 21 and later (Lambda's nodejs24.x); on Node.js 20 (local runs only)
 * those numbers come out in JavaScript's form. Known limit: V8 13.x's JSON.parse can decode an escaped object key
 * through an earlier one (nodejs/node#63785), so a document with a key holding a control character, `"` or `\` may
 * reach the pipe with that key misread; the Kinesis transport writes the text itself and is not affected.
 */
export function toItem(doc: SerializedDocument): PipesItem {
  if (doc.numbersAsWritten !== true || rawJSON === undefined) return JSON.parse(doc.json) as PipesItem;
  const raw = rawJSON;
  return JSON.parse(doc.json, function (
    this: unknown,
    _key: string,
    value: unknown,
    context?: { source?: string },
  ) {
    return typeof value === 'number' && context?.source !== undefined && String(value) !== context.source
      ? raw(context.source)
      : value;
  } as (this: unknown, key: string, value: unknown) => unknown) as PipesItem;
}

/** `JSON.rawJSON` where the engine has it (Node.js 21+). */
const rawJSON = (JSON as unknown as { rawJSON?: (text: string) => unknown }).rawJSON;

/** The item for an error document: its JSON with `kfek.partitionKey` set, measured. */
function withPartitionKey(doc: LogDocument, partitionKey: string): SerializedDocument {
  const item = { ...doc, kfek: { ...(doc.kfek ?? {}), partitionKey } };
  const json = JSON.stringify(item);
  return { json, bytes: Buffer.byteLength(json, 'utf8'), partitionKey, truncated: false };
}

function dataOf(record: unknown): string | undefined {
  if (typeof record !== 'object' || record === null) return undefined;
  const data = (record as { data?: unknown }).data;
  return typeof data === 'string' ? data : undefined;
}

/** The record's `approximateArrivalTimestamp` as given (the core checks it). */
function arrivalOf(record: unknown): unknown {
  return typeof record === 'object' && record !== null
    ? (record as { approximateArrivalTimestamp?: unknown }).approximateArrivalTimestamp
    : undefined;
}

/** For input that is not a Pipes Kinesis record at all: its JSON, base64, so the dead-letter object keeps it. */
function rawOf(record: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(record) ?? String(record);
  } catch {
    text = String(record);
  }
  return Buffer.from(text, 'utf8').toString('base64');
}

/**
 * Where a record came from. A record without a sequence number (malformed input) gets a digest of its data in
 * its place, so its dead-letter key is still its own and a retry overwrites rather than piles up.
 */
function sourceOf(record: unknown, raw: string): DeadLetterSource {
  const r = (typeof record === 'object' && record !== null ? record : {}) as Partial<
    Record<keyof PipesKinesisRecord, unknown>
  >;
  const text = (value: unknown): string => (typeof value === 'string' ? value : '');
  const eventId = text(r.eventID);
  const sequenceNumber =
    text(r.sequenceNumber) || `unknown-${createHash('sha256').update(raw).digest('hex').slice(0, 32)}`;
  return {
    eventId,
    sequenceNumber,
    shardId: shardIdOf(eventId),
    partitionKey: text(r.partitionKey),
    streamArn: text(r.eventSourceARN),
    approximateArrivalTimestamp: Number(r.approximateArrivalTimestamp),
    ...(typeof r.awsRegion === 'string' ? { awsRegion: r.awsRegion } : {}),
  };
}
