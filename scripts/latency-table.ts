/**
 * `npm run latency-table`: prints the ingest-to-searchable latency table of docs/latency.md for every profile in
 * cdk.json, computed stage by stage from the profile's own settings. The docs page carries exactly this output
 * (test/scripts/latency-table.test.ts), so a changed default or profile cannot leave the page stale. Every delay
 * that is an assumption rather than a documented figure or a configured value is named in ASSUMPTIONS and printed
 * under the table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { configFromCdkJson, type PipelineConfig } from '../core/config';

/** Delays AWS documents (seconds). */
export const DOCUMENTED = {
  /**
   * Kinesis Data Streams: "the put-to-get delay ... is typically less than 1 second" (Developer Guide, "Reading
   * data"). Counted as 1 s, for each of the two streams.
   */
  kinesisPutToGetSeconds: 1,
  /** Lambda polls each Kinesis shard "at a base rate of once per second" (Lambda Developer Guide, Kinesis). */
  lambdaPollIntervalSeconds: 1,
} as const;

/** Delays nobody documents as a number here; each is a stated assumption. */
export const ASSUMPTIONS = {
  /** CloudWatch Logs -> subscription destination: documented only as "real-time". */
  subscriptionDeliverySeconds: 1,
  /** One transform invocation: decode, shape and PutRecords of a batch (`npm run bench`: ~100,000 events/s). */
  transformSeconds: 0.2,
  /** Firehose reading its Kinesis source: assumed to poll once per second like Lambda's event source. */
  firehosePollIntervalSeconds: 1,
  /** Buffering interval 0: Firehose "does not buffer ... and delivers within a few seconds" (buffering hints). */
  zeroBufferingDeliverySeconds: 3,
  /** One `_bulk` request of a Firehose delivery on the domain. */
  bulkRequestSeconds: 0.2,
  /**
   * One warm indexer invocation's own work before its `_bulk` request (delivery mode `direct`): de-aggregate a
   * trickle's few records and serialize their documents, milliseconds per thousand documents.
   */
  indexerInvocationSeconds: 0.05,
} as const;

/** Delays measured here (seconds). */
export const MEASURED = {
  /**
   * One `_bulk` request of 1-10 documents on the real node: 49-54 ms through the ingest pipeline (`npm run
   * bench:bulk`, docs/latency.md "What a smaller buffer costs"); the direct path sends a trickle's few documents
   * at once, without the pipeline.
   */
  smallBulkSeconds: 0.05,
} as const;

/** One stage's delay (seconds) for the two traffic shapes the table reports. */
export interface StageDelay {
  readonly stage: string;
  /** Median of a steady trickle: a record waits on average half of each periodic stage. */
  readonly trickleP50: number;
  /** A single line on an idle pipeline: every periodic stage is waited out in full. */
  readonly singleLine: number;
  /** Where the figure comes from: a config key, a documented delay or an assumption. */
  readonly source: string;
}

/**
 * Stage delays of a profile. A periodic stage (a poll, a buffer, a refresh) of period P adds P/2 to the median of
 * a steady trickle (arrivals are spread evenly over the period) and P to a single line that arrives just after
 * the previous cycle; fixed stages add the same to both.
 */
export function stageDelays(config: PipelineConfig): StageDelay[] {
  const window = config.transform.maxBatchingWindowSeconds;
  const refresh = config.openSearch.indexTemplate.refreshSeconds;
  const poller = config.transport === 'pipes' ? 'pipe' : 'event source mapping';
  const fixed = (stage: string, seconds: number, source: string): StageDelay => ({
    stage,
    trickleP50: seconds,
    singleLine: seconds,
    source,
  });
  const periodic = (stage: string, period: number, source: string): StageDelay => ({
    stage,
    trickleP50: period / 2,
    singleLine: period,
    source,
  });
  return [
    fixed('CloudWatch Logs subscription delivery', ASSUMPTIONS.subscriptionDeliverySeconds, 'assumption'),
    fixed('raw stream put-to-get', DOCUMENTED.kinesisPutToGetSeconds, 'documented'),
    periodic(
      `${poller} poll`,
      DOCUMENTED.lambdaPollIntervalSeconds,
      config.transport === 'pipes' ? "assumption (Lambda's documented rate)" : 'documented',
    ),
    periodic('batching window', window, '`transform.maxBatchingWindowSeconds`'),
    fixed('transform', ASSUMPTIONS.transformSeconds, 'assumption'),
    fixed('events stream put-to-get', DOCUMENTED.kinesisPutToGetSeconds, 'documented'),
    ...deliveryStages(config, { fixed, periodic }),
    periodic('index refresh', refresh, '`openSearch.indexTemplate.refreshSeconds`'),
  ];
}

/**
 * The stages between the events stream and the index: Firehose's poll, buffer and bulk request, or the direct
 * path's event source mapping poll, batching window, indexer invocation and bulk request.
 */
function deliveryStages(
  config: PipelineConfig,
  stage: {
    readonly fixed: (stage: string, seconds: number, source: string) => StageDelay;
    readonly periodic: (stage: string, period: number, source: string) => StageDelay;
  },
): StageDelay[] {
  const { fixed, periodic } = stage;
  if (config.delivery.mode === 'direct') {
    return [
      periodic('indexer event source mapping poll', DOCUMENTED.lambdaPollIntervalSeconds, 'documented'),
      periodic(
        'indexer batching window',
        config.delivery.direct.maxBatchingWindowSeconds,
        '`delivery.direct.maxBatchingWindowSeconds`',
      ),
      fixed('indexer invocation', ASSUMPTIONS.indexerInvocationSeconds, 'assumption'),
      fixed('bulk request (a few documents)', MEASURED.smallBulkSeconds, 'measured'),
    ];
  }
  const buffer = config.delivery.bufferingIntervalSeconds;
  return [
    periodic('Firehose source poll', ASSUMPTIONS.firehosePollIntervalSeconds, 'assumption'),
    buffer === 0
      ? fixed('Firehose buffer (zero buffering)', ASSUMPTIONS.zeroBufferingDeliverySeconds, 'assumption')
      : periodic('Firehose buffer', buffer, '`delivery.bufferingIntervalSeconds`'),
    fixed('bulk request', ASSUMPTIONS.bulkRequestSeconds, 'assumption'),
  ];
}

export interface ProfileLatency {
  readonly profile: string;
  readonly stages: readonly StageDelay[];
  readonly trickleP50: number;
  readonly singleLine: number;
}

/** Sum of the stage delays, rounded to 0.1 s (the inputs are not more precise than that). */
export function profileLatency(config: PipelineConfig): ProfileLatency {
  const stages = stageDelays(config);
  const sum = (pick: (s: StageDelay) => number): number =>
    Math.round(stages.reduce((total, s) => total + pick(s), 0) * 10) / 10;
  return {
    profile: config.profile,
    stages,
    trickleP50: sum((s) => s.trickleP50),
    singleLine: sum((s) => s.singleLine),
  };
}

/** Every profile of a cdk.json, in file order. */
export function profilesOf(cdkJsonPath: string, names: readonly string[]): ProfileLatency[] {
  return names.map((name) => profileLatency(configFromCdkJson(cdkJsonPath, name)));
}

const seconds = (value: number): string => `${Number(value.toFixed(2))} s`;

/** The summary table (one row per profile) and, per profile, the stage table. */
export function latencyTable(profiles: readonly ProfileLatency[]): string {
  const lines = [
    '| Profile | Delivery | Batching window | Firehose buffer | Refresh | Steady trickle p50 | Single line |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const p of profiles) {
    const find = (prefix: string): StageDelay => {
      const stage = p.stages.find((s) => s.stage.startsWith(prefix));
      if (stage === undefined) throw new RangeError(`no stage "${prefix}" in profile ${p.profile}`);
      return stage;
    };
    const direct = p.stages.some((s) => s.stage.startsWith('indexer'));
    const buffer = direct
      ? 'none (indexer)'
      : find('Firehose buffer').stage.includes('zero')
        ? '0 s (zero buffering)'
        : seconds(find('Firehose buffer').singleLine);
    lines.push(
      `| ${p.profile} | ${direct ? 'direct' : 'firehose'} | ${seconds(find('batching window').singleLine)} | ` +
        `${buffer} | ` +
        `${seconds(find('index refresh').singleLine)} | ${seconds(p.trickleP50)} | ${seconds(p.singleLine)} |`,
    );
  }
  return lines.join('\n');
}

/** The stage-by-stage table of one profile. */
export function stageTable(p: ProfileLatency): string {
  const lines = [
    `| Stage (${p.profile}) | Steady trickle p50 | Single line | Source |`,
    '| --- | --- | --- | --- |',
  ];
  for (const s of p.stages) {
    lines.push(`| ${s.stage} | ${seconds(s.trickleP50)} | ${seconds(s.singleLine)} | ${s.source} |`);
  }
  lines.push(`| **total** | **${seconds(p.trickleP50)}** | **${seconds(p.singleLine)}** | |`);
  return lines.join('\n');
}

/** The profile names of a cdk.json's `kfek.profiles`. */
export function profileNames(cdkJsonPath: string): string[] {
  const cdkJson = JSON.parse(readFileSync(cdkJsonPath, 'utf8')) as {
    context?: { kfek?: { profiles?: Record<string, unknown> } };
  };
  return Object.keys(cdkJson.context?.kfek?.profiles ?? {});
}

if (require.main === module) {
  const cdkJson = join(__dirname, '..', 'cdk.json');
  const profiles = profilesOf(cdkJson, profileNames(cdkJson));
  const out = [latencyTable(profiles), ...profiles.map(stageTable)];
  process.stdout.write(`${out.join('\n\n')}\n`);
}
