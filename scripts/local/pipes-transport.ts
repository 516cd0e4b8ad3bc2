/**
 * The `pipes` transport on one machine, as lib/constructs/pipes-transport.ts deploys it: the dead-letter queue in
 * moto, the enrichment (lambda/transform/pipes.ts, in this process or a child) and the pipe stand-in over them.
 * Loaded by scripts/local/pipeline.ts only for the `pipes` transport, so the default run never loads the SQS client.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { LocalAwsClients } from './aws-clients';
import { ChildProcessHandler } from './child-handler';
import { PipeError } from './errors';
import { createDeadLetterQueue, type LocalQueue } from './pipes-dead-letter';
import { type PipesEnrichment, PipesLoop } from './pipes-loop';
import type { LocalResources } from './resources';
import type { LocalPipelineSpec } from './spec';
import { localSqsClient } from './sqs-client';
import { loadTransformHandler, TRANSFORM_HANDLER_MODULES } from './transform-runtime';

export interface LocalPipesTransportProps {
  readonly spec: LocalPipelineSpec;
  readonly awsEndpoint: string;
  readonly clients: LocalAwsClients;
  readonly resources: LocalResources;
  /** The enrichment's environment (scripts/local/transform-runtime.ts `localTransformEnv`). */
  readonly transformEnv: Readonly<Record<string, string>>;
  /** @default - lambda/transform/pipes.ts's `handler` */
  readonly enrichment?: PipesEnrichment;
  /** @default 'in-process' */
  readonly transformProcess?: 'in-process' | 'child';
  /** @default - none */
  readonly transformChildPreload?: readonly string[];
  /** @default - silent */
  readonly log?: (line: string) => void;
  /** @default - silent */
  readonly trace?: (line: string) => void;
  /** The run's clock. @default Date.now */
  readonly now?: () => number;
}

/** The pipe stand-in, not yet started, with what it owns. */
export interface LocalPipesTransport {
  readonly loop: PipesLoop;
  readonly queue: LocalQueue;
  readonly sqs: SQSClient;
  readonly child: ChildProcessHandler | undefined;
}

/** Creates the dead-letter queue and the pipe stand-in (started by the caller). */
export async function createLocalPipesTransport(
  props: LocalPipesTransportProps,
): Promise<LocalPipesTransport> {
  const { spec } = props;
  if (spec.pipe === undefined) {
    throw new PipeError(
      'the spec has no `pipe` settings; localSpecFromConfig sets them for transport "pipes"',
    );
  }
  const sqs = localSqsClient(props.awsEndpoint, spec.region);
  try {
    const queue = await createDeadLetterQueue(sqs, spec.pipe.deadLetterQueueName);
    const child =
      props.enrichment === undefined && props.transformProcess === 'child'
        ? new ChildProcessHandler({
            modulePath: TRANSFORM_HANDLER_MODULES.pipes,
            env: props.transformEnv,
            preload: props.transformChildPreload,
            log: props.log,
          })
        : undefined;
    const enrichment: PipesEnrichment =
      props.enrichment ??
      (child === undefined
        ? ((await loadTransformHandler(
            TRANSFORM_HANDLER_MODULES.pipes,
            props.transformEnv,
          )) as PipesEnrichment)
        : (event, context) => child.invoke(event, context));
    const loop = new PipesLoop({
      kinesis: props.clients.kinesis,
      streamArn: props.resources.rawStreamArn,
      enrichment,
      function: {
        functionName: spec.eventSource.functionName,
        memorySizeInMb: spec.eventSource.memorySizeInMb,
        timeoutInMillis: spec.eventSource.timeoutInMillis,
        region: spec.region,
        accountId: spec.accountId,
      },
      targetStreamArn: props.resources.eventsStreamArn,
      sqs,
      deadLetterQueueUrl: queue.url,
      pipeArn: `arn:aws:pipes:${spec.region}:${spec.accountId}:pipe/${spec.pipe.name}`,
      batchSize: spec.eventSource.batchSize,
      maxBatchingWindowInMillis: spec.eventSource.maxBatchingWindowInMillis,
      retryAttempts: spec.eventSource.retryAttempts,
      maxRecordAgeInMillis: spec.eventSource.maxRecordAgeInMillis,
      log: props.log,
      trace: props.trace,
      now: props.now,
    });
    return { loop, queue, sqs, child };
  } catch (error) {
    sqs.destroy();
    throw error;
  }
}
