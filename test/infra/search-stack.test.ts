/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.hasResourceProperties", "*.hasResource", "*.resourceCountIs", "*.allResources", "*.allResourcesProperties", "*.hasWarning", "*.hasOutput"] }] -- Template assertions throw on mismatch. */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestApp } from '../helpers/app';

describe('SearchStack (stateful)', () => {
  let sandbox: Template;
  let production: Template;
  let withCidrs: Template;
  let productionProtected: boolean;
  let sandboxProtected: boolean;

  beforeAll(() => {
    const s = buildTestApp();
    sandbox = Template.fromStack(s.stacks.search);
    sandboxProtected = s.stacks.search.terminationProtection;
    const p = buildTestApp({ profile: 'production' });
    production = Template.fromStack(p.stacks.search);
    productionProtected = p.stacks.search.terminationProtection;
    const c = buildTestApp({
      overrides: { removalPolicy: 'destroy', openSearch: { access: { allowedCidrs: ['203.0.113.7/32'] } } },
    });
    withCidrs = Template.fromStack(c.stacks.search);
  });

  test('the sandbox domain is one small data node with 10 GB gp3 and no dedicated masters', () => {
    sandbox.resourceCountIs('AWS::OpenSearchService::Domain', 1);
    sandbox.hasResourceProperties('AWS::OpenSearchService::Domain', {
      DomainName: 'kfek-sandbox',
      EngineVersion: 'OpenSearch_2.19',
      ClusterConfig: Match.objectLike({
        InstanceType: 't3.small.search',
        InstanceCount: 1,
        DedicatedMasterEnabled: false,
        ZoneAwarenessEnabled: false,
        MultiAZWithStandbyEnabled: false,
      }),
      EBSOptions: { EBSEnabled: true, VolumeSize: 10, VolumeType: 'gp3' },
    });
  });

  test('the domain is encrypted, HTTPS-only with TLS 1.2+, with fine-grained access control and a generated master password', () => {
    sandbox.hasResourceProperties('AWS::OpenSearchService::Domain', {
      EncryptionAtRestOptions: { Enabled: true },
      NodeToNodeEncryptionOptions: { Enabled: true },
      DomainEndpointOptions: { EnforceHTTPS: true, TLSSecurityPolicy: 'Policy-Min-TLS-1-2-2019-07' },
      AdvancedSecurityOptions: Match.objectLike({
        Enabled: true,
        InternalUserDatabaseEnabled: true,
        MasterUserOptions: Match.objectLike({
          MasterUserName: 'kfek-admin',
          MasterUserPassword: Match.objectLike({ 'Fn::Join': Match.anyValue() }),
        }),
      }),
    });
    sandbox.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ GenerateStringKey: 'password' }),
    });
  });

  test('slow, application and audit logs are published to log groups with retention', () => {
    sandbox.hasResourceProperties('AWS::OpenSearchService::Domain', {
      LogPublishingOptions: {
        SEARCH_SLOW_LOGS: { Enabled: true, CloudWatchLogsLogGroupArn: Match.anyValue() },
        INDEX_SLOW_LOGS: { Enabled: true, CloudWatchLogsLogGroupArn: Match.anyValue() },
        ES_APPLICATION_LOGS: { Enabled: true, CloudWatchLogsLogGroupArn: Match.anyValue() },
        AUDIT_LOGS: { Enabled: true, CloudWatchLogsLogGroupArn: Match.anyValue() },
      },
    });
    sandbox.resourceCountIs('AWS::Logs::LogGroup', 4);
    sandbox.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 14 });
    // One native resource policy for es.amazonaws.com, not CDK's custom-resource Lambda.
    sandbox.resourceCountIs('AWS::Logs::ResourcePolicy', 1);
    sandbox.resourceCountIs('AWS::Lambda::Function', 0);
    // The document is an Fn::Join (it names the log group ARNs): check its literal parts.
    const policy = JSON.stringify(sandbox.findResources('AWS::Logs::ResourcePolicy'));
    expect(policy).toContain('\\"Service\\":\\"es.amazonaws.com\\"');
    expect(policy).toContain('\\"Action\\":[\\"logs:PutLogEvents\\",\\"logs:CreateLogStream\\"]');
    expect(policy).toContain('aws:SourceAccount');
  });

  test('without CIDRs the access policy admits only signed requests of this account', () => {
    sandbox.hasResourceProperties('AWS::OpenSearchService::Domain', {
      AccessPolicies: {
        Version: '2012-10-17',
        Statement: [
          Match.objectLike({
            Effect: 'Allow',
            Principal: {
              AWS: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([':root'])]) }),
            },
            Action: Match.arrayWith(['es:ESHttpGet', 'es:ESHttpPost']),
          }),
        ],
      },
    });
    const domain = Object.values(sandbox.findResources('AWS::OpenSearchService::Domain'))[0] as {
      Properties: { AccessPolicies: { Statement: Array<{ Principal: unknown }> } };
    };
    expect(JSON.stringify(domain.Properties.AccessPolicies.Statement.map((s) => s.Principal))).not.toContain(
      '"*"',
    );
  });

  test('with CIDRs, unsigned requests are admitted only from those addresses', () => {
    withCidrs.hasResourceProperties('AWS::OpenSearchService::Domain', {
      AccessPolicies: {
        Version: '2012-10-17',
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { AWS: '*' },
            Condition: { IpAddress: { 'aws:SourceIp': ['203.0.113.7/32'] } },
          }),
        ]),
      },
    });
  });

  test('both streams are KMS-encrypted with one rotating customer key; the sandbox has one shard each', () => {
    sandbox.resourceCountIs('AWS::Kinesis::Stream', 2);
    sandbox.allResourcesProperties('AWS::Kinesis::Stream', {
      ShardCount: 1,
      RetentionPeriodHours: 24,
      StreamEncryption: {
        EncryptionType: 'KMS',
        KeyId: Match.objectLike({ 'Fn::GetAtt': Match.anyValue() }),
      },
    });
    sandbox.resourceCountIs('AWS::KMS::Key', 1);
    sandbox.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  test('production streams are on-demand', () => {
    production.allResourcesProperties('AWS::Kinesis::Stream', {
      StreamModeDetails: { StreamMode: 'ON_DEMAND' },
      RetentionPeriodHours: 48,
    });
  });

  test('the failed-records bucket blocks public access and refuses plain HTTP', () => {
    sandbox.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: Match.objectLike({
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      }),
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    sandbox.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      }),
    });
  });

  test('the failure queue is encrypted and keeps messages 14 days', () => {
    sandbox.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      MessageRetentionPeriod: 1209600,
    });
  });

  test('production retains every data-bearing resource and is termination protected', () => {
    for (const type of [
      'AWS::OpenSearchService::Domain',
      'AWS::Kinesis::Stream',
      'AWS::S3::Bucket',
      'AWS::SQS::Queue',
      'AWS::KMS::Key',
      // The master password must outlive the stack with the domain, or the retained domain is locked.
      'AWS::SecretsManager::Secret',
    ]) {
      production.allResources(type, { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
    expect(productionProtected).toBe(true);
    production.hasResourceProperties('AWS::OpenSearchService::Domain', {
      DomainName: 'kfek-production',
      ClusterConfig: Match.objectLike({
        InstanceType: 'r7g.large.search',
        InstanceCount: 2,
        DedicatedMasterEnabled: true,
        DedicatedMasterCount: 3,
        ZoneAwarenessEnabled: true,
        ZoneAwarenessConfig: { AvailabilityZoneCount: 2 },
      }),
    });
  });

  test('the sandbox deletes with its stack and is not termination protected', () => {
    sandbox.allResources('AWS::OpenSearchService::Domain', { DeletionPolicy: 'Delete' });
    sandbox.allResources('AWS::Kinesis::Stream', { DeletionPolicy: 'Delete' });
    expect(sandboxProtected).toBe(false);
  });

  test('outputs the Dashboards URL and where the master password is', () => {
    sandbox.hasOutput('DashboardsUrl', {
      Value: { 'Fn::Join': ['', ['https://', Match.anyValue(), '/_dashboards']] },
    });
    sandbox.hasOutput('MasterUserSecretArn', { Value: { Ref: Match.stringLikeRegexp('MasterUser') } });
  });

  test('matches the snapshot', () => {
    expect(sandbox.toJSON()).toMatchSnapshot();
  });
});
