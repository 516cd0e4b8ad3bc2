/**
 * One invocation's delivery (issue 41, "Delivery that loses nothing and never blocks a shard"): the batch's
 * documents sent in `_bulk` bodies cut by bytes, at most `concurrency` at once; documents OpenSearch answers 429 or
 * 5xx for, and whole requests that fail with 429, 5xx or no answer, sent again after a capped exponential backoff
 * with full jitter (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/) while the invocation's
 * time lasts; documents refused for good (any other 4xx) kept in the failed-documents bucket in Firehose's layout
 * with the reason, so one refused document never fails the others. A record is acknowledged only when each of its
 * documents is indexed or kept; any other is reported for Lambda to give again.
 */
import { bulkBodies, type BulkBody } from '../../core/delivery/bulk-body';
import { type DeliveryTarget, type IndexedDocumentPlan } from '../../core/delivery/document-plan';
import { failedDocumentsBody, failedDocumentsKey } from '../../core/delivery/failed-documents';
import type { Clock } from '../../core/clock';
import { batchDocuments, type BatchDocument, failedDocumentRecord, unfinishedRecords } from './documents';
import { BulkAnswerError, describeError } from './errors';
import type { BulkPort, FailedDocumentStore, IndexerLogger, IndexerRecord } from './ports';

export interface DeliverySettings {
  readonly target: DeliveryTarget;
  readonly bulkMaxBytes: number;
  readonly concurrency: number;
  readonly failedDocumentsPrefix: string;
  /**
   * Whether each action carries the document's routing: true for a domain, false for a Serverless collection,
   * which places documents itself (the signing service `aoss`, docs/serverless.md). @default true
   */
  readonly routing?: boolean;
  /** First backoff cap; doubles each round up to {@link maxBackoffMillis}. @default 100 */
  readonly baseBackoffMillis?: number;
  /** @default 5000 */
  readonly maxBackoffMillis?: number;
  /** Longest wait for one `_bulk` answer (shortened to the time left). @default 30000 */
  readonly requestTimeoutMillis?: number;
}

export interface DeliveryPorts {
  readonly bulk: BulkPort;
  readonly store: FailedDocumentStore;
  readonly clock: Clock;
  /** In [0, 1): the jitter. */
  readonly random: () => number;
  /** The name of a failed-documents object (unique per call). */
  readonly objectName: () => string;
  readonly log: IndexerLogger;
  /** The routing of a document without an event id. @default randomUUID */
  readonly routingSeed?: () => string;
}

/** What one batch counted (IndexerMetricName). */
export interface DeliveryCounts {
  readonly DocumentsIn: number;
  readonly IndexedDocuments: number;
  readonly RefusedDocuments: number;
  readonly RetriedRequests: number;
  readonly DeliveryErrors: number;
}

export interface DeliveryResult {
  /** Sequence numbers to report as batch item failures, in batch order. */
  readonly failures: readonly string[];
  readonly counts: DeliveryCounts;
  /** Of the indexed documents, those that replaced one with the same `_id` (result `updated`). */
  readonly overwritten: number;
  readonly bulkRequests: number;
  /** The indices documents were indexed into. */
  readonly indices: readonly string[];
}

const planOf = (document: BatchDocument): IndexedDocumentPlan => document.plan as IndexedDocumentPlan;

interface BulkItemAnswer {
  readonly status: number;
  readonly result?: string;
  readonly error?: unknown;
}

/** The items of a 2xx `_bulk` answer, one per document sent. */
function answerItems(text: string, expected: number): BulkItemAnswer[] {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BulkAnswerError(`_bulk answered text that is not JSON: ${text.slice(0, 200)}`);
  }
  const items = (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items) || items.length !== expected) {
    throw new BulkAnswerError(
      `_bulk answered ${Array.isArray(items) ? items.length : 'no'} items for ${expected}`,
    );
  }
  return items.map((item) => Object.values(item as Record<string, BulkItemAnswer>)[0] ?? { status: 0 });
}

const retryable = (status: number): boolean => status === 429 || status >= 500;

/** Runs `work` over `items` with at most `limit` at once. */
async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** One round's bookkeeping: what to send again, and the smaller body size after a 413. */
interface Round {
  readonly retry: BatchDocument[];
  maxBytes: number;
  requests: number;
  overwritten: number;
}

function fail(
  documents: readonly BatchDocument[],
  state: 'pending' | 'refused' | 'failed',
  code: string,
  message: string,
): void {
  for (const document of documents) {
    document.lastError = { code, message };
    document.state = state;
  }
}

/** Sends one body and sorts its documents by the answer. */
async function sendBody(
  body: BulkBody<BatchDocument>,
  ports: DeliveryPorts,
  timeout: number,
  round: Round,
): Promise<void> {
  for (const document of body.items) document.attempts += 1;
  round.requests += 1;
  let response;
  try {
    response = await ports.bulk.bulk(body.body, timeout);
  } catch (error) {
    fail(body.items, 'pending', 'OS.ConnectionFailed', describeError(error));
    round.retry.push(...body.items);
    return;
  }
  const { status, text } = response;
  if (status === 413 && body.items.length > 1) {
    // Bodies larger than the domain's http.max_content_length: send these again in halves.
    round.maxBytes = Math.max(1, Math.min(round.maxBytes, Math.floor(body.bytes / 2)));
    fail(body.items, 'pending', '413', text.slice(0, 1000));
    round.retry.push(...body.items);
    return;
  }
  if (retryable(status)) {
    fail(body.items, 'pending', String(status), text.slice(0, 1000));
    round.retry.push(...body.items);
    return;
  }
  if (status === 413) return fail(body.items, 'refused', '413', text.slice(0, 1000));
  // Any other whole-request refusal (403: the role is not mapped; 400: a broken body) is no document's fault: the
  // records are given again by Lambda, and after its retries kept by the on-failure destination.
  if (status < 200 || status >= 300) return fail(body.items, 'failed', String(status), text.slice(0, 1000));
  let items: BulkItemAnswer[];
  try {
    items = answerItems(text, body.items.length);
  } catch (error) {
    return fail(body.items, 'failed', String(status), describeError(error));
  }
  items.forEach((item, i) => {
    const document = body.items[i];
    if (item.status >= 200 && item.status < 300) {
      document.state = 'indexed';
      if (item.result === 'updated') round.overwritten += 1;
    } else {
      fail([document], 'pending', String(item.status), JSON.stringify(item.error ?? null));
      if (retryable(item.status)) round.retry.push(document);
      else document.state = 'refused';
    }
  });
}

/** Keeps the refused documents in one failed-documents object; they stay `refused` (unacknowledged) if it fails. */
async function keepRefused(
  documents: readonly BatchDocument[],
  settings: DeliverySettings,
  ports: DeliveryPorts,
): Promise<void> {
  const refused = documents.filter((d) => d.state === 'refused');
  if (refused.length === 0) return;
  const now = ports.clock.now();
  const key = failedDocumentsKey(settings.failedDocumentsPrefix, new Date(now), ports.objectName());
  try {
    await ports.store.put(key, failedDocumentsBody(refused.map((d) => failedDocumentRecord(d, now))));
    for (const document of refused) document.state = 'kept';
  } catch (error) {
    ports.log.warn('could not keep refused documents; their records will be given again', {
      key,
      documents: refused.length,
      error: describeError(error),
    });
  }
}

/** Delivers one batch before `deadline` (epoch milliseconds on `ports.clock`). */
export async function deliverBatch(
  records: readonly IndexerRecord[],
  settings: DeliverySettings,
  ports: DeliveryPorts,
  deadline: number,
): Promise<DeliveryResult> {
  const documents = batchDocuments(records, settings.target, ports.routingSeed);
  const base = settings.baseBackoffMillis ?? 100;
  const cap = settings.maxBackoffMillis ?? 5000;
  const requestTimeout = settings.requestTimeoutMillis ?? 30_000;
  let pending = documents.filter((d) => d.state === 'pending');
  let retried = 0;
  let maxBytes = settings.bulkMaxBytes;
  let requests = 0;
  let overwritten = 0;
  for (let attempt = 0; pending.length > 0; attempt++) {
    const left = deadline - ports.clock.now();
    if (left <= 0) break;
    const round: Round = { retry: [], maxBytes, requests: 0, overwritten: 0 };
    const bodies = bulkBodies(pending, planOf, maxBytes, settings.routing !== false);
    await eachLimited(bodies, settings.concurrency, (body) =>
      sendBody(body, ports, Math.min(requestTimeout, Math.max(1, deadline - ports.clock.now())), round),
    );
    maxBytes = round.maxBytes;
    requests += round.requests;
    overwritten += round.overwritten;
    pending = round.retry;
    if (pending.length === 0) break;
    const delay = ports.random() * Math.min(cap, base * 2 ** attempt);
    if (ports.clock.now() + delay >= deadline) break;
    retried += pending.length;
    await ports.clock.sleep(delay);
  }
  for (const document of pending) document.state = 'failed';
  await keepRefused(documents, settings, ports);
  const failures = unfinishedRecords(records, documents);
  const count = (state: BatchDocument['state']): number => documents.filter((d) => d.state === state).length;
  const indices = new Set(documents.filter((d) => d.state === 'indexed').map((d) => d.plan.index));
  return {
    failures,
    overwritten,
    bulkRequests: requests,
    indices: [...indices].sort(),
    counts: {
      DocumentsIn: documents.length,
      IndexedDocuments: count('indexed'),
      RefusedDocuments: count('kept'),
      RetriedRequests: retried,
      DeliveryErrors: failures.length,
    },
  };
}
