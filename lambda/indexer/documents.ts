/**
 * The documents of one batch: each events-stream record de-aggregated (KPL, as Firehose does before delivery), each
 * user record planned as the ingest pipeline would index it (core/delivery/document-plan.ts), and, at the end, what
 * became of each: which records Lambda must give again, and the failed-documents records of the refused ones.
 */
import type { FailedDocumentRecord } from '../../core/delivery/failed-documents';
import { type DeliveryTarget, type DocumentPlan, planDocument } from '../../core/delivery/document-plan';
import { deaggregate } from '../../core/transform/kpl-aggregation';
import type { IndexerRecord } from './ports';

export type DocumentState = 'pending' | 'indexed' | 'refused' | 'kept' | 'failed';

/** One document on its way: its plan, its attempts, and where it ended. */
export interface BatchDocument {
  /** Position of its record in the batch. */
  readonly record: number;
  /** Position in its aggregated record (0 when the record was not aggregated). */
  readonly subsequence: number;
  readonly data: Uint8Array;
  readonly arrival: number;
  readonly plan: DocumentPlan;
  attempts: number;
  lastError?: { readonly code: string; readonly message: string };
  state: DocumentState;
}

const decoder = new TextDecoder();

/** Every document of `records`, in order, planned; refused plans start as `refused` with OpenSearch's 400. */
export function batchDocuments(
  records: readonly IndexerRecord[],
  target: DeliveryTarget,
  random?: () => string,
): BatchDocument[] {
  const documents: BatchDocument[] = [];
  records.forEach((record, r) => {
    deaggregate(record.data).records.forEach((data, subsequence) => {
      const plan = planDocument(target, decoder.decode(data), record.arrival, random ? { random } : {});
      const refused = plan.kind === 'refuse';
      documents.push({
        record: r,
        subsequence,
        data,
        arrival: record.arrival,
        plan,
        attempts: refused ? 1 : 0,
        state: refused ? 'refused' : 'pending',
        ...(refused ? { lastError: { code: String(plan.status), message: JSON.stringify(plan.error) } } : {}),
      });
    });
  });
  return documents;
}

/** Firehose's failed-documents record of a refused document. */
export function failedDocumentRecord(document: BatchDocument, now: number): FailedDocumentRecord {
  return {
    attemptsMade: document.attempts,
    arrivalTimestamp: document.arrival,
    errorCode: document.lastError?.code ?? 'unknown',
    errorMessage: document.lastError?.message ?? 'unknown',
    attemptEndingTimestamp: now,
    rawData: Buffer.from(document.data).toString('base64'),
    subsequenceNumber: document.subsequence,
    esDocumentId: document.plan.kind === 'index' ? (document.plan.id ?? '') : '',
    esIndexName: document.plan.index,
    esTypeName: '',
  };
}

/**
 * The sequence numbers Lambda must give again: every record with a document neither indexed nor kept, in batch
 * order (Lambda resumes from the lowest reported one, so every later record is read again too, and its documents
 * overwrite themselves by id).
 */
export function unfinishedRecords(
  records: readonly IndexerRecord[],
  documents: readonly BatchDocument[],
): string[] {
  const unfinished = new Set<number>();
  for (const document of documents) {
    if (document.state !== 'indexed' && document.state !== 'kept') unfinished.add(document.record);
  }
  return [...unfinished].sort((a, b) => a - b).map((r) => records[r].sequenceNumber);
}
