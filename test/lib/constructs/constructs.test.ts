/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.hasResourceProperties", "*.hasResource", "*.resourceCountIs", "*.allResources", "*.allResourcesProperties", "*.hasWarning"] }] -- Template assertions throw on mismatch. */
import { App, Duration, Size, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AccountSubscriptionPolicy } from '../../../lib/constructs/account-subscription-policy';
import { FirehoseToOpenSearch } from '../../../lib/constructs/firehose-to-opensearch';
import { LogSubscription } from '../../../lib/constructs/log-subscription';
import { SearchDomain } from '../../../lib/constructs/search-domain';
import { TransformFunction } from '../../../lib/constructs/transform-function';
import { flattenCfnReference } from '../../../lib/nag';
import { testOutdir } from '../../helpers/temp-dirs';

/** A stack with the inputs the constructs take (bundling skipped). */
function inputs(): {
  stack: Stack;
  stream: kinesis.Stream;
  role: iam.Role;
  domain: opensearch.IDomain;
  bucket: s3.Bucket;
  queue: sqs.Queue;
} {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, outdir: testOutdir() });
  const stack = new Stack(app, 'Test');
  return {
    stack,
    stream: new kinesis.Stream(stack, 'Stream', { encryption: kinesis.StreamEncryption.KMS }),
    role: new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('logs.amazonaws.com') }),
    domain: opensearch.Domain.fromDomainEndpoint(
      stack,
      'Domain',
      'https://search-logs-abc123.us-east-1.es.amazonaws.com',
    ),
    bucket: new s3.Bucket(stack, 'Bucket'),
    queue: new sqs.Queue(stack, 'Queue'),
  };
}

describe('FirehoseToOpenSearch', () => {
  test('fails when buffering, retry, prefix and index name are out of range, listing every problem', () => {
    const { stack, stream, domain, bucket } = inputs();
    expect(
      () =>
        new FirehoseToOpenSearch(stack, 'Delivery', {
          sourceStream: stream,
          domain,
          backupBucket: bucket,
          indexName: 'Logs',
          backupPrefix: 'failed',
          bufferingInterval: Duration.seconds(901),
          bufferingSize: Size.mebibytes(101),
          retryDuration: Duration.hours(3),
        }),
    ).toThrow(
      /bufferingInterval 901 s is outside 0\.\.900 s; bufferingSize 101 MiB .*; retryDuration 10800 s .*; backupPrefix "failed" must end with "\/".*; indexName "Logs" must be a lowercase/,
    );
  });

  test('fails when the rotation is NoRotation: the bare index is not one the provisioner governs', () => {
    const { stack, stream, domain, bucket } = inputs();
    expect(
      () =>
        new FirehoseToOpenSearch(stack, 'Delivery', {
          sourceStream: stream,
          domain,
          backupBucket: bucket,
          indexName: 'logs',
          indexRotation: 'NoRotation',
        }),
    ).toThrow(
      /indexRotation NoRotation writes one index named "logs", which .* \(on "logs-\*"\) do not cover; use OneDay/,
    );
  });

  test('applies the defaults once: daily rotation, 60 s / 5 MiB buffering, 300 s retries', () => {
    const { stack, stream, domain, bucket } = inputs();
    new FirehoseToOpenSearch(stack, 'Delivery', {
      sourceStream: stream,
      domain,
      backupBucket: bucket,
      indexName: 'logs',
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::KinesisFirehose::DeliveryStream', {
      AmazonopensearchserviceDestinationConfiguration: Match.objectLike({
        IndexRotationPeriod: 'OneDay',
        BufferingHints: { IntervalInSeconds: 60, SizeInMBs: 5 },
        RetryOptions: { DurationInSeconds: 300 },
        S3Configuration: Match.objectLike({ Prefix: 'failed-documents/' }),
      }),
    });
  });
});

describe('TransformFunction', () => {
  test('fails when the event source settings are outside the Lambda limits', () => {
    const { stack, stream, bucket } = inputs();
    expect(
      () =>
        new TransformFunction(stack, 'Fn', {
          entry: 'lambda/transform/handler.ts',
          description: 'test',
          environment: {},
          eventSource: { stream, onFailureBucket: bucket, parallelizationFactor: 11 },
        }),
    ).toThrow(/parallelizationFactor 11 is outside 1\.\.10/);
    expect(
      () =>
        new TransformFunction(stack, 'Fn2', {
          entry: 'lambda/transform/handler.ts',
          description: 'test',
          environment: {},
          eventSource: { stream, onFailureBucket: bucket, maxRecordAge: Duration.seconds(30) },
        }),
    ).toThrow(/maxRecordAge 30 s is outside 60\.\.604800 s/);
  });

  test('sends discarded batches to the bucket, granting PutObject under aws/lambda/ only', () => {
    // GIVEN
    const { stack, stream, bucket } = inputs();
    // WHEN
    new TransformFunction(stack, 'Fn', {
      entry: 'lambda/transform/handler.ts',
      description: 'test',
      environment: {},
      eventSource: { stream, onFailureBucket: bucket },
    });
    // THEN
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      DestinationConfig: {
        OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Bucket'), 'Arn'] } },
      },
    });
    const statements = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    expect(statements).toContain('"Action":"s3:PutObject"');
    expect(statements).toContain('"/*"');
    expect(statements).toContain('"Action":"s3:ListBucket"');
    // Not aws-cdk-lib's S3OnFailureDestination, which grants read, write and delete on the whole bucket.
    expect(statements).not.toMatch(/s3:GetObject|s3:DeleteObject|s3:Abort/);
  });
});

describe('LogSubscription', () => {
  test('fails when the filter pattern is longer than CloudWatch Logs accepts', () => {
    const { stack, stream, role } = inputs();
    const logGroup = { logGroupName: '/x' } as never;
    expect(
      () => new LogSubscription(stack, 'Sub', { logGroup, stream, role, filterPattern: 'x'.repeat(1025) }),
    ).toThrow(/filterPattern is 1025 characters; CloudWatch Logs accepts at most 1024/);
  });
});

describe('AccountSubscriptionPolicy', () => {
  test('fails when nothing is excluded (the pipeline would subscribe to its own logs)', () => {
    const { stack, stream, role } = inputs();
    expect(
      () =>
        new AccountSubscriptionPolicy(stack, 'Policy', {
          policyName: 'p',
          stream,
          role,
          excludeLogGroupNames: [],
        }),
    ).toThrow(/excludeLogGroupNames is empty.*feeds itself forever/);
  });

  test('fails when a log group is excluded twice', () => {
    const { stack, stream, role } = inputs();
    expect(
      () =>
        new AccountSubscriptionPolicy(stack, 'Policy', {
          policyName: 'p',
          stream,
          role,
          excludeLogGroupNames: ['/a', '/a'],
        }),
    ).toThrow(/log group "\/a" is excluded twice/);
  });

  test('writes the documented policy document and selection criteria', () => {
    const { stack, stream, role } = inputs();
    new AccountSubscriptionPolicy(stack, 'Policy', {
      policyName: 'kfek',
      stream,
      role,
      excludeLogGroupNames: ['/a', '/b'],
      filterPattern: 'ERROR',
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Logs::AccountPolicy', {
      PolicyType: 'SUBSCRIPTION_FILTER_POLICY',
      SelectionCriteria: 'LogGroupName NOT IN ["/a","/b"]',
    });
    const doc = JSON.stringify(template.findResources('AWS::Logs::AccountPolicy'));
    expect(doc).toContain('\\"FilterPattern\\":\\"ERROR\\"');
    expect(doc).toContain('\\"Distribution\\":\\"Random\\"');
  });
});

describe('SearchDomain', () => {
  const ADMIN = 'arn:aws:iam::123456789012:role/kfek-admin';

  test('fails when the master user is not an IAM role or user ARN', () => {
    const { stack } = inputs();
    expect(
      () => new SearchDomain(stack, 'Search', { domainName: 'kfek-test', masterUserArn: 'kfek-admin' }),
    ).toThrow(/masterUserArn "kfek-admin" is not an IAM role or user ARN/);
  });

  test('fails when the domain name is not a valid OpenSearch domain name', () => {
    const { stack } = inputs();
    expect(
      () => new SearchDomain(stack, 'Search', { domainName: 'Kfek_Sandbox', masterUserArn: ADMIN }),
    ).toThrow(/domainName "Kfek_Sandbox" must be 3-28 characters of a-z, 0-9 and -/);
  });

  test('fails when zone awareness cannot spread the data nodes', () => {
    const { stack } = inputs();
    expect(
      () =>
        new SearchDomain(stack, 'Search', {
          domainName: 'kfek-test',
          masterUserArn: ADMIN,
          dataNodeCount: 3,
          zoneAwareness: { enabled: true, availabilityZoneCount: 2 },
        }),
    ).toThrow(/dataNodeCount 3 is not a multiple of availabilityZoneCount 2/);
  });
});

describe('flattenCfnReference', () => {
  test('flattens joins, attributes, imports and refs as cdk-nag does', () => {
    expect(
      flattenCfnReference({
        'Fn::Join': [
          '',
          [
            { 'Fn::GetAtt': ['Bucket', 'Arn'] },
            '/',
            { Ref: 'AWS::Region' },
            { 'Fn::ImportValue': 'x:y' },
            '/*',
          ],
        ],
      }),
    ).toBe('<Bucket.Arn>/<AWS::Region>x:y/*');
    expect(flattenCfnReference({ 'Fn::Sub': 'arn:${AWS::Partition}:s3:::b/*' })).toBe(
      'arn:<AWS::Partition>:s3:::b/*',
    );
  });
});
