/**
 * What a backfill costs and how long it takes, from an estimate of its events, with the list prices, assumptions and
 * formulas kfek's cost table uses (cost-model.ts, docs/costs.md). Pure arithmetic, beside the cost model it prices
 * with, so the volume table and `kfek backfill --dry-run` read one owner; the CLI only estimates the volume.
 */
import {
  ASSUMPTIONS,
  documentsPerAggregatedRecord,
  eventsRecordBytes,
  firehoseBilledBytes,
  LIMITS,
  PRICES,
  PRICES_DATE,
  putUnits,
  TRANSFORM_GB_SECONDS_PER_EVENT,
} from './cost-model';
import { FILTER_LOG_EVENTS_CALLS_PER_SECOND } from '../pace';

/**
 * Internet data transfer out of AWS, us-east-1, USD per GB after the first 100 GB a month (aggregated over all
 * services). Not in docs/costs.md: AWS's data transfer pricing (aws.amazon.com/ec2/pricing/on-demand, "Data
 * Transfer"), as of the same date, not re-read offline. FilterLogEvents' answers cross it when the backfill runs
 * outside AWS; from EC2 or CloudShell in the log groups' region they are free.
 */
export const DATA_TRANSFER_OUT_PER_GB = 0.09;

/** FilterLogEvents' answer per event besides the message: eventId (56 digits), stream name, two times, keys. */
const FILTER_ANSWER_BYTES_PER_EVENT = 160;

export interface VolumeEstimate {
  readonly events: number;
  readonly messageBytes: number;
  readonly gzipBytes: number;
  readonly records: number;
  /** FilterLogEvents calls: the sample's and the backfill's. */
  readonly filterCalls: number;
}

/** What the deployment does with the events (the cdk.json profile). */
export interface PipelineFacts {
  /** `delivery.aggregation`: KPL-aggregated events-stream records. */
  readonly aggregation: boolean;
  /** `transform.batchSize`: raw records per Lambda invocation. */
  readonly batchSize: number;
  /** `openSearch.indexTemplate.replicas`. */
  readonly replicas: number;
}

export interface CostLine {
  readonly item: string;
  readonly quantity: string;
  readonly usd: number;
  /** Recurs every month the documents are kept (storage). */
  readonly monthly?: boolean;
  readonly note?: string;
}

export interface CostEstimate {
  readonly lines: readonly CostLine[];
  /** One-off total (not the monthly lines). */
  readonly once: number;
  readonly perMonth: number;
  readonly pricesDate: string;
}

const GB = ASSUMPTIONS.bytesPerGb;

export function estimateCost(volume: VolumeEstimate, facts: PipelineFacts): CostEstimate {
  const lines = [...readingLines(volume), ...pipelineLines(volume, facts)];
  const once = lines.filter((l) => l.monthly !== true).reduce((sum, l) => sum + l.usd, 0);
  const perMonth = lines.filter((l) => l.monthly === true).reduce((sum, l) => sum + l.usd, 0);
  return { lines, once, perMonth, pricesDate: PRICES_DATE };
}

/** Reading the events back: FilterLogEvents' calls and the data transfer of their answers. */
function readingLines(volume: VolumeEstimate): CostLine[] {
  const transferBytes = volume.messageBytes + volume.events * FILTER_ANSWER_BYTES_PER_EVENT;
  return [
    {
      item: 'CloudWatch Logs FilterLogEvents',
      quantity: `${count(volume.filterCalls)} calls`,
      usd: 0,
      note: 'no per-call charge',
    },
    {
      item: 'data transfer out of AWS',
      quantity: gb(transferBytes),
      usd: (transferBytes / GB) * DATA_TRANSFER_OUT_PER_GB,
      note: `$${DATA_TRANSFER_OUT_PER_GB}/GB when run outside AWS (100 GB a month free); $0 on EC2 or CloudShell in the region`,
    },
  ];
}

/**
 * The pipeline's share: the raw stream, the transform, the events stream and Firehose as docs/costs.md's "after"
 * (aggregated) and "before" columns compute them, except that a backfill envelope holds many events of one log
 * stream, so an aggregated record fills up to 1 MiB; and the storage of the documents.
 */
function pipelineLines(volume: VolumeEstimate, facts: PipelineFacts): CostLine[] {
  const events = volume.events;
  const records = Math.max(volume.records, events > 0 ? 1 : 0);
  const rawUnits = putUnits(records, records > 0 ? volume.gzipBytes / records : 0);
  const invocations = Math.ceil(records / Math.max(1, facts.batchSize));
  const documentBytes = (events > 0 ? volume.messageBytes / events : 0) + ASSUMPTIONS.documentOverheadBytes;
  const eventsPerRawRecord = records > 0 ? events / records : 1;
  const perRecord = facts.aggregation
    ? Math.max(1, Math.min(documentsPerAggregatedRecord(documentBytes), Math.floor(eventsPerRawRecord)))
    : 1;
  const eventsRecords = Math.ceil(events / perRecord);
  const eventsRecordSize = eventsRecordBytes(documentBytes, perRecord);
  const eventsUnits = putUnits(eventsRecords, eventsRecordSize);
  const firehoseBytes = firehoseBilledBytes(eventsRecords, eventsRecordSize);
  const storedGb = ((events * documentBytes) / GB) * (1 + facts.replicas) * ASSUMPTIONS.storageOverheadFactor;
  return [
    {
      item: 'Kinesis raw stream PUT units',
      quantity: `${count(rawUnits)} x 25 KB`,
      usd: (rawUnits * PRICES.kinesisPerMillionPutUnits) / 1e6,
    },
    {
      item: 'transform Lambda',
      quantity: `${count(invocations)} invocations`,
      usd:
        events * TRANSFORM_GB_SECONDS_PER_EVENT * PRICES.lambdaArmPerGbSecond +
        (invocations * PRICES.lambdaPerMillionRequests) / 1e6,
    },
    {
      item: 'Kinesis events stream PUT units',
      quantity: `${count(eventsUnits)} x 25 KB`,
      usd: (eventsUnits * PRICES.kinesisPerMillionPutUnits) / 1e6,
    },
    {
      item: 'Firehose ingestion',
      quantity: gb(firehoseBytes),
      usd: (firehoseBytes / GB) * PRICES.firehosePerGb,
      note: 'each record rounded up to 5 KB',
    },
    {
      item: 'OpenSearch storage',
      quantity: `${storedGb.toFixed(2)} GB`,
      usd: storedGb * PRICES.openSearchGp3PerGbMonth,
      monthly: true,
      note: `gp3, ${facts.replicas} replica(s), x${ASSUMPTIONS.storageOverheadFactor} overhead, per month kept`,
    },
  ];
}

export interface DurationEstimate {
  /** At `--rate` (0 when unpaced). */
  readonly atRateInMillis: number;
  /** The least FilterLogEvents' pace allows. */
  readonly readingInMillis: number;
  /** Of the raw stream's write limit (1 MiB/s per shard), at `--rate`; undefined when unpaced or unknown. */
  readonly shareOfStreamWriteLimit?: number;
}

export function estimateDuration(
  volume: VolumeEstimate,
  ratePerSecond: number | undefined,
  openShards: number | undefined,
): DurationEstimate {
  const atRateInMillis = ratePerSecond === undefined ? 0 : (volume.events / ratePerSecond) * 1000;
  const readingInMillis = (volume.filterCalls / FILTER_LOG_EVENTS_CALLS_PER_SECOND) * 1000;
  const bytesPerEvent = volume.events > 0 ? volume.gzipBytes / volume.events : 0;
  return {
    atRateInMillis,
    readingInMillis,
    ...(ratePerSecond !== undefined && openShards !== undefined && openShards > 0
      ? {
          shareOfStreamWriteLimit:
            (ratePerSecond * bytesPerEvent) / (openShards * LIMITS.shardBytesPerSecond),
        }
      : {}),
  };
}

function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function gb(bytes: number): string {
  return `${(bytes / GB).toFixed(bytes / GB < 0.01 ? 4 : 2)} GB`;
}
