/**
 * The domain or Serverless table of docs/costs.md ("Domain or Serverless", issue 42), printed by `npm run cost-table`
 * under the volume table: per month, us-east-1, the idle floor and 1, 100 and 1,000 GB/day, for the sandbox domain
 * (Firehose, ingest pipeline) beside a NextGen SEARCH collection (direct indexer, minimum 0 OCU). Only what differs
 * between the two and what the floor needs is priced: the OpenSearch side, the two streams and their KMS key. Every
 * number that is an assumption is named in SERVERLESS_ASSUMPTIONS and printed under the table.
 *
 * A domain's instance price at volume is not in the documentation stored here (only the sandbox's t3.small.search
 * is), so at volume the table gives the vCPUs a domain needs and the price per vCPU-hour above which Serverless is
 * the cheaper of the two, instead of a guessed instance price.
 */
import {
  ASSUMPTIONS,
  PRICES,
  SERVERLESS_ASSUMPTIONS,
  SERVERLESS_PRICES,
  SERVERLESS_PRICES_SOURCE,
} from '../core/contracts/cost-model';
import { scenarioCosts } from './cost-table';

const A = ASSUMPTIONS;
const S = SERVERLESS_ASSUMPTIONS;
const P = SERVERLESS_PRICES;

export interface KindCosts {
  readonly gbPerDay: number;
  readonly eventBytes: number;
  /** Kinesis (both streams) and the streams' KMS key: the same for both kinds. */
  readonly streamsPerMonth: number;
  readonly domain: {
    readonly vcpus: number;
    readonly storagePerMonth: number;
    /** The sandbox node's price when it carries the load (`t3SmallSustainedVcpus`); undefined above that. */
    readonly sandboxNodePerMonth?: number;
  };
  readonly serverless: {
    readonly indexingOcu: number;
    readonly computePerMonth: number;
    readonly storagePerMonth: number;
    readonly totalPerMonth: number;
  };
  /** Domain price per vCPU-hour above which Serverless costs less (undefined: Serverless is cheaper at any price). */
  readonly breakevenPerVcpuHour?: number;
}

/** Rounds an OCU count up to the next half OCU. */
function ocus(vcpus: number): number {
  return Math.ceil(vcpus / S.vcpuPerOcu / S.ocuStep) * S.ocuStep;
}

/** The idle floor of each kind's sandbox (no events; the collection's group has scaled to zero). */
export function idleFloor(): { domain: number; serverless: number; streams: number } {
  const streams = 2 * PRICES.kinesisShardHour * A.hoursPerMonth + P.kmsKeyMonth;
  const domain =
    P.t3SmallSearchHour * A.hoursPerMonth + S.sandboxVolumeGb * PRICES.openSearchGp3PerGbMonth + streams;
  return { domain, serverless: streams, streams };
}

/** Both kinds at one volume (GB/day of log text) and event size. */
export function kindCosts(gbPerDay: number, eventBytes: number): KindCosts {
  const c = scenarioCosts({ gbPerDay, eventBytes });
  const documentGbPerDay = (gbPerDay * c.documentBytes) / eventBytes;
  const onDiskGb = documentGbPerDay * S.diskBytesPerDocumentByte * A.retentionDays;
  const vcpusFor = (micros: number): number => (c.eventsPerSecond * micros) / 1e6 / S.targetUtilization;
  const indexingOcu = Math.max(S.ocuStep, ocus(vcpusFor(S.directCoreMicrosPerDocument)));
  const computePerMonth =
    (indexingOcu * A.hoursPerMonth + (S.searchOcuWhileActive * S.searchHoursPerDay * A.hoursPerMonth) / 24) *
    P.ocuHour;
  const serverlessStorage = onDiskGb * P.managedStorageGbMonth;
  // Production keeps a replica on a second node; the sandbox's single node stores each document once.
  const singleNodeGb = onDiskGb * S.domainReserveFactor;
  const domainStorage =
    (singleNodeGb <= S.t3SmallMaxVolumeGb ? singleNodeGb : singleNodeGb * (1 + A.replicas)) *
    PRICES.openSearchGp3PerGbMonth;
  const vcpus = vcpusFor(S.pipelineCoreMicrosPerDocument);
  const gap = computePerMonth + serverlessStorage - domainStorage;
  return {
    gbPerDay,
    eventBytes,
    streamsPerMonth: c.after.kinesisPerMonth + P.kmsKeyMonth,
    domain: {
      vcpus,
      storagePerMonth: domainStorage,
      ...(vcpus <= S.t3SmallSustainedVcpus && singleNodeGb <= S.t3SmallMaxVolumeGb
        ? { sandboxNodePerMonth: P.t3SmallSearchHour * A.hoursPerMonth }
        : {}),
    },
    serverless: {
      indexingOcu,
      computePerMonth,
      storagePerMonth: serverlessStorage,
      totalPerMonth: computePerMonth + serverlessStorage,
    },
    ...(gap > 0 ? { breakevenPerVcpuHour: gap / (vcpus * A.hoursPerMonth) } : {}),
  };
}

/** Which kind costs less at this volume, and by what measure. */
function verdict(k: KindCosts): string {
  const node = k.domain.sandboxNodePerMonth;
  if (node !== undefined) {
    const domain = node + k.domain.storagePerMonth;
    const cheaper = domain <= k.serverless.totalPerMonth ? 'domain' : 'serverless';
    return `${cheaper} (one t3.small.search carries it: domain ${usd(domain)})`;
  }
  return k.breakevenPerVcpuHour === undefined
    ? "serverless at any instance price (the domain's storage alone costs more)"
    : `serverless if a domain vCPU-hour costs more than $${k.breakevenPerVcpuHour.toFixed(3)}`;
}

function usd(value: number): string {
  return value < 10 ? `$${value.toFixed(2)}` : `$${Math.round(value).toLocaleString('en-US')}`;
}

/** The markdown table and its assumptions. */
export function kindTable(): string {
  const floor = idleFloor();
  const header = [
    'GB/day',
    'event',
    'streams + KMS',
    'domain: vCPUs (pipeline), storage',
    'serverless: indexing OCU, compute, storage',
    'serverless OpenSearch total',
    'cheaper',
  ];
  const rows = [
    [
      'idle',
      '-',
      usd(floor.streams),
      `sandbox t3.small.search + 10 GB: ${usd(floor.domain - floor.streams)}`,
      '0 (scaled to zero), $0, $0',
      '$0',
      `serverless (floor with streams: domain ${usd(floor.domain)}, serverless ${usd(floor.serverless)})`,
    ],
    ...[1, 100, 1000].flatMap((gb) =>
      [300, 2048].map((bytes) => {
        const k = kindCosts(gb, bytes);
        return [
          gb.toLocaleString('en-US'),
          bytes === 2048 ? '2 KB' : `${bytes} B`,
          usd(k.streamsPerMonth),
          `${k.domain.vcpus.toFixed(1)}, ${usd(k.domain.storagePerMonth)}`,
          `${k.serverless.indexingOcu}, ${usd(k.serverless.computePerMonth)}, ${usd(k.serverless.storagePerMonth)}`,
          usd(k.serverless.totalPerMonth),
          verdict(k),
        ];
      }),
    ),
  ];
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  const notes = Object.entries(S).map(([k, v]) => `- ${k}: ${v}`);
  return [
    line(header),
    line(header.map(() => '---')),
    ...rows.map(line),
    '',
    `Serverless prices: $${P.ocuHour}/OCU-hour, $${P.managedStorageGbMonth}/GB-month (${SERVERLESS_PRICES_SOURCE}).`,
    'Assumptions:',
    ...notes,
  ].join('\n');
}
