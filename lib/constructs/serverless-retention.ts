import * as path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { IndexRotation } from '../../core/contracts/index-naming';
import { type RetentionFamilyEnv, retentionEnvironment } from '../../core/contracts/retention-env';
import { LOCAL_ESBUILD_BUNDLING, PROJECT_ROOT } from './bundling';

export interface ServerlessRetentionProps {
  /** The collection's endpoint (`https://<id>.<region>.aoss.amazonaws.com`). */
  readonly collectionEndpoint: string;
  /**
   * The role the function runs as: the collection's retention role, which its data access policy lets list and
   * delete kfek's index patterns only (lib/constructs/serverless-collection.ts).
   */
  readonly role: iam.IRole;
  /** kfek's index families (the default route's stem and each route's) with their `retentionDays`. */
  readonly families: readonly RetentionFamilyEnv[];
  /** Config `delivery.indexRotation`: how the indices are named. */
  readonly indexRotation: IndexRotation;
  /** CloudWatch namespace of its metrics (the config's `name`). @default 'kfek' */
  readonly metricsNamespace?: string;
  /**
   * How often it runs. Each run wakes a collection that scaled to zero (10 minutes of compute), and retention is
   * counted in days: once a day is enough.
   * @default Duration.days(1)
   */
  readonly every?: Duration;
  /** @default - a name CloudFormation generates */
  readonly functionName?: string;
  /** @default - a name CloudFormation generates */
  readonly logGroupName?: string;
  /** @default logs.RetentionDays.TWO_WEEKS */
  readonly logRetention?: logs.RetentionDays;
}

/**
 * Retention on a SEARCH collection (issue 42, docs/serverless.md, "Retention"): such a collection has no lifecycle
 * policy, so an EventBridge schedule runs lambda/serverless-retention/handler.ts, which deletes kfek's indices past
 * their family's `retentionDays` by name and publishes `RetentionDeletedIndices` and `RetentionFailures` (the
 * Monitoring stack alarms on a failure and on a day without a run, lib/constructs/monitoring/retention.ts).
 *
 * Least privilege: IAM lets the role reach this collection only (`aoss:APIAccessAll` on its ARN, granted where the
 * role is made); the data access policy lets it `DescribeIndex` and `DeleteIndex` on kfek's index patterns only; the
 * function's code deletes only names kfek renders for one of the families (core/opensearch/serverless-retention.ts).
 * Its log is its own; its metrics go out as EMF there, so it needs no cloudwatch:PutMetricData.
 */
export class ServerlessRetention extends Construct {
  readonly function: lambda.Function;
  readonly logGroup: logs.LogGroup;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: ServerlessRetentionProps) {
    super(scope, id);
    const every = props.every ?? Duration.days(1);
    if (props.families.length === 0) {
      throw new Error(
        `ServerlessRetention ${this.node.path}: no index families to keep: pass the profile's families.`,
      );
    }
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      logGroupName: props.logGroupName,
      retention: props.logRetention ?? logs.RetentionDays.TWO_WEEKS,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    props.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, 'lambda', 'serverless-retention', 'handler.ts'),
      handler: 'handler',
      functionName: props.functionName,
      description: "kfek: deletes kfek's collection indices past their retention, by name",
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 256,
      // The first request may wait 10-30 s for a collection scaled to zero; then one DELETE per expired index.
      timeout: Duration.minutes(5),
      role: props.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      environment: {
        ...retentionEnvironment({
          collectionUrl: props.collectionEndpoint,
          families: props.families,
          indexRotation: props.indexRotation,
          metricsNamespace: props.metricsNamespace ?? 'kfek',
        }),
        NODE_OPTIONS: '--enable-source-maps',
      },
      ...LOCAL_ESBUILD_BUNDLING,
    });
    this.rule = new events.Rule(this, 'Schedule', {
      description: `kfek retention: every ${every.toHumanString()}`,
      schedule: events.Schedule.rate(every),
      targets: [
        new targets.LambdaFunction(this.function, { retryAttempts: 2, maxEventAge: Duration.hours(6) }),
      ],
    });
    this.acknowledge();
  }

  private acknowledge(): void {
    Validations.of(this.rule).acknowledge({
      id: 'Serverless-EventBusDLQ',
      reason:
        'A schedule tick EventBridge cannot deliver holds nothing to keep (the next run deletes what this one would ' +
        'have): the RetentionNotRunning alarm pages when no run starts.',
    });
    Validations.of(this.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'A scheduled run whose retries fail has nothing to keep: the next run deletes the same indices, and the ' +
        'RetentionFailures and RetentionNotRunning alarms page (docs/serverless.md).',
    });
    Validations.of(this.function).acknowledge({
      id: 'Serverless-LambdaTracing',
      reason:
        'X-Ray is off: a run is measured by its EMF metrics and its log line, and tracing would need ' +
        'xray:PutTraceSegments on Resource "*".',
    });
  }
}
