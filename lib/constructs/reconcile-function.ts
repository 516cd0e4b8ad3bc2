import * as path from 'node:path';
import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { IndexRotation } from '../../core/contracts/index-naming';
import { ON_FAILURE_KEY_PREFIX } from '../../core/contracts/kept-data';
import { reconcileEnvironment } from '../../core/contracts/reconcile-env';
import type { TransformRoute } from '../../core/contracts/routes';
import { type WithDefaults, withDefaults } from '../defaults';
import { justifyWildcardResources } from '../nag';
import { LOCAL_ESBUILD_BUNDLING, PROJECT_ROOT } from './bundling';
import type { CollectionTarget } from './direct-to-opensearch';
import { grantPutRecords } from './stream-write';

/** A route as the reconcile function needs it: what the transform gets, and the stem of its indices. */
export type ReconcileRouteProps = TransformRoute & { readonly indexStem: string };

export interface ReconcileFunctionProps {
  /** The log groups to reconcile (config `sources.logGroups`), with their subscription filter patterns. */
  readonly logGroups: readonly { readonly name: string; readonly filterPattern: string }[];
  /** The raw stream the groups' subscriptions write to: the function puts the healed events there. */
  readonly rawStream: kinesis.IStream;
  /** The failed-records bucket: dead letters, discarded batches (`aws/lambda/`) and failed documents are read there. */
  readonly bucket: s3.IBucket;
  /** Config `transform.deadLetterPrefix`. */
  readonly deadLetterPrefix: string;
  /** Config `delivery.failedDocumentsPrefix`. */
  readonly failedDocumentsPrefix: string;
  /**
   * The domain the documents are looked up in (signed requests; the role must be mapped to a reader role). Exactly
   * one of this and {@link collection}.
   * @default - none: {@link collection}
   */
  readonly domain?: opensearch.IDomain;
  /**
   * The OpenSearch Serverless collection the documents are looked up in (docs/serverless.md): requests are signed
   * for `aoss`, `_mget` sends no routing, and the function runs as `collection.reconcileRole`, the role the
   * collection's data access policy names (imported by ARN: its grants become a policy of this stack).
   * @default - none: {@link domain}
   */
  readonly collection?: CollectionTarget & { readonly reconcileRole: iam.IRole };
  /** Config `delivery.indexPrefix` and `delivery.indexRotation`. */
  readonly indexPrefix: string;
  readonly indexRotation: IndexRotation;
  /** Config `routes`: the transform's settings (drops, joins) and each route's index stem. @default - none */
  readonly routes?: readonly ReconcileRouteProps[];
  /** How often it runs, and the length of the window each run judges. @default Duration.minutes(15) */
  readonly every?: Duration;
  /** How long the pipeline may take to make an event searchable (config `reconcile.lagMinutes`). @default Duration.minutes(15) */
  readonly lag?: Duration;
  /** Send missing events through the raw stream. @default true */
  readonly heal?: boolean;
  /** CloudWatch namespace of its metrics (the config's `name`). @default 'kfek' */
  readonly metricsNamespace?: string;
  /** @default 512 */
  readonly memorySizeInMb?: number;
  /** @default - a name CloudFormation generates */
  readonly functionName?: string;
  /** @default - a name CloudFormation generates */
  readonly logGroupName?: string;
  /** @default logs.RetentionDays.TWO_WEEKS */
  readonly logRetention?: logs.RetentionDays;
}

const DEFAULTS = {
  routes: [] as readonly ReconcileRouteProps[],
  every: Duration.minutes(15),
  lag: Duration.minutes(15),
  heal: true,
  metricsNamespace: 'kfek',
  memorySizeInMb: 512,
  logRetention: logs.RetentionDays.TWO_WEEKS,
} as const;

type ResolvedProps = WithDefaults<ReconcileFunctionProps, typeof DEFAULTS>;

/** Lambda allows 4 KB for all of a function's environment variables together. */
const MAX_ENVIRONMENT_BYTES = 4096;

/**
 * The scheduled reconcile function (issue 32, docs/operations.md "Reconcile"): an EventBridge schedule runs
 * lambda/reconcile/handler.ts every `every`, which compares the window that ended `lag` ago between CloudWatch Logs
 * and OpenSearch, heals what is missing through the raw stream and publishes `MissingEvents` and `HealedEvents`.
 *
 * Least privilege, each grant for one call it makes: FilterLogEvents, StartQuery and DescribeSubscriptionFilters on
 * the configured log groups only (GetQueryResults and StopQuery take no resource); PutRecords on the raw stream
 * (kms:GenerateDataKey on its key); ListBucket limited by `s3:prefix` and GetObject under the three kept prefixes
 * (kms:Decrypt on the bucket key); es:ESHttpGet/Post on the domain's paths, where fine-grained access control then
 * allows it read only (the Pipeline stack maps its role to the reader roles). Its metrics go out as EMF in its own
 * log, so it needs no cloudwatch:PutMetricData.
 */
export class ReconcileFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.IRole;
  readonly logGroup: logs.LogGroup;
  readonly rule: events.Rule;

  constructor(scope: Construct, id: string, props: ReconcileFunctionProps) {
    super(scope, id);
    const p = withDefaults(DEFAULTS, props);
    const stack = Stack.of(this);
    const everyMinutes = p.every.toMinutes();

    // Validate.
    const environment = this.environmentOf(p, stack);

    // Build.
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      logGroupName: props.logGroupName,
      retention: p.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role =
      p.collection === undefined
        ? new iam.Role(this, 'Role', {
            assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
            description: 'kfek reconcile: CloudWatch Logs against OpenSearch, heals through the raw stream',
          })
        : iam.Role.fromRoleArn(this, 'Role', p.collection.reconcileRole.roleArn, { mutable: true });
    this.function = new nodejs.NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, 'lambda', 'reconcile', 'handler.ts'),
      handler: 'handler',
      functionName: props.functionName,
      description: 'kfek: reconciles CloudWatch Logs against OpenSearch per log group and minute, heals gaps',
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: p.memorySizeInMb,
      // A run ends before the next one is due (they judge different windows, but share the account's quotas). No
      // reserved concurrency: a new account's quota of 10 leaves none to reserve.
      timeout: Duration.minutes(Math.min(15, everyMinutes)),
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      applicationLogLevelV2: lambda.ApplicationLogLevel.INFO,
      systemLogLevelV2: lambda.SystemLogLevel.WARN,
      environment: { ...environment, NODE_OPTIONS: '--enable-source-maps' },
      ...LOCAL_ESBUILD_BUNDLING,
    });
    this.rule = new events.Rule(this, 'Schedule', {
      description: `kfek reconcile: every ${everyMinutes} minutes`,
      schedule: events.Schedule.rate(p.every),
      targets: [new targets.LambdaFunction(this.function, { retryAttempts: 2, maxEventAge: p.every })],
    });

    // Wire: one grant per call it makes.
    justifyWildcardResources(this.role, this.grant(p, stack));

    this.acknowledgeFindings();
  }

  /** The function's environment; throws when there is nothing to reconcile, or it would not fit Lambda's limit. */
  private environmentOf(p: ResolvedProps, stack: Stack): Record<string, string> {
    const everyMinutes = p.every.toMinutes();
    if (p.logGroups.length === 0) {
      throw new Error(
        `ReconcileFunction ${this.node.path}: no log groups to reconcile: list them under sources.logGroups, or turn ` +
          "reconcile.enabled off (the account-level policy's groups cannot be enumerated).",
      );
    }
    if ((p.domain === undefined) === (p.collection === undefined)) {
      throw new Error(`ReconcileFunction ${this.node.path}: give exactly one of domain and collection.`);
    }
    if (everyMinutes < 5 || everyMinutes > 60) {
      throw new Error(`ReconcileFunction ${this.node.path}: every is ${everyMinutes} minutes; use 5 to 60.`);
    }
    const environment = reconcileEnvironment({
      logGroups: p.logGroups,
      account: stack.account,
      rawStreamArn: p.rawStream.streamArn,
      bucket: p.bucket.bucketName,
      deadLetterPrefix: p.deadLetterPrefix,
      failedDocumentsPrefix: p.failedDocumentsPrefix,
      ...(p.collection === undefined
        ? { openSearchUrl: `https://${p.domain?.domainEndpoint ?? ''}` }
        : { openSearchUrl: p.collection.endpoint, signingService: 'aoss' as const }),
      indexPrefix: p.indexPrefix,
      indexRotation: p.indexRotation,
      routeStems: Object.fromEntries(p.routes.map((r) => [r.name, r.indexStem])),
      everyMinutes,
      lagMinutes: p.lag.toMinutes(),
      heal: p.heal,
      routes: p.routes,
      metricsNamespace: p.metricsNamespace,
    });
    // Tokens (ARNs, the endpoint) are counted at their usual resolved length: about 100 characters each.
    const bytes = Object.entries(environment).reduce(
      (n, [k, v]) => n + k.length + v.replace(/\$\{Token\[[^\]]+\]\}/g, 'x'.repeat(100)).length,
      0,
    );
    if (bytes > MAX_ENVIRONMENT_BYTES - 200) {
      throw new Error(
        `ReconcileFunction ${this.node.path}: its environment (log groups and routes) takes about ${bytes} bytes, ` +
          `over Lambda's ${MAX_ENVIRONMENT_BYTES} for all variables: reconcile fewer log groups (a profile per team), ` +
          'or run kfek reconcile on a schedule of your own.',
      );
    }
    return environment;
  }

  /** cdk-nag acknowledgements of the schedule's and the function's findings. */
  private acknowledgeFindings(): void {
    Validations.of(this.rule).acknowledge({
      id: 'Serverless-EventBusDLQ',
      reason:
        'A schedule tick EventBridge cannot deliver holds nothing to keep (the window is computed from the time): ' +
        'the ReconcileNotRunning alarm pages when no run starts, and kfek reconcile re-runs the window by hand.',
    });
    Validations.of(this.function).acknowledge({
      id: 'Serverless-LambdaDLQ',
      reason:
        'A scheduled run whose retries fail has nothing to keep: the next run judges the next window, the ' +
        'ReconcileErrors alarm pages, and kfek reconcile re-runs the window by hand (docs/operations.md).',
    });
    Validations.of(this.function).acknowledge({
      id: 'Serverless-LambdaTracing',
      reason:
        'X-Ray is off: a run is measured by its EMF metrics and its log line, and tracing would need ' +
        'xray:PutTraceSegments on Resource "*".',
    });
  }

  private grant(p: ResolvedProps, stack: Stack): { resource: string; reason: string }[] {
    const role = this.role;
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );
    const groupArns = p.logGroups.flatMap((g) => {
      const arn = stack.formatArn({
        service: 'logs',
        resource: 'log-group',
        resourceName: g.name,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      });
      return [arn, `${arn}:*`];
    });
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['logs:FilterLogEvents', 'logs:StartQuery', 'logs:DescribeSubscriptionFilters'],
        resources: groupArns,
      }),
    );
    // Logs Insights' results and cancellation take no resource (the query id is the handle).
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['logs:GetQueryResults', 'logs:StopQuery'], resources: ['*'] }),
    );
    grantPutRecords(p.rawStream, role);
    const prefixes = [p.deadLetterPrefix, ON_FAILURE_KEY_PREFIX, p.failedDocumentsPrefix];
    const objects = prefixes.map((prefix) => p.bucket.arnForObjects(`${prefix}*`));
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: objects }));
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [p.bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': prefixes.map((prefix) => `${prefix}*`) } },
      }),
    );
    p.bucket.encryptionKey?.grantDecrypt(role);
    if (p.collection !== undefined) {
      // IAM admits the request to the collection's data plane; its data access policy then allows reads only.
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['aoss:APIAccessAll'], resources: [p.collection.arn] }),
      );
    }
    const domainPaths = p.domain === undefined ? undefined : `${p.domain.domainArn}/*`;
    if (domainPaths !== undefined) {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['es:ESHttpGet', 'es:ESHttpPost'], resources: [domainPaths] }),
      );
    }
    return [
      ...p.logGroups.map((_, i) => ({
        resource: groupArns[2 * i + 1],
        reason: 'The log group\'s own ARN with ":*", the form CloudWatch Logs authorizes some calls against.',
      })),
      {
        resource: '*',
        reason:
          'logs:GetQueryResults and logs:StopQuery support no resource-level permissions (a query id only).',
      },
      ...objects.map((resource) => ({
        resource,
        reason:
          'Kept objects are named by their writers (Lambda, Firehose, the transform) under this prefix: read only.',
      })),
      ...(domainPaths === undefined
        ? []
        : [
            {
              resource: domainPaths,
              reason:
                "The domain's own path space (_mget, _search on kfek's indices); fine-grained access control maps " +
                'this role to the read-only reader roles.',
            },
          ]),
    ];
  }
}
