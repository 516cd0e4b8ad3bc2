/**
 * Where `kfek replay` and `kfek reconcile` read what the pipeline kept (core/kept/collect.ts): the failed-records
 * bucket under the profile's prefixes, or `npm start`'s folders (whose dead letters, and the direct path's failed
 * documents, are in moto's bucket when one is named), and the pipe's dead-letter queue.
 */
import type { PipelineConfig } from '../core/config';
import { ON_FAILURE_KEY_PREFIX } from '../core/contracts/kept-data';
import { s3ObjectStore, sqsQueue } from '../core/kept/aws';
import type { KeptSources } from '../core/kept/collect';
import { unionPlace } from '../core/kept/union-place';
import type { RunContext } from './context';
import { folderStore, LOCAL_LAYOUT } from './replay/folder-store';

export interface KeptPlaces {
  /** `npm start`'s work folder, resolved. @default - none: the bucket */
  readonly localDir?: string;
  /** @default - none */
  readonly bucket?: string;
  /** The pipe's dead-letter queue. @default - none */
  readonly queueUrl?: string;
  /** Most queue messages to look at. */
  readonly maxMessages: number;
}

export function keptSources(
  { aws }: Pick<RunContext, 'aws'>,
  config: PipelineConfig,
  places: KeptPlaces,
): KeptSources {
  const store = places.bucket === undefined ? undefined : s3ObjectStore(aws.s3, places.bucket);
  const inBucket =
    store === undefined
      ? {}
      : {
          deadLetter: { store, prefix: config.transform.deadLetterPrefix },
          discardedBatches: { store, prefix: ON_FAILURE_KEY_PREFIX },
          failedDocuments: { store, prefix: config.delivery.failedDocumentsPrefix },
        };
  const folder = places.localDir === undefined ? undefined : folderStore(places.localDir);
  return {
    ...(folder === undefined
      ? inBucket
      : {
          deadLetter: inBucket.deadLetter ?? { store: folder, prefix: LOCAL_LAYOUT.deadLetter },
          discardedBatches: { store: folder, prefix: LOCAL_LAYOUT.discardedBatches },
          // The Firehose stand-in keeps refused documents in the folder; the direct path's indexer puts them into
          // the bucket, as in AWS (docs/local.md, "Direct delivery"): read both.
          failedDocuments: unionPlace([
            { store: folder, prefix: LOCAL_LAYOUT.failedDocuments },
            ...(inBucket.failedDocuments === undefined ? [] : [inBucket.failedDocuments]),
          ]),
        }),
    ...(places.queueUrl !== undefined ? { queue: sqsQueue(aws.sqs, places.queueUrl) } : {}),
    maxMessages: places.maxMessages,
  };
}
