/**
 * What the OpenSearch node did during a measured run (issue 41: why the node's CPU per event is the same on both
 * deliveries end to end): `_nodes/_local/stats` read before and after, and the difference of the counters that
 * say where indexing time goes (documents, index time, refreshes, flushes, merges, searches, ingest pipeline runs,
 * write thread pool tasks, HTTP connections). `npm run bench:e2e` prints them under each delivery's CPU lines.
 */
import type { SearchHttp } from './search-http';

/** The counters kept from one `_nodes/_local/stats` answer. */
export interface NodeCounters {
  readonly indexTotal: number;
  readonly indexTimeMillis: number;
  readonly refreshTotal: number;
  readonly refreshTimeMillis: number;
  readonly flushTotal: number;
  readonly mergeTotal: number;
  readonly mergeTimeMillis: number;
  readonly mergedDocs: number;
  readonly queryTotal: number;
  readonly queryTimeMillis: number;
  /** Documents any ingest pipeline processed. */
  readonly ingestTotal: number;
  readonly ingestTimeMillis: number;
  /** Tasks the write thread pool completed (one per shard-level bulk request). */
  readonly writeTasks: number;
  readonly httpOpened: number;
}

interface StatsAnswer {
  readonly nodes?: Record<string, NodeStatsSection>;
}

interface NodeStatsSection {
  readonly indices?: {
    readonly indexing?: { index_total?: number; index_time_in_millis?: number };
    readonly refresh?: { total?: number; total_time_in_millis?: number };
    readonly flush?: { total?: number };
    readonly merges?: { total?: number; total_time_in_millis?: number; total_docs?: number };
    readonly search?: { query_total?: number; query_time_in_millis?: number };
  };
  readonly ingest?: { total?: { count?: number; time_in_millis?: number } };
  readonly thread_pool?: { write?: { completed?: number } };
  readonly http?: { total_opened?: number };
}

/** The counters of the (single) node in a `_nodes/_local/stats` answer. */
export function nodeCountersOf(answer: unknown): NodeCounters {
  const node = Object.values((answer as StatsAnswer).nodes ?? {})[0] ?? {};
  const i = node.indices ?? {};
  return {
    indexTotal: i.indexing?.index_total ?? 0,
    indexTimeMillis: i.indexing?.index_time_in_millis ?? 0,
    refreshTotal: i.refresh?.total ?? 0,
    refreshTimeMillis: i.refresh?.total_time_in_millis ?? 0,
    flushTotal: i.flush?.total ?? 0,
    mergeTotal: i.merges?.total ?? 0,
    mergeTimeMillis: i.merges?.total_time_in_millis ?? 0,
    mergedDocs: i.merges?.total_docs ?? 0,
    queryTotal: i.search?.query_total ?? 0,
    queryTimeMillis: i.search?.query_time_in_millis ?? 0,
    ingestTotal: node.ingest?.total?.count ?? 0,
    ingestTimeMillis: node.ingest?.total?.time_in_millis ?? 0,
    writeTasks: node.thread_pool?.write?.completed ?? 0,
    httpOpened: node.http?.total_opened ?? 0,
  };
}

/** Reads the node's counters; undefined when the node does not answer (the run's figures do not depend on it). */
export async function sampleNodeCounters(search: SearchHttp): Promise<NodeCounters | undefined> {
  // A Serverless collection has no `_nodes` API: the stand-in refuses it as Serverless would.
  if (search.onCollection) return undefined;
  try {
    return nodeCountersOf(await search.json('GET', '/_nodes/_local/stats/indices,ingest,thread_pool,http'));
  } catch {
    return undefined;
  }
}

/** `after - before`, counter by counter. */
export function nodeCountersDelta(before: NodeCounters, after: NodeCounters): NodeCounters {
  const delta = {} as Record<keyof NodeCounters, number>;
  for (const key of Object.keys(after) as Array<keyof NodeCounters>) delta[key] = after[key] - before[key];
  return delta;
}

/** The lines `npm run bench:e2e` prints for a run's node counters. */
export function formatNodeCounters(d: NodeCounters): string[] {
  const perDoc = (millis: number): string =>
    d.indexTotal === 0 ? 'n/a' : `${((millis * 1000) / d.indexTotal).toFixed(0)} us/doc`;
  return [
    `  node: ${d.indexTotal} documents indexed, index time ${(d.indexTimeMillis / 1000).toFixed(1)} s ` +
      // Not the ingest time: 2.19.4 reported 5,961 s of it for 10,000 documents indexed in 19 s (bench:e2e).
      `(${perDoc(d.indexTimeMillis)}); ingest pipeline ran for ${d.ingestTotal} documents`,
    `        ${d.writeTasks} write tasks (${d.writeTasks === 0 ? 'n/a' : (d.indexTotal / d.writeTasks).toFixed(0)} ` +
      `docs each), ${d.refreshTotal} refreshes (${(d.refreshTimeMillis / 1000).toFixed(1)} s), ` +
      `${d.flushTotal} flushes, ${d.mergeTotal} merges of ${d.mergedDocs} docs ` +
      `(${(d.mergeTimeMillis / 1000).toFixed(1)} s), ${d.queryTotal} searches ` +
      `(${(d.queryTimeMillis / 1000).toFixed(1)} s), ${d.httpOpened} HTTP connections opened`,
  ];
}
