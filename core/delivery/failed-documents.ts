/**
 * Documents OpenSearch refused for good, kept in the layout Amazon Data Firehose writes for its OpenSearch
 * destination (https://docs.aws.amazon.com/firehose/latest/dev/basic-deliver.html#retry, "failed documents"):
 * under `<prefix>AmazonOpenSearchService-failed/YYYY/MM/DD/HH/` (UTC), one JSON record per line. One owner for
 * both writers (the local Firehose stand-in, scripts/local/bulk-indexer.ts, and kfek's own indexer,
 * lambda/indexer) and what `kfek replay` and the reconcile read (core/kept/parse.ts), so a refusal of either
 * delivery is read the same way.
 */

/** The record Firehose writes for a document it could not deliver to OpenSearch. */
export interface FailedDocumentRecord {
  readonly attemptsMade: number;
  /** Epoch millis the record arrived in the events stream. */
  readonly arrivalTimestamp: number;
  /** The HTTP status of the item (e.g. "400") or a Firehose-style code for a transport failure. */
  readonly errorCode: string;
  readonly errorMessage: string;
  readonly attemptEndingTimestamp: number;
  /** The document's data, base64, exactly as read from the stream (one user record of an aggregated one). */
  readonly rawData: string;
  readonly subsequenceNumber: number;
  readonly esDocumentId: string;
  readonly esIndexName: string;
  readonly esTypeName: string;
}

/** Subfolder Firehose appends to the prefix for the OpenSearch destination's failed documents. */
export const FAILED_DOCUMENTS_FOLDER = 'AmazonOpenSearchService-failed';

/** `YYYY/MM/DD/HH` of `at` in UTC, the hour folder Firehose writes under. */
export function failedDocumentsHourPath(at: Date): string {
  return at.toISOString().slice(0, 13).replace(/[-T]/g, '/');
}

/** The key of one failed-documents object: `<prefix>AmazonOpenSearchService-failed/YYYY/MM/DD/HH/<name>`. */
export function failedDocumentsKey(prefix: string, at: Date, name: string): string {
  return `${prefix}${FAILED_DOCUMENTS_FOLDER}/${failedDocumentsHourPath(at)}/${name}`;
}

/** The body of one failed-documents object: a JSON record per line. */
export function failedDocumentsBody(records: readonly FailedDocumentRecord[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + '\n';
}
