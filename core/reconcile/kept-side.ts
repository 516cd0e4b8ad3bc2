/**
 * The kept-data side of `kfek reconcile` (core/reconcile/ports.ts `KeptSide`): which document ids the data kfek keeps
 * when something fails holds, read with `kfek replay`'s own collector and parsers (core/kept/collect.ts):
 *
 * - dead letters and discarded batches hold raw records (subscription envelopes): each runs through the transform's
 *   pure core, as the planner does, and its decisions give the ids of the documents it makes (a record the transform
 *   cannot decode names no event: it is counted as unreadable);
 * - failed documents hold documents: their `cloudwatch` fields give the id as the ingest pipeline computes it;
 * - a batch kept as a sequence-number range only (the pipe's dead-letter queue, an invocation record without its
 *   records) names no event either: counted as unreadable, and `kfek replay` re-reads it from the stream.
 *
 * Only objects written since `since` are read (the service passes the start of the judged window's first minute, less
 * the 2 hours an event may run ahead of CloudWatch Logs' clock: service.ts `keptSince`), and
 * only once per run, when the exact tier first finds an event that is not searchable.
 */
import { collectKept, type KeptPlace, type KeptSources } from '../kept/collect';
import type { KeptItem } from '../kept/model';
import type { ObjectStore } from '../kept/ports';
import { documentIdFor } from '../opensearch/ingest-pipeline';
import type { KeptKind } from './model';
import type { KeptSide, RequestMeter } from './ports';

/**
 * The ingest pipeline's ids of the documents the transform makes of one raw record (a subscription envelope), from
 * the transform's own decisions: the planner's `documentIdsOf`.
 */
export interface RawRecordTransform {
  documentIdsOf(data: Uint8Array): string[];
}

export interface KeptSideOptions {
  readonly sources: KeptSources;
  /** Objects last modified before this are not read. */
  readonly since: number;
  /** The transform, for the raw records of dead letters and discarded batches. */
  readonly transform: RawRecordTransform;
  readonly meter: RequestMeter;
}

/** What the kept data held: documents by id, and items that name no event. */
export interface KeptIndex {
  readonly byId: ReadonlyMap<string, { readonly kind: KeptKind; readonly location: string }>;
  /** Kept items whose events cannot be told (poison records, ranges): their locations. */
  readonly unreadable: readonly string[];
}

export function keptSide(options: KeptSideOptions): KeptSide & { index(): Promise<KeptIndex> } {
  let index: Promise<KeptIndex> | undefined;
  const load = (): Promise<KeptIndex> => (index ??= buildIndex(options));
  return {
    index: load,
    async find(documentIds) {
      const { byId } = await load();
      const out = new Map<string, { kind: KeptKind; location: string }>();
      for (const id of documentIds) {
        const where = byId.get(id);
        if (where !== undefined) out.set(id, where);
      }
      return out;
    },
  };
}

async function buildIndex(options: KeptSideOptions): Promise<KeptIndex> {
  const recent = (place: KeptPlace | undefined): KeptPlace | undefined =>
    place === undefined
      ? undefined
      : { ...place, store: recentObjects(place.store, options.since, options.meter) };
  const sources: KeptSources = {
    ...options.sources,
    ...(options.sources.deadLetter !== undefined ? { deadLetter: recent(options.sources.deadLetter) } : {}),
    ...(options.sources.discardedBatches !== undefined
      ? { discardedBatches: recent(options.sources.discardedBatches) }
      : {}),
    ...(options.sources.failedDocuments !== undefined
      ? { failedDocuments: recent(options.sources.failedDocuments) }
      : {}),
  };
  const { items, problems } = await collectKept(sources, [
    'dead-letter',
    'discarded-batch',
    'failed-document',
  ]);
  const byId = new Map<string, { kind: KeptKind; location: string }>();
  const unreadable = problems.map((p) => p.location);
  for (const item of items) {
    const ids = idsOf(item, options.transform);
    if (ids.length === 0) unreadable.push(item.container.location);
    for (const id of ids) {
      if (!byId.has(id)) byId.set(id, { kind: item.kind as KeptKind, location: item.container.location });
    }
  }
  return { byId, unreadable };
}

/** The document ids an item holds. */
function idsOf(item: KeptItem, transform: RawRecordTransform): string[] {
  if (item.content.type !== 'records') return [];
  const ids: string[] = [];
  for (const record of item.content.records) {
    if (item.kind === 'failed-document') {
      const id = idOfDocument(Buffer.from(record.data).toString('utf8'));
      if (id !== undefined) ids.push(id);
      continue;
    }
    for (const id of transform.documentIdsOf(record.data)) ids.push(id);
  }
  return ids;
}

/** The `_id` the ingest pipeline gives a document, from its `cloudwatch` fields; none without an event id. */
export function idOfDocument(json: string): string | undefined {
  let doc: { cloudwatch?: { logGroup?: unknown; logStream?: unknown; id?: unknown } };
  try {
    doc = JSON.parse(json) as typeof doc;
  } catch {
    return undefined;
  }
  const cw = doc.cloudwatch;
  if (typeof cw?.logGroup !== 'string' || typeof cw.logStream !== 'string' || typeof cw.id !== 'string') {
    return undefined;
  }
  return cw.id === '' ? undefined : documentIdFor(cw.logGroup, cw.logStream, cw.id);
}

/** A store that lists only objects modified at or after `since` (unknown times are listed), counting its calls. */
function recentObjects(store: ObjectStore, since: number, meter: RequestMeter): ObjectStore {
  return {
    locationOf: (key) => store.locationOf(key),
    async list(prefix) {
      meter.kept += 1;
      const all = await store.list(prefix);
      return all.filter((o) => o.lastModified === undefined || o.lastModified.getTime() >= since);
    },
    read(key) {
      meter.kept += 1;
      return store.read(key);
    },
    delete: () => Promise.reject(new Error('kfek reconcile never deletes kept data')),
  };
}
