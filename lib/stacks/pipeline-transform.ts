/**
 * The transform in the Pipeline stack (config `transport`): the Lambda with its Kinesis event source mapping, or the
 * Pipes enrichment with its pipe. Created in the stack's scope with the construct ids it always had (`Transform`,
 * `Pipe`), so moving it here out of the stack's constructor changed no logical id.
 */
import { Annotations, Duration, Stack, Token } from 'aws-cdk-lib';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { RouteConfig, TransformConfig, Transport } from '../../core/config';
import { PIPES_SAFE_BATCH_SIZE } from '../../core/contracts/aws-limits';
import type { PhysicalNames } from '../../core/contracts/physical-names';
import { TransformServiceName, transformEnvironment } from '../../core/contracts/transform-env';
import { PipesTransport } from '../constructs/pipes-transport';
import { TransformFunction, onFailureDestinationJustification } from '../constructs/transform-function';
import { grantTransformWrites } from '../constructs/transform-writes';
import { justifyWildcardResources } from '../nag';

export interface PipelineTransformProps {
  readonly transport: Transport;
  /** What the transform reads. */
  readonly rawStream: kinesis.IStream;
  /** What the transform writes (both transports: the Pipes enrichment for answers too large for the pipe). */
  readonly eventsStream: kinesis.IStream;
  /** Dead-lettered poison records and, with the `lambda` transport, the mapping's discarded batches. */
  readonly bucket: s3.IBucket;
  /** The pipe's dead-letter queue (transport `pipes`). */
  readonly failureQueue: sqs.IQueue;
  readonly transform: TransformConfig;
  /** Config `delivery.aggregation`: whether the transform writes KPL aggregated records. */
  readonly aggregation: boolean;
  readonly routes: readonly RouteConfig[];
  readonly metricsNamespace: string;
  /** Regions besides the stack's own whose events the transform trusts (PipelineStackProps.sourceRegions). */
  readonly sourceRegions: readonly string[];
  /** Retention of the function's and the pipe's log groups. */
  readonly logRetention: logs.RetentionDays;
  /** @default - names CloudFormation generates */
  readonly names?: Pick<PhysicalNames, 'transformFunction' | 'transformLogGroup' | 'pipeLogGroup'>;
}

export interface PipelineTransform {
  /** The function doing the transform: the event source mapping handler or the Pipes enrichment. */
  readonly function: lambda.IFunction;
  /** The pipe (transport `pipes` only). */
  readonly pipe?: PipesTransport;
  /** The function's log group, and the pipe's. */
  readonly logGroups: readonly logs.ILogGroup[];
  /** What invokes the transform on the raw stream: the event source mapping, or the pipe. */
  readonly consumers: readonly Construct[];
}

/**
 * Creates the profile's transform in `scope` (the Pipeline stack). One construct ID ('Transform') and one function
 * name for both transports: switching the transport updates the function (handler, code, environment) in place
 * instead of replacing it, so its name, log group and metrics stay, and the Monitoring stack that finds it by name
 * needs no change.
 */
export function createTransform(scope: Construct, props: PipelineTransformProps): PipelineTransform {
  const t = props.transform;
  const names = props.names;
  const common = {
    functionName: names?.transformFunction,
    logGroupName: names?.transformLogGroup,
    memorySizeInMb: t.memoryMb,
    timeout: Duration.seconds(t.timeoutSeconds),
    logRetention: props.logRetention,
  };
  // Both transports write the events stream and dead-letter poison records themselves (the Pipes enrichment
  // for answers too large for the pipe).
  const writes = {
    eventsStream: props.eventsStream,
    bucket: props.bucket,
    deadLetterPrefix: t.deadLetterPrefix,
  };
  // The same writes, as the environment that tells the function where (core/contracts/transform-env.ts).
  const region = Stack.of(scope).region;
  const sourceRegions = [
    region,
    ...props.sourceRegions.filter((r) => Token.isUnresolved(region) || r !== region),
  ];
  const writesEnv = {
    sourceRegions,
    metricsNamespace: props.metricsNamespace,
    eventsStreamArn: writes.eventsStream.streamArn,
    deadLetterBucket: writes.bucket.bucketName,
    deadLetterPrefix: writes.deadLetterPrefix,
    aggregation: props.aggregation,
    routes: props.routes,
  };

  if (props.transport === 'lambda') {
    const fn = new TransformFunction(scope, 'Transform', {
      ...common,
      entry: 'lambda/transform/handler.ts',
      description: 'kfek: CloudWatch Logs envelopes from the raw stream to documents on the events stream',
      environment: transformEnvironment({ ...writesEnv, serviceName: TransformServiceName.kinesis }),
      eventSource: {
        stream: props.rawStream,
        // S3, not SQS: Lambda writes the whole discarded batch there, so it outlives the raw stream's retention.
        onFailureBucket: props.bucket,
        batchSize: t.batchSize,
        maxBatchingWindow: Duration.seconds(t.maxBatchingWindowSeconds),
        parallelizationFactor: t.parallelizationFactor,
        retryAttempts: t.retryAttempts,
        maxRecordAge: Duration.seconds(t.maxRecordAgeSeconds),
      },
    });
    justifyWildcardResources(fn.role, [
      grantTransformWrites(fn.role, writes),
      onFailureDestinationJustification(props.bucket),
    ]);
    return {
      function: fn.function,
      logGroups: [fn.logGroup],
      consumers: fn.function.node.children.filter((c) => c instanceof lambda.EventSourceMapping),
    };
  }
  const fn = new TransformFunction(scope, 'Transform', {
    ...common,
    entry: 'lambda/transform/pipes.ts',
    description: 'kfek: EventBridge Pipes enrichment, CloudWatch Logs envelopes to documents',
    environment: transformEnvironment({ ...writesEnv, serviceName: TransformServiceName.pipes }),
  });
  justifyWildcardResources(fn.role, [grantTransformWrites(fn.role, writes)]);
  const pipe = createPipe(scope, props, fn.function);
  return { function: fn.function, pipe, logGroups: [fn.logGroup, pipe.logGroup], consumers: [pipe.pipe] };
}

/** The pipe from the raw stream through the enrichment `enrichment` to the events stream (transport `pipes`). */
function createPipe(
  scope: Construct,
  props: PipelineTransformProps,
  enrichment: lambda.IFunction,
): PipesTransport {
  const t = props.transform;
  const pipe = new PipesTransport(scope, 'Pipe', {
    source: props.rawStream,
    enrichment,
    target: props.eventsStream,
    deadLetterQueue: props.failureQueue,
    batchSize: t.batchSize,
    maxBatchingWindow: Duration.seconds(t.maxBatchingWindowSeconds),
    parallelizationFactor: t.parallelizationFactor,
    retryAttempts: t.retryAttempts,
    maxRecordAge: Duration.seconds(t.maxRecordAgeSeconds),
    logRetention: props.logRetention,
    logGroupName: props.names?.pipeLogGroup,
  });
  if (t.batchSize > PIPES_SAFE_BATCH_SIZE) {
    Annotations.of(pipe).addWarningV2(
      'kfek:pipes-batch-size',
      `transform.batchSize is ${t.batchSize} with transport "pipes": Pipes does not invoke a Kinesis target ` +
        'with more than 500 results per batch, and one CloudWatch Logs record can hold hundreds of events; ' +
        'the enrichment then writes the batch to the events stream itself (metric OverflowDocuments). ' +
        `Use ${PIPES_SAFE_BATCH_SIZE} or less (docs/guarantees.md, "Pipes and the 500-results limit").`,
    );
  }
  return pipe;
}
