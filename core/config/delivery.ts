/**
 * The rules of `delivery.mode` and `delivery.direct` (docs/delivery.md, "Choosing a delivery"): `firehose` (the
 * default) is the managed delivery stream with the domain's ingest pipeline; `direct` is kfek's own indexer function
 * on the events stream, which writes each document's `_index`, `_id` and `routing` itself.
 */
import type { Reader } from './reader';
import type { DeliveryConfig } from './types';

/**
 * The largest `_bulk` body kfek sends: the smallest HTTP request payload OpenSearch Service accepts on any instance
 * type (10 MiB on the small ones; https://docs.aws.amazon.com/opensearch-service/latest/developerguide/limits.html).
 */
export const MAX_BULK_BYTES = 10 * 1024 * 1024;

/**
 * Firehose's retry duration and buffering, plus a minute: the longest a healthy delivery stream takes to deliver
 * or give up on what it has read.
 */
export function firehoseBoundSeconds(
  d: Pick<DeliveryConfig, 'retryDurationSeconds' | 'bufferingIntervalSeconds'>,
): number {
  return d.retryDurationSeconds + d.bufferingIntervalSeconds + 60;
}

/** Rules between `delivery.direct` and the rest of `delivery`. */
export function checkDirect(
  r: Reader,
  d: Pick<DeliveryConfig, 'mode' | 'direct' | 'retryDurationSeconds' | 'bufferingIntervalSeconds'>,
): void {
  // Only a value read as given: a bad one is reported once, by the reader, not again here for its fallback.
  if (d.mode !== 'direct' || r.raw('delivery.direct.maxRecordAgeSeconds') !== d.direct.maxRecordAgeSeconds)
    return;
  const bound = firehoseBoundSeconds(d);
  if (d.direct.maxRecordAgeSeconds < bound) {
    r.problem(
      `delivery.direct.maxRecordAgeSeconds (${d.direct.maxRecordAgeSeconds}) must cover Firehose's retry duration ` +
        `and buffering plus a minute (${bound} s): on a switch from Firehose the indexer re-reads the events ` +
        'stream, and records Firehose may not have delivered would be set aside unindexed instead. Use ' +
        `${bound} or more.`,
    );
  }
}
