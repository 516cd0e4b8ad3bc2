import type { DeliveryStats } from './delivery-loop';
import type { EventSourceStats } from './event-source-loop';
import type { LatencyReport } from './latency-probe';
import type { PipesStats } from './pipes-loop';
import { indicesPath } from '../../core/opensearch/request-path';
import type { SearchHttp } from './search-http';
import { formatThroughput, type ThroughputReport } from './throughput';

/** One 15-minute bin of the error count. */
export interface ErrorBin {
  /** Bin start, ISO-8601 UTC. */
  readonly start: string;
  readonly count: number;
}

/** What `npm start` prints at the end, and what the end-to-end tests assert on. */
export interface RunSummary {
  readonly runId: string;
  readonly eventsWritten: number;
  /**
   * Distinct events of this run that a search finds: distinct (log group, log stream, event id), counted after a
   * refresh. This, not the document count, is what must equal `eventsWritten`.
   */
  readonly eventsSearchable: number;
  /**
   * Documents of this run that a search finds. Above `eventsSearchable` only when a redelivered event landed in
   * another daily index than its first copy (its id collapses duplicates within one index only).
   */
  readonly documentsSearchable: number;
  /**
   * The run's documents per index, largest first: with routes (docs/teams-and-routes.md), each route's documents
   * in its own indices.
   */
  readonly documentsByIndex?: ReadonlyArray<{ readonly index: string; readonly documents: number }>;
  /**
   * What the routes' processing did to the run's events (docs/teams-and-routes.md): events a drop rule kept out, by
   * rule, and continuation lines joined into the event before them. Neither is a searchable event of its own, and
   * both are counted by the transform. @default - none (no route drops or joins)
   */
  readonly processing?: {
    readonly droppedByRule: Readonly<Record<string, number>>;
    readonly joinedLines: number;
  };
  /** The transform's source loop: the event-source loop, or the pipe stand-in (transport `pipes`). */
  readonly eventSource: EventSourceStats;
  /** The pipe stand-in's own counters (transport `pipes`). @default - absent for transport `lambda` */
  readonly pipe?: PipesStats;
  readonly delivery: DeliveryStats;
  /** Poison records the transform wrote to the dead-letter bucket. */
  readonly deadLettered: number;
  readonly errorBins: readonly ErrorBin[];
  readonly latency: LatencyReport;
  readonly elapsedInMillis: number;
  /** Per stage and end to end; set by runs that measured it (`npm start`, `npm run bench:e2e`). */
  readonly throughput?: ThroughputReport;
}

/** Restricts a query to one run's documents: its log streams are named after the run. */
export function runFilter(logStreams: readonly string[]): Record<string, unknown> {
  return { terms: { 'cloudwatch.logStream': [...logStreams] } };
}

/**
 * Counts the run's documents: after a refresh, so the number is final; or, with `refresh` false, what a search
 * sees right now (the throughput measurement must not force what the refresh interval decides).
 */
export async function countDocuments(
  search: SearchHttp,
  indexPattern: string,
  logStreams: readonly string[],
  refresh = true,
): Promise<number> {
  if (refresh) await refreshIndices(search, indexPattern);
  const answer = await search.json<{ count: number }>('POST', indicesPath(indexPattern, '_count'), {
    query: { bool: { filter: [runFilter(logStreams)] } },
  });
  return answer.count;
}

/**
 * Makes what was indexed searchable now. A Serverless collection has no `_refresh` (the stand-in refuses it): there
 * the run has already waited, with a bounded poll, until a search sees every acknowledged document
 * (pipeline.ts `waitUntilSearchable`), so the counts read what is visible.
 */
async function refreshIndices(search: SearchHttp, indexPattern: string): Promise<void> {
  if (!search.onCollection) await search.json('POST', indicesPath(indexPattern, '_refresh'));
}

/** Composite-aggregation page size: the buckets of one `_search` answer. */
const DISTINCT_PAGE_SIZE = 10_000;

/**
 * Counts the run's distinct events, (log group, log stream, event id), exactly: a composite aggregation paged to
 * the end (a `cardinality` aggregation would be approximate). A copy of an event in a second daily index is
 * counted once.
 */
export async function countDistinctEvents(
  search: SearchHttp,
  indexPattern: string,
  logStreams: readonly string[],
): Promise<number> {
  await refreshIndices(search, indexPattern);
  let count = 0;
  let after: Record<string, unknown> | undefined;
  do {
    const answer = await search.json<{
      aggregations?: { events: { buckets: unknown[]; after_key?: Record<string, unknown> } };
    }>('POST', indicesPath(indexPattern, '_search'), {
      size: 0,
      query: { bool: { filter: [runFilter(logStreams)] } },
      aggs: {
        events: {
          composite: {
            size: DISTINCT_PAGE_SIZE,
            sources: ['logGroup', 'logStream', 'id'].map((f) => ({
              [f]: { terms: { field: `cloudwatch.${f}` } },
            })),
            ...(after === undefined ? {} : { after }),
          },
        },
      },
    });
    const events = answer.aggregations?.events;
    count += events?.buckets.length ?? 0;
    after =
      events !== undefined && events.buckets.length === DISTINCT_PAGE_SIZE ? events.after_key : undefined;
  } while (after !== undefined);
  return count;
}

/** The run's documents per index (a terms aggregation on `_index`), largest first. */
export async function documentsByIndex(
  search: SearchHttp,
  indexPattern: string,
  logStreams: readonly string[],
): Promise<Array<{ index: string; documents: number }>> {
  const answer = await search.json<{
    aggregations?: { indices: { buckets: Array<{ key: string; doc_count: number }> } };
  }>('POST', indicesPath(indexPattern, '_search'), {
    size: 0,
    query: { bool: { filter: [runFilter(logStreams)] } },
    aggs: { indices: { terms: { field: '_index', size: 100 } } },
  });
  return (answer.aggregations?.indices.buckets ?? []).map((b) => ({ index: b.key, documents: b.doc_count }));
}

/**
 * The Logs Insights query `filter level == "ERROR" | stats count() by bin(15m)` answered from OpenSearch: a
 * `date_histogram` with `fixed_interval: 15m` over the run's documents whose `level` is ERROR. (The index
 * template normalizes `level` to upper case, so `error` and `Error` count too, as they would in a dashboard.)
 */
export async function errorsPer15Minutes(
  search: SearchHttp,
  indexPattern: string,
  logStreams: readonly string[],
): Promise<ErrorBin[]> {
  const answer = await search.json<{
    aggregations?: { bins: { buckets: Array<{ key_as_string: string; doc_count: number }> } };
  }>('POST', indicesPath(indexPattern, '_search'), {
    size: 0,
    query: { bool: { filter: [runFilter(logStreams), { term: { level: 'ERROR' } }] } },
    aggs: {
      bins: {
        date_histogram: {
          field: '@timestamp',
          fixed_interval: '15m',
          min_doc_count: 1,
          format: 'strict_date_time',
        },
      },
    },
  });
  return (answer.aggregations?.bins.buckets ?? []).map((b) => ({
    start: b.key_as_string,
    count: b.doc_count,
  }));
}

/** What the routes kept from being events of their own: the events dropped by a rule and the lines joined. */
function processed(summary: RunSummary): { readonly dropped: number; readonly joined: number } {
  return {
    dropped: Object.values(summary.processing?.droppedByRule ?? {}).reduce((a, b) => a + b, 0),
    joined: summary.processing?.joinedLines ?? 0,
  };
}

/**
 * Events written that no search finds and no route accounts for (dropped by a rule, joined into another event): 0 when
 * the run is whole, negative when a search finds events this run did not write.
 */
export function eventsMissing(summary: RunSummary): number {
  const { dropped, joined } = processed(summary);
  return summary.eventsWritten - summary.eventsSearchable - dropped - joined;
}

/** The summary as printed by `npm start`. */
export function formatSummary(summary: RunSummary): string {
  const ms = (v: number | undefined): string => (v === undefined ? 'n/a' : `${(v / 1000).toFixed(2)} s`);
  const { dropped, joined } = processed(summary);
  const accounted =
    summary.eventsSearchable +
    summary.delivery.documentsFailed +
    summary.eventSource.recordsSentToOnFailure +
    dropped +
    joined;
  const missing = eventsMissing(summary);
  const verdict =
    missing === 0
      ? 'OK: every event is searchable once'
      : missing > 0
        ? `MISMATCH: ${missing} event(s) not searchable`
        : `MISMATCH: ${-missing} event(s) searchable that this run did not write`;
  const extra = summary.documentsSearchable - summary.eventsSearchable;
  // Extra documents are copies, never missing events: a redelivered event whose copy landed in the next daily
  // index keeps its id there too, so nothing collapses it (docs/guarantees.md, "Delivery guarantee").
  const extraNote = extra > 0 ? `   ${extra} extra document(s): an event in two daily indices` : '';
  const lines = [
    '',
    `kfek local run ${summary.runId} (${(summary.elapsedInMillis / 1000).toFixed(1)} s)`,
    '',
    `  events written (PutLogEvents)      ${summary.eventsWritten}`,
    `  events searchable in OpenSearch    ${summary.eventsSearchable}   ${verdict}`,
    `  documents in OpenSearch            ${summary.documentsSearchable}${extraNote}`,
    `  duplicates collapsed               ${summary.delivery.documentsOverwritten}   (redelivered documents ` +
      'that overwrote their event by id)',
    `  failed documents (local "S3")      ${summary.delivery.documentsFailed}`,
    `  dead-lettered raw records          ${summary.deadLettered}`,
    summary.pipe === undefined
      ? `  batches given up (on-failure)      ${summary.eventSource.recordsSentToOnFailure} record(s)`
      : `  batches given up (pipe DLQ)        ${summary.pipe.recordsSentToOnFailure} record(s) in ` +
        `${summary.pipe.deadLetterMessages} message(s)`,
    ...(dropped + joined > 0
      ? [
          `  dropped by route rules             ${dropped}` +
            (dropped > 0
              ? ` (${Object.entries(summary.processing?.droppedByRule ?? {})
                  .map(([rule, n]) => `${rule} ${n}`)
                  .join(', ')})`
              : ''),
          `  lines joined into an event         ${joined}`,
        ]
      : []),
    `  accounted for                      ${accounted} of ${summary.eventsWritten}`,
    ...((summary.documentsByIndex?.length ?? 0) > 1
      ? [
          `  documents by index                 ` +
            (summary.documentsByIndex ?? []).map((i) => `${i.index} ${i.documents}`).join(', '),
        ]
      : []),
    '',
    `  transform: ${summary.eventSource.invocations} invocations, ${summary.eventSource.recordsDelivered} raw ` +
      // A pipe's enrichment has no partial batch response: a failing batch is bisected instead.
      (summary.pipe === undefined
        ? `records, ${summary.eventSource.partialBatchResponses} partial batch responses, `
        : 'records, ') +
      `${summary.eventSource.functionErrors} function errors`,
    ...(summary.pipe === undefined ? [] : [formatPipe(summary.pipe, summary.delivery)]),
    `  delivery:  ${summary.delivery.bulkRequests} bulk requests, ${summary.delivery.documentRetries} retried ` +
      `documents, indices ${summary.delivery.indices.join(', ') || '-'}`,
    `  emulator errors retried:  ${summary.eventSource.readErrors} by the event source, ` +
      `${summary.delivery.readErrors} by the delivery loop (moto GetRecords/GetShardIterator failures)`,
    '',
    '  errors per 15 minutes (filter level == "ERROR" | stats count() by bin(15m)):',
    ...(summary.errorBins.length === 0
      ? ['    (none)']
      : summary.errorBins.map((b) => `    ${b.start}  ${String(b.count).padStart(5)}`)),
    '',
    `  end-to-end latency, PutLogEvents to searchable (${summary.latency.found} of ${summary.latency.sampled} ` +
      `sampled events): p50 ${ms(summary.latency.p50InMillis)}, p95 ${ms(summary.latency.p95InMillis)}, ` +
      `max ${ms(summary.latency.maxInMillis)}`,
    ...(summary.throughput === undefined ? [] : ['', ...formatThroughput(summary.throughput)]),
    '',
  ];
  return lines.join('\n');
}

/**
 * The pipe's line. Records of the events stream that the target did not write are the enrichment's own writes of
 * answers too large for the pipe (the "overflow"; lambda/transform/pipes-batch.ts): the Firehose stand-in reads
 * every record of the stream, the target counts its own.
 */
function formatPipe(pipe: PipesStats, delivery: DeliveryStats): string {
  return (
    `  pipe:      ${pipe.targetRecords} records by the target in ${pipe.targetPuts} PutRecords, ` +
    `${pipe.emptyAnswers} empty answers (target skipped), ` +
    `${Math.max(0, delivery.recordsRead - pipe.targetRecords)} records written by the enrichment itself, ` +
    `${pipe.bisections} bisections, ${pipe.targetFailures} target failures`
  );
}
