/**
 * `_bulk` bodies of kfek's own indexer: NDJSON, each action carrying the `_index`, `_id` and `routing` the ingest
 * pipeline would have set (document-plan.ts), cut by bytes so no request grows past what the node indexes best
 * (bench/bulk-sizes.bench.ts measures it; lambda/indexer/env.ts has the default and the figure).
 */
import type { IndexedDocumentPlan } from './document-plan';

/**
 * The path of every direct `_bulk`: `pipeline=_none` so neither the index's `default_pipeline` (kfek's own, which
 * the Firehose path needs) nor any other runs: the documents already carry what it would compute.
 */
export const DIRECT_BULK_PATH = '/_bulk?pipeline=_none';

/**
 * The action line of one document (no newline). `routing: false` leaves the routing out: an OpenSearch Serverless
 * collection places documents itself and documents no routing (docs/serverless.md; its stand-in refuses it).
 */
export function actionLine(plan: IndexedDocumentPlan, routing = true): string {
  const meta = {
    _index: plan.index,
    ...(plan.id === undefined ? {} : { _id: plan.id }),
    ...(routing ? { routing: plan.routing } : {}),
  };
  return JSON.stringify({ index: meta });
}

/** One `_bulk` body and the items it carries, in order (the answer's items come back in this order). */
export interface BulkBody<T> {
  readonly items: readonly T[];
  readonly body: string;
  readonly bytes: number;
}

/**
 * Cuts `items` into bodies of at most `maxBytes` UTF-8 bytes each (a document larger than that alone goes in a body
 * of its own: OpenSearch then answers for it, e.g. 413 over `http.max_content_length`).
 */
export function bulkBodies<T>(
  items: readonly T[],
  planOf: (item: T) => IndexedDocumentPlan,
  maxBytes: number,
  /** Whether the action lines carry the routing ({@link actionLine}). @default true */
  routing = true,
): BulkBody<T>[] {
  const bodies: BulkBody<T>[] = [];
  let current: T[] = [];
  let parts: string[] = [];
  let bytes = 0;
  const flush = (): void => {
    if (current.length > 0) bodies.push({ items: current, body: parts.join(''), bytes });
    current = [];
    parts = [];
    bytes = 0;
  };
  for (const item of items) {
    const plan = planOf(item);
    const entry = `${actionLine(plan, routing)}\n${plan.source}\n`;
    const size = Buffer.byteLength(entry, 'utf8');
    if (bytes > 0 && bytes + size > maxBytes) flush();
    current.push(item);
    parts.push(entry);
    bytes += size;
  }
  flush();
  return bodies;
}
