/**
 * The Firehose stand-in's delivery of one buffer to OpenSearch: `_bulk` with Firehose's action shape, retries of
 * retryable items (429, 5xx, no answer) with backoff for the retry duration, and failed documents written in
 * Firehose's S3 record shape. Split from delivery-loop.ts, which reads and buffers; this file sends.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import {
  FAILED_DOCUMENTS_FOLDER,
  failedDocumentsBody,
  failedDocumentsHourPath,
  type FailedDocumentRecord,
} from '../../core/delivery/failed-documents';
import { DeliveryError, SearchRequestError } from './errors';
import type { BulkItemResult, SearchHttp } from './search-http';
import { sleep } from './shard-reader';

/** One buffered record on its way to OpenSearch. */
export interface PendingDocument {
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

/** What a {@link BulkIndexer} needs; see DeliveryLoopProps for the meaning of each. */
export interface BulkIndexerProps {
  readonly search: SearchHttp;
  readonly failedDocumentsDir: string;
  readonly retryDurationInMillis: number;
  readonly retryBaseDelayInMillis: number;
  readonly log?: (line: string) => void;
  readonly trace?: (line: string) => void;
  /** The clock of retry budgets and timings (the delivery loop's). @default Date.now */
  readonly now?: () => number;
}

/** The counters of the sending side (the delivery loop adds its reading counters). */
export interface BulkIndexerStats {
  /** Documents OpenSearch acknowledged (2xx per bulk item). */
  readonly documentsIndexed: number;
  /** Of those, documents that replaced one with the same `_id` (result `updated`): duplicates collapsed. */
  readonly documentsOverwritten: number;
  /** Documents written to the failed-documents folder. */
  readonly documentsFailed: number;
  /** Document attempts that were retried after a retryable answer. */
  readonly documentRetries: number;
  readonly bulkRequests: number;
  /** From the start of the first bulk request to the end of the latest (0 before the first ends). */
  readonly indexingSpanInMillis: number;
}

/** Sends buffers of documents to OpenSearch; several `deliver` calls may run at once (the counters are shared). */
export class BulkIndexer {
  private readonly stats: { -readonly [K in keyof BulkIndexerStats]: BulkIndexerStats[K] } = {
    documentsIndexed: 0,
    documentsOverwritten: 0,
    documentsFailed: 0,
    documentRetries: 0,
    bulkRequests: 0,
    indexingSpanInMillis: 0,
  };
  private firstBulkStartedAt: number | undefined;
  private readonly indices = new Set<string>();

  private readonly now: () => number;

  constructor(private readonly props: BulkIndexerProps) {
    this.now = props.now ?? Date.now;
  }

  snapshot(): BulkIndexerStats & { readonly indices: readonly string[] } {
    return { ...this.stats, indices: [...this.indices].sort() };
  }

  /** Delivers one buffer: bulk, retry the retryable items until the retry duration is spent, keep the rest. */
  async deliver(batch: readonly PendingDocument[]): Promise<void> {
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
    const started = this.now();
    let round = 0;
    while (pending.length > 0) {
      round += 1;
      const retry = await this.bulkOnce(pending, failed);
      pending = retry;
      if (pending.length === 0) break;
      if (this.now() - started >= this.props.retryDurationInMillis) {
        failed.push(...pending);
        break;
      }
      this.stats.documentRetries += pending.length;
      const cap = Math.min(5000, this.props.retryBaseDelayInMillis * 2 ** (round - 1));
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
    const started = this.now();
    this.firstBulkStartedAt ??= started;
    try {
      try {
        items = await this.props.search.bulk(`${lines.join('\n')}\n`);
      } finally {
        this.stats.indexingSpanInMillis = this.now() - this.firstBulkStartedAt;
      }
      this.props.trace?.(
        `delivery: bulk of ${docs.length} document(s) answered in ${this.now() - started} ms`,
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
    const now = new Date(this.now());
    const dir = path.join(
      this.props.failedDocumentsDir,
      FAILED_DOCUMENTS_FOLDER,
      failedDocumentsHourPath(now),
    );
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
      await writeFile(file, failedDocumentsBody(records));
      this.stats.documentsFailed += docs.length;
      this.props.log?.(`delivery: ${docs.length} document(s) rejected for good, kept in ${file}`);
    } catch (error) {
      // Firehose blocks delivery when it cannot back up a failed document; locally that is a hard error.
      throw new DeliveryError(`could not write failed documents to ${dir}: ${String(error)}`, {
        cause: error,
      });
    }
  }
}

/** The compact JSON text of `raw`, or undefined when it is not a JSON object. */
export function jsonObjectSource(raw: Uint8Array): string | undefined {
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
