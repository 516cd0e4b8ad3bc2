/**
 * The transform benchmarks' workload and the handler's chunking: the corpus of small and 10,000-event envelopes,
 * and the chunks of documents the Kinesis handler writes (closed at the first record boundary after 5,000
 * documents or 25 MiB, as `kinesis-batch.ts` does).
 */
import { gzipSync } from 'node:zlib';
import { transformRecord, type TransformOptions } from '../../core/transform/transform';
import type { RecordOutcome, SerializedDocument } from '../../core/transform/types';
import { CorpusGenerator } from '../corpus';

const SMALL_BATCH_EVENTS = 100_000;
const LARGE_BATCHES = 10;
export const LARGE_BATCH_SIZE = 10_000;
export const CHUNK_DOCUMENTS = 5000;
const CHUNK_BYTES = 25 * 1024 * 1024;

export interface Corpus {
  readonly records: string[];
  readonly events: number;
  readonly smallRecords: number;
  readonly largeRecords: number;
}

/** A subscription envelope as Kinesis carries it: gzip, then base64. */
export function encode(envelope: object): string {
  return gzipSync(Buffer.from(JSON.stringify(envelope), 'utf8')).toString('base64');
}

export function buildCorpus(): Corpus {
  const gen = new CorpusGenerator(42);
  const records: string[] = [];
  let events = 0;
  let smallRecords = 0;
  while (events < SMALL_BATCH_EVENTS) {
    const n = gen.between(1, 50);
    records.push(encode(gen.envelope(n)));
    events += n;
    smallRecords++;
  }
  for (let i = 0; i < LARGE_BATCHES; i++) {
    records.push(encode(gen.envelope(LARGE_BATCH_SIZE)));
    events += LARGE_BATCH_SIZE;
  }
  return { records, events, smallRecords, largeRecords: LARGE_BATCHES };
}

/**
 * The raw records' `approximateArrivalTimestamp` (seconds), passed as the handlers pass it: as deployed, every
 * document carries it as `kfek.arrival` (issue 30.5), so the benchmarks pay for writing it.
 */
export const BENCH_ARRIVAL_SECONDS = 1_796_169_599.987;

/**
 * Transforms `records` (with `options`, and the bench's arrival) and hands their documents over in the handler's
 * chunks; `onOutcome` sees each record's outcome first (the decisions benchmark reads its decisions there).
 */
export function forEachChunk(
  records: readonly string[],
  onChunk: (documents: SerializedDocument[]) => void,
  options?: TransformOptions,
  onOutcome?: (outcome: RecordOutcome) => void,
): void {
  const given = { ...options, approximateArrivalTimestamp: BENCH_ARRIVAL_SECONDS };
  let documents: SerializedDocument[] = [];
  let bytes = 0;
  for (const r of records) {
    const outcome = transformRecord(r, given);
    if (outcome.kind !== 'data') throw new Error(`benchmark record was ${outcome.kind}`);
    onOutcome?.(outcome);
    for (const d of outcome.documents) {
      documents.push(d);
      bytes += d.bytes;
    }
    if (documents.length >= CHUNK_DOCUMENTS || bytes >= CHUNK_BYTES) {
      onChunk(documents);
      documents = [];
      bytes = 0;
    }
  }
  if (documents.length > 0) onChunk(documents);
}
