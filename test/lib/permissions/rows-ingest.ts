/**
 * Matrix rows from the log groups to the events stream: subscriptions, account-level policy, the Lambda
 * transport (event source mapping, dead letters, on-failure destination) and the Pipes transport.
 */
import type { Call } from '../../helpers/permission-matrix';
import {
  TLS,
  DAY,
  stream,
  role,
  caller,
  readCalls,
  writeCalls,
  assume,
  s3Object,
  s3Bucket,
  bucketKeyCalls,
  transformFunction,
  env,
  isLambda,
  isPipes,
  sameAccountFilters,
  type Row,
} from './calls';

export const INGEST_ROWS: readonly Row[] = [
  {
    name: 'CloudWatch Logs | sts:AssumeRole (aws:SourceArn of each subscribed log group) | delivery role | trust',
    calls: (m) =>
      sameAccountFilters(m).map((f) =>
        assume(m, role(m, f.properties.RoleArn as string), 'logs.amazonaws.com', {
          'aws:SourceArn': `arn:aws:logs:${m.region}:${m.account}:log-group:${f.properties.LogGroupName as string}`,
          'aws:SourceAccount': m.account,
        }),
      ),
  },
  {
    name: 'delivery role | kinesis:PutRecord(s), kms:GenerateDataKey | each subscription destination, stream key | identity, key',
    calls: (m) =>
      sameAccountFilters(m).flatMap((f) =>
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
      const fn = transformFunction(m);
      return writeCalls(m, m.functionRole(fn), stream(m, env(fn, 'EVENTS_STREAM_ARN')));
    },
  },
  {
    name: 'transform | s3:PutObject, kms:GenerateDataKey | dead-letter prefix of DEAD_LETTER_BUCKET, its key | identity, bucket policy, key',
    when: isLambda,
    calls: (m) => {
      const fn = transformFunction(m);
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
        ...bucketKeyCalls(m, m.functionRole(fn), bucket, ['kms:GenerateDataKey']),
      ];
    },
  },
  {
    name: 'Lambda service (event source mapping on-failure) | s3:PutObject, s3:ListBucket, kms:GenerateDataKey | aws/lambda/ prefix, its key | identity, bucket policy, key',
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
          // The mapping writes as the function's role (documented: kms:GenerateDataKey for a KMS-encrypted bucket).
          ...bucketKeyCalls(m, r, bucket, ['kms:GenerateDataKey']),
        ];
      }),
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
];
