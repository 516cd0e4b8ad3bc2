/**
 * What a profile's indices cost the domain over time (issue 30), checked at synth: the rotation must make indices
 * that kfek can govern, and the shards they keep must fit the data nodes.
 */
import type { IndexRotation } from '../contracts/index-naming';
import type { Reader } from './reader';
import type { PipelineConfig } from './types';

/**
 * Shards a data node may hold: OpenSearch refuses to create an index once the cluster holds
 * `cluster.max_shards_per_node` (1,000) shards per data node, and Amazon OpenSearch Service keeps that limit
 * (AWS Well-Architected OpenSearch lens, AOSPERF01-BP01: "no more than 1,000 shards per data node"; domains on 2.17+
 * may allow more by heap, up to 4,000, which this check does not count on).
 */
export const SHARDS_PER_DATA_NODE = 1000;

/**
 * Shards kept for what is not kfek's: the security, ISM (and its daily history indices, kept 7 days), job scheduler
 * and Dashboards indices, each a primary and, on more than one node, replicas.
 */
export const SYSTEM_SHARD_RESERVE = 50;

/** Indices a rotation makes per day; a month counts as 28 days (the most indices a retention keeps). */
const INDICES_PER_DAY: Readonly<Record<Exclude<IndexRotation, 'NoRotation'>, number>> = {
  OneHour: 24,
  OneDay: 1,
  OneWeek: 1 / 7,
  OneMonth: 1 / 28,
};

export interface FamilyShards {
  /** The stem (`logs`, a route's `indexStem`). */
  readonly stem: string;
  readonly retentionDays: number;
  /** Indices alive at once: those within the retention, and the one being written. */
  readonly indices: number;
  readonly shards: number;
}

export interface ShardBudget {
  readonly families: readonly FamilyShards[];
  /** kfek's shards and the system reserve. */
  readonly total: number;
  /** What the data nodes hold. */
  readonly limit: number;
}

/** What the shard budget depends on; {@link shardBudgetOf} reads it from a profile, `kfek doctor` from templates. */
export interface ShardBudgetInput {
  readonly rotation: Exclude<IndexRotation, 'NoRotation'>;
  readonly shards: number;
  readonly replicas: number;
  readonly dataNodes: number;
  /** The default route's family first, then the routes'. */
  readonly families: ReadonlyArray<{ readonly stem: string; readonly retentionDays: number }>;
}

/** The shards kept once every family has reached its retention: rotation x retention x shards x copies. */
export function shardBudget(input: ShardBudgetInput): ShardBudget {
  const copies = input.shards * (1 + input.replicas);
  const families = input.families.map(({ stem, retentionDays }): FamilyShards => {
    const indices = Math.ceil(retentionDays * INDICES_PER_DAY[input.rotation]) + 1;
    return { stem, retentionDays, indices, shards: indices * copies };
  });
  return {
    families,
    total: families.reduce((sum, f) => sum + f.shards, SYSTEM_SHARD_RESERVE),
    limit: input.dataNodes * SHARDS_PER_DATA_NODE,
  };
}

/** {@link shardBudget} of a profile; undefined for NoRotation (refused). */
export function shardBudgetOf(
  c: Pick<PipelineConfig, 'delivery' | 'openSearch' | 'routes'>,
): ShardBudget | undefined {
  const rotation = c.delivery.indexRotation;
  if (rotation === 'NoRotation') return undefined;
  return shardBudget({
    rotation,
    shards: c.openSearch.indexTemplate.shards,
    replicas: c.openSearch.indexTemplate.replicas,
    dataNodes: c.openSearch.dataNodeCount,
    families: [
      { stem: c.delivery.indexPrefix, retentionDays: c.openSearch.retention.deleteAfterDays },
      ...c.routes.map((r) => ({ stem: r.indexStem, retentionDays: r.retentionDays })),
    ],
  });
}

/** Refuses a rotation kfek cannot govern and a profile whose indices would outgrow the data nodes' shard limit. */
export function checkIndexBudget(r: Reader, c: Omit<PipelineConfig, 'profile'>): void {
  const prefix = c.delivery.indexPrefix;
  if (c.delivery.indexRotation === 'NoRotation') {
    r.problem(
      `delivery.indexRotation is NoRotation: Firehose would write every document to one index named "${prefix}", ` +
        `which kfek's template, retention policy and roles (all on "${prefix}-*") do not cover, so every document ` +
        'would be refused, and a retention policy could only ever delete that index whole. Use OneDay (or ' +
        'OneHour, OneWeek, OneMonth).',
    );
    return;
  }
  const budget = shardBudgetOf(c);
  if (budget === undefined || budget.total <= budget.limit) return;
  const worst = [...budget.families].sort((a, b) => b.shards - a.shards)[0];
  r.problem(
    `the indices would hold ${budget.total} shards once every retention is reached (${budget.families
      .map((f) => `${f.stem}-*: ${f.indices} indices x ${f.shards / f.indices} shards`)
      .join(
        ', ',
      )}, and ${SYSTEM_SHARD_RESERVE} for OpenSearch's own indices), more than the ${budget.limit} that ` +
      `${c.openSearch.dataNodeCount} data node(s) hold (${SHARDS_PER_DATA_NODE} each): from then on OpenSearch ` +
      `refuses every new index. Rotate less often than ${c.delivery.indexRotation}, shorten retentions ` +
      `(${worst?.stem}-* keeps ${worst?.retentionDays} days), use fewer shards or replicas, or add data nodes.`,
  );
}

/**
 * How long (hours) a retired route name, stem or prefix stays known after its last index is gone
 * (core/opensearch/domain-families.ts): documents marked with it may still be in a stream, or be replayed from the
 * failed-records bucket until it expires them.
 */
export function retiredNamesHours(c: Pick<PipelineConfig, 'streams' | 'failedRecords'>): number {
  return Math.max(
    c.streams.raw.retentionHours,
    c.streams.events.retentionHours,
    c.failedRecords.expireAfterDays * 24,
  );
}
