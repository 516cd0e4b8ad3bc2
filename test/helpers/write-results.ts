/**
 * WriteResult values for fake events-stream writers in transform tests.
 */
import type { WriteResult } from '../../lambda/transform/ports';

/** What a writer that acknowledged every document (one record each) answers. */
export function completeWrite(documents: readonly unknown[]): WriteResult {
  return {
    written: documents.map(() => true),
    writtenCount: documents.length,
    recordsWritten: documents.length,
    complete: true,
    firstUnwritten: documents.length,
    calls: 1,
    retriedEntries: 0,
    throttles: 0,
  };
}
