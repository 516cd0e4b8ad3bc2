import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as pipes from 'aws-cdk-lib/aws-pipes';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PIPES_PARTITION_KEY_PATH } from '../../core/contracts/pipes-target';
import { withDefaults } from '../defaults';
import { grantPutRecords } from './stream-write';

export interface PipesTransportProps {
  /** The raw stream (pipe source). */
  readonly source: kinesis.IStream;
  /** The enrichment function (lambda/transform/pipes.ts). */
  readonly enrichment: lambda.IFunction;
  /** The events stream (pipe target). */
  readonly target: kinesis.IStream;
  /** Dead-letter target of records the pipe gives up on. */
  readonly deadLetterQueue: sqs.IQueue;
  /**
   * Records per batch. Pipes invokes a Kinesis target with at most 500 results; one CloudWatch Logs record can
   * carry many events. A larger answer is written by the enrichment itself, so keep this small for the common
   * case (docs/transform-runtime.md, "The EventBridge Pipes path").
   * @default 10
   */
  readonly batchSize?: number;
  /** @default Duration.seconds(1) */
  readonly maxBatchingWindow?: Duration;
  /** Concurrent batches per shard (1..10). @default 1 */
  readonly parallelizationFactor?: number;
  /** @default 3 */
  readonly retryAttempts?: number;
  /** @default Duration.hours(1) */
  readonly maxRecordAge?: Duration;
  /** Retention of the pipe's error log group. @default logs.RetentionDays.TWO_WEEKS */
  readonly logRetention?: logs.RetentionDays;
  /**
   * The name of the pipe's error log group (a fixed name lets other stacks exclude it without importing it).
   * @default - a name CloudFormation generates
   */
  readonly logGroupName?: string;
}

const DEFAULTS = {
  batchSize: 10,
  maxBatchingWindow: Duration.seconds(1),
  parallelizationFactor: 1,
  retryAttempts: 3,
  maxRecordAge: Duration.hours(1),
  logRetention: logs.RetentionDays.TWO_WEEKS,
};

/**
 * The `pipes` transport: an EventBridge pipe from the raw stream through the enrichment function to the events
 * stream, with a dead-letter queue, bisection of failing batches and error logging. L1 (`AWS::Pipes::Pipe`)
 * because the Pipes L2 is still alpha.
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-pipes-kinesis.html
 */
export class PipesTransport extends Construct {
  readonly pipe: pipes.CfnPipe;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: PipesTransportProps) {
    super(scope, id);
    const p = withDefaults(DEFAULTS, props);

    // Validate (Pipes Kinesis source limits).
    if (p.batchSize < 1 || p.batchSize > 10_000) {
      throw new Error(`PipesTransport ${this.node.path}: batchSize ${p.batchSize} is outside 1..10000.`);
    }
    if (p.parallelizationFactor < 1 || p.parallelizationFactor > 10) {
      throw new Error(
        `PipesTransport ${this.node.path}: parallelizationFactor ${p.parallelizationFactor} is outside 1..10.`,
      );
    }
    const age = p.maxRecordAge.toSeconds();
    if (age < 60 || age > 604_800) {
      throw new Error(`PipesTransport ${this.node.path}: maxRecordAge ${age} s is outside 60..604800 s.`);
    }

    // Build.
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      logGroupName: props.logGroupName,
      retention: p.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('pipes.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description: 'EventBridge Pipes reads the kfek raw stream, enriches, and writes the events stream',
    });
    // Source: kinesis:DescribeStream*, GetRecords, GetShardIterator, ListShards (+ kms:Decrypt).
    p.source.grantRead(this.role);
    // Enrichment: the unqualified function only (grantInvoke would add every version and alias, `<arn>:*`).
    this.role.addToPolicy(
      new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [p.enrichment.functionArn] }),
    );
    // Target: PutRecords (+ kms:GenerateDataKey for a KMS-encrypted stream).
    grantPutRecords(p.target, this.role);
    p.deadLetterQueue.grantSendMessages(this.role);
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    this.pipe = new pipes.CfnPipe(this, 'Resource', {
      roleArn: this.role.roleArn,
      source: p.source.streamArn,
      sourceParameters: {
        kinesisStreamParameters: {
          startingPosition: 'TRIM_HORIZON',
          batchSize: p.batchSize,
          maximumBatchingWindowInSeconds: p.maxBatchingWindow.toSeconds(),
          maximumRetryAttempts: p.retryAttempts,
          parallelizationFactor: p.parallelizationFactor,
          maximumRecordAgeInSeconds: age,
          onPartialBatchItemFailure: 'AUTOMATIC_BISECT',
          deadLetterConfig: { arn: p.deadLetterQueue.queueArn },
        },
      },
      enrichment: p.enrichment.functionArn,
      target: p.target.streamArn,
      targetParameters: {
        // The key the enrichment sets on every item: the Lambda transport's per-log-stream hash (keeps one stream's
        // events in order), 43 characters, never empty (error documents hash the source record's key). A name
        // such as `$.cloudwatch.logStream` can be empty or longer than Kinesis' 256 characters.
        kinesisStreamParameters: { partitionKey: PIPES_PARTITION_KEY_PATH },
      },
      logConfiguration: {
        level: 'ERROR',
        cloudwatchLogsLogDestination: { logGroupArn: this.logGroup.logGroupArn },
      },
    });
    // Pipes checks its permissions when the pipe is created.
    this.pipe.node.addDependency(this.role);
  }
}
