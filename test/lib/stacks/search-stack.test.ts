/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.hasResourceProperties", "*.hasResource", "*.resourceCountIs", "*.allResources", "*.allResourcesProperties", "*.hasWarning", "*.hasOutput"] }] -- Template assertions throw on mismatch. */
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestApp } from '../../helpers/app';

describe('SearchStack (stateful)', () => {
  let sandbox: Template;
  let production: Template;
  let withAdmins: Template;
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
      overrides: {
        removalPolicy: 'destroy',
        openSearch: { access: { adminBackendRoles: ['arn:aws:iam::123456789012:role/Admin'] } },
      },
    });
    withAdmins = Template.fromStack(c.stacks.search);
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

  test('the domain is encrypted, HTTPS-only with TLS 1.2+, with fine-grained access control whose master user is the admin role', () => {
    sandbox.hasResourceProperties('AWS::OpenSearchService::Domain', {
      EncryptionAtRestOptions: { Enabled: true },
      NodeToNodeEncryptionOptions: { Enabled: true },
      DomainEndpointOptions: { EnforceHTTPS: true, TLSSecurityPolicy: 'Policy-Min-TLS-1-2-2019-07' },
      AdvancedSecurityOptions: {
        Enabled: true,
        // MasterUserARN is only allowed with the internal user database off.
        InternalUserDatabaseEnabled: false,
        MasterUserOptions: {
          MasterUserARN: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OpenSearchAdminRole'), 'Arn'] },
        },
      },
    });
    // No password anywhere: no generated secret, no master user name.
    sandbox.resourceCountIs('AWS::SecretsManager::Secret', 0);
  });

  test('the admin role trusts Lambda only and has no policy of its own in the stateful stack', () => {
    // The admin role and the CloudWatch Logs delivery role.
    sandbox.resourceCountIs('AWS::IAM::Role', 2);
    sandbox.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
        ],
      },
    });
    const [adminId, role] = Object.entries(sandbox.findResources('AWS::IAM::Role')).find(([id]) =>
      id.startsWith('OpenSearchAdminRole'),
    ) as [string, { Properties: object }];
    expect(role.Properties).not.toHaveProperty('ManagedPolicyArns');
    expect(role.Properties).not.toHaveProperty('Policies');
    // The only policy here is the delivery role's; none is attached to the admin role.
    sandbox.resourceCountIs('AWS::IAM::Policy', 1);
    expect(JSON.stringify(sandbox.findResources('AWS::IAM::Policy'))).not.toContain(adminId);
  });

  test('the CloudWatch Logs role lives here beside the raw stream, only puts records on the raw stream and trusts logs only for this account and region', () => {
    sandbox.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Principal: { Service: 'logs.amazonaws.com' },
            Condition: {
              StringLike: {
                'aws:SourceArn': {
                  'Fn::Join': [
                    '',
                    Match.arrayWith([Match.stringLikeRegexp(':logs:'), Match.stringLikeRegexp('^:\\*$')]),
                  ],
                },
              },
            },
          }),
        ],
      },
    });
    sandbox.hasResourceProperties('AWS::IAM::Policy', {
      PolicyName: Match.stringLikeRegexp('^LogsDeliveryRole'),
      PolicyDocument: {
        Statement: [
          Match.objectLike({ Action: ['kinesis:PutRecord', 'kinesis:PutRecords'] }),
          Match.objectLike({ Action: 'kms:GenerateDataKey' }),
        ],
      },
    });
  });

  test('both streams are named on the first deploy and the domain upgrades its engine in place', () => {
    sandbox.hasResourceProperties('AWS::Kinesis::Stream', { Name: 'kfek-sandbox-raw' });
    sandbox.hasResourceProperties('AWS::Kinesis::Stream', { Name: 'kfek-sandbox-events' });
    sandbox.hasResource('AWS::OpenSearchService::Domain', { UpdatePolicy: { EnableVersionUpgrade: true } });
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
    // Named after the domain: resource policy names are unique per account and region (issue 11).
    sandbox.hasResourceProperties('AWS::Logs::ResourcePolicy', {
      PolicyName: 'kfek-sandbox-opensearch-logs',
    });
    sandbox.resourceCountIs('AWS::Lambda::Function', 0);
    // The document is an Fn::Join (it names the log group ARNs): check its literal parts.
    const policy = JSON.stringify(sandbox.findResources('AWS::Logs::ResourcePolicy'));
    expect(policy).toContain('\\"Service\\":\\"es.amazonaws.com\\"');
    expect(policy).toContain('\\"Action\\":[\\"logs:PutLogEvents\\",\\"logs:CreateLogStream\\"]');
    expect(policy).toContain('aws:SourceAccount');
  });

  test('the access policy admits only signed requests of this account, whatever the access config', () => {
    for (const template of [sandbox, withAdmins, production]) {
      template.hasResourceProperties('AWS::OpenSearchService::Domain', {
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
      const domain = Object.values(template.findResources('AWS::OpenSearchService::Domain'))[0] as {
        Properties: { AccessPolicies: { Statement: Array<{ Principal: unknown; Condition?: unknown }> } };
      };
      const statements = domain.Properties.AccessPolicies.Statement;
      // No AnyPrincipal statement (unsigned or anonymous access) and no IP condition.
      expect(JSON.stringify(statements.map((s) => s.Principal))).not.toContain('"*"');
      expect(statements.every((s) => s.Condition === undefined)).toBe(true);
    }
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

  test('the failed-records bucket is encrypted with the stream key (SSE-KMS) and S3 Bucket Keys', () => {
    // GIVEN
    const keys = Object.keys(sandbox.findResources('AWS::KMS::Key'));
    // THEN: one key for streams and bucket (the records leave the stream for the bucket under the same key).
    expect(keys).toHaveLength(1);
    sandbox.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          {
            ServerSideEncryptionByDefault: {
              SSEAlgorithm: 'aws:kms',
              KMSMasterKeyID: { 'Fn::GetAtt': [keys[0], 'Arn'] },
            },
            BucketKeyEnabled: true,
          },
        ],
      },
    });
  });

  test('failed records expire after failedRecords.expireAfterDays and incomplete uploads are aborted', () => {
    // GIVEN
    const custom = Template.fromStack(
      buildTestApp({
        overrides: {
          removalPolicy: 'destroy',
          openSearch: { retention: { deleteAfterDays: 60 } },
          failedRecords: { expireAfterDays: 61 },
        },
      }).stacks.search,
    );
    // THEN
    for (const [template, days] of [
      [sandbox, 90],
      [production, 90],
      [custom, 61],
    ] as const) {
      template.hasResourceProperties('AWS::S3::Bucket', {
        LifecycleConfiguration: {
          Rules: Match.arrayWith([
            Match.objectLike({
              Status: 'Enabled',
              ExpirationInDays: days,
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
            }),
          ]),
        },
      });
    }
  });

  test('the failed-records bucket blocks public access and refuses plain HTTP', () => {
    sandbox.hasResourceProperties('AWS::S3::Bucket', {
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

  test('production retains every data-bearing resource (except after a failed create) and is termination protected', () => {
    for (const type of [
      'AWS::OpenSearchService::Domain',
      'AWS::Kinesis::Stream',
      'AWS::S3::Bucket',
      'AWS::SQS::Queue',
      'AWS::KMS::Key',
    ]) {
      production.allResources(type, {
        DeletionPolicy: 'RetainExceptOnCreate',
        UpdateReplacePolicy: 'Retain',
      });
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

  test('outputs the Dashboards URL and the admin role ARN, and no master password', () => {
    sandbox.hasOutput('DashboardsUrl', {
      Value: { 'Fn::Join': ['', ['https://', Match.anyValue(), '/_dashboards']] },
    });
    sandbox.hasOutput('OpenSearchAdminRoleArn', {
      Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^OpenSearchAdminRole'), 'Arn'] },
    });
    expect(Object.keys(sandbox.findOutputs('*'))).not.toContain('MasterUserSecretArn');
  });

  test('matches the snapshot', () => {
    expect(sandbox.toJSON()).toMatchSnapshot();
  });

  test('warns when engineVersion is not the line kfek tests (2.19), and not when it is', () => {
    // GIVEN
    const other = buildTestApp({ overrides: { openSearch: { engineVersion: '3.5' } } });
    const warning = Match.stringLikeRegexp('engineVersion .* is not the line kfek.s tests run \\(2\\.19\\)');
    // THEN
    expect(Annotations.fromStack(other.stacks.search).findWarning('*', warning)).toHaveLength(1);
    expect(Annotations.fromStack(buildTestApp().stacks.search).findWarning('*', warning)).toHaveLength(0);
  });
});
