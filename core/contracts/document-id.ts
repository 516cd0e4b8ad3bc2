/**
 * The `_id` the ingest pipeline gives the document of one CloudWatch event (core/opensearch/ingest-pipeline.ts
 * `documentIdScript` computes it in Painless): one owner for the pipeline, the reconcile engine, and the transform's
 * decisions (core/transform/decisions.ts), which name the document of each kept event without loading the applier.
 * Why these bytes and this encoding: ingest-pipeline.ts, beside the script.
 */
import { createHash } from 'node:crypto';

/** Bytes of SHA-256 kept as the `_id` (96 bits, 16 base64url characters). */
export const ID_BYTES = 12;

/**
 * The `_id` the pipeline gives the document of one CloudWatch event. Painless counts `length()` in UTF-16 code
 * units and hashes UTF-8, as JavaScript's `length` and Node's `update(string)` do.
 */
export function documentIdFor(logGroup: string, logStream: string, eventId: string): string {
  const input = `${logGroup.length}:${logGroup}|${logStream.length}:${logStream}|${eventId.length}:${eventId}`;
  return createHash('sha256').update(input, 'utf8').digest().subarray(0, ID_BYTES).toString('base64url');
}
