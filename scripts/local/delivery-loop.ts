import { randomUUID } from 'node:crypto';
import type { _Record } from '@aws-sdk/client-kinesis';
import { deaggregate } from '../../core/transform/kpl-aggregation';
import { BulkIndexer, type BulkIndexerStats, jsonObjectSource, type PendingDocument } from './bulk-indexer';
import { DeliveryError } from './errors';
import type { SearchHttp } from './search-http';
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
   * Most document bytes in one bulk request: a due buffer is cut into requests of this size (about 2,000 of
   * kfek's documents per MiB, the bulk size `npm run bench:ids` measured). With 5 MiB bulks on a loaded machine
   * (load average 36) one bulk took longer than the 30 s request timeout: the timed-out bulk was sent again while
   * the node still indexed the first copy, 167,730 document retries and 20,978 overwrites in one 100,000-event run.
   * @default 1 MiB
   */
  readonly bulkSizeInBytes?: number;
  /**
   * Bulk requests in flight at once over all shards. Three keep both write threads of a 2-core node busy while
   * the next request is being built and sent (side by side on a quiet 2-core machine, 100,000 events: 6,136 docs/s
   * with two, 6,706 and 7,001 with three).
   * @default 3
   */
  readonly maxConcurrentBulks?: number;
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

export interface DeliveryStats extends BulkIndexerStats {
  /** Records read from the events stream. */
  readonly recordsRead: number;
  /** User records (documents) those records held after de-aggregation. */
  readonly userRecords: number;
  /** Every index name the loop wrote to. */
  readonly indices: readonly string[];
  /** Failed GetRecords calls retried (emulator errors). */
  readonly readErrors: number;
}

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
 *
 * Reading never waits for OpenSearch: a due buffer is cut into bulk requests of at most `bulkSizeInBytes` and
 * handed to at most `maxConcurrentBulks` requests in flight (the loop waits for a free slot, which is its
 * back-pressure), while the shard goes on being read. Before this, one bulk at a time blocked the reading, the
 * buffer grew behind it, and a 100,000-event run sent bulks of 62,500 documents (about 30 MB) to a 512 MB heap.
 */
export class DeliveryLoop extends ShardPollingLoop {
  private recordsRead = 0;
  private userRecords = 0;
  private readonly indexer: BulkIndexer;
  private readonly bufferIntervalInMillis: number;
  private readonly bufferSizeInBytes: number;
  private readonly bulkSizeInBytes: number;
  private readonly maxConcurrentBulks: number;
  /** Bulk requests in flight over all shards, for the concurrency limit. */
  private readonly bulksInFlight = new Set<Promise<void>>();
  /** The first failure of a bulk delivery running in the background; the shard that sees it rethrows it. */
  private deliveryFailure: Error | undefined;

  constructor(private readonly props: DeliveryLoopProps) {
    super(props, { errorClass: DeliveryError, loopName: 'delivery loop' });
    this.bufferIntervalInMillis = props.bufferIntervalInMillis ?? 1000;
    this.bufferSizeInBytes = props.bufferSizeInBytes ?? 5 * 1024 * 1024;
    this.bulkSizeInBytes = props.bulkSizeInBytes ?? 1024 * 1024;
    this.maxConcurrentBulks = props.maxConcurrentBulks ?? 3;
    const retryDurationInMillis = props.retryDurationInMillis ?? 300_000;
    if (
      retryDurationInMillis < 0 ||
      this.bufferSizeInBytes < 1 ||
      this.bulkSizeInBytes < 1 ||
      !Number.isInteger(this.maxConcurrentBulks) ||
      this.maxConcurrentBulks < 1
    ) {
      throw new DeliveryError(
        `retryDurationInMillis must be >= 0, bufferSizeInBytes and bulkSizeInBytes >= 1 and maxConcurrentBulks a ` +
          `whole number >= 1, got ${retryDurationInMillis}, ${this.bufferSizeInBytes}, ${this.bulkSizeInBytes} ` +
          `and ${this.maxConcurrentBulks}`,
      );
    }
    this.indexer = new BulkIndexer({
      search: props.search,
      failedDocumentsDir: props.failedDocumentsDir,
      retryDurationInMillis,
      retryBaseDelayInMillis: props.retryBaseDelayInMillis ?? 200,
      log: props.log,
      trace: props.trace,
      now: this.now,
    });
  }

  snapshot(): DeliveryStats {
    return {
      recordsRead: this.recordsRead,
      userRecords: this.userRecords,
      readErrors: this.readErrors(),
      ...this.indexer.snapshot(),
    };
  }

  protected async pollShard(reader: ShardReader): Promise<void> {
    let buffer: PendingDocument[] = [];
    let bufferBytes = 0;
    let oldest = 0;
    /** This shard's bulk requests in flight: the shard is idle only when none is. */
    const inFlight = new Set<Promise<void>>();
    for (;;) {
      this.throwDeliveryFailure();
      const stopping = this.signal.aborted;
      let records: readonly _Record[] = [];
      let caughtUp = false;
      const readStarted = this.now();
      const busyBeforeRead = inFlight.size > 0;
      if (!stopping) {
        try {
          const batch = await reader.read(10_000);
          records = batch.records;
          caughtUp = batch.records.length === 0 && batch.millisBehindLatest === 0;
        } catch (error) {
          if (!this.signal.aborted) {
            this.countReadError();
            this.log(`delivery: GetRecords on ${reader.shardId} failed, retrying: ${String(error)}`);
          }
        }
      }
      for (const record of records) {
        for (const doc of this.toPending(reader.shardId, record)) {
          if (buffer.length === 0) oldest = this.now();
          buffer.push(doc);
          bufferBytes += doc.raw.byteLength;
          this.userRecords += 1;
        }
      }
      this.recordsRead += records.length;
      const due =
        buffer.length > 0 &&
        (stopping ||
          bufferBytes >= this.bufferSizeInBytes ||
          this.now() - oldest >= this.bufferIntervalInMillis);
      if (due) {
        const chunks = splitBySize(buffer, this.bulkSizeInBytes);
        buffer = [];
        bufferBytes = 0;
        for (const chunk of chunks) await this.launchBulk(chunk, inFlight);
      }
      if (stopping) {
        await Promise.all(inFlight);
        this.throwDeliveryFailure();
        this.setIdleSince(reader.shardId, undefined);
        return;
      }
      // Idle means: the read found the tip, nothing is buffered, and no bulk of this shard was in flight from
      // before the read until now (a bulk that ends later would hold documents read before `readStarted`).
      const idle = caughtUp && buffer.length === 0 && !busyBeforeRead && inFlight.size === 0;
      this.setIdleSince(reader.shardId, idle ? readStarted : undefined);
      if (records.length === 0) {
        // Wake up early when a bulk of this shard ends, so idleness is noticed without a full poll interval.
        await Promise.race([sleep(this.pollIntervalInMillis, this.signal), ...inFlight]);
      }
    }
  }

  /** Starts one bulk delivery in the background once a slot is free (back-pressure for the reading). */
  private async launchBulk(docs: PendingDocument[], inFlight: Set<Promise<void>>): Promise<void> {
    while (this.bulksInFlight.size >= this.maxConcurrentBulks) {
      await Promise.race(this.bulksInFlight);
    }
    this.throwDeliveryFailure();
    const delivery: Promise<void> = this.indexer
      .deliver(docs)
      .catch((error: unknown) => {
        this.deliveryFailure ??= error instanceof Error ? error : new DeliveryError(String(error));
      })
      .finally(() => {
        this.bulksInFlight.delete(delivery);
        inFlight.delete(delivery);
      });
    this.bulksInFlight.add(delivery);
    inFlight.add(delivery);
  }

  private throwDeliveryFailure(): void {
    if (this.deliveryFailure !== undefined) throw this.deliveryFailure;
  }

  /** The documents one events-stream record holds: one, or each user record of an aggregated record. */
  private toPending(shardId: string, record: _Record): PendingDocument[] {
    const arrival = record.ApproximateArrivalTimestamp ?? new Date(this.now());
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
}

/** Cuts a buffer into bulk requests of at most `maxBytes` of document data each (at least one document each). */
export function splitBySize(docs: readonly PendingDocument[], maxBytes: number): PendingDocument[][] {
  const chunks: PendingDocument[][] = [];
  let current: PendingDocument[] = [];
  let bytes = 0;
  for (const doc of docs) {
    if (current.length > 0 && bytes + doc.raw.byteLength > maxBytes) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(doc);
    bytes += doc.raw.byteLength;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** `shardId-000000000001` -> `1` (short document ids); any other shape is kept as it is. */
function shardNumber(shardId: string): string {
  const match = /^shardId-(\d+)$/.exec(shardId);
  return match === null ? shardId : String(Number(match[1]));
}
