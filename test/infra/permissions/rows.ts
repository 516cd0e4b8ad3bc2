/**
 * The rows of the permission matrix: every call kfek makes across a service boundary, built from the synthesized
 * wiring (the role a subscription filter names, the stream an event source mapping reads, the bucket in the
 * function's environment, ...) so that a change of wiring is followed, and a removed grant fails its row.
 *
 * Resources are found by construct path prefix (`Search/RawStream`), never by hashed logical id.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type {
  AppModel,
  AppResource,
  Call,
  NamedPolicy,
  PolicyDocument,
} from '../../helpers/permission-matrix';
import { OTHER_ACCOUNT } from '../../helpers/permission-matrix';

/** What a variant of the app has, to select the rows that apply. */
export interface VariantTraits {
  readonly transport: 'lambda' | 'pipes';
  readonly accountPolicy: boolean;
  readonly alarmEmail: boolean;
}

export interface Row {
  /** `caller | call | resource`, as in issue 11's table. */
  readonly name: string;
  readonly when?: (v: VariantTraits) => boolean;
  readonly calls: (m: AppModel) => Call[];
}

const TLS = { 'aws:SecureTransport': 'true' };
const DAY = '2026/11/23';
const INDEX = 'logs-2026-11-23';

/** The path of the identity policy people attach (README, "Deploy to AWS"). */
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

// ---- What the templates wire together -------------------------------------------------------------------------

function streamKey(m: AppModel, stream: AppResource): AppResource {
  const enc = stream.properties.StreamEncryption as { EncryptionType: string; KeyId: string } | undefined;
  if (enc?.EncryptionType !== 'KMS') throw new Error(`${stream.path} is not KMS-encrypted`);
  return m.byValue('AWS::KMS::Key', enc.KeyId);
}

function stream(m: AppModel, arn: string): AppResource {
  return m.byValue('AWS::Kinesis::Stream', arn);
}

function role(m: AppModel, arn: string): AppResource {
  return m.byValue('AWS::IAM::Role', arn);
}

function caller(m: AppModel, r: AppResource): Pick<Call, 'caller' | 'principal' | 'identityPolicies'> {
  return { caller: r.path, principal: m.attr(r), identityPolicies: m.identityPolicies(r) };
}

function viaKinesis(m: AppModel, s: AppResource): Record<string, string> {
  return {
    'kms:ViaService': `kinesis.${m.region}.amazonaws.com`,
    'kms:CallerAccount': m.account,
    'kms:EncryptionContext:aws:kinesis:arn': m.attr(s),
  };
}

/** A role's Kinesis reads (what an event source mapping, a pipe or Firehose does) plus kms:Decrypt. */
function readCalls(m: AppModel, who: AppResource, s: AppResource): Call[] {
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
function writeCalls(
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

function assume(
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

function s3Object(
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

function s3Bucket(m: AppModel, who: AppResource, bucket: AppResource, action: string): Call {
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

function domainOf(m: AppModel, arn: string): AppResource {
  return m.byValue('AWS::OpenSearchService::Domain', arn);
}

function domainCall(
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
function functionLogCalls(m: AppModel, fn: AppResource): Call[] {
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

function alarmTopicCalls(m: AppModel, https = true): Call[] {
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

function firehose(m: AppModel): {
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

function transformFunction(m: AppModel, v: 'lambda' | 'pipes'): AppResource {
  return m.find(
    v === 'lambda' ? 'Pipeline/Transform/Function' : 'Pipeline/Enrichment/Function',
    'AWS::Lambda::Function',
  );
}

function env(fn: AppResource, name: string): string {
  const value = ((fn.properties.Environment as { Variables?: Record<string, string> } | undefined)
    ?.Variables ?? {})[name];
  if (value === undefined) throw new Error(`${fn.path} has no environment variable ${name}`);
  return value;
}

const isLambda = (v: VariantTraits): boolean => v.transport === 'lambda';
const isPipes = (v: VariantTraits): boolean => v.transport === 'pipes';

// ---- The rows ---------------------------------------------------------------------------------------------------

export const ALLOW_ROWS: readonly Row[] = [
  {
    name: 'CloudWatch Logs | sts:AssumeRole (aws:SourceArn of each subscribed log group) | delivery role | trust',
    calls: (m) =>
      m.findAll('AWS::Logs::SubscriptionFilter').map((f) =>
        assume(m, role(m, f.properties.RoleArn as string), 'logs.amazonaws.com', {
          'aws:SourceArn': `arn:aws:logs:${m.region}:${m.account}:log-group:${f.properties.LogGroupName as string}`,
          'aws:SourceAccount': m.account,
        }),
      ),
  },
  {
    name: 'delivery role | kinesis:PutRecord(s), kms:GenerateDataKey | each subscription destination, stream key | identity, key',
    calls: (m) =>
      m
        .findAll('AWS::Logs::SubscriptionFilter')
        .flatMap((f) =>
          writeCalls(
            m,
            role(m, f.properties.RoleArn as string),
            stream(m, f.properties.DestinationArn as string),
          ),
        ),
  },
  {
    name: 'account-level policy | sts:AssumeRole, kinesis:PutRecord(s), kms:GenerateDataKey for a log group it covers | delivery role, raw stream, key | trust, identity, key',
    when: (v) => v.accountPolicy,
    calls: (m) => {
      const policy = m.find('Sources/AccountPolicy', 'AWS::Logs::AccountPolicy');
      const doc = JSON.parse(policy.properties.PolicyDocument as string) as {
        RoleArn: string;
        DestinationArn: string;
      };
      const covered = '/aws/lambda/orders-service';
      if ((policy.properties.SelectionCriteria as string).includes(JSON.stringify(covered)))
        throw new Error(`${covered} is excluded`);
      const r = role(m, doc.RoleArn);
      return [
        assume(m, r, 'logs.amazonaws.com', {
          'aws:SourceArn': `arn:aws:logs:${m.region}:${m.account}:log-group:${covered}`,
          'aws:SourceAccount': m.account,
        }),
        ...writeCalls(m, r, stream(m, doc.DestinationArn)),
      ];
    },
  },
  {
    name: 'transform (event source mapping) | GetRecords, GetShardIterator, DescribeStream*, ListShards, kms:Decrypt | raw stream, key | identity, key',
    when: isLambda,
    calls: (m) =>
      m.findAll('AWS::Lambda::EventSourceMapping').flatMap((esm) => {
        const fn = m.byValue('AWS::Lambda::Function', esm.properties.FunctionName as string);
        return readCalls(m, m.functionRole(fn), stream(m, esm.properties.EventSourceArn as string));
      }),
  },
  {
    name: 'transform | kinesis:PutRecords, kms:GenerateDataKey | events stream (EVENTS_STREAM_ARN), key | identity, key',
    when: isLambda,
    calls: (m) => {
      const fn = transformFunction(m, 'lambda');
      return writeCalls(m, m.functionRole(fn), stream(m, env(fn, 'EVENTS_STREAM_ARN')));
    },
  },
  {
    name: 'transform | s3:PutObject | dead-letter prefix of DEAD_LETTER_BUCKET | identity, bucket policy',
    when: isLambda,
    calls: (m) => {
      const fn = transformFunction(m, 'lambda');
      const bucket = m.byValue('AWS::S3::Bucket', env(fn, 'DEAD_LETTER_BUCKET'));
      return [
        s3Object(
          m,
          m.functionRole(fn),
          bucket,
          `${env(fn, 'DEAD_LETTER_PREFIX')}${DAY}/49590338271490256608559692538361571095921575989136588898.json`,
          's3:PutObject',
          'Allowed',
        ),
      ];
    },
  },
  {
    name: 'Lambda service (event source mapping on-failure) | s3:PutObject, s3:ListBucket | aws/lambda/ prefix | identity, bucket policy',
    when: isLambda,
    calls: (m) =>
      m.findAll('AWS::Lambda::EventSourceMapping').flatMap((esm) => {
        const fn = m.byValue('AWS::Lambda::Function', esm.properties.FunctionName as string);
        const dest = (esm.properties.DestinationConfig as { OnFailure: { Destination: string } }).OnFailure
          .Destination;
        const bucket = m.byValue('AWS::S3::Bucket', dest);
        const r = m.functionRole(fn);
        return [
          s3Object(
            m,
            r,
            bucket,
            `aws/lambda/0f5e5e6c-1b1a-4f7e-9a2b-3c4d5e6f7a8b/shardId-000000000000/${DAY}/2026-11-23T10.00.00-5e6f7a8b-1b1a-4f7e-9a2b-3c4d0f5e5e6c`,
            's3:PutObject',
            'Allowed',
          ),
          s3Bucket(m, r, bucket, 's3:ListBucket'),
        ];
      }),
  },
  {
    name: 'Firehose | sts:AssumeRole (aws:SourceAccount, aws:SourceArn) | delivery stream role | trust',
    calls: (m) => {
      const f = firehose(m);
      return [
        assume(m, f.role, 'firehose.amazonaws.com', {
          'aws:SourceAccount': m.account,
          'aws:SourceArn': m.attr(f.ds),
        }),
      ];
    },
  },
  {
    name: 'Firehose | stream reads, kms:Decrypt | events stream, key | identity, key',
    calls: (m) => {
      const f = firehose(m);
      return readCalls(m, f.role, stream(m, f.src.KinesisStreamARN));
    },
  },
  {
    name: 'Firehose | es:Describe*, es:ESHttpPost/Put/Get | domain | identity, domain access policy',
    calls: (m) => {
      const f = firehose(m);
      const domain = domainOf(m, f.dest.DomainARN as string);
      const c = caller(m, f.role);
      const index = `${f.dest.IndexName as string}-2026-11-23`;
      return [
        ...['es:DescribeDomain', 'es:DescribeDomains', 'es:DescribeDomainConfig'].map((a) =>
          domainCall(m, c, domain, a, ''),
        ),
        domainCall(m, c, domain, 'es:ESHttpPost', '_bulk'),
        domainCall(m, c, domain, 'es:ESHttpPost', `${index}/_bulk`),
        domainCall(m, c, domain, 'es:ESHttpPut', `${index}/_doc/1`),
        ...[
          '_all/_settings',
          '_cluster/stats',
          `${index}/_mapping/_doc`,
          '_nodes',
          '_nodes/stats',
          '_nodes/AbCdEf123/stats',
          '_stats',
          `${index}/_stats`,
        ].map((p) => domainCall(m, c, domain, 'es:ESHttpGet', p)),
      ];
    },
  },
  {
    name: 'Firehose | s3:PutObject, AbortMultipartUpload, GetBucketLocation, ListBucket* | failed-documents prefix | identity, bucket policy',
    calls: (m) => {
      const f = firehose(m);
      const s3 = f.dest.S3Configuration as { BucketARN: string; Prefix: string; ErrorOutputPrefix: string };
      const bucket = m.byValue('AWS::S3::Bucket', s3.BucketARN);
      const errors = s3.ErrorOutputPrefix.replace(
        '!{firehose:error-output-type}',
        'AmazonOpenSearchService-failed',
      );
      return [
        s3Object(
          m,
          f.role,
          bucket,
          `${s3.Prefix}2026/11/23/10/kfek-1-2026-11-23-10-00-00-abc.gz`,
          's3:PutObject',
          'Allowed',
        ),
        s3Object(
          m,
          f.role,
          bucket,
          `${errors}2026/11/23/10/kfek-1-2026-11-23-10-00-00-abc.gz`,
          's3:PutObject',
          'Allowed',
        ),
        s3Object(
          m,
          f.role,
          bucket,
          `${s3.Prefix}2026/11/23/10/kfek-1-2026-11-23-10-00-00-abc.gz`,
          's3:AbortMultipartUpload',
          'Allowed',
        ),
        ...['s3:GetBucketLocation', 's3:ListBucket', 's3:ListBucketMultipartUploads'].map((a) =>
          s3Bucket(m, f.role, bucket, a),
        ),
      ];
    },
  },
  {
    name: 'Firehose | logs:PutLogEvents | its delivery log streams | identity',
    calls: (m) => {
      const f = firehose(m);
      const options = [
        f.dest.CloudWatchLoggingOptions,
        (f.dest.S3Configuration as { CloudWatchLoggingOptions: unknown }).CloudWatchLoggingOptions,
      ] as { LogGroupName: string; LogStreamName: string }[];
      return options.map((o): Call => ({
        ...caller(m, f.role),
        action: 'logs:PutLogEvents',
        resource: `${o.LogGroupName}:${o.LogStreamName}`,
        resourceArn: `arn:aws:logs:${m.region}:${m.account}:log-group:${o.LogGroupName}:log-stream:${o.LogStreamName}`,
        expect: 'Allowed',
      }));
    },
  },
  {
    name: 'provisioner | sts:AssumeRole into the admin role, es:ESHttp* | domain (of its DomainEndpoint) | trust, identity, domain policy',
    calls: (m) => {
      const fn = m.find('Pipeline/OpenSearchProvisioner/Function', 'AWS::Lambda::Function');
      const admin = m.functionRole(fn);
      const cr = m.find('Pipeline/OpenSearchProvisioner/Resource', 'Custom::KfekOpenSearchProvisioning');
      const domain = m
        .findAll('AWS::OpenSearchService::Domain')
        .find((d) => m.attr(d, 'DomainEndpoint') === cr.properties.DomainEndpoint);
      if (domain === undefined)
        throw new Error(
          `${cr.path} provisions ${String(cr.properties.DomainEndpoint)}, which is no domain of the app`,
        );
      const c = caller(m, admin);
      // The requests lib/opensearch/provision.ts makes, by method and path.
      const requests: [string, string][] = [
        ['es:ESHttpGet', ''],
        ['es:ESHttpGet', '_cat/plugins'],
        ['es:ESHttpGet', '_index_template/logs'],
        ['es:ESHttpPut', '_index_template/logs'],
        ['es:ESHttpGet', '_plugins/_ism/policies/logs-retention'],
        ['es:ESHttpPut', '_plugins/_ism/policies/logs-retention'],
        ['es:ESHttpPost', '_plugins/_ism/add/logs-*'],
        ['es:ESHttpPut', '_plugins/_security/api/roles/kfek_writer'],
        ['es:ESHttpGet', '_plugins/_security/api/rolesmapping/kfek_writer'],
        ['es:ESHttpPut', '_plugins/_security/api/rolesmapping/kfek_writer'],
        ['es:ESHttpGet', '_dashboards/api/status'],
        ['es:ESHttpPost', '_dashboards/api/saved_objects/_bulk_create'],
      ];
      return [
        assume(m, admin, 'lambda.amazonaws.com', {}),
        ...requests.map(([action, p]) => domainCall(m, c, domain, action, p)),
      ];
    },
  },
  {
    name: 'custom resource provider | lambda:InvokeFunction | provisioner function | identity',
    calls: (m) => {
      const framework = m.find(
        'Pipeline/OpenSearchProvisioner/Provider/framework-onEvent',
        'AWS::Lambda::Function',
      );
      const fn = m.find('Pipeline/OpenSearchProvisioner/Function', 'AWS::Lambda::Function');
      return [
        {
          ...caller(m, m.functionRole(framework)),
          action: 'lambda:InvokeFunction',
          resource: fn.path,
          resourceArn: m.attr(fn),
          expect: 'Allowed',
        },
      ];
    },
  },
  {
    name: 'Lambda service | sts:AssumeRole, logs:CreateLogStream/PutLogEvents | every function role, its log group | trust, identity',
    calls: (m) =>
      m
        .findAll('AWS::Lambda::Function')
        .flatMap((fn) => [
          assume(m, m.functionRole(fn), 'lambda.amazonaws.com', {}),
          ...functionLogCalls(m, fn),
        ]),
  },
  {
    name: 'Pipes | sts:AssumeRole (aws:SourceAccount, aws:SourceArn) | pipe role | trust',
    when: isPipes,
    calls: (m) => {
      const pipe = m.find('Pipeline/Pipe', 'AWS::Pipes::Pipe');
      return [
        assume(m, role(m, pipe.properties.RoleArn as string), 'pipes.amazonaws.com', {
          'aws:SourceAccount': m.account,
          'aws:SourceArn': m.attr(pipe),
        }),
      ];
    },
  },
  {
    name: 'Pipes | source reads + kms:Decrypt, lambda:InvokeFunction, target PutRecords + kms:GenerateDataKey, sqs:SendMessage, logs | raw stream, enrichment, events stream, dead-letter queue | identity, key, queue policy',
    when: isPipes,
    calls: (m) => {
      const pipe = m.find('Pipeline/Pipe', 'AWS::Pipes::Pipe');
      const p = pipe.properties as {
        RoleArn: string;
        Source: string;
        Enrichment: string;
        Target: string;
        SourceParameters: { KinesisStreamParameters: { DeadLetterConfig: { Arn: string } } };
        LogConfiguration: { CloudwatchLogsLogDestination: { LogGroupArn: string } };
      };
      const r = role(m, p.RoleArn);
      const fn = m.byValue('AWS::Lambda::Function', p.Enrichment);
      const queue = m.byValue(
        'AWS::SQS::Queue',
        p.SourceParameters.KinesisStreamParameters.DeadLetterConfig.Arn,
      );
      const logGroupArn = p.LogConfiguration.CloudwatchLogsLogDestination.LogGroupArn.replace(/:\*$/, '');
      return [
        ...readCalls(m, r, stream(m, p.Source)),
        {
          ...caller(m, r),
          action: 'lambda:InvokeFunction',
          resource: fn.path,
          resourceArn: m.attr(fn),
          expect: 'Allowed',
        },
        ...writeCalls(m, r, stream(m, p.Target)),
        {
          ...caller(m, r),
          action: 'sqs:SendMessage',
          resource: queue.path,
          resourceArn: m.attr(queue),
          resourcePolicy: m.queuePolicy(queue),
          context: TLS,
          expect: 'Allowed',
        },
        ...['logs:CreateLogStream', 'logs:PutLogEvents'].map((action): Call => ({
          ...caller(m, r),
          action,
          resource: `${pipe.path} log group`,
          resourceArn: `${logGroupArn}:log-stream:pipe-0123`,
          expect: 'Allowed',
        })),
      ];
    },
  },
  {
    name: 'CloudWatch alarms | sns:Publish, kms:Decrypt/GenerateDataKey (every alarm of the topic) | alarm topic, its key | topic policy, key policy',
    calls: (m) => alarmTopicCalls(m),
  },
  {
    name: 'OpenSearch Service | logs:CreateLogStream/PutLogEvents | the domain log groups | CloudWatch Logs resource policy',
    calls: (m) =>
      m.findAll('AWS::OpenSearchService::Domain').flatMap((domain) =>
        Object.entries(
          domain.properties.LogPublishingOptions as Record<
            string,
            { CloudWatchLogsLogGroupArn: string; Enabled: boolean }
          >,
        )
          .filter(([, o]) => o.Enabled)
          .flatMap(([kind, o]) =>
            ['logs:CreateLogStream', 'logs:PutLogEvents'].map((action): Call => ({
              caller: `es.amazonaws.com (${kind})`,
              principal: 'es.amazonaws.com',
              action,
              resource: `${domain.path} ${kind}`,
              resourceArn: `${o.CloudWatchLogsLogGroupArn.replace(/:\*$/, '')}:log-stream:${m.ref(domain)}-es-${kind}`,
              resourcePolicy: m.logsResourcePolicy(),
              context: { 'aws:SourceAccount': m.account, 'aws:SourceArn': m.attr(domain) },
              expect: 'Allowed',
            })),
          ),
      ),
  },
  {
    name: 'a mapped person | es:ESHttpGet/Post | domain (Dashboards, search) | domain policy + docs/deploy/opensearch-user-policy.json',
    calls: (m) => {
      const domain = m.find('Search/Search/Domain', 'AWS::OpenSearchService::Domain');
      const person = {
        caller: 'a person (role Analyst) with docs/deploy/opensearch-user-policy.json',
        principal: `arn:aws:iam::${m.account}:role/Analyst`,
        identityPolicies: [
          {
            name: 'docs/deploy/opensearch-user-policy.json',
            policy: userPolicy({ region: m.region, account: m.account, domainName: m.ref(domain) }),
          },
        ],
      };
      return [
        domainCall(m, person, domain, 'es:ESHttpGet', '_dashboards/app/home'),
        domainCall(m, person, domain, 'es:ESHttpPost', '_dashboards/api/saved_objects/_find'),
        domainCall(m, person, domain, 'es:ESHttpGet', `${INDEX}/_search`),
        domainCall(m, person, domain, 'es:ESHttpPost', 'logs-*/_search'),
      ];
    },
  },
];

export const DENY_ROWS: readonly Row[] = [
  {
    name: 'delivery role cannot write the events stream (nor read the raw one)',
    calls: (m) => {
      const events = m.find('Search/EventsStream', 'AWS::Kinesis::Stream');
      const raw = m.find('Search/RawStream', 'AWS::Kinesis::Stream');
      return m.findAll('AWS::Logs::SubscriptionFilter').flatMap((f) => {
        const c = caller(m, role(m, f.properties.RoleArn as string));
        return [
          ...['kinesis:PutRecord', 'kinesis:PutRecords'].map((action): Call => ({
            ...c,
            action,
            resource: events.path,
            resourceArn: m.attr(events),
            expect: 'Denied',
          })),
          {
            ...c,
            action: 'kinesis:GetRecords',
            resource: raw.path,
            resourceArn: m.attr(raw),
            expect: 'Denied',
          },
        ];
      });
    },
  },
  {
    name: 'transform cannot read or delete failed documents (nor dead letters)',
    calls: (m) => {
      const bucket = m.find('Search/FailedRecordsBucket', 'AWS::S3::Bucket');
      const fns = m
        .findAll('AWS::Lambda::Function')
        .filter((f) => f.path.startsWith('Pipeline/Transform/') || f.path.startsWith('Pipeline/Enrichment/'));
      if (fns.length !== 1) throw new Error(`expected one transform function, found ${fns.length}`);
      const r = m.functionRole(fns[0]);
      return [
        'failed-documents/2026/11/23/10/x.gz',
        'dead-letter/transform/2026/11/23/x.json',
        'aws/lambda/x',
      ].flatMap((key) =>
        ['s3:GetObject', 's3:DeleteObject'].map((a) => s3Object(m, r, bucket, key, a, 'Denied')),
      );
    },
  },
  {
    name: 'Firehose cannot delete or read objects',
    calls: (m) => {
      const f = firehose(m);
      const bucket = m.find('Search/FailedRecordsBucket', 'AWS::S3::Bucket');
      return ['failed-documents/2026/11/23/10/x.gz', 'dead-letter/transform/x.json', 'aws/lambda/x'].flatMap(
        (key) =>
          ['s3:DeleteObject', 's3:GetObject'].map((a) => s3Object(m, f.role, bucket, key, a, 'Denied')),
      );
    },
  },
  {
    name: 'nothing outside the account can assume any role (other accounts, and services acting for them)',
    calls: (m) =>
      m.findAll('AWS::IAM::Role').flatMap((r) => {
        const calls: Call[] = [
          assume(m, r, `arn:aws:iam::${OTHER_ACCOUNT}:root`, {}, 'Denied'),
          assume(m, r, `arn:aws:iam::${OTHER_ACCOUNT}:role/Attacker`, {}, 'Denied'),
          assume(m, r, `arn:aws:iam::${m.account}:role/SomeoneElse`, {}, 'Denied'),
        ];
        for (const service of trustedServices(m.trustPolicy(r))) {
          // Lambda only assumes a role someone with iam:PassRole in this account gave a function; every other
          // service principal acts for whoever calls it, so its trust must name this account (confused deputy).
          if (service === 'lambda.amazonaws.com') continue;
          calls.push(
            assume(
              m,
              r,
              service,
              {
                'aws:SourceAccount': OTHER_ACCOUNT,
                'aws:SourceArn': `arn:aws:${service.split('.')[0]}:${m.region}:${OTHER_ACCOUNT}:log-group:/theirs`,
              },
              'Denied',
            ),
          );
        }
        return calls;
      }),
  },
  {
    name: 'a person without the identity policy, or in another account, is refused by the domain',
    calls: (m) => {
      const domain = m.find('Search/Search/Domain', 'AWS::OpenSearchService::Domain');
      const policy = [
        {
          name: 'docs/deploy/opensearch-user-policy.json',
          policy: userPolicy({ region: m.region, account: m.account, domainName: m.ref(domain) }),
        },
      ];
      return [
        domainCall(
          m,
          {
            caller: 'a person without the policy',
            principal: `arn:aws:iam::${m.account}:role/NoPolicy`,
            identityPolicies: [],
          },
          domain,
          'es:ESHttpGet',
          '_dashboards/app/home',
          'Denied',
        ),
        domainCall(
          m,
          {
            caller: 'a person of another account',
            principal: `arn:aws:iam::${OTHER_ACCOUNT}:role/Analyst`,
            identityPolicies: policy,
          },
          domain,
          'es:ESHttpGet',
          '_dashboards/app/home',
          'Denied',
        ),
      ];
    },
  },
  {
    name: 'plain HTTP is refused: bucket, queue and alarm topic keep their enforce-TLS deny',
    calls: (m) => {
      const bucket = m.find('Search/FailedRecordsBucket', 'AWS::S3::Bucket');
      const queue = m.find('Search/FailureQueue', 'AWS::SQS::Queue');
      const f = firehose(m);
      const admin = {
        caller: 'an admin of the account',
        principal: `arn:aws:iam::${m.account}:role/Admin`,
        identityPolicies: [
          {
            name: 'AdministratorAccess',
            policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
          },
        ],
      };
      return [
        s3Object(m, f.role, bucket, 'failed-documents/x.gz', 's3:PutObject', 'Denied', {
          'aws:SecureTransport': 'false',
        }),
        {
          ...admin,
          action: 'sqs:SendMessage',
          resource: queue.path,
          resourceArn: m.attr(queue),
          resourcePolicy: m.queuePolicy(queue),
          context: { 'aws:SecureTransport': 'false' },
          expect: 'Denied',
        },
        ...alarmTopicCalls(m, false),
      ];
    },
  },
];

/** The service principals a trust policy allows to assume the role. */
function trustedServices(trust: NamedPolicy): string[] {
  return trust.policy.Statement.filter((s) => s.Effect === 'Allow').flatMap((s) => {
    const service = (s.Principal as { Service?: string | string[] } | undefined)?.Service;
    return service === undefined ? [] : [service].flat();
  });
}
