/**
 * The two deliveries the local pipeline can run on the events stream, behind what the pipeline asks of them: the
 * Firehose stand-in (delivery-loop.ts) or kfek's own indexer (direct-delivery.ts; issue 41).
 */
import * as path from 'node:path';
import type { LocalAwsClients } from './aws-clients';
import { DeliveryLoop, type DeliveryStats } from './delivery-loop';
import { DirectDelivery } from './direct-delivery';
import type { LocalPipelineProps } from './pipeline-props';
import type { LocalResources } from './resources';

/** Starts the delivery the props name, reading the events stream. */
export async function startDelivery(
  props: LocalPipelineProps,
  clients: LocalAwsClients,
  resources: LocalResources,
  folders: { failedDocuments: string; onFailure: string },
): Promise<PipelineDelivery> {
  if (props.delivery === 'direct') {
    return DirectDelivery.start({
      ...props.direct,
      spec: props.spec,
      kinesis: clients.kinesis,
      eventsStreamArn: resources.eventsStreamArn,
      awsEndpoint: props.awsEndpoint,
      searchUrl: props.search.url,
      failedDocumentsBucket: resources.deadLetterBucket,
      onFailureDir: path.join(folders.onFailure, 'indexer'),
      logLevel: props.transformLogLevel,
      log: props.log,
      trace: props.trace,
      now: props.now,
    });
  }
  const delivery = new DeliveryLoop({
    kinesis: clients.kinesis,
    streamArn: resources.eventsStreamArn,
    search: props.search,
    indexFor: props.spec.delivery.indexFor,
    failedDocumentsDir: folders.failedDocuments,
    retryDurationInMillis: props.spec.delivery.retryDurationInMillis,
    bufferIntervalInMillis: props.deliveryBufferIntervalInMillis,
    log: props.log,
    trace: props.trace,
    now: props.now,
  });
  await delivery.start();
  return delivery;
}

/** What the pipeline asks of either delivery: the Firehose stand-in or the direct indexer. */
export interface PipelineDelivery {
  failure(): Error | undefined;
  caughtUpSince(): number | undefined;
  snapshot(): DeliveryStats;
  stop(): Promise<void>;
}
