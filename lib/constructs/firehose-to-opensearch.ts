import { ArnFormat, Duration, RemovalPolicy, Size, Stack, Token, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as firehose from 'aws-cdk-lib/aws-kinesisfirehose';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import type { IndexRotation } from '../../core/config';
import { type WithDefaults, withDefaults } from '../defaults';
import { grantBucketKeyWrite } from './bucket-key';
import { justifyWildcardResources } from '../nag';

export interface FirehoseToOpenSearchProps {
  /** The Kinesis stream Firehose reads (the events stream). */
  readonly sourceStream: kinesis.IStream;
  readonly domain: opensearch.IDomain;
  /** Index name prefix; with rotation Firehose appends a date suffix (`logs-2026-11-22`). */
  readonly indexName: string;
  /** @default 'OneDay' */
  readonly indexRotation?: IndexRotation;
  /** Bucket for documents OpenSearch rejected (S3 backup mode FailedDocumentsOnly). */
  readonly backupBucket: s3.IBucket;
  /**
   * Key prefix of failed documents; must end with `/`.
   * @default 'failed-documents/'
   */
  readonly backupPrefix?: string;
  /** @default Duration.seconds(60) */
  readonly bufferingInterval?: Duration;
  /** @default Size.mebibytes(5) */
  readonly bufferingSize?: Size;
  /** How long Firehose retries a failed bulk request before backing the documents up to S3. @default Duration.minutes(5) */
  readonly retryDuration?: Duration;
  /** Retention of the delivery error log group. @default logs.RetentionDays.TWO_WEEKS */
  readonly logRetention?: logs.RetentionDays;
  /**
   * The delivery stream's name. `DeliveryStreamName` is create-only, so give one that never changes; monitoring
   * and the CLI then find the stream by it instead of importing it.
   * @default - a name CloudFormation generates
   */
  readonly deliveryStreamName?: string;
  /**
   * The name of the delivery error log group.
   * @default - a name CloudFormation generates
   */
  readonly logGroupName?: string;
}

const DEFAULTS = {
  indexRotation: 'OneDay' as IndexRotation,
  backupPrefix: 'failed-documents/',
  bufferingInterval: Duration.seconds(60),
  bufferingSize: Size.mebibytes(5),
  retryDuration: Duration.minutes(5),
  logRetention: logs.RetentionDays.TWO_WEEKS,
};

type ResolvedProps = WithDefaults<FirehoseToOpenSearchProps, typeof DEFAULTS>;

/** The delivery error log group's two streams: the OpenSearch destination's and the S3 backup's. */
interface DeliveryLogStreams {
  readonly destination: logs.LogStream;
  readonly backup: logs.LogStream;
}

/**
 * Throws on props Firehose would refuse or kfek's provisioner would not cover, all problems in one message; returns
 * the limits in Firehose's units. Limits from the Firehose API reference: AmazonopensearchserviceBufferingHints,
 * RetryOptions.
 */
function validateFirehoseProps(
  where: string,
  p: ResolvedProps,
): { readonly interval: number; readonly sizeMb: number; readonly retry: number } {
  const interval = p.bufferingInterval.toSeconds();
  const sizeMb = p.bufferingSize.toMebibytes();
  const retry = p.retryDuration.toSeconds();
  const problems: string[] = [];
  if (interval < 0 || interval > 900) problems.push(`bufferingInterval ${interval} s is outside 0..900 s`);
  if (sizeMb < 1 || sizeMb > 100) problems.push(`bufferingSize ${sizeMb} MiB is outside 1..100 MiB`);
  if (retry < 0 || retry > 7200) problems.push(`retryDuration ${retry} s is outside 0..7200 s`);
  if (!Token.isUnresolved(p.backupPrefix) && !p.backupPrefix.endsWith('/')) {
    problems.push(
      `backupPrefix ${JSON.stringify(p.backupPrefix)} must end with "/" (e.g. "failed-documents/")`,
    );
  }
  if (!Token.isUnresolved(p.indexName) && !/^[a-z0-9][a-z0-9._-]*$/.test(p.indexName)) {
    problems.push(
      `indexName ${JSON.stringify(p.indexName)} must be a lowercase OpenSearch index name such as "logs"`,
    );
  }
  if (p.indexRotation === 'NoRotation') {
    // kfek's template, retention policy and roles cover `<indexName>-*`; the bare index would be none of theirs.
    problems.push(
      `indexRotation NoRotation writes one index named ${JSON.stringify(p.indexName)}, which the OpenSearch ` +
        `provisioner's template, retention policy and roles (on "${p.indexName}-*") do not cover; use OneDay`,
    );
  }
  if (problems.length > 0) {
    throw new Error(`FirehoseToOpenSearch ${where}: ${problems.join('; ')}.`);
  }
  return { interval, sizeMb, retry };
}

/**
 * A Firehose delivery stream from a Kinesis stream to an OpenSearch Service domain, with failed documents backed
 * up to S3 and delivery errors logged to CloudWatch. aws-cdk-lib's Firehose L2 has no OpenSearch destination, so
 * this wraps `CfnDeliveryStream` behind typed props (as aws-solutions-constructs does).
 *
 * The role gets what the Firehose developer guide lists for an OpenSearch destination, no more:
 * https://docs.aws.amazon.com/firehose/latest/dev/controlling-access.html#using-iam-es
 */
export class FirehoseToOpenSearch extends Construct {
  readonly deliveryStream: firehose.CfnDeliveryStream;
  /** The role Firehose delivers with; map it to an OpenSearch writer role under fine-grained access control. */
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: FirehoseToOpenSearchProps) {
    super(scope, id);
    const p = withDefaults(DEFAULTS, props);
    const limits = validateFirehoseProps(this.node.path, p);

    // Build.
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      logGroupName: props.logGroupName,
      retention: p.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // The streams live and die with their log group (CDK's LogStream default is RETAIN, which would leave them
    // behind a rolled-back create).
    const logStream = (id: string): logs.LogStream =>
      new logs.LogStream(this, id, { logGroup: this.logGroup, removalPolicy: RemovalPolicy.DESTROY });
    const streams = { destination: logStream('DestinationDelivery'), backup: logStream('BackupDelivery') };

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('firehose.amazonaws.com', {
        conditions: { StringEquals: { 'aws:SourceAccount': Stack.of(this).account } },
      }),
      description:
        'Firehose reads the kfek events stream and writes OpenSearch and the failed-documents bucket',
    });
    this.grant(p, streams);

    const domainArn = p.domain.domainArn;
    this.deliveryStream = new firehose.CfnDeliveryStream(this, 'Resource', {
      deliveryStreamName: props.deliveryStreamName,
      deliveryStreamType: 'KinesisStreamAsSource',
      kinesisStreamSourceConfiguration: {
        kinesisStreamArn: p.sourceStream.streamArn,
        roleArn: this.role.roleArn,
      },
      amazonopensearchserviceDestinationConfiguration: {
        domainArn,
        indexName: p.indexName,
        indexRotationPeriod: p.indexRotation,
        // No Firehose id in the bulk request: its ids are per Kinesis record, so they cannot collapse an event the
        // transform wrote twice. The index template's default pipeline sets `_id` from log group, stream and event
        // id instead (core/opensearch/ingest-pipeline.ts). AWS documents NO_DOCUMENT_ID as the lighter setting for
        // log ingestion: https://docs.aws.amazon.com/firehose/latest/APIReference/API_DocumentIdOptions.html
        documentIdOptions: { defaultDocumentIdFormat: 'NO_DOCUMENT_ID' },
        roleArn: this.role.roleArn,
        bufferingHints: { intervalInSeconds: limits.interval, sizeInMBs: limits.sizeMb },
        retryOptions: { durationInSeconds: limits.retry },
        s3BackupMode: 'FailedDocumentsOnly',
        s3Configuration: {
          bucketArn: p.backupBucket.bucketArn,
          roleArn: this.role.roleArn,
          prefix: p.backupPrefix,
          errorOutputPrefix: `${p.backupPrefix}errors/!{firehose:error-output-type}/`,
          compressionFormat: 'GZIP',
          bufferingHints: { intervalInSeconds: 300, sizeInMBs: 5 },
          cloudWatchLoggingOptions: {
            enabled: true,
            logGroupName: this.logGroup.logGroupName,
            logStreamName: streams.backup.logStreamName,
          },
        },
        cloudWatchLoggingOptions: {
          enabled: true,
          logGroupName: this.logGroup.logGroupName,
          logStreamName: streams.destination.logStreamName,
        },
      },
    });
    // Firehose validates its access when the delivery stream is created: the policy must exist first.
    this.deliveryStream.node.addDependency(this.role);
    Validations.of(this.deliveryStream).acknowledge({
      id: 'AwsSolutions-KDF1',
      reason:
        'A delivery stream with a Kinesis stream source cannot enable its own SSE; the source stream is KMS-encrypted ' +
        'and OpenSearch and S3 encrypt at rest.',
    });
  }

  /** The role's grants, each with the reason for its wildcards. */
  private grant(p: ResolvedProps, streams: DeliveryLogStreams): void {
    // kinesis:DescribeStream/GetShardIterator/GetRecords/ListShards (+ kms:Decrypt on the stream key).
    p.sourceStream.grantRead(this.role);

    const domainArn = p.domain.domainArn;
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: [
          'es:DescribeDomain',
          'es:DescribeDomains',
          'es:DescribeDomainConfig',
          'es:ESHttpPost',
          'es:ESHttpPut',
        ],
        // `/*` covers the domain's HTTP paths (`_bulk`, `<index>/_doc`); fine-grained access control then limits
        // the role to the log indices (the writer role mapping).
        resources: [domainArn, `${domainArn}/*`],
      }),
    );
    const indexPattern = `${p.indexName}*`;
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['es:ESHttpGet'],
        // The read paths Firehose checks before delivering; `${indexPattern}` covers the rotated indices and
        // `_nodes/*/stats` any node id, as in the Firehose developer guide.
        resources: [
          `${domainArn}/_all/_settings`,
          `${domainArn}/_cluster/stats`,
          `${domainArn}/${indexPattern}/_mapping/*`,
          `${domainArn}/_nodes`,
          `${domainArn}/_nodes/stats`,
          `${domainArn}/_nodes/*/stats`,
          `${domainArn}/_stats`,
          `${domainArn}/${indexPattern}/_stats`,
        ],
      }),
    );
    this.grantBackup(p);
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:PutLogEvents'],
        resources: [streams.destination, streams.backup].map((s) =>
          Stack.of(this).formatArn({
            service: 'logs',
            resource: 'log-group',
            resourceName: `${this.logGroup.logGroupName}:log-stream:${s.logStreamName}`,
            arnFormat: ArnFormat.COLON_RESOURCE_NAME,
          }),
        ),
      }),
    );

    justifyWildcardResources(this.role, [
      {
        resource: `${domainArn}/*`,
        reason:
          'Firehose posts `_bulk` requests to domain paths it derives from the index name and rotation; fine-grained ' +
          'access control maps this role to a role that may only write the log indices.',
      },
      ...[`${domainArn}/${indexPattern}/_mapping/*`, `${domainArn}/${indexPattern}/_stats`].map(
        (resource) => ({
          resource,
          reason:
            'Read-only checks of the rotated log indices (prefix*), as the Firehose developer guide lists them.',
        }),
      ),
      {
        resource: `${domainArn}/_nodes/*/stats`,
        reason: 'Read-only node statistics of any node id (node ids are not known).',
      },
      {
        resource: p.backupBucket.arnForObjects(`${p.backupPrefix}*`),
        reason:
          'Firehose names failed-document objects itself (date folders, random suffix) under the configured prefix.',
      },
    ]);
  }

  /** The failed-documents bucket: its location, and writes under the backup prefix only. */
  private grantBackup(p: ResolvedProps): void {
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'],
        resources: [p.backupBucket.bucketArn],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject', 's3:AbortMultipartUpload'],
        // Objects under the failed-documents prefix only (Firehose adds date folders and object names).
        resources: [p.backupBucket.arnForObjects(`${p.backupPrefix}*`)],
      }),
    );
    // The Firehose guide's S3 grant: kms:GenerateDataKey and kms:Decrypt (its backups may be multipart uploads).
    grantBucketKeyWrite(p.backupBucket, this.role, { multipartUploads: true });
  }

  /** The delivery stream's name (for metrics and alarms). */
  get deliveryStreamName(): string {
    return this.deliveryStream.ref;
  }

  /** The delivery stream's ARN. */
  get deliveryStreamArn(): string {
    return this.deliveryStream.attrArn;
  }
}
