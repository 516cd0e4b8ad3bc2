/**
 * The AWS list prices, limits and assumptions kfek's cost figures are computed from: the volume table of
 * docs/costs.md (`npm run cost-table`, scripts/cost-table.ts) and `kfek backfill --dry-run`'s estimate. One owner,
 * so the two can never price the same thing differently. docs/costs.md names the pricing pages and the date.
 */

import { MAX_KINESIS_RECORD_BYTES } from './aws-limits';

/** The day the list prices below were taken (docs/costs.md); printed with every estimate made from them. */
export const PRICES_DATE = '2026-11-23';

/** us-east-1 list prices (USD); docs/costs.md names the pages and the date they were taken from. */
export const PRICES = {
  kinesisShardHour: 0.015,
  kinesisPerMillionPutUnits: 0.014,
  firehosePerGb: 0.029,
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  openSearchGp3PerGbMonth: 0.122,
  cloudWatchLogsIngestionPerGb: 0.5,
  /** Logs Insights: per GB of ingested log data a query scans (the reconcile function's counts). */
  logsInsightsPerGbScanned: 0.005,
  /** A custom metric (EMF), per month, first 10,000. */
  customMetricPerMonth: 0.3,
  /** A standard-resolution alarm, per month. */
  standardAlarmPerMonth: 0.1,
} as const;

/** Limits and billing units AWS documents. */
export const LIMITS = {
  /** Kinesis: one record holds at most 1 MiB (data plus partition key). */
  kinesisRecordBytes: MAX_KINESIS_RECORD_BYTES,
  /** Kinesis: a PUT payload unit is a 25 KB chunk of a record. */
  putUnitBytes: 25 * 1024,
  /** Kinesis provisioned shard: 1 MiB/s and 1,000 records/s in. */
  shardBytesPerSecond: 1_048_576,
  shardRecordsPerSecond: 1000,
  /** Firehose rounds each record up to the next 5 KB for ingestion billing. */
  firehoseBillingIncrementBytes: 5 * 1024,
} as const;

/** See ASSUMPTIONS.indexingCoreMicrosFirehose. */
const FIREHOSE_INDEXING_CORE_MICROS = 195;

/**
 * The direct path's node CPU per document over the Firehose path's, measured side by side on the real node with the
 * same documents (issue 41, 2026-11-29, quiet, main after all merges): `npm run bench:direct-cpu` 0.66x and 0.83x
 * (172 and 199 core-µs against 262 and 239), the 100,000-event `npm run bench:e2e` 0.84x (266 against 316 per
 * event). The conservative end. The direct path sends its own `_id`, so the node still looks every id up: the
 * 97-107 core-µs bench:settings measured "without the pipeline" were of ids OpenSearch generates, a lower bound
 * this model used before (docs/delivery.md, "What the direct path saves on the node").
 */
const DIRECT_OVER_FIREHOSE_INDEXING_CPU = 0.84;

export const ASSUMPTIONS = {
  /** GB as AWS bills it. */
  bytesPerGb: 2 ** 30,
  hoursPerMonth: 730,
  daysPerMonth: 30,
  /** What kfek's document adds to the event text: `@timestamp` and `cloudwatch` (56-digit id, group, stream, owner). */
  documentOverheadBytes: 250,
  /**
   * What a live document carries on the events stream beyond that: `kfek.arrival`, the raw record's arrival, which
   * the ingest pipeline names the index by and removes (never stored; a backfill's documents have none). Measured
   * +32.2 KiB per 1,000 events (docs/benchmark.md).
   */
  arrivalMemberBytes: 33,
  /** kfek's partition key: SHA-256 base64url of group and stream. */
  partitionKeyBytes: 43,
  /** KPL format: per-document protobuf framing (tags, lengths, key index) in an aggregated record. */
  aggregatedPerDocumentBytes: 8,
  /** KPL format: magic (4), MD5 (16), the partition key table entry and the record's own key. */
  aggregatedPerRecordBytes: 4 + 16 + 45 + 43,
  /**
   * Documents of one partition key (log stream) in one transform batch: the bound on documents per aggregated
   * record. A busy stream's subscription envelope carries tens to hundreds of events; 100 is the assumption.
   */
  documentsPerStreamPerBatch: 100,
  /** gzip ratio of the subscription envelopes on the raw stream. */
  rawCompressionRatio: 5,
  /** Provision shards for this multiple of the daily average rate. */
  peakToAverage: 2,
  /** Transform throughput of one vCPU (`npm run bench`, 2026-11-23) and Lambda's 1 vCPU at 1,769 MB. */
  transformEventsPerVcpuSecond: 147_357,
  lambdaMbPerVcpu: 1769,
  /** Lambda wall time over CPU time (waiting on PutRecords). */
  lambdaWallOverCpu: 2,
  /** Event-source batch size (config `transform.batchSize`). */
  batchSize: 100,
  /** OpenSearch: days kept, replicas, and AWS's sizing factor (index overhead, OS reserve, Service overhead). */
  retentionDays: 14,
  replicas: 1,
  storageOverheadFactor: 1.45,
  /**
   * The scheduled reconcile function (`reconcile`, on in production): runs a day (every 15 minutes); each Logs
   * Insights query scans its window's log data once, so a month scans the month's volume once; a run's wall time
   * (mostly waiting for Logs Insights) at 512 MB.
   */
  reconcileRunsPerDay: 96,
  reconcileSecondsPerRun: 30,
  reconcileMemoryMb: 512,
  /**
   * The domain's indexing CPU per document through the ingest pipeline Firehose's path needs (core-microseconds,
   * `npm run bench:settings` on the real node, issue 41: 187-202; the middle).
   */
  indexingCoreMicrosFirehose: FIREHOSE_INDEXING_CORE_MICROS,
  /** The direct path's node CPU per document over Firehose's ({@link DIRECT_OVER_FIREHOSE_INDEXING_CPU}). */
  directOverFirehoseIndexingCpu: DIRECT_OVER_FIREHOSE_INDEXING_CPU,
  /** The direct path's: the Firehose figure times the measured ratio (164). */
  indexingCoreMicrosDirect: Math.round(FIREHOSE_INDEXING_CORE_MICROS * DIRECT_OVER_FIREHOSE_INDEXING_CPU),
  /**
   * A replica's, on both paths: indexing without the id lookup (bench:settings' "no ingest pipeline" variant, whose
   * ids OpenSearch generates: 97-107; the middle). A replica appends without looking the id up as long as no update
   * or delete on the shard is above its processed checkpoint (OpenSearch's InternalEngine
   * `planIndexingAsNonPrimary`, max_seq_no_of_updates_or_deletes); log documents are created, and only a
   * redelivery overwrites one.
   */
  indexingCoreMicrosReplica: 102,
  /**
   * The direct path's indexer (delivery mode `direct`): its memory and batch (config `delivery.direct`), its own
   * CPU per document (assumed the transform's measured rate: it parses and serializes each document once, as the
   * transform does), and its wall time: its own CPU plus the domain's indexing time of the document, as if each
   * invocation waited for its one bulk request at a time while a single core indexed it (an upper bound: a
   * domain indexes a bulk's shards on several cores).
   */
  indexerMemoryMb: 512,
  indexerBatchSize: 100,
} as const;

// ---- Formulas both the volume table and `kfek backfill --dry-run` price with (docs/costs.md) ----

/** The transform Lambda's GB-seconds per event: its measured throughput at 1 vCPU, times its wall over CPU time. */
export const TRANSFORM_GB_SECONDS_PER_EVENT =
  (ASSUMPTIONS.lambdaMbPerVcpu / 1024 / ASSUMPTIONS.transformEventsPerVcpuSecond) *
  ASSUMPTIONS.lambdaWallOverCpu;

/** Most documents of `documentBytes` one KPL-aggregated events-stream record holds (1 MiB with its framing). */
export function documentsPerAggregatedRecord(documentBytes: number): number {
  return Math.floor(
    (LIMITS.kinesisRecordBytes - ASSUMPTIONS.aggregatedPerRecordBytes) /
      (documentBytes + ASSUMPTIONS.aggregatedPerDocumentBytes),
  );
}

/**
 * Bytes of one events-stream record carrying `documentsPerRecord` documents of `documentBytes`: one document with
 * its partition key, or several in KPL's aggregated format.
 */
export function eventsRecordBytes(documentBytes: number, documentsPerRecord: number): number {
  return documentsPerRecord === 1
    ? documentBytes + ASSUMPTIONS.partitionKeyBytes
    : documentsPerRecord * (documentBytes + ASSUMPTIONS.aggregatedPerDocumentBytes) +
        ASSUMPTIONS.aggregatedPerRecordBytes;
}

/** Kinesis PUT payload units of `records` records of `recordBytes` each (each record in 25 KB units). */
export function putUnits(records: number, recordBytes: number): number {
  return records * Math.ceil(recordBytes / LIMITS.putUnitBytes);
}

/** The bytes Firehose bills for `records` records of `recordBytes` each: every record rounded up to 5 KB. */
export function firehoseBilledBytes(records: number, recordBytes: number): number {
  return (
    records *
    Math.ceil(recordBytes / LIMITS.firehoseBillingIncrementBytes) *
    LIMITS.firehoseBillingIncrementBytes
  );
}

// ---- OpenSearch Serverless (issue 42, docs/serverless.md "What it costs"; scripts/cost-kinds.ts) ----

/**
 * Where the Serverless prices come from: AWS's own pricing page is not in the documentation stored here, so these are
 * the us-east-1 rates as cloudburn.io's summary of it states them ("as of March 2026"), read on 2026-11-29.
 */
export const SERVERLESS_PRICES_SOURCE =
  'cloudburn.io/blog/amazon-opensearch-pricing (us-east-1, "as of March 2026"), read 2026-11-29';

/** OpenSearch Serverless list prices (USD). */
export const SERVERLESS_PRICES = {
  /** One OCU (indexing or search) for an hour. */
  ocuHour: 0.24,
  /** Managed storage (S3-backed), per GB-month. */
  managedStorageGbMonth: 0.024,
  /** A customer managed KMS key (the streams' key), per month. */
  kmsKeyMonth: 1,
  /** The sandbox domain's data node, `t3.small.search` (docs/costs.md, "What the sandbox costs"). */
  t3SmallSearchHour: 0.036,
} as const;

/** What the domain/serverless comparison assumes beyond prices; each is printed under the table. */
export const SERVERLESS_ASSUMPTIONS = {
  /** Bytes on disk per byte of the transform's JSON (`npm run bench:storage`, 2026-11-27: 0.41). */
  diskBytesPerDocumentByte: 0.41,
  /**
   * Core-microseconds the node spends indexing a document: through the ingest pipeline (Firehose, a domain) and
   * without it, with kfek's own ids (the direct indexer, the only way to a collection). ASSUMPTIONS owns both.
   */
  pipelineCoreMicrosPerDocument: ASSUMPTIONS.indexingCoreMicrosFirehose,
  directCoreMicrosPerDocument: ASSUMPTIONS.indexingCoreMicrosDirect,
  /** An OCU is one vCPU and 6 GB (AWS Big Data Blog, docs/serverless.md [6]). Indexing runs at this utilization. */
  vcpuPerOcu: 1,
  targetUtilization: 0.5,
  /** The smallest step an OCU count takes (half OCUs, [6]). */
  ocuStep: 0.5,
  /** Hours a day someone searches (Dashboards, `kfek query`); a NextGen group's search side sleeps otherwise. */
  searchHoursPerDay: 10,
  /** Search OCUs while someone searches. */
  searchOcuWhileActive: 1,
  /**
   * The vCPUs a `t3.small.search` sustains: its burstable baseline, 20 % of each of its 2 vCPUs (EC2's T3 baseline).
   * Below this the sandbox's one node carries the load and the domain's compute is its price.
   */
  t3SmallSustainedVcpus: 0.4,
  /** Its largest gp3 volume (GB; docs/settings.md, `openSearch.volumeSizeGb`). */
  t3SmallMaxVolumeGb: 100,
  /** The sandbox domain's gp3 volume (GB). */
  sandboxVolumeGb: 10,
  /** A domain's volume reserves: 5 % for the OS and 20 % for the service (docs/costs.md, x 1.32). */
  domainReserveFactor: 1.32,
} as const;
