/**
 * What the indexer's batch logic sees of the world: one port per I/O dependency, so the logic runs against fakes in
 * unit tests and against the real node and moto's S3 in the fault tests.
 */

/** OpenSearch's answer to one `_bulk` request, whatever its status. */
export interface BulkResponse {
  readonly status: number;
  readonly text: string;
}

/** Sends `_bulk` bodies (signed, to `DIRECT_BULK_PATH`). Throws when no answer came (refused, reset, timed out). */
export interface BulkPort {
  bulk(body: string, timeoutMillis: number): Promise<BulkResponse>;
}

/** Reads an ingest pipeline (`GET _ingest/pipeline/<name>`). Throws when no answer came. */
export interface PipelinePort {
  get(name: string, timeoutMillis: number): Promise<BulkResponse>;
}

/** Reads the route pairs in a collection's record index (`GET <index>/_doc/routes`). Throws when no answer came. */
export interface RouteRecordPort {
  get(index: string, timeoutMillis: number): Promise<BulkResponse>;
}

/** Writes one failed-documents object. Throws when it could not. */
export interface FailedDocumentStore {
  put(key: string, body: string): Promise<void>;
}

/** One record of the batch, as the event source mapping hands it over (data decoded from base64). */
export interface IndexerRecord {
  readonly sequenceNumber: string;
  readonly data: Uint8Array;
  /** The record's `approximateArrivalTimestamp` in the events stream, epoch milliseconds. */
  readonly arrival: number;
}

export interface IndexerLogger {
  warn(message: string, details?: Record<string, unknown>): void;
}
