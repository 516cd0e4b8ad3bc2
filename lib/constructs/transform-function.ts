import * as path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { KinesisEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { type WithDefaults, withDefaults } from '../defaults';
import type { WildcardJustification } from '../nag';
import { grantBucketKeyWrite } from './bucket-key';
import { LOCAL_ESBUILD_BUNDLING, PROJECT_ROOT } from './bundling';

/**
 * An S3 on-failure destination with least-privilege grants. For S3, Lambda writes the whole invocation record (the
 * batch's records, base64 data included) with the failure metadata, so a discarded batch outlives the stream's
 * retention; SQS and SNS would only get shard and sequence numbers. aws-cdk-lib's `S3OnFailureDestination` grants
 * `grantReadWrite` on the whole bucket (read and delete of every failed document too); the documented need is only
 * `s3:PutObject` and `s3:ListBucket`, so this grants exactly those: PutObject on the bucket's objects and ListBucket
 * on the bucket. Lambda writes under `aws/lambda/` (core/contracts/kept-data.ts), but AWS documents neither that prefix as a
 * contract nor which key Lambda's destination check writes or lists when the mapping is created or updated; a
 * grant narrower than the documented one risks a refused mapping (a failed deploy) or a discarded batch that is
 * lost, which costs more than the narrower scope saves (no read, no delete either way).
 * https://docs.aws.amazon.com/lambda/latest/dg/kinesis-on-failure-destination.html
 * The mapping writes as the function's role, so with an SSE-KMS bucket the role also gets kms:GenerateDataKey on
 * the bucket's key, as the Lambda guide documents for customer managed keys.
 */
export class S3PutOnlyOnFailureDestination implements lambda.IEventSourceDlq {
  constructor(private readonly bucket: s3.IBucket) {}

  bind(_target: lambda.IEventSourceMapping, targetHandler: lambda.IFunction): lambda.DlqDestinationConfig {
    targetHandler.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
    targetHandler.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        // Not narrowed with an s3:prefix condition: AWS does not document which listing Lambda makes, and a
        // refused call would lose the batch. ListBucket reveals key names only, never content.
        resources: [this.bucket.bucketArn],
      }),
    );
    grantBucketKeyWrite(this.bucket, targetHandler);
    return { destination: this.bucket.bucketArn };
  }
}

/** Why the on-failure destination's `s3:PutObject` on every object of the bucket is safe (for `justifyWildcardResources`). */
export function onFailureDestinationJustification(bucket: s3.IBucket): WildcardJustification {
  return {
    resource: bucket.arnForObjects('*'),
    reason:
      'The event source mapping on-failure destination, as AWS documents it (s3:PutObject on the bucket): ' +
      'Lambda names each object itself and documents no prefix for its destination check. PutObject only, ' +
      'no read or delete.',
  };
}

/** The event source mapping of a Kinesis-driven function (the transform's Lambda transport, the indexer). */
export interface TransformEventSourceProps {
  /** The raw stream the function reads. */
  readonly stream: kinesis.IStream;
  /**
   * Where the mapping writes a batch it gives up on (retries or record age exhausted): the whole invocation record,
   * data included, under `aws/lambda/` (core/contracts/kept-data.ts). With an SSE-KMS bucket the function's role
   * also gets kms:GenerateDataKey on the bucket's key.
   */
  readonly onFailureBucket: s3.IBucket;
  /** @default 100 */
  readonly batchSize?: number;
  /** @default Duration.seconds(1) */
  readonly maxBatchingWindow?: Duration;
  /** @default 1 */
  readonly parallelizationFactor?: number;
  /** @default 3 */
  readonly retryAttempts?: number;
  /** @default Duration.hours(1) */
  readonly maxRecordAge?: Duration;
}

export interface TransformFunctionProps {
  /** Handler file, relative to the repository root, e.g. `lambda/transform/handler.ts`. */
  readonly entry: string;
  /** Environment of the function (the handler validates it at init). */
  readonly environment: Readonly<Record<string, string>>;
  readonly description: string;
  /**
   * The function's name. Give it one that never changes: other stacks (monitoring) and the CLI find the function
   * by it, so nothing has to import it from this stack.
   * @default - a name CloudFormation generates
   */
  readonly functionName?: string;
  /**
   * The name of the function's log group.
   * @default - a name CloudFormation generates
   */
  readonly logGroupName?: string;
  /**
   * The role's name (ignored with {@link role}).
   * @default - a name CloudFormation generates
   */
  readonly roleName?: string;
  /**
   * An existing role to run as, created elsewhere because a policy outside this stack names it (the Serverless
   * collection's writer role, named by its data access policy). It must trust lambda.amazonaws.com and be mutable:
   * the grants below are added to it as a policy of this stack.
   * @default - a role of its own
   */
  readonly role?: iam.IRole;
  /** @default 512 */
  readonly memorySizeInMb?: number;
  /** @default Duration.seconds(60) */
  readonly timeout?: Duration;
  /** @default logs.RetentionDays.TWO_WEEKS */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Removal policy of the function's log group.
   * @default RemovalPolicy.DESTROY - logs of a deleted function are not kept
   */
  readonly logRemovalPolicy?: RemovalPolicy;
  /**
   * Kinesis event source mapping (Lambda transport).
   * @default - no mapping (the function is invoked by something else, e.g. a pipe)
   */
  readonly eventSource?: TransformEventSourceProps;
}

const DEFAULTS = {
  memorySizeInMb: 512,
  timeout: Duration.seconds(60),
  logRetention: logs.RetentionDays.TWO_WEEKS,
  logRemovalPolicy: RemovalPolicy.DESTROY,
  batchSize: 100,
  maxBatchingWindow: Duration.seconds(1),
  parallelizationFactor: 1,
  retryAttempts: 3,
  maxRecordAge: Duration.hours(1),
} as const;

type ResolvedProps = WithDefaults<
  TransformFunctionProps & Partial<TransformEventSourceProps>,
  typeof DEFAULTS
>;

/** Lambda's documented limits of a Kinesis event source mapping (tokens are not expected here). */
function validateEventSource(where: string, p: ResolvedProps): void {
  if (p.batchSize < 1 || p.batchSize > 10_000) {
    throw new Error(`TransformFunction ${where}: batchSize ${p.batchSize} is outside 1..10000 (Kinesis).`);
  }
  if (p.parallelizationFactor < 1 || p.parallelizationFactor > 10) {
    throw new Error(
      `TransformFunction ${where}: parallelizationFactor ${p.parallelizationFactor} is outside 1..10.`,
    );
  }
  if (p.maxRecordAge.toSeconds() < 60 || p.maxRecordAge.toSeconds() > 604_800) {
    throw new Error(
      `TransformFunction ${where}: maxRecordAge ${p.maxRecordAge.toSeconds()} s is outside 60..604800 s.`,
    );
  }
}

/**
 * A transform Lambda function: bundled by the local esbuild (never Docker), arm64, current Node runtime, its own
 * log group with retention, its own role with only what it uses, and optionally the Kinesis event source mapping
 * with partial batch failures, bisection, bounded retries and record age, and an S3 on-failure destination that keeps
 * the discarded batches' data.
 */
export class TransformFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.IRole;
  readonly logGroup: logs.LogGroup;
  readonly eventSource?: KinesisEventSource;

  constructor(scope: Construct, id: string, props: TransformFunctionProps) {
    super(scope, id);
    const p = withDefaults(DEFAULTS, { ...props, ...props.eventSource });

    validateEventSource(this.node.path, p);

    // Build.
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      logGroupName: props.logGroupName,
      retention: p.logRetention,
      removalPolicy: p.logRemovalPolicy,
    });
    // An own role instead of the default one: the default attaches the AWSLambdaBasicExecutionRole managed policy,
    // which may write to any log group of the account.
    this.role =
      props.role ??
      new iam.Role(this, 'Role', {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        roleName: props.roleName,
        description: props.description,
      });
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      functionName: props.functionName,
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: p.memorySizeInMb,
      timeout: p.timeout,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      environment: {
        ...props.environment,
        // Stack traces point at the TypeScript sources through the bundled source map.
        NODE_OPTIONS: '--enable-source-maps',
      },
      ...LOCAL_ESBUILD_BUNDLING,
    });

    Validations.of(this.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'Invoked synchronously only (Kinesis event source mapping or a pipe), where a function DLQ never applies; ' +
        'failed batches go to the mapping S3 on-failure destination or the pipe dead-letter queue.',
    });

    Validations.of(this.function).acknowledge({
      id: 'Serverless-LambdaTracing',
      reason:
        'X-Ray is off: throughput and lag are measured with EMF metrics and iterator age, and tracing would need ' +
        'xray:PutTraceSegments on Resource "*". Turn it on per function when debugging.',
    });

    // Wire.
    if (props.eventSource) this.eventSource = this.addEventSource(props.eventSource, p);
  }

  /**
   * The Kinesis event source mapping; adding it grants read on the stream plus kms:Decrypt on its key, and the
   * on-failure grants.
   */
  private addEventSource(es: TransformEventSourceProps, p: ResolvedProps): KinesisEventSource {
    const eventSource = new KinesisEventSource(es.stream, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: p.batchSize,
      maxBatchingWindow: p.maxBatchingWindow,
      parallelizationFactor: p.parallelizationFactor,
      retryAttempts: p.retryAttempts,
      maxRecordAge: p.maxRecordAge,
      bisectBatchOnError: true,
      reportBatchItemFailures: true,
      onFailure: new S3PutOnlyOnFailureDestination(es.onFailureBucket),
    });
    this.function.addEventSource(eventSource);
    return eventSource;
  }
}
