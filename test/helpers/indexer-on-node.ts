/**
 * kfek's indexer delivery (lambda/indexer/deliver.ts `deliverBatch`, the code the shipped handler runs) against a
 * node reached through an {@link OpenSearchHttpClient}: a test's stand-in for the handler's SigV4 port (the node's
 * own authentication instead: a secured node's backend role, or none), with refused documents kept in memory instead
 * of S3. Everything else (the plan of each document, bodies cut by bytes, retries with backoff, what is kept, what
 * is given back) is the shipped code.
 */
import { DIRECT_BULK_PATH } from '../../core/delivery/bulk-body';
import type { DeliveryTarget } from '../../core/delivery/document-plan';
import { nestedStems } from '../../core/opensearch/families';
import type { OpenSearchHttpClient } from '../../core/opensearch/http';
import { profileRouteTable } from '../../core/opensearch/route-table';
import type { OpenSearchSpec } from '../../core/opensearch/spec';
import { deliverBatch, type DeliveryResult } from '../../lambda/indexer/deliver';

/** The indexer's target as the Pipeline stack writes it for `spec` (lambda/indexer/env.ts): the profile's routes. */
export function deliveryTargetOf(spec: OpenSearchSpec): DeliveryTarget {
  return {
    prefix: spec.indexPrefix,
    rotation: 'OneDay',
    shards: spec.indexTemplate.shards,
    table: profileRouteTable(spec.routes),
    nested: nestedStems(
      spec.indexPrefix,
      spec.routes.map((r) => r.indexStem),
    ),
  };
}

export interface IndexerOnNode {
  /**
   * Delivers one batch: each document (an events-stream record's data, as the transform writes it) one record,
   * arrived at `arrival` (epoch milliseconds), within `budgetMillis` (the invocation's time).
   */
  deliver(
    documents: ReadonlyArray<Record<string, unknown>>,
    arrival: number,
    budgetMillis?: number,
  ): Promise<DeliveryResult>;
  /** The failed-documents objects kept so far, by key, in the order they were written. */
  readonly kept: Map<string, string>;
}

export function indexerOnNode(client: () => OpenSearchHttpClient, target: DeliveryTarget): IndexerOnNode {
  const kept = new Map<string, string>();
  let sequence = 0;
  return {
    kept,
    deliver: (documents, arrival, budgetMillis = 60_000) =>
      deliverBatch(
        documents.map((d) => ({
          sequenceNumber: String(++sequence),
          data: Buffer.from(JSON.stringify(d)),
          arrival,
        })),
        { target, bulkMaxBytes: 1024 * 1024, concurrency: 2, failedDocumentsPrefix: 'failed-documents/' },
        {
          bulk: {
            bulk: async (body) => {
              const response = await client().request({
                method: 'POST',
                path: DIRECT_BULK_PATH,
                body,
                headers: { 'content-type': 'application/x-ndjson' },
              });
              return { status: response.status, text: response.text };
            },
          },
          store: {
            put: (key, body) => {
              kept.set(key, body);
              return Promise.resolve();
            },
          },
          clock: { now: Date.now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
          random: Math.random,
          objectName: () => `test-${kept.size}`,
          log: { warn: () => undefined },
        },
        Date.now() + budgetMillis,
      ),
  };
}
