import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import type { _Record } from '@aws-sdk/client-kinesis';
import { deaggregate } from '../../lambda/transform/kpl-aggregation';
import { DeliveryError, SearchRequestError } from './errors';
import type { BulkItemResult, SearchHttp } from './search-http';
import { ShardPollingLoop, type ShardPollingLoopProps } from './shard-pollers';
import { type ShardReader, sleep } from './shard-reader';

export interface DeliveryLoopProps extends ShardPollingLoopProps {
  /** The events stream (the transform's output; Firehose's source). */
  readonly streamArn: string;
  readonly search: SearchHttp;
  /**
   * The index a record goes to, from its arrival time. Firehose appends a portion of the UTC *arrival*
   * timestamp (not the document's `@timestamp`) to the index name:
   * https://docs.aws.amazon.com/firehose/latest/dev/es-index-rotation.html
   */
  readonly indexFor: (arrival: Date) => string;
  /** Folder standing in for the S3 prefix Firehose writes failed documents to. */
  readonly failedDocumentsDir: string;
  /**
   * Flush a shard's buffer when its oldest record is this old. Firehose buffers 0-900 s (60 s is common); the
   * local loop flushes after about a second so a run finishes quickly. Latency in AWS is longer by that much.
   * @default 1000
   */
  readonly bufferIntervalInMillis?: number;
  /**
   * Flush a shard's buffer when it holds this many bytes (Firehose: 1-100 MB for OpenSearch).
   * @default 5 MiB
   */
  readonly bufferSizeInBytes?: number;
  /**
   * How long a document that fails with a retryable status (429, 5xx, no answer) is retried before it is written
   * to the failed-documents folder (Firehose's `RetryOptions.DurationInSeconds`).
   * @default 300_000
   */
  readonly retryDurationInMillis?: number;
  /**
   * First backoff between retries; doubles up to 5 s, with full jitter.
   * @default 200
   */
  readonly retryBaseDelayInMillis?: number;
}

export interface DeliveryStats {
  /** Records read from the events stream. */
  readonly recordsRead: number;
  /** User records (documents) those records held after de-aggregation. */
  readonly userRecords: number;
  /** Documents OpenSearch acknowledged (2xx per bulk item). */
  readonly documentsIndexed: number;
  /** Of those, documents that replaced one with the same `_id` (result `updated`): duplicates collapsed. */
  readonly documentsOverwritten: number;
  /** Documents written to the failed-documents folder. */
  readonly documentsFailed: number;
  /** Document attempts that were retried after a retryable answer. */
  readonly documentRetries: number;
  readonly bulkRequests: number;
  /** Every index name the loop wrote to. */
  readonly indices: readonly string[];
}

/** The record Firehose writes to S3 for a document it could not deliver to OpenSearch. */
export interface FailedDocumentRecord {
  readonly attemptsMade: number;
  /** Epoch millis the record arrived (here: its approximate arrival in the events stream). */
  readonly arrivalTimestamp: number;
  /** The HTTP status of the item (e.g. "400") or a Firehose-style code for a transport failure. */
  readonly errorCode: string;
  readonly errorMessage: string;
  readonly attemptEndingTimestamp: number;
  /** The record data, base64, exactly as read from the stream. */
  readonly rawData: string;
  readonly subsequenceNumber: number;
  readonly esDocumentId: string;
  readonly esIndexName: string;
  readonly esTypeName: string;
}

/** One buffered record on its way to OpenSearch. */
interface PendingDocument {
  readonly id: string;
  readonly index: string;
  readonly arrival: Date;
  readonly raw: Uint8Array;
  /** Position of the document in its aggregated record (0 for a record that was not aggregated). */
  readonly subsequenceNumber: number;
  /** The compact JSON source, or undefined when the data is not a JSON object. */
  readonly source: string | undefined;
  attempts: number;
  lastError?: { readonly code: string; readonly message: string };
}

type MutableStats = { -readonly [K in keyof Omit<DeliveryStats, 'indices'>]: DeliveryStats[K] };

/** Subfolder Firehose appends for the OpenSearch destination's failed documents. */
export const FAILED_DOCUMENTS_PREFIX = 'AmazonOpenSearchService-failed';

/**
 * A local stand-in for Amazon Data Firehose (Kinesis source, OpenSearch destination). It is NOT part of what
 * kfek deploys: in AWS, Firehose does this. It reads every shard of the events stream from TRIM_HORIZON,
 * de-aggregates KPL aggregated records as Firehose does (kfek's decoder, which follows the KCL: a record that is
 * not a valid aggregate, a wrong MD5 included, is one document as it is), buffers, bulk-indexes with Firehose's
 * index naming (arrival time, rotation from config) and no document id in the bulk action (kfek's
 * `DocumentIdOptions` is NO_DOCUMENT_ID: the index template's default pipeline sets `_id` from the CloudWatch event,
 * see core/opensearch/ingest-pipeline.ts), retries retryable item
 * failures (429, 5xx) with backoff for the retry duration, and writes documents rejected for good to
 * `<failedDocumentsDir>/AmazonOpenSearchService-failed/YYYY/MM/DD/HH/` in Firehose's failed-document shape.
 *
 * The shard lifecycle (start, stop, failure, caught-up tracking) is {@link ShardPollingLoop}'s. A shard counts as
 * idle only when its latest read was empty at the tip of the stream AND its buffer is empty, so `caughtUpSince()`
 * means every record written to the events stream before it is indexed or kept as failed. `stop()` delivers what
 * is buffered before it returns.
 */
export class DeliveryLoop extends ShardPollingLoop {
  private readonly stats: MutableStats = {
    recordsRead: 0,
    userRecords: 0,
    documentsIndexed: 0,
    documentsOverwritten: 0,
    documentsFailed: 0,
    documentRetries: 0,
    bulkRequests: 0,
  };
  private readonly indices = new Set<string>();
  private readonly bufferIntervalInMillis: number;
  private readonly bufferSizeInBytes: number;
  private readonly retryDurationInMillis: number;
  private readonly retryBaseDelayInMillis: number;

  constructor(private readonly props: DeliveryLoopProps) {
    super(props, { errorClass: DeliveryError, loopName: 'delivery loop' });
    this.bufferIntervalInMillis = props.bufferIntervalInMillis ?? 1000;
    this.bufferSizeInBytes = props.bufferSizeInBytes ?? 5 * 1024 * 1024;
    this.retryDurationInMillis = props.retryDurationInMillis ?? 300_000;
    this.retryBaseDelayInMillis = props.retryBaseDelayInMillis ?? 200;
    if (this.retryDurationInMillis < 0 || this.bufferSizeInBytes < 1) {
      throw new DeliveryError(
        `retryDurationInMillis must be >= 0 and bufferSizeInBytes >= 1, got ${this.retryDurationInMillis} and ` +
          `${this.bufferSizeInBytes}`,
      );
    }
  }

  snapshot(): DeliveryStats {
    return { ...this.stats, indices: [...this.indices].sort() };
  }

  protected async pollShard(reader: ShardReader): Promise<void> {
    let buffer: PendingDocument[] = [];
    let bufferBytes = 0;
    let oldest = 0;
    for (;;) {
      const stopping = this.signal.aborted;
      let records: readonly _Record[] = [];
      let caughtUp = false;
      const readStarted = Date.now();
      if (!stopping) {
        try {
          const batch = await reader.read(10_000);
          records = batch.records;
          caughtUp = batch.records.length === 0 && batch.millisBehindLatest === 0;
        } catch (error) {
          if (!this.signal.aborted) {
            this.log(`delivery: GetRecords on ${reader.shardId} failed, retrying: ${String(error)}`);
          }
        }
      }
      for (const record of records) {
        for (const doc of this.toPending(reader.shardId, record)) {
          if (buffer.length === 0) oldest = Date.now();
          buffer.push(doc);
          bufferBytes += doc.raw.byteLength;
          this.stats.userRecords += 1;
        }
      }
      this.stats.recordsRead += records.length;
      const due =
        buffer.length > 0 &&
        (stopping ||
          bufferBytes >= this.bufferSizeInBytes ||
          Date.now() - oldest >= this.bufferIntervalInMillis);
      if (due) {
        const batch = buffer;
        buffer = [];
        bufferBytes = 0;
        await this.deliver(batch);
      }
      this.setIdleSince(reader.shardId, caughtUp && buffer.length === 0 ? readStarted : undefined);
      if (stopping) return;
      if (records.length === 0) await sleep(this.pollIntervalInMillis, this.signal);
    }
  }

  /** The documents one events-stream record holds: one, or each user record of an aggregated record. */
  private toPending(shardId: string, record: _Record): PendingDocument[] {
    const arrival = record.ApproximateArrivalTimestamp ?? new Date();
    const index = this.props.indexFor(arrival);
    // Names the record in a failed-document record only; the bulk action carries no id (NO_DOCUMENT_ID).
    const recordId = `${shardNumber(shardId)}-${record.SequenceNumber ?? randomUUID()}`;
    const { aggregated, records } = deaggregate(record.Data ?? new Uint8Array());
    return records.map((raw, subsequenceNumber) => ({
      id: aggregated ? `${recordId}-${subsequenceNumber}` : recordId,
      index,
      arrival,
      raw,
      subsequenceNumber,
      source: jsonObjectSource(raw),
      attempts: 0,
    }));
  }

  /** Delivers one buffer: bulk, retry the retryable items until the retry duration is spent, keep the rest. */
  private async deliver(batch: readonly PendingDocument[]): Promise<void> {
    const failed: PendingDocument[] = [];
    let pending: PendingDocument[] = [];
    for (const doc of batch) {
      if (doc.source === undefined) {
        doc.attempts = 1;
        doc.lastError = {
          code: '400',
          message: JSON.stringify({
            type: 'mapper_parsing_exception',
            reason:
              'the record data is not a JSON object (rejected before indexing by the local delivery loop)',
          }),
        };
        failed.push(doc);
      } else {
        pending.push(doc);
      }
    }
    const started = Date.now();
    let round = 0;
    while (pending.length > 0) {
      round += 1;
      const retry = await this.bulkOnce(pending, failed);
      pending = retry;
      if (pending.length === 0) break;
      if (Date.now() - started >= this.retryDurationInMillis) {
        failed.push(...pending);
        break;
      }
      this.stats.documentRetries += pending.length;
      const cap = Math.min(5000, this.retryBaseDelayInMillis * 2 ** (round - 1));
      // Full jitter (random between 0 and the cap), as the AWS architecture blog recommends for retries.
      await sleep(Math.random() * cap);
    }
    if (failed.length > 0) await this.writeFailed(failed);
  }

  /** One `_bulk` call; returns the documents to retry and appends the ones rejected for good to `failed`. */
  private async bulkOnce(
    docs: readonly PendingDocument[],
    failed: PendingDocument[],
  ): Promise<PendingDocument[]> {
    const lines: string[] = [];
    for (const doc of docs) {
      // No `_id`, as Firehose with NO_DOCUMENT_ID sends: the index's default pipeline sets it from the event.
      lines.push(JSON.stringify({ index: { _index: doc.index } }), doc.source ?? '{}');
      doc.attempts += 1;
    }
    this.stats.bulkRequests += 1;
    let items: readonly BulkItemResult[];
    const started = Date.now();
    try {
      items = await this.props.search.bulk(`${lines.join('\n')}\n`);
      this.props.trace?.(
        `delivery: bulk of ${docs.length} document(s) answered in ${Date.now() - started} ms`,
      );
    } catch (error) {
      const status = error instanceof SearchRequestError ? error.statusCode : 0;
      const code = status === 0 ? 'OS.ConnectionFailed' : String(status);
      for (const doc of docs) doc.lastError = { code, message: String(error) };
      // A whole-request failure: retryable if there was no answer, throttling or a server error.
      if (status === 0 || status === 429 || status >= 500) return [...docs];
      failed.push(...docs);
      return [];
    }
    if (items.length !== docs.length) {
      throw new DeliveryError(`_bulk answered ${items.length} items for ${docs.length} documents`);
    }
    const retry: PendingDocument[] = [];
    items.forEach((item, i) => {
      const doc = docs[i];
      if (item.status >= 200 && item.status < 300) {
        this.stats.documentsIndexed += 1;
        if (item.result === 'updated') this.stats.documentsOverwritten += 1;
        this.indices.add(doc.index);
        return;
      }
      doc.lastError = { code: String(item.status), message: JSON.stringify(item.error ?? null) };
      if (item.status === 429 || item.status >= 500) retry.push(doc);
      else failed.push(doc);
    });
    return retry;
  }

  private async writeFailed(docs: readonly PendingDocument[]): Promise<void> {
    const now = new Date();
    const hourPath = now.toISOString().slice(0, 13).replace(/[-T]/g, '/');
    const dir = path.join(this.props.failedDocumentsDir, FAILED_DOCUMENTS_PREFIX, hourPath);
    const records = docs.map((doc): FailedDocumentRecord => ({
      attemptsMade: doc.attempts,
      arrivalTimestamp: doc.arrival.getTime(),
      errorCode: doc.lastError?.code ?? 'unknown',
      errorMessage: doc.lastError?.message ?? 'unknown',
      attemptEndingTimestamp: now.getTime(),
      rawData: Buffer.from(doc.raw).toString('base64'),
      subsequenceNumber: doc.subsequenceNumber,
      esDocumentId: doc.id,
      esIndexName: doc.index,
      esTypeName: '',
    }));
    try {
      await mkdir(dir, { recursive: true });
      const file = path.join(
        dir,
        `kfek-local-delivery-${now.toISOString().replace(/[:.]/g, '-')}-${randomUUID()}`,
      );
      await writeFile(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
      this.stats.documentsFailed += docs.length;
      this.log(`delivery: ${docs.length} document(s) rejected for good, kept in ${file}`);
    } catch (error) {
      // Firehose blocks delivery when it cannot back up a failed document; locally that is a hard error.
      throw new DeliveryError(`could not write failed documents to ${dir}: ${String(error)}`, {
        cause: error,
      });
    }
  }
}

/** The compact JSON text of `raw`, or undefined when it is not a JSON object. */
function jsonObjectSource(raw: Uint8Array): string | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw).toString('utf8'));
    // Re-serializing keeps the source on one line, as the NDJSON bulk body requires.
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
      return JSON.stringify(parsed);
  } catch {
    // Not JSON: OpenSearch would reject it; the caller keeps it as a failed document.
  }
  return undefined;
}

/** `shardId-000000000001` -> `1` (short document ids); any other shape is kept as it is. */
function shardNumber(shardId: string): string {
  const match = /^shardId-(\d+)$/.exec(shardId);
  return match === null ? shardId : String(Number(match[1]));
}
