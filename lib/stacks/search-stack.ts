import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { FailedRecordsConfig, OpenSearchConfig, StreamConfig } from '../../core/config';
import type { AccessFamily } from '../../core/opensearch/serverless-access';
import { LogsDeliveryRole } from '../constructs/logs-delivery-role';
import { SearchDomain } from '../constructs/search-domain';
import { ServerlessCollection } from '../constructs/serverless-collection';
import { ServerlessRetention, type ServerlessRetentionProps } from '../constructs/serverless-retention';
import { retentionDays } from '../retention';

export interface SearchStackProps extends StackProps {
  /** OpenSearch domain name (3-28 characters). */
  readonly domainName: string;
  /**
   * Fixed names of the raw and events streams. A Kinesis stream's `Name` is create-only: setting or changing it on
   * a deployed stack REPLACES the stream (and loses what it holds), so kfek names both on the first deploy
   * (core/contracts/physical-names.ts). Destinations in other regions name the raw stream by an ARN built from
   * its name (lib/cross-account.ts).
   * @default - names CloudFormation generates
   */
  readonly streamNames?: { readonly raw: string; readonly events: string };
  readonly openSearch: OpenSearchConfig;
  readonly streams: { readonly raw: StreamConfig; readonly events: StreamConfig };
  /** How long the failed-records bucket keeps an object (config `failedRecords`). */
  readonly failedRecords: FailedRecordsConfig;
  /**
   * kfek's index families and their readers (core/config `accessFamiliesOf`): the collection's data access policy
   * when `openSearch.kind` is `serverless`.
   * @default - no families: only admins and no writer reach the collection's indices
   */
  readonly accessFamilies?: readonly AccessFamily[];
  /**
   * The Pipeline stack runs the scheduled reconcile function (config `reconcile.enabled`): a serverless profile makes
   * its role beside the collection's data access policy, which names it.
   * @default false
   */
  readonly reconcile?: boolean;
  /**
   * A serverless profile's scheduled retention function (lib/constructs/serverless-retention.ts): kfek's families
   * with their retention, the rotation and its names. The collection has no lifecycle policy of its own.
   * @default - none: the collection keeps its indices
   */
  readonly serverlessRetention?: Omit<ServerlessRetentionProps, 'collectionEndpoint' | 'role'>;
  /**
   * What happens to the domain, bucket, streams and queue when this stack is deleted.
   * @default RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The stateful stack: everything that holds data.
 *
 * - the OpenSearch domain (the logs themselves);
 * - the bucket for documents OpenSearch rejected and records the transform could not parse, encrypted with the
 *   streams' key (the records left a KMS-encrypted stream and stay under the same key) and expired after
 *   `failedRecords.expireAfterDays`;
 * - the raw and events Kinesis streams and their KMS key. Streams hold up to `retentionHours` of logs in flight:
 *   deleting or replacing one loses everything not yet delivered, and the raw stream is the target of every
 *   subscription filter (and of the account policy). Keeping them here means the stateless Pipeline stack can be
 *   destroyed and redeployed (e.g. to switch the transport between Lambda and Pipes) without losing or re-pointing
 *   anything;
 * - the dead-letter queue of the pipe (transport `pipes`: metadata of batches given up on, kept 14 days). The
 *   Lambda transport sends discarded batches, data included, to the bucket instead (`aws/lambda/` prefix). The queue
 *   exists whatever the transport, so switching the transport only ever replaces the Pipeline stack;
 * - `OpenSearchAdminRole`, the domain's fine-grained access control master user. It lives here because the domain
 *   names it (`MasterUserARN`); the Pipeline stack's provisioner Lambda runs as it and attaches its own grants, so
 *   references only point from Pipeline to Search.
 *
 * With config `removalPolicy: retain` all of it is RETAINed and the stack is termination protected (see
 * `buildKfek` in lib/app.ts).
 */
export class SearchStack extends Stack {
  /** The domain (`openSearch.kind: domain`); undefined for a serverless profile, which has {@link collection}. */
  readonly domain?: opensearch.IDomain;
  /** The concrete domain construct, for the OpenSearch provisioner (issue 5); undefined for serverless. */
  readonly searchDomain?: SearchDomain;
  /**
   * The OpenSearch Serverless collection, its policies and the indexer's writer role (`openSearch.kind:
   * serverless`, issue 42); the Pipeline stack reads its endpoint, ARN and writer role.
   */
  readonly collection?: ServerlessCollection;
  readonly rawStream: kinesis.IStream;
  readonly eventsStream: kinesis.IStream;
  readonly streamKey: kms.IKey;
  /** Failed documents (Firehose) and dead-lettered poison records (transform). */
  readonly bucket: s3.IBucket;
  /** Dead-letter target of the pipe (transport `pipes`); the Lambda transport uses the bucket. */
  readonly failureQueue: sqs.IQueue;
  /**
   * The domain's master user: an IAM role only Lambda can assume, with no policy of its own. The OpenSearch
   * provisioner (Pipeline stack) runs as it and attaches the grants it needs.
   */
  readonly adminRole: iam.IRole;
  /** The domain's log groups, which an account-level subscription must exclude. */
  readonly logGroups: readonly logs.ILogGroup[];
  /** The role subscription filters and the account policy pass to CloudWatch Logs to write the raw stream. */
  readonly subscriptionRole: iam.IRole;

  constructor(scope: Construct, id: string, props: SearchStackProps) {
    super(scope, id, props);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE;
    const os = props.openSearch;

    this.streamKey = new kms.Key(this, 'StreamKey', {
      description: 'Encrypts the kfek raw and events Kinesis streams and the failed-records bucket',
      enableKeyRotation: true,
      removalPolicy,
    });
    this.rawStream = this.createStream('RawStream', props.streams.raw, removalPolicy, props.streamNames?.raw);
    this.eventsStream = this.createStream(
      'EventsStream',
      props.streams.events,
      removalPolicy,
      props.streamNames?.events,
    );
    // Shared by every subscription filter and the account policy; it changes only with the raw stream, so it lives
    // beside it and the Sources stack imports it from here, never from the often-changing Pipeline stack.
    this.subscriptionRole = new LogsDeliveryRole(this, 'LogsDeliveryRole', { stream: this.rawStream }).role;
    this.bucket = this.createFailedRecordsBucket(props.failedRecords.expireAfterDays, removalPolicy);
    this.failureQueue = this.createFailureQueue(removalPolicy);

    // Trust Lambda only: whoever runs as this role is all_access + security_manager on the domain. It gets no policy
    // here; the provisioner construct attaches exactly the log and es:ESHttp* grants its function needs.
    this.adminRole = new iam.Role(this, 'OpenSearchAdminRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `kfek (${props.domainName}): OpenSearch master user, assumed only by the provisioner Lambda`,
    });

    if (os.kind === 'serverless') {
      this.collection = new ServerlessCollection(this, 'Collection', {
        collectionName: props.domainName,
        settings: os.serverless,
        families: props.accessFamilies ?? [],
        reconcileReader: props.reconcile === true,
        adminRole: this.adminRole,
        adminPrincipals: os.access.adminBackendRoles,
        removalPolicy,
      });
      this.logGroups = this.serverlessRetention(props, this.collection);
      new CfnOutput(this, 'CollectionEndpoint', { value: this.collection.collectionEndpoint });
      new CfnOutput(this, 'DashboardsUrl', { value: `${this.collection.collectionEndpoint}/_dashboards` });
    } else {
      this.searchDomain = this.buildDomain(props, removalPolicy);
      this.domain = this.searchDomain.domain;
      this.logGroups = this.searchDomain.logGroups;
      new CfnOutput(this, 'DashboardsUrl', { value: `https://${this.domain.domainEndpoint}/_dashboards` });
    }
    new CfnOutput(this, 'OpenSearchAdminRoleArn', { value: this.adminRole.roleArn });
    new CfnOutput(this, 'FailedRecordsBucketName', { value: this.bucket.bucketName });

    this.exportForConsumers();
  }

  private createStream(
    sid: string,
    cfg: StreamConfig,
    removalPolicy: RemovalPolicy,
    streamName?: string,
  ): kinesis.Stream {
    const s = new kinesis.Stream(this, sid, {
      streamName,
      streamMode: cfg.mode === 'ON_DEMAND' ? kinesis.StreamMode.ON_DEMAND : kinesis.StreamMode.PROVISIONED,
      shardCount: cfg.mode === 'ON_DEMAND' ? undefined : cfg.shardCount,
      retentionPeriod: Duration.hours(cfg.retentionHours),
      encryption: kinesis.StreamEncryption.KMS,
      encryptionKey: this.streamKey,
      removalPolicy,
    });
    Validations.of(s).acknowledge({
      id: 'AwsSolutions-KDS3',
      reason:
        'A customer managed key is used deliberately: rotation is on, and its key policy and grants are auditable ' +
        '(the aws/kinesis key cannot be scoped).',
    });
    return s;
  }

  private createFailedRecordsBucket(expireAfterDays: number, removalPolicy: RemovalPolicy): s3.Bucket {
    const bucket = new s3.Bucket(this, 'FailedRecordsBucket', {
      // The stream key, not SSE-S3: whoever may not decrypt the streams may not read what fell out of them either.
      // S3 Bucket Keys make S3 ask KMS for a bucket-level key instead of one data key per object, which cuts the KMS
      // requests (and their cost) of Firehose's and Lambda's writes
      // (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucket-key.html). Every writer needs
      // kms:GenerateDataKey on the key (granted where each writer is defined), every reader kms:Decrypt.
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: this.streamKey,
      bucketKeyEnabled: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: false,
      removalPolicy,
      autoDeleteObjects: false,
      lifecycleRules: [
        {
          // Config validation keeps this above the index retention: a record is replayable while the logs around
          // it are searchable, and gone (with its possibly sensitive content) some time after.
          expiration: Duration.days(expireAfterDays),
          // Parts of an abandoned multipart upload are stored and billed, invisibly, until the upload is aborted.
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });
    Validations.of(bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Only the pipeline roles write here (failed documents, poison records) and people read it to replay; ' +
        'object-level access is auditable with CloudTrail data events, and an access-log bucket would itself need one.',
    });
    return bucket;
  }

  private createFailureQueue(removalPolicy: RemovalPolicy): sqs.Queue {
    const queue = new sqs.Queue(this, 'FailureQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
      removalPolicy,
    });
    for (const id of ['AwsSolutions-SQS3', 'Serverless-SQSRedrivePolicy']) {
      Validations.of(queue).acknowledge({
        id,
        reason: 'This queue is itself the dead-letter destination of the pipe.',
      });
    }
    return queue;
  }

  /** A serverless profile's retention function; its log group is the stack's only one (a collection logs nothing). */
  private serverlessRetention(props: SearchStackProps, collection: ServerlessCollection): logs.ILogGroup[] {
    if (props.serverlessRetention === undefined) return [];
    const retention = new ServerlessRetention(this, 'Retention', {
      ...props.serverlessRetention,
      collectionEndpoint: collection.collectionEndpoint,
      role: collection.retentionRole,
    });
    return [retention.logGroup];
  }

  private buildDomain(props: SearchStackProps, removalPolicy: RemovalPolicy): SearchDomain {
    const os = props.openSearch;
    return new SearchDomain(this, 'Search', {
      domainName: props.domainName,
      engineVersion: os.engineVersion,
      dataNodeInstanceType: os.dataNodeInstanceType,
      dataNodeCount: os.dataNodeCount,
      volumeSizeGb: os.volumeSizeGb,
      zoneAwareness: os.zoneAwareness,
      dedicatedMasters: os.dedicatedMasters,
      masterUserArn: this.adminRole.roleArn,
      logRetention: retentionDays(os.logRetentionDays, 'openSearch.logRetentionDays'),
      removalPolicy,
    });
  }

  /**
   * Exports every value another stack of the app may import, whatever the profile uses today.
   *
   * CDK creates an export only for the values some consumer references, and CloudFormation refuses to remove an
   * export while another stack imports it. CDK deploys this stack first, so a config change after which a consumer
   * stops using a value (switching the transport stops the Pipeline stack using the failure queue) would remove
   * the export while the consumer's deployed template still imports it: "Cannot delete export ... as it is in
   * use" (aws/aws-cdk#7602). Exporting the whole set always keeps the exports stable; their values never change
   * because nothing here is ever replaced (fixed names, no create-only property that config changes). The
   * change-plan test (test/lib/transitions.test.ts) checks both.
   */
  private exportForConsumers(): void {
    const values = [
      this.rawStream.streamArn,
      this.rawStream.streamName,
      this.eventsStream.streamArn,
      this.eventsStream.streamName,
      this.streamKey.keyArn,
      this.bucket.bucketArn,
      this.bucket.bucketName,
      this.failureQueue.queueArn,
      this.adminRole.roleArn,
      this.adminRole.roleName,
      this.subscriptionRole.roleArn,
      ...(this.domain ? [this.domain.domainArn, this.domain.domainName, this.domain.domainEndpoint] : []),
      ...(this.collection
        ? [
            this.collection.collectionArn,
            this.collection.collectionEndpoint,
            this.collection.writerRole.roleArn,
          ]
        : []),
      ...this.logGroups.map((group) => group.logGroupName),
    ];
    values.forEach((value) => this.exportValue(value));
  }
}
