/**
 * Warms a freshly started OpenSearch node before a measured local run.
 *
 * Why: `npm start` starts its node seconds before it writes. On a cold JVM the first bulk requests run interpreted
 * code and compile the ingest pipeline's Painless script: in a 100,000-event run on a quiet 2-core machine the first
 * three bulks of ~2,100 documents took 3.3-4.0 s each and the last ones 0.2-0.5 s, so the run measured a node that
 * an OpenSearch Service domain in steady state never is. The warm-up indexes real transform output through the
 * shipped index template and default pipeline (same settings, same script) into an index of its own, then deletes
 * that index, so nothing of it reaches the run's counts or a user's searches.
 */
import { gzipSync } from 'node:zlib';
import { generateEvents } from '../../core/log-generator';
import { name, requestPath } from '../../core/opensearch/request-path';
import { transformRecord } from '../../core/transform/transform';
import { LocalRunError } from './errors';
import type { SearchHttp } from './search-http';

/**
 * Documents the warm-up indexes by default. Side by side on a quiet 2-core machine, 20,000 took the node from 3.3 s
 * to about 0.5 s per 2,000-document bulk.
 */
export const WARM_UP_DOCUMENTS = 20_000;

/**
 * The most documents {@link warmUpDocumentsFor} asks for. After 20,000 the JVM is still compiling: in `npm run
 * bench:e2e` (100,000 events, quiet 2-core machine, four rounds side by side) the node spent 274, 288, 299 and 291
 * core-microseconds per event after a 20,000-document warm-up and 221, 227, 272 and 287 after 100,000 (12 % less
 * on average), and the run averaged 5,140 instead of 4,680 events/s (one round the other way). 200,000 did no
 * better than 100,000 (199 against 183 and 204, one run).
 */
export const MAX_WARM_UP_DOCUMENTS = 100_000;

/**
 * How many documents warm the node for a run of `events`: as many as the run writes, at least
 * {@link WARM_UP_DOCUMENTS} and at most {@link MAX_WARM_UP_DOCUMENTS}. A short run starts quickly; a long one, whose
 * figures are read as throughput, measures a node the JIT has finished with, as a domain in steady state is.
 */
export function warmUpDocumentsFor(events: number): number {
  return Math.min(MAX_WARM_UP_DOCUMENTS, Math.max(WARM_UP_DOCUMENTS, Math.ceil(events)));
}

export interface WarmUpOptions {
  /** Documents to index. @default WARM_UP_DOCUMENTS */
  readonly documents?: number;
  /** @default 2_000 (about one 1 MiB bulk of the delivery loop) */
  readonly documentsPerBulk?: number;
  /** Bulk requests in flight, as the delivery loop sends them. @default 3 */
  readonly concurrency?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

export interface WarmUpReport {
  readonly index: string;
  readonly documents: number;
  /** Documents the node rejected (a template or pipeline problem the run would meet too). */
  readonly rejected: number;
  readonly firstBulkMillis: number;
  readonly lastBulkMillis: number;
  readonly totalMillis: number;
}

/** The warm-up index: inside the index pattern, so the template and its default pipeline apply. */
export function warmUpIndexName(indexPattern: string): string {
  if (!indexPattern.endsWith('*')) {
    throw new LocalRunError(`warm-up: index pattern ${JSON.stringify(indexPattern)} does not end with "*"`);
  }
  return `${indexPattern.slice(0, -1)}kfek-warm-up`;
}

/** The transform's documents for `count` generated events in envelopes of 100, as CloudWatch would send them. */
function warmUpDocuments(count: number, logGroup: string): string[] {
  const start = Date.UTC(2026, 0, 1);
  const events = generateEvents(count, { runId: 'kfek-warm-up', seed: 11 }, (i) => start + i);
  const docs: string[] = [];
  for (let i = 0; i < events.length; i += 100) {
    const envelope = {
      messageType: 'DATA_MESSAGE',
      owner: '000000000000',
      logGroup,
      logStream: `kfek-warm-up/${i % 7}`,
      subscriptionFilters: ['kfek-warm-up'],
      logEvents: events.slice(i, i + 100).map((e, n) => ({
        id: String(i + n).padStart(56, '0'),
        timestamp: e.timestamp,
        message: e.message,
      })),
    };
    const outcome = transformRecord(gzipSync(Buffer.from(JSON.stringify(envelope), 'utf8')));
    if (outcome.kind !== 'data') throw new LocalRunError(`warm-up: the transform answered ${outcome.kind}`);
    for (const doc of outcome.documents) docs.push(doc.json);
  }
  return docs;
}

/**
 * Indexes the warm-up documents in bulks, `concurrency` at a time, then deletes the warm-up index. A bulk that fails
 * as a whole throws: the run that follows would fail the same way, with less clear an error.
 */
export async function warmUpSearch(
  search: SearchHttp,
  indexPattern: string,
  logGroup: string,
  options: WarmUpOptions = {},
): Promise<WarmUpReport> {
  const count = options.documents ?? WARM_UP_DOCUMENTS;
  const perBulk = options.documentsPerBulk ?? 2_000;
  const concurrency = options.concurrency ?? 3;
  const now = options.now ?? Date.now;
  if (![count, perBulk, concurrency].every((n) => Number.isInteger(n) && n >= 1)) {
    throw new LocalRunError(
      'warm-up: documents, documentsPerBulk and concurrency must be whole numbers >= 1',
    );
  }
  const index = warmUpIndexName(indexPattern);
  const docs = warmUpDocuments(count, logGroup);
  const action = JSON.stringify({ index: { _index: index } });
  const bulks: string[] = [];
  for (let i = 0; i < docs.length; i += perBulk) {
    bulks.push(
      `${docs
        .slice(i, i + perBulk)
        .flatMap((doc) => [action, doc])
        .join('\n')}\n`,
    );
  }
  const started = now();
  const millis: number[] = new Array<number>(bulks.length);
  let rejected = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < bulks.length) {
      const i = next;
      next += 1;
      const bulkStarted = now();
      const items = await search.bulk(bulks[i]);
      millis[i] = now() - bulkStarted;
      rejected += items.filter((item) => item.status < 200 || item.status >= 300).length;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, bulks.length) }, worker));
  } finally {
    await search.json('DELETE', requestPath([name('index', index)], { ignore_unavailable: true }));
  }
  return {
    index,
    documents: docs.length,
    rejected,
    firstBulkMillis: millis[0],
    lastBulkMillis: millis[millis.length - 1],
    totalMillis: now() - started,
  };
}
