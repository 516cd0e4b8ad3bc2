/**
 * `npm run cost-table`: prints the volume table of docs/costs.md ("What kfek costs at volume") from the formulas
 * below, so the table's arithmetic is code that a test checks (test/scripts/cost-table.test.ts) and the page cannot
 * drift from it. Every number that is an assumption rather than a price or an AWS limit is named in ASSUMPTIONS
 * and printed under the table.
 */

/** us-east-1 list prices (USD); docs/costs.md names the pages and the date they were taken from. */
export const PRICES = {
  kinesisShardHour: 0.015,
  kinesisPerMillionPutUnits: 0.014,
  firehosePerGb: 0.029,
  lambdaArmPerGbSecond: 0.0000133334,
  lambdaPerMillionRequests: 0.2,
  openSearchGp3PerGbMonth: 0.122,
  cloudWatchLogsIngestionPerGb: 0.5,
} as const;

/** Limits and billing units AWS documents. */
export const LIMITS = {
  /** Kinesis: one record holds at most 1 MiB (data plus partition key). */
  kinesisRecordBytes: 1_048_576,
  /** Kinesis: a PUT payload unit is a 25 KB chunk of a record. */
  putUnitBytes: 25 * 1024,
  /** Kinesis provisioned shard: 1 MiB/s and 1,000 records/s in. */
  shardBytesPerSecond: 1_048_576,
  shardRecordsPerSecond: 1000,
  /** Firehose rounds each record up to the next 5 KB for ingestion billing. */
  firehoseBillingIncrementBytes: 5 * 1024,
} as const;

export const ASSUMPTIONS = {
  /** GB as AWS bills it. */
  bytesPerGb: 2 ** 30,
  hoursPerMonth: 730,
  daysPerMonth: 30,
  /** What kfek's document adds to the event text: `@timestamp` and `cloudwatch` (56-digit id, group, stream, owner). */
  documentOverheadBytes: 250,
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
} as const;

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
  const recordBytes =
    documentsPerRecord === 1
      ? documentBytes + A.partitionKeyBytes
      : documentsPerRecord * (documentBytes + A.aggregatedPerDocumentBytes) + A.aggregatedPerRecordBytes;
  const putUnitsPerDay = recordsPerDay * Math.ceil(recordBytes / LIMITS.putUnitBytes);
  const firehoseBilledGbPerDay =
    (recordsPerDay *
      Math.ceil(recordBytes / LIMITS.firehoseBillingIncrementBytes) *
      LIMITS.firehoseBillingIncrementBytes) /
    A.bytesPerGb;
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
  const rawPutUnitsPerDay =
    rawRecordsPerDay * Math.ceil(rawBytesPerDay / rawRecordsPerDay / LIMITS.putUnitBytes);

  const perRecordMax = Math.floor(
    (LIMITS.kinesisRecordBytes - A.aggregatedPerRecordBytes) / (documentBytes + A.aggregatedPerDocumentBytes),
  );
  const documentsPerRecord = Math.min(perRecordMax, A.documentsPerStreamPerBatch);
  const before = streamFigures(eventsPerDay, documentBytes, 1, rawShards, rawPutUnitsPerDay);
  const after = streamFigures(eventsPerDay, documentBytes, documentsPerRecord, rawShards, rawPutUnitsPerDay);

  const gbSecondsPerEvent = (A.lambdaMbPerVcpu / 1024 / A.transformEventsPerVcpuSecond) * A.lambdaWallOverCpu;
  const invocationsPerDay = rawRecordsPerDay / A.batchSize;
  const lambdaPerMonth =
    A.daysPerMonth *
    (eventsPerDay * gbSecondsPerEvent * PRICES.lambdaArmPerGbSecond +
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
    ];
  });
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

if (require.main === module) {
  console.log(costTable());
}
