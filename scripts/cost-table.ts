/**
 * `npm run cost-table`: prints the volume table of docs/costs.md ("What kfek costs at volume") from the formulas
 * below, so the table's arithmetic is code that a test checks (test/scripts/cost-table.test.ts) and the page cannot
 * drift from it. Every number that is an assumption rather than a price or an AWS limit is named in ASSUMPTIONS
 * and printed under the table.
 */

// The prices, limits and assumptions live in core (one owner): `kfek backfill --dry-run` prices its estimate with them.
import {
  ASSUMPTIONS,
  documentsPerAggregatedRecord,
  eventsRecordBytes,
  firehoseBilledBytes,
  LIMITS,
  PRICES,
  putUnits,
  TRANSFORM_GB_SECONDS_PER_EVENT,
} from '../core/contracts/cost-model';

export { ASSUMPTIONS, LIMITS, PRICES };

export interface Scenario {
  readonly gbPerDay: number;
  readonly eventBytes: number;
}

/** One delivery mode of the events stream: a record per document, or KPL-aggregated records. */
export interface StreamFigures {
  readonly documentsPerRecord: number;
  readonly recordsPerDay: number;
  readonly putUnitsPerDay: number;
  readonly firehoseBilledGbPerDay: number;
  readonly eventsShards: number;
  readonly kinesisPerMonth: number;
  readonly firehosePerMonth: number;
}

export interface ScenarioCosts {
  readonly scenario: Scenario;
  readonly eventsPerDay: number;
  readonly eventsPerSecond: number;
  readonly documentBytes: number;
  readonly rawShards: number;
  readonly before: StreamFigures;
  readonly after: StreamFigures;
  readonly lambdaPerMonth: number;
  readonly storedGb: number;
  readonly storagePerMonth: number;
  readonly cloudWatchLogsPerMonth: number;
  /**
   * The scheduled reconcile function: Logs Insights' scans of the month's volume and the function's runs. Its per-log-
   * group metrics and three alarms are fixed costs (docs/costs.md).
   */
  readonly reconcilePerMonth: number;
}

const A = ASSUMPTIONS;

function shardsFor(bytesPerDay: number, recordsPerDay: number): number {
  const peak = (perDay: number): number => (perDay / 86_400) * A.peakToAverage;
  return Math.max(
    1,
    Math.ceil(peak(bytesPerDay) / LIMITS.shardBytesPerSecond),
    Math.ceil(peak(recordsPerDay) / LIMITS.shardRecordsPerSecond),
  );
}

/** Events stream figures when each record carries `documentsPerRecord` documents of `documentBytes`. */
function streamFigures(
  eventsPerDay: number,
  documentBytes: number,
  documentsPerRecord: number,
  rawShards: number,
  rawPutUnitsPerDay: number,
): StreamFigures {
  const recordsPerDay = eventsPerDay / documentsPerRecord;
  const recordBytes = eventsRecordBytes(documentBytes, documentsPerRecord);
  const putUnitsPerDay = putUnits(recordsPerDay, recordBytes);
  const firehoseBilledGbPerDay = firehoseBilledBytes(recordsPerDay, recordBytes) / A.bytesPerGb;
  const eventsShards = shardsFor(recordsPerDay * recordBytes, recordsPerDay);
  const kinesisPerMonth =
    (rawShards + eventsShards) * PRICES.kinesisShardHour * A.hoursPerMonth +
    ((rawPutUnitsPerDay + putUnitsPerDay) * A.daysPerMonth * PRICES.kinesisPerMillionPutUnits) / 1e6;
  const firehosePerMonth = firehoseBilledGbPerDay * A.daysPerMonth * PRICES.firehosePerGb;
  return {
    documentsPerRecord,
    recordsPerDay,
    putUnitsPerDay,
    firehoseBilledGbPerDay,
    eventsShards,
    kinesisPerMonth,
    firehosePerMonth,
  };
}

/** The costs of one volume and event size (formulas in docs/costs.md, "What kfek costs at volume"). */
export function scenarioCosts(scenario: Scenario): ScenarioCosts {
  const logBytesPerDay = scenario.gbPerDay * A.bytesPerGb;
  const eventsPerDay = logBytesPerDay / scenario.eventBytes;
  const documentBytes = scenario.eventBytes + A.documentOverheadBytes;

  // Raw stream: one gzip envelope per `documentsPerStreamPerBatch` events.
  const rawRecordsPerDay = eventsPerDay / A.documentsPerStreamPerBatch;
  const rawBytesPerDay = logBytesPerDay / A.rawCompressionRatio;
  const rawShards = shardsFor(rawBytesPerDay, rawRecordsPerDay);
  const rawPutUnitsPerDay = putUnits(rawRecordsPerDay, rawBytesPerDay / rawRecordsPerDay);

  // On the events stream a live document also carries its raw record's arrival; OpenSearch does not store it.
  const streamDocumentBytes = documentBytes + A.arrivalMemberBytes;
  const documentsPerRecord = Math.min(
    documentsPerAggregatedRecord(streamDocumentBytes),
    A.documentsPerStreamPerBatch,
  );
  const before = streamFigures(eventsPerDay, streamDocumentBytes, 1, rawShards, rawPutUnitsPerDay);
  const after = streamFigures(
    eventsPerDay,
    streamDocumentBytes,
    documentsPerRecord,
    rawShards,
    rawPutUnitsPerDay,
  );

  const invocationsPerDay = rawRecordsPerDay / A.batchSize;
  const lambdaPerMonth =
    A.daysPerMonth *
    (eventsPerDay * TRANSFORM_GB_SECONDS_PER_EVENT * PRICES.lambdaArmPerGbSecond +
      (invocationsPerDay * PRICES.lambdaPerMillionRequests) / 1e6);

  const storedGb =
    ((scenario.gbPerDay * documentBytes) / scenario.eventBytes) *
    A.retentionDays *
    (1 + A.replicas) *
    A.storageOverheadFactor;
  return {
    scenario,
    eventsPerDay,
    eventsPerSecond: eventsPerDay / 86_400,
    documentBytes,
    rawShards,
    before,
    after,
    lambdaPerMonth,
    storedGb,
    storagePerMonth: storedGb * PRICES.openSearchGp3PerGbMonth,
    cloudWatchLogsPerMonth: scenario.gbPerDay * A.daysPerMonth * PRICES.cloudWatchLogsIngestionPerGb,
    reconcilePerMonth:
      scenario.gbPerDay * A.daysPerMonth * PRICES.logsInsightsPerGbScanned +
      A.reconcileRunsPerDay *
        A.daysPerMonth *
        ((A.reconcileSecondsPerRun * A.reconcileMemoryMb) / 1024) *
        PRICES.lambdaArmPerGbSecond,
  };
}

export const SCENARIOS: readonly Scenario[] = [1, 100, 1000].flatMap((gbPerDay) =>
  [300, 2048].map((eventBytes) => ({ gbPerDay, eventBytes })),
);

function usd(value: number): string {
  if (value < 10) return `$${value.toFixed(2)}`;
  return `$${Math.round(value).toLocaleString('en-US')}`;
}

function count(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** The markdown table docs/costs.md carries, one row per scenario. */
export function costTable(scenarios: readonly Scenario[] = SCENARIOS): string {
  const header = [
    'GB/day',
    'event',
    'events/s',
    'shards raw + events, before -> after',
    'Kinesis before -> after',
    'Firehose before -> after',
    'Lambda',
    'OpenSearch storage',
    'CloudWatch Logs (for scale)',
    'Reconcile (production)',
  ];
  const rows = scenarios.map((s) => {
    const c = scenarioCosts(s);
    return [
      count(s.gbPerDay),
      s.eventBytes === 2048 ? '2 KB' : `${s.eventBytes} B`,
      count(c.eventsPerSecond),
      `${c.rawShards} + ${c.before.eventsShards} -> ${c.rawShards} + ${c.after.eventsShards}`,
      `${usd(c.before.kinesisPerMonth)} -> ${usd(c.after.kinesisPerMonth)}`,
      `${usd(c.before.firehosePerMonth)} -> ${usd(c.after.firehosePerMonth)}`,
      usd(c.lambdaPerMonth),
      `${usd(c.storagePerMonth)} (${count(c.storedGb)} GB)`,
      usd(c.cloudWatchLogsPerMonth),
      usd(c.reconcilePerMonth),
    ];
  });
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Firehose's path against the direct path (delivery mode `direct`), at one volume, with aggregation on. */
export interface DeliveryCosts {
  readonly scenario: Scenario;
  /** Firehose ingestion (aggregated records). */
  readonly firehosePerMonth: number;
  /** The indexer function: GB-seconds and requests. */
  readonly indexerPerMonth: number;
  /** The domain's indexing CPU, in vCPUs busy on average over the month, for each path. */
  readonly indexingVcpusFirehose: number;
  readonly indexingVcpusDirect: number;
}

/** The delivery's own costs for both paths (formulas in docs/costs.md, "Firehose or direct"). */
export function deliveryCosts(scenario: Scenario): DeliveryCosts {
  const c = scenarioCosts(scenario);
  const n = c.eventsPerDay;
  const ownCpuSeconds = A.lambdaMbPerVcpu / A.indexerMemoryMb / A.transformEventsPerVcpuSecond;
  const wallSecondsPerDocument = ownCpuSeconds + A.indexingCoreMicrosDirect / 1e6;
  const invocationsPerDay = c.after.recordsPerDay / A.indexerBatchSize;
  const indexerPerMonth =
    A.daysPerMonth *
    (n * (A.indexerMemoryMb / 1024) * wallSecondsPerDocument * PRICES.lambdaArmPerGbSecond +
      (invocationsPerDay * PRICES.lambdaPerMillionRequests) / 1e6);
  // The ingest pipeline runs once, before the primary, and only the primary looks the id up: a replica appends.
  const replicaMicros = A.replicas * A.indexingCoreMicrosReplica;
  const vcpus = (coreMicros: number): number => (n * (coreMicros + replicaMicros)) / 1e6 / 86_400;
  return {
    scenario,
    firehosePerMonth: c.after.firehosePerMonth,
    indexerPerMonth,
    indexingVcpusFirehose: vcpus(A.indexingCoreMicrosFirehose),
    indexingVcpusDirect: vcpus(A.indexingCoreMicrosDirect),
  };
}

/** The markdown table of docs/costs.md's "Firehose or direct", one row per scenario. */
export function deliveryTable(scenarios: readonly Scenario[] = SCENARIOS): string {
  const header = [
    'Volume',
    'event',
    'Firehose (aggregated)',
    'indexer Lambda (direct)',
    'domain indexing vCPUs (1 replica), Firehose -> direct',
  ];
  const vcpus = (value: number): string =>
    value < 0.1 ? value.toFixed(3) : value < 10 ? value.toFixed(2) : value.toFixed(1);
  const rows = scenarios.map((s) => {
    const d = deliveryCosts(s);
    return [
      `${count(s.gbPerDay)} GB/day`,
      s.eventBytes === 2048 ? '2 KB' : `${s.eventBytes} B`,
      usd(d.firehosePerMonth),
      usd(d.indexerPerMonth),
      `${vcpus(d.indexingVcpusFirehose)} -> ${vcpus(d.indexingVcpusDirect)}`,
    ];
  });
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
