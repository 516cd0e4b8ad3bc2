/**
 * The stateless Pipeline stack (class comment below). Its parts are created by one module each, in the stack's scope
 * with the construct ids they always had: the transform (./pipeline-transform.ts), its reader, the delivery
 * (./pipeline-delivery.ts), and the provisioner (./pipeline-provisioner.ts); the constructor wires them and sets the
 * update order between them (test/lib/stacks/update-order.test.ts), which is only visible where they meet.
 */
import { Annotations, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import type * as firehose from 'aws-cdk-lib/aws-kinesisfirehose';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import {
  type DeliveryConfig,
  type LogGroupSource,
  type OpenSearchConfig,
  type ReconcileConfig,
  type RouteConfig,
  type TransformConfig,
  type Transport,
  routeOverlapWarnings,
} from '../../core/config';
import type { PhysicalNames } from '../../core/contracts/physical-names';
import { DEFAULT_METRICS_NAMESPACE } from '../../core/contracts/transform-env';
import type { CollectionTarget, DirectToOpenSearch } from '../constructs/direct-to-opensearch';
import type { FirehoseToOpenSearch } from '../constructs/firehose-to-opensearch';
import type { OpenSearchProvisioner } from '../constructs/opensearch-provisioner';
import type { PipesTransport } from '../constructs/pipes-transport';
import { ReconcileFunction } from '../constructs/reconcile-function';
import { createDelivery } from './pipeline-delivery';
import { createProvisioner, provisionFirst } from './pipeline-provisioner';
import { createTransform } from './pipeline-transform';
import { retentionDays } from '../retention';

export interface PipelineStackProps extends StackProps {
  /** The subscription target (from the stateful stack). */
  readonly rawStream: kinesis.IStream;
  /** The transform's output and Firehose's source (from the stateful stack). */
  readonly eventsStream: kinesis.IStream;
  /** The domain (`openSearch.kind: domain`); exactly one of this and {@link collection}. */
  readonly domain?: opensearch.IDomain;
  /**
   * The Serverless collection (`openSearch.kind: serverless`, docs/serverless.md): the indexer writes it as its
   * writer role, signing for `aoss`; the reconcile function reads it as the role the collection names; no Firehose or provisioner runs against it yet.
   */
  readonly collection?: CollectionTarget;
  /**
   * Failed documents (Firehose), dead-lettered poison records (transform) and, with the `lambda` transport, the
   * event source mapping's discarded batches (under `aws/lambda/`).
   */
  readonly bucket: s3.IBucket;
  /** Dead-letter target of the pipe (transport `pipes`; unused by the `lambda` transport). */
  readonly failureQueue: sqs.IQueue;
  /**
   * The domain's fine-grained access control master user (the Search stack's `OpenSearchAdminRole`). The
   * OpenSearch provisioner runs as it, signing its requests with SigV4, and attaches its own grants to it.
   */
  readonly openSearchAdminRole: iam.IRole;
  /** What the provisioner applies: index template, retention and role mappings (config `openSearch`). */
  readonly openSearch: Pick<OpenSearchConfig, 'indexTemplate' | 'retention' | 'access' | 'auditLogs'>;
  /** @default 'lambda' */
  readonly transport?: Transport;
  /**
   * Regions besides this stack's own that send logs to the raw stream (config `sources.regions`). With this stack's
   * region they are the only regions the transform writes into `cloudwatch.region` (docs/schema.md, "Which fields
   * you can trust").
   * @default - none: only this stack's region
   */
  readonly sourceRegions?: readonly string[];
  readonly transform: TransformConfig;
  readonly delivery: DeliveryConfig;
  /**
   * Routes (config `routes`, docs/teams-and-routes.md): the transform gets them in its environment and marks each
   * document with its route; the provisioner applies each route's template, retention policy, reader role and
   * index pattern, and the ingest pipeline moves a marked document to its route's indices.
   * @default - none: every document goes to the default route's indices
   */
  readonly routes?: readonly RouteConfig[];
  /**
   * The scheduled reconcile function (config `reconcile`, when enabled) and the log groups it reconciles (config
   * `sources.logGroups`). Its role is mapped to the reader roles of the default route and of every route.
   * @default - none
   */
  readonly reconcile?: Pick<ReconcileConfig, 'everyMinutes' | 'lagMinutes' | 'heal' | 'memoryMb'> & {
    readonly logGroups: readonly Pick<LogGroupSource, 'name' | 'filterPattern'>[];
  };
  /**
   * How long (hours) the provisioner keeps a retired route name, stem or prefix after its last index is gone
   * (core/config `retiredNamesHours`: the streams' retention or the failed-records bucket's expiry, the longer).
   * @default 0
   */
  readonly keepRetiredHours?: number;
  /**
   * CloudWatch metrics namespace of the transform's EMF metrics.
   * @default 'kfek' (DEFAULT_METRICS_NAMESPACE)
   */
  readonly metricsNamespace?: string;
  /**
   * Fixed names of the transform function, the delivery stream and the log groups
   * (core/contracts/physical-names.ts). The Monitoring and Sources stacks and the CLI find them by these names, so
   * this stack exports nothing and can be updated, or destroyed and redeployed, without another stack pinning it.
   * @default - names CloudFormation generates
   */
  readonly names?: Pick<
    PhysicalNames,
    | 'transformFunction'
    | 'transformLogGroup'
    | 'deliveryStream'
    | 'deliveryLogGroup'
    | 'pipeLogGroup'
    | 'provisionerLogGroup'
    | 'provisionerProviderLogGroup'
    | 'reconcileFunction'
    | 'reconcileLogGroup'
    | 'indexerFunction'
    | 'indexerLogGroup'
    | 'indexerRole'
  >;
}

/**
 * The stateless stack: moves records from the raw stream to OpenSearch. It imports from the Search stack only and
 * exports nothing, so changing it never pins or is pinned by another stack; destroying and redeploying it loses no
 * log data, but a new delivery stream starts reading the events stream at its creation time: replay the events
 * stream's window afterwards (docs/deploy.md, "Changing a deployed profile").
 *
 * - the transform: a Lambda with a Kinesis event source mapping (transport `lambda`) or an EventBridge pipe with
 *   the Pipes enrichment function (transport `pipes`);
 * - the OpenSearch provisioner (custom resource) and the Firehose delivery stream from the events stream to
 *   OpenSearch, which depends on it: the template, retention policy and writer mapping exist before the first
 *   document is delivered.
 */
export class PipelineStack extends Stack {
  /** The function doing the transform: the event source mapping handler or the Pipes enrichment. */
  readonly transformFunction: lambda.IFunction;
  readonly transport: Transport;
  /** The pipe (transport `pipes` only). */
  readonly pipe?: PipesTransport;
  /** The Firehose delivery (`delivery.mode: firehose`). */
  readonly delivery?: FirehoseToOpenSearch;
  readonly deliveryStream?: firehose.CfnDeliveryStream;
  /** The indexer function (`delivery.mode: direct`). */
  readonly indexer?: DirectToOpenSearch;
  /** The delivery's role (Firehose's or the indexer's), mapped to the OpenSearch writer role by {@link provisioner}. */
  readonly writerRole: iam.IRole;
  /**
   * Applies index template, retention policy, roles and Dashboards objects before Firehose delivers (a domain only:
   * a collection's templates are not applied yet, docs/serverless.md "Left to do").
   */
  readonly provisioner?: OpenSearchProvisioner;
  /** The pipeline's own log groups: an account-level subscription must exclude them. */
  readonly logGroups: readonly logs.ILogGroup[];
  /** The scheduled reconcile function (config `reconcile.enabled`). */
  readonly reconcile?: ReconcileFunction;

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const d = props.delivery;
    const routes = props.routes ?? [];
    this.transport = props.transport ?? 'lambda';
    // Overlapping routes are legal (the first match wins) but worth a look; a wholly shadowed one the config refused.
    for (const warning of routeOverlapWarnings(routes)) {
      Annotations.of(this).addWarningV2('kfek:route-overlap', warning);
    }
    const names = props.names;
    const { domain, collection } = props;
    this.validateDestination(props);

    // Each log retention is looked up once, for every log group of its section.
    const transformLogRetention = retentionDays(
      props.transform.logRetentionDays,
      'transform.logRetentionDays',
    );
    const deliveryLogRetention = retentionDays(d.logRetentionDays, 'delivery.logRetentionDays');
    const metricsNamespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
    const transform = createTransform(this, {
      transport: this.transport,
      rawStream: props.rawStream,
      eventsStream: props.eventsStream,
      bucket: props.bucket,
      failureQueue: props.failureQueue,
      transform: props.transform,
      aggregation: d.aggregation,
      routes,
      metricsNamespace,
      sourceRegions: props.sourceRegions ?? [],
      logRetention: transformLogRetention,
      ...(names === undefined ? {} : { names }),
    });
    this.transformFunction = transform.function;
    this.pipe = transform.pipe;
    const ownLogGroups: logs.ILogGroup[] = [...transform.logGroups];

    // The events stream's reader: Firehose, or with `delivery.mode: direct` the indexer (docs/delivery.md).
    const delivery = createDelivery(this, {
      eventsStream: props.eventsStream,
      ...(collection === undefined ? { domain } : { collection }),
      bucket: props.bucket,
      delivery: d,
      indexShards: props.openSearch.indexTemplate.shards,
      routes,
      metricsNamespace,
      logRetention: deliveryLogRetention,
      ...(names === undefined ? {} : { names }),
    });
    this.delivery = delivery.firehose;
    this.deliveryStream = delivery.firehose?.deliveryStream;
    this.indexer = delivery.indexer;
    this.writerRole = delivery.writerRole;
    ownLogGroups.push(delivery.logGroup);
    // The transform starts at the raw stream's oldest record as soon as its mapping or pipe exists, while a delivery
    // stream reads only what reaches the events stream after its own creation: create the reader first, so that on
    // a first deploy, or a redeploy of this stack, nothing the transform writes precedes its reader.
    for (const consumer of transform.consumers) consumer.node.addDependency(delivery.reader);

    // The scheduled reconcile function reads what the provisioner lets readers read: its role is a reader of the
    // default route's indices and of every route's.
    const r = props.reconcile;
    if (r !== undefined) {
      this.reconcile = this.createReconcile(props, r, metricsNamespace, deliveryLogRetention);
      ownLogGroups.push(this.reconcile.logGroup);
    }

    // On a collection the provisioner applies kfek's index templates only (docs/serverless.md), as the admin role
    // the collection's data access policy names; on a domain, everything (templates, ISM, roles, Dashboards).
    this.provisioner = this.createProvisioner(props, delivery.reader, deliveryLogRetention);
    ownLogGroups.push(...this.provisioner.logGroups);
    this.logGroups = ownLogGroups;
    this.addOutputs(names);
  }

  /** The provisioner, and the update order it sets: everything that writes or reads the domain waits for it. */
  private createProvisioner(
    props: PipelineStackProps,
    reader: Construct,
    logRetention: logs.RetentionDays,
  ): OpenSearchProvisioner {
    const names = props.names;
    const { domain, collection } = props;
    const provisioner = createProvisioner(this, {
      ...(collection === undefined
        ? { domain }
        : { collection: { endpoint: collection.endpoint, arn: collection.arn } }),
      role: props.openSearchAdminRole,
      openSearch: props.openSearch,
      indexPrefix: props.delivery.indexPrefix,
      writerRole: this.writerRole,
      // With Firehose delivering, the indexer's fixed-name role stays mapped too: on a switch from direct, the
      // indexer keeps writing until CloudFormation removes its mapping in the update's cleanup, after the new
      // delivery stream exists, so nothing it reads in between is refused (docs/delivery.md, "Switching delivery").
      ...(this.indexer === undefined && names !== undefined
        ? { standbyWriterRoleArn: this.roleArnOf(names.indexerRole) }
        : {}),
      ...(this.reconcile === undefined ? {} : { reconcileRoleArn: this.reconcile.role.roleArn }),
      routes: props.routes ?? [],
      ...(props.keepRetiredHours === undefined ? {} : { keepRetiredHours: props.keepRetiredHours }),
      logRetention,
      ...(names === undefined ? {} : { names }),
    });
    provisionFirst(provisioner, {
      reader,
      ...(this.indexer === undefined ? {} : { indexer: this.indexer.function }),
      transform: this.transformFunction,
      ...(this.reconcile === undefined ? {} : { reconcile: this.reconcile.function }),
    });
    return provisioner;
  }

  /** Exactly one destination; a collection only with the indexer, and reconcile only as its reader role. */
  private validateDestination(props: PipelineStackProps): void {
    const { domain, collection } = props;
    if ((domain === undefined) === (collection === undefined)) {
      throw new Error(
        `${this.node.path}: give the pipeline exactly one destination, a domain or a collection.`,
      );
    }
    if (collection !== undefined && props.delivery.mode !== 'direct') {
      throw new Error(
        `${this.node.path}: a Serverless collection is written by the indexer only (delivery.mode "direct", ` +
          'docs/serverless.md); the config check refuses "firehose".',
      );
    }
    if (collection !== undefined && props.reconcile !== undefined && collection.reconcileRole === undefined) {
      throw new Error(
        `${this.node.path}: the reconcile function reads a collection as the role its data access policy names: ` +
          'create the collection with reconcileReader (the Search stack does when reconcile.enabled is true).',
      );
    }
  }

  private createReconcile(
    props: PipelineStackProps,
    r: NonNullable<PipelineStackProps['reconcile']>,
    metricsNamespace: string,
    logRetention: logs.RetentionDays,
  ): ReconcileFunction {
    const { names, collection } = props;
    return new ReconcileFunction(this, 'Reconcile', {
      logGroups: r.logGroups,
      rawStream: props.rawStream,
      bucket: props.bucket,
      deadLetterPrefix: props.transform.deadLetterPrefix,
      failedDocumentsPrefix: props.delivery.failedDocumentsPrefix,
      ...(collection?.reconcileRole === undefined
        ? { domain: props.domain }
        : { collection: { ...collection, reconcileRole: collection.reconcileRole } }),
      indexPrefix: props.delivery.indexPrefix,
      indexRotation: props.delivery.indexRotation,
      routes: props.routes ?? [],
      every: Duration.minutes(r.everyMinutes),
      lag: Duration.minutes(r.lagMinutes),
      heal: r.heal,
      metricsNamespace,
      memorySizeInMb: r.memoryMb,
      functionName: names?.reconcileFunction,
      logGroupName: names?.reconcileLogGroup,
      logRetention,
    });
  }

  /**
   * The doctor resolves the writer mapping's ARNs from these outputs (cli/doctor/domain-spec.ts): the delivery's
   * role, and the indexer's fixed-name ARN that Firehose's mapping also names.
   */
  private addOutputs(names: PipelineStackProps['names']): void {
    if (this.indexer === undefined) {
      new CfnOutput(this, 'FirehoseRoleArn', { value: this.writerRole.roleArn });
    }
    const indexerRoleArn =
      this.indexer?.role.roleArn ?? (names === undefined ? undefined : this.roleArnOf(names.indexerRole));
    if (indexerRoleArn !== undefined) new CfnOutput(this, 'IndexerRoleArn', { value: indexerRoleArn });
    new CfnOutput(this, 'TransformFunctionName', { value: this.transformFunction.functionName });
  }

  /** The ARN of this account's IAM role `roleName` (a fixed name, whether or not the role exists yet). */
  private roleArnOf(roleName: string): string {
    return this.formatArn({ service: 'iam', region: '', resource: 'role', resourceName: roleName });
  }
}
