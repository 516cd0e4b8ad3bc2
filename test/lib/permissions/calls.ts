/**
 * Building blocks of the permission matrix rows: the row type, and calls derived from the synthesized wiring (the
 * role a subscription filter names, the stream an event source mapping reads, the bucket in the function's
 * environment, ...) so that a change of wiring is followed, and a removed grant fails its row.
 *
 * Resources are found by construct path prefix (`Search/RawStream`), never by hashed logical id.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AppModel, AppResource, Call, PolicyDocument } from '../../helpers/permission-matrix';

/** What a variant of the app has, to select the rows that apply. */
export interface VariantTraits {
  readonly transport: 'lambda' | 'pipes';
  readonly accountPolicy: boolean;
  readonly alarmEmail: boolean;
  /** Source accounts or an organization deliver through CloudWatch Logs destinations. */
  readonly crossAccount: boolean;
  /** The destinations admit an AWS Organization. */
  readonly organization: boolean;
  /** The scheduled reconcile function is deployed (config `reconcile.enabled`). */
  readonly reconcile: boolean;
  /** Config `delivery.mode`: Firehose, or the indexer function. */
  readonly delivery: 'firehose' | 'direct';
}

export interface Row {
  /** `caller | call | resource`, as in issue 11's table. */
  readonly name: string;
  readonly when?: (v: VariantTraits) => boolean;
  readonly calls: (m: AppModel) => Call[];
}

export const TLS = { 'aws:SecureTransport': 'true' };
export const DAY = '2026/11/23';
export const INDEX = 'logs-2026-11-23';

/** The path of the identity policy people attach (docs/deploy.md, step 1). */
export const USER_POLICY_FILE = path.join(
  __dirname,
  '..',
  '..',
  '..',
  'docs',
  'deploy',
  'opensearch-user-policy.json',
);

/** docs/deploy/opensearch-user-policy.json with its `<region>`, `<account>` and `<profile>` placeholders filled in. */
export function userPolicy(values: { region: string; account: string; domainName: string }): PolicyDocument {
  const text = fs.readFileSync(USER_POLICY_FILE, 'utf8');
  const profile = values.domainName.replace(/^kfek-/, '');
  const filled = text
    .replaceAll('<region>', values.region)
    .replaceAll('<account>', values.account)
    .replaceAll('<profile>', profile);
  if (/<[a-z-]+>/.test(filled))
    throw new Error(`${USER_POLICY_FILE} has a placeholder the matrix does not know`);
  return JSON.parse(filled) as PolicyDocument;
}

// ---- What the templates wire together (shared by the row files) -------------------------------------------------------------------------

export function streamKey(m: AppModel, stream: AppResource): AppResource {
  const enc = stream.properties.StreamEncryption as { EncryptionType: string; KeyId: string } | undefined;
  if (enc?.EncryptionType !== 'KMS') throw new Error(`${stream.path} is not KMS-encrypted`);
  return m.byValue('AWS::KMS::Key', enc.KeyId);
}

/** The central account's own subscriptions (the Sources stack); cross-account ones are in rows-cross-account.ts. */
export function sameAccountFilters(m: AppModel): readonly AppResource[] {
  return m.findAll('AWS::Logs::SubscriptionFilter').filter((f) => f.path.startsWith('Sources/'));
}

export function stream(m: AppModel, arn: string): AppResource {
  return m.byValue('AWS::Kinesis::Stream', arn);
}

export function role(m: AppModel, arn: string): AppResource {
  return m.byValue('AWS::IAM::Role', arn);
}

export function caller(m: AppModel, r: AppResource): Pick<Call, 'caller' | 'principal' | 'identityPolicies'> {
  return { caller: r.path, principal: m.attr(r), identityPolicies: m.identityPolicies(r) };
}

export function viaKinesis(m: AppModel, s: AppResource): Record<string, string> {
  return {
    'kms:ViaService': `kinesis.${m.region}.amazonaws.com`,
    'kms:CallerAccount': m.account,
    'kms:EncryptionContext:aws:kinesis:arn': m.attr(s),
  };
}

/** A role's Kinesis reads (what an event source mapping, a pipe or Firehose does) plus kms:Decrypt. */
export function readCalls(m: AppModel, who: AppResource, s: AppResource): Call[] {
  const key = streamKey(m, s);
  const c = caller(m, who);
  return [
    ...[
      'kinesis:DescribeStream',
      'kinesis:DescribeStreamSummary',
      'kinesis:GetShardIterator',
      'kinesis:GetRecords',
      'kinesis:ListShards',
    ].map((action): Call => ({ ...c, action, resource: s.path, resourceArn: m.attr(s), expect: 'Allowed' })),
    {
      ...c,
      action: 'kms:Decrypt',
      resource: key.path,
      resourceArn: m.attr(key),
      resourcePolicy: m.keyPolicy(key),
      context: viaKinesis(m, s),
      expect: 'Allowed',
    },
  ];
}

/** A role's Kinesis writes plus kms:GenerateDataKey (Kinesis SSE producers). */
export function writeCalls(
  m: AppModel,
  who: AppResource,
  s: AppResource,
  actions = ['kinesis:PutRecord', 'kinesis:PutRecords'],
): Call[] {
  const key = streamKey(m, s);
  const c = caller(m, who);
  return [
    ...actions.map((action): Call => ({
      ...c,
      action,
      resource: s.path,
      resourceArn: m.attr(s),
      expect: 'Allowed',
    })),
    {
      ...c,
      action: 'kms:GenerateDataKey',
      resource: key.path,
      resourceArn: m.attr(key),
      resourcePolicy: m.keyPolicy(key),
      context: viaKinesis(m, s),
      expect: 'Allowed',
    },
  ];
}

export function assume(
  m: AppModel,
  r: AppResource,
  principal: string,
  context: Record<string, string>,
  expect: Call['expect'] = 'Allowed',
): Call {
  return {
    caller: principal,
    principal,
    action: 'sts:AssumeRole',
    resource: r.path,
    resourceArn: m.attr(r),
    resourcePolicy: m.trustPolicy(r),
    context,
    expect,
  };
}

export function s3Object(
  m: AppModel,
  who: AppResource,
  bucket: AppResource,
  key: string,
  action: string,
  expect: Call['expect'],
  context: Record<string, string> = TLS,
): Call {
  return {
    ...caller(m, who),
    action,
    resource: `${bucket.path}/${key}`,
    resourceArn: `${m.attr(bucket)}/${key}`,
    resourcePolicy: m.bucketPolicy(bucket),
    context: { ...context, 's3:TlsVersion': '1.3' },
    expect,
  };
}

export function s3Bucket(m: AppModel, who: AppResource, bucket: AppResource, action: string): Call {
  return {
    ...caller(m, who),
    action,
    resource: bucket.path,
    resourceArn: m.attr(bucket),
    resourcePolicy: m.bucketPolicy(bucket),
    context: { ...TLS, 's3:TlsVersion': '1.3' },
    expect: 'Allowed',
  };
}

/**
 * The KMS key a bucket encrypts new objects with by default (SSE-KMS); throws when the bucket is not KMS-encrypted,
 * so every row writing the failed-records bucket fails if its default encryption stops being the pipeline's key.
 */
export function bucketKey(m: AppModel, bucket: AppResource): AppResource {
  const enc = bucket.properties.BucketEncryption as
    | {
        ServerSideEncryptionConfiguration: {
          ServerSideEncryptionByDefault: { SSEAlgorithm: string; KMSMasterKeyID?: string };
        }[];
      }
    | undefined;
  const rule = enc?.ServerSideEncryptionConfiguration[0]?.ServerSideEncryptionByDefault;
  if (rule?.SSEAlgorithm !== 'aws:kms' || rule.KMSMasterKeyID === undefined) {
    throw new Error(`${bucket.path} is not encrypted with a customer managed KMS key`);
  }
  return m.byValue('AWS::KMS::Key', rule.KMSMasterKeyID);
}

/**
 * The KMS calls S3 makes as the writer (or reader) of an SSE-KMS object: S3 calls KMS on the caller's behalf, so
 * the caller needs the key actions, through `s3.<region>.amazonaws.com`. With S3 Bucket Keys the encryption
 * context is the bucket ARN, not the object ARN
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucket-key.html).
 */
export function bucketKeyCalls(
  m: AppModel,
  who: AppResource,
  bucket: AppResource,
  actions: readonly string[],
): Call[] {
  const key = bucketKey(m, bucket);
  return actions.map((action) => ({
    ...caller(m, who),
    action,
    resource: key.path,
    resourceArn: m.attr(key),
    resourcePolicy: m.keyPolicy(key),
    context: {
      'kms:ViaService': `s3.${m.region}.amazonaws.com`,
      'kms:CallerAccount': m.account,
      'kms:EncryptionContext:aws:s3:arn': m.attr(bucket),
    },
    expect: 'Allowed',
  }));
}

export function domainOf(m: AppModel, arn: string): AppResource {
  return m.byValue('AWS::OpenSearchService::Domain', arn);
}

export function domainCall(
  m: AppModel,
  who: Pick<Call, 'caller' | 'principal' | 'identityPolicies'>,
  domain: AppResource,
  action: string,
  subpath: string,
  expect: Call['expect'] = 'Allowed',
): Call {
  return {
    ...who,
    action,
    resource: `${domain.path}${subpath === '' ? '' : `/${subpath}`}`,
    resourceArn: `${m.attr(domain)}${subpath === '' ? '' : `/${subpath}`}`,
    resourcePolicy: m.domainPolicy(domain),
    expect,
  };
}

/** A Lambda function's role writes the function's own log group (the Lambda service does it as the role). */
export function functionLogCalls(m: AppModel, fn: AppResource): Call[] {
  const r = m.functionRole(fn);
  const logging = fn.properties.LoggingConfig as { LogGroup?: string } | undefined;
  const group = logging?.LogGroup ?? `/aws/lambda/${m.ref(fn)}`;
  const streamArn = `arn:aws:logs:${m.region}:${m.account}:log-group:${group}:log-stream:2026/11/23/[$LATEST]0123456789abcdef`;
  return ['logs:CreateLogStream', 'logs:PutLogEvents'].map((action) => ({
    ...caller(m, r),
    action,
    resource: `${fn.path} log group ${group}`,
    resourceArn: streamArn,
    expect: 'Allowed',
  }));
}

export function alarmTopicCalls(m: AppModel, https = true): Call[] {
  const topic = m.find('Monitoring/Monitoring/AlarmTopic', 'AWS::SNS::Topic');
  const key = m.byValue('AWS::KMS::Key', topic.properties.KmsMasterKeyId as string);
  const alarms = m
    .findAll('AWS::CloudWatch::Alarm')
    .filter((a) =>
      [
        ...((a.properties.AlarmActions ?? []) as string[]),
        ...((a.properties.OKActions ?? []) as string[]),
      ].includes(m.ref(topic)),
    );
  if (alarms.length === 0) throw new Error('no alarm notifies the alarm topic');
  return alarms.flatMap((alarm): Call[] => {
    const context = {
      'aws:SourceAccount': m.account,
      'aws:SourceArn': m.attr(alarm),
      'aws:SecureTransport': String(https),
    };
    const cw = { caller: `cloudwatch.amazonaws.com (${alarm.path})`, principal: 'cloudwatch.amazonaws.com' };
    const publish: Call = {
      ...cw,
      action: 'sns:Publish',
      resource: topic.path,
      resourceArn: m.ref(topic),
      resourcePolicy: m.topicPolicy(topic),
      context,
      expect: https ? 'Allowed' : 'Denied',
    };
    if (!https) return [publish];
    return [
      publish,
      ...['kms:Decrypt', 'kms:GenerateDataKey'].map((action): Call => ({
        ...cw,
        action,
        resource: key.path,
        resourceArn: m.attr(key),
        resourcePolicy: m.keyPolicy(key),
        context: {
          'aws:SourceAccount': m.account,
          'aws:SourceArn': m.attr(alarm),
          'kms:ViaService': `sns.${m.region}.amazonaws.com`,
        },
        expect: 'Allowed',
      })),
    ];
  });
}

export function firehose(m: AppModel): {
  ds: AppResource;
  role: AppResource;
  dest: Record<string, unknown>;
  src: { KinesisStreamARN: string; RoleARN: string };
} {
  const ds = m.find('Pipeline/Delivery', 'AWS::KinesisFirehose::DeliveryStream');
  const dest = ds.properties.AmazonopensearchserviceDestinationConfiguration as Record<string, unknown>;
  const src = ds.properties.KinesisStreamSourceConfiguration as { KinesisStreamARN: string; RoleARN: string };
  const s3 = dest.S3Configuration as { RoleARN: string };
  if (src.RoleARN !== dest.RoleARN || s3.RoleARN !== dest.RoleARN) {
    throw new Error(
      `${ds.path}: source, destination and S3 backup use different roles; the matrix evaluates one`,
    );
  }
  return { ds, role: role(m, src.RoleARN), dest, src };
}

/** The transform function: one construct path for both transports (a transport switch updates it in place). */
export function transformFunction(m: AppModel): AppResource {
  return m.find('Pipeline/Transform/Function', 'AWS::Lambda::Function');
}

export function env(fn: AppResource, name: string): string {
  const value = ((fn.properties.Environment as { Variables?: Record<string, string> } | undefined)
    ?.Variables ?? {})[name];
  if (value === undefined) throw new Error(`${fn.path} has no environment variable ${name}`);
  return value;
}

export const isLambda = (v: VariantTraits): boolean => v.transport === 'lambda';
export const viaFirehose = (v: VariantTraits): boolean => v.delivery === 'firehose';
export const viaIndexer = (v: VariantTraits): boolean => v.delivery === 'direct';

/** The indexer function of `delivery.mode: direct` and its role. */
export function indexer(m: AppModel): { fn: AppResource; role: AppResource } {
  const fn = m.find('Pipeline/Indexer/Indexer/Function', 'AWS::Lambda::Function');
  return { fn, role: m.functionRole(fn) };
}

/** The ingest pipeline whose route table the indexer reads: its `KFEK_INGEST_PIPELINE` (on a domain). */
export function indexerPipeline(m: AppModel): string {
  const { fn } = indexer(m);
  const pipeline = (fn.properties.Environment as { Variables: Record<string, unknown> }).Variables
    .KFEK_INGEST_PIPELINE;
  if (typeof pipeline !== 'string')
    throw new Error(`the indexer names no ingest pipeline: ${String(pipeline)}`);
  return pipeline;
}

/** The role that writes failed documents: Firehose's, or the indexer's. */
export function failedDocumentsWriter(m: AppModel): AppResource {
  return m.findAll('AWS::KinesisFirehose::DeliveryStream').length > 0 ? firehose(m).role : indexer(m).role;
}
export const isPipes = (v: VariantTraits): boolean => v.transport === 'pipes';
