/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.hasResourceProperties", "*.hasResource", "*.resourceCountIs", "*.allResources", "*.allResourcesProperties", "*.hasWarning"] }] -- Template assertions throw on mismatch. */
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestApp } from '../../helpers/app';
import { captureConsoleError } from '../../helpers/console';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

/** Every Allow statement of every IAM policy (inline and AWS::IAM::Policy) in a template. */
function allowStatements(template: Template): Statement[] {
  const out: Statement[] = [];
  for (const r of Object.values(template.findResources('AWS::IAM::Policy'))) {
    out.push(...(r.Properties.PolicyDocument.Statement as Statement[]));
  }
  for (const r of Object.values(template.findResources('AWS::IAM::Role'))) {
    for (const p of (r.Properties.Policies ?? []) as Array<{ PolicyDocument: { Statement: Statement[] } }>) {
      out.push(...p.PolicyDocument.Statement);
    }
  }
  return out.filter((s) => s.Effect === 'Allow');
}

const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** The single AWS::IAM::Policy whose logical id starts with `prefix`. */
function policyStatements(template: Template, prefix: string): Statement[] {
  const matches = Object.entries(template.findResources('AWS::IAM::Policy')).filter(([id]) =>
    id.startsWith(prefix),
  );
  expect(matches).toHaveLength(1);
  return (matches[0][1].Properties.PolicyDocument.Statement as Statement[]).filter(
    (s) => s.Effect === 'Allow',
  );
}

describe('PipelineStack, transport lambda (sandbox)', () => {
  let template: Template;
  let others: Template[];
  let pipelineLogGroupIds: string[];

  beforeAll(() => {
    const { stacks } = buildTestApp();
    template = Template.fromStack(stacks.pipeline);
    others = [Template.fromStack(stacks.search), Template.fromStack(stacks.sources)];
    pipelineLogGroupIds = stacks.pipeline.logGroups.map((g) => g.node.path);
  });

  test('the transform is an arm64 Node 24 function with its own log group and the handler contract env', () => {
    // The transform, the OpenSearch provisioner and the custom resource provider's framework function.
    template.resourceCountIs('AWS::Lambda::Function', 3);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: 60,
      LoggingConfig: Match.objectLike({ LogFormat: 'JSON', LogGroup: Match.anyValue() }),
      Environment: {
        Variables: {
          EVENTS_STREAM_ARN: Match.anyValue(),
          DEAD_LETTER_BUCKET: Match.anyValue(),
          DEAD_LETTER_PREFIX: 'dead-letter/transform/',
          EVENTS_AGGREGATION: 'true',
          POWERTOOLS_METRICS_NAMESPACE: 'kfek',
          POWERTOOLS_SERVICE_NAME: 'transform',
          NODE_OPTIONS: '--enable-source-maps',
        },
      },
    });
  });

  test('the event source mapping reports partial failures, bisects, bounds retries and age, and sends discarded batches to the bucket', () => {
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 1);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      StartingPosition: 'TRIM_HORIZON',
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 3,
      MaximumRecordAgeInSeconds: 3600,
      ParallelizationFactor: 1,
      BatchSize: 100,
      // Realtime sandbox (docs/latency.md): invoke as soon as a poll returns records.
      MaximumBatchingWindowInSeconds: 0,
      // S3, where Lambda writes the whole invocation record (data included), not SQS (metadata only).
      DestinationConfig: {
        OnFailure: {
          Destination: { 'Fn::ImportValue': Match.stringLikeRegexp('FailedRecordsBucket.*Arn') },
        },
      },
    });
  });

  test('the transform may put discarded batches (as AWS documents: any key) and list the bucket; it never reads or deletes', () => {
    const statements = policyStatements(template, 'TransformRoleDefaultPolicy');
    const s3 = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
    expect(s3.flatMap(actionsOf).sort()).toEqual(['s3:ListBucket', 's3:PutObject']);
    const put = JSON.stringify(s3.find((s) => actionsOf(s).includes('s3:PutObject'))?.Resource);
    expect(put).toContain('"/*"');
    expect(put).toContain('"/dead-letter/transform/*"');
    // No SQS for the Lambda transport any more.
    expect(statements.flatMap(actionsOf).filter((a) => a.startsWith('sqs:'))).toEqual([]);
  });

  test('the OpenSearch provisioner custom resource exists and runs as the Search stack admin role, signed', () => {
    template.resourceCountIs('Custom::KfekOpenSearchProvisioning', 1);
    template.hasResourceProperties('Custom::KfekOpenSearchProvisioning', {
      DomainEndpoint: { 'Fn::ImportValue': Match.stringLikeRegexp('SearchDomain.*DomainEndpoint') },
      Spec: Match.anyValue(),
      SpecHash: Match.stringLikeRegexp('^[0-9a-f]{64}$'),
      Dashboards: 'true',
    });
    const resource = Object.values(template.findResources('Custom::KfekOpenSearchProvisioning'))[0] as {
      Properties: Record<string, unknown>;
    };
    // Signed mode: no master user secret.
    expect(resource.Properties).not.toHaveProperty('MasterUserSecretArn');
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.onEvent',
      Role: { 'Fn::ImportValue': Match.stringLikeRegexp('OpenSearchAdminRole.*Arn') },
    });
  });

  test('the delivery stream depends on the provisioner (indices configured before delivery)', () => {
    const provisioner = Object.keys(template.findResources('Custom::KfekOpenSearchProvisioning'))[0];
    template.hasResource('AWS::KinesisFirehose::DeliveryStream', {
      DependsOn: Match.arrayWith([provisioner]),
    });
  });

  test("the provisioner policy is least-privilege: its own log group, HTTP on this domain, DELETE of kfek's objects only", () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyName: Match.stringLikeRegexp('^OpenSearchProvisionerPolicy'),
      Roles: [{ 'Fn::ImportValue': Match.stringLikeRegexp('OpenSearchAdminRole') }],
    });
    const statements = policyStatements(template, 'OpenSearchProvisionerPolicy');
    expect(statements.map((s) => actionsOf(s).sort())).toEqual([
      ['logs:CreateLogStream', 'logs:PutLogEvents'],
      ['es:ESHttpGet', 'es:ESHttpHead'],
      ['es:ESHttpPost', 'es:ESHttpPut'],
      ['es:ESHttpDelete'],
    ]);
    // DELETE reaches kfek's own templates, pipelines, policies, roles, mappings and saved objects, never an index.
    const deletable = JSON.stringify(statements[3].Resource).match(/"\/[^"]+"/g);
    expect(deletable).toEqual([
      '"/_dashboards/api/saved_objects/*/kfek-*"',
      '"/_index_template/kfek-*"',
      '"/_ingest/pipeline/kfek-*"',
      '"/_plugins/_ism/policies/kfek-*"',
      '"/_plugins/_security/api/roles/kfek_*"',
      '"/_plugins/_security/api/rolesmapping/kfek_*"',
    ]);
    expect(statements[0].Resource).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^OpenSearchProvisionerLogGroup/), 'Arn'],
    });
    const domainResources = JSON.stringify(statements[1].Resource);
    expect(domainResources).toMatch(/SearchDomain.*Arn/);
    expect(domainResources).not.toContain('"*"');
  });

  test("the provisioner's log groups are the pipeline's own (the account subscription policy excludes them)", () => {
    expect(pipelineLogGroupIds).toEqual(
      expect.arrayContaining([
        'Pipeline/OpenSearchProvisioner/LogGroup',
        'Pipeline/OpenSearchProvisioner/ProviderLogGroup',
        'Pipeline/Delivery/LogGroup',
      ]),
    );
  });

  test('the event source mapping waits for the delivery stream, which reads only what arrives after its creation', () => {
    const [deliveryId] = Object.keys(template.findResources('AWS::KinesisFirehose::DeliveryStream'));
    template.hasResource('AWS::Lambda::EventSourceMapping', { DependsOn: Match.arrayWith([deliveryId]) });
  });

  test('exports nothing: other stacks find its function, delivery stream and log groups by their fixed names', () => {
    // An export would let CloudFormation refuse any update of this stack that removes or changes it while the
    // Sources or Monitoring stack imports it (a transport switch, a recreated delivery stream).
    const json = template.toJSON() as { Outputs?: Record<string, { Export?: unknown }> };
    const outputs = Object.values(json.Outputs ?? {});
    expect(outputs.filter((o) => o.Export !== undefined)).toEqual([]);
    template.hasResourceProperties('AWS::Lambda::Function', { FunctionName: 'kfek-sandbox-transform' });
    template.hasResourceProperties('AWS::KinesisFirehose::DeliveryStream', {
      DeliveryStreamName: 'kfek-sandbox-delivery',
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/aws/lambda/kfek-sandbox-transform',
    });
    for (const other of others) {
      expect(JSON.stringify(other.toJSON())).not.toContain('kfek-sandbox-pipeline:');
    }
  });

  test('Firehose reads the events stream and delivers to OpenSearch with rotation, S3 backup of failures and error logging', () => {
    template.resourceCountIs('AWS::KinesisFirehose::DeliveryStream', 1);
    template.hasResourceProperties('AWS::KinesisFirehose::DeliveryStream', {
      DeliveryStreamType: 'KinesisStreamAsSource',
      KinesisStreamSourceConfiguration: { KinesisStreamARN: Match.anyValue(), RoleARN: Match.anyValue() },
      AmazonopensearchserviceDestinationConfiguration: Match.objectLike({
        IndexName: 'logs',
        IndexRotationPeriod: 'OneDay',
        // Zero buffering: Firehose delivers within seconds (docs/latency.md).
        BufferingHints: { IntervalInSeconds: 0, SizeInMBs: 5 },
        RetryOptions: { DurationInSeconds: 300 },
        S3BackupMode: 'FailedDocumentsOnly',
        S3Configuration: Match.objectLike({ Prefix: 'failed-documents/', CompressionFormat: 'GZIP' }),
        CloudWatchLoggingOptions: {
          Enabled: true,
          LogGroupName: Match.anyValue(),
          LogStreamName: Match.anyValue(),
        },
      }),
    });
  });

  test("Firehose sends no document id: the index template's default pipeline sets it from the event", () => {
    template.hasResourceProperties('AWS::KinesisFirehose::DeliveryStream', {
      AmazonopensearchserviceDestinationConfiguration: Match.objectLike({
        DocumentIdOptions: { DefaultDocumentIdFormat: 'NO_DOCUMENT_ID' },
      }),
    });
  });

  test('the Firehose role may write the domain and read only the documented paths', () => {
    const firehose = policyStatements(template, 'DeliveryRoleDefaultPolicy').filter((s) =>
      actionsOf(s).some((a) => a.startsWith('es:')),
    );
    expect(firehose.flatMap(actionsOf).sort()).toEqual(
      [
        'es:DescribeDomain',
        'es:DescribeDomainConfig',
        'es:DescribeDomains',
        'es:ESHttpGet',
        'es:ESHttpPost',
        'es:ESHttpPut',
      ].sort(),
    );
  });

  test('no role in the app has a wildcard action, and only justified wildcard resources', () => {
    const statements = [template, ...others].flatMap(allowStatements);
    expect(statements.length).toBeGreaterThan(10);
    expect(statements.flatMap(actionsOf).filter((a) => a.includes('*'))).toEqual([]);
    // A literal "*" resource (any resource) is never granted.
    const resources = statements.flatMap((s): unknown[] =>
      Array.isArray(s.Resource) ? (s.Resource as unknown[]) : [s.Resource],
    );
    expect(resources).not.toContain('*');
  });

  test('matches the snapshot', () => {
    expect(template.toJSON()).toMatchSnapshot();
  });
});

describe('PipelineStack, production latency settings (docs/latency.md)', () => {
  test('buffers 10 s or 10 MB in Firehose, gathers batches for 1 s and refreshes new indices every 5 s', () => {
    // GIVEN
    const { stacks } = buildTestApp({ profile: 'production' });
    // WHEN
    const template = Template.fromStack(stacks.pipeline);
    // THEN
    template.hasResourceProperties('AWS::KinesisFirehose::DeliveryStream', {
      AmazonopensearchserviceDestinationConfiguration: Match.objectLike({
        BufferingHints: { IntervalInSeconds: 10, SizeInMBs: 10 },
      }),
    });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 500,
      MaximumBatchingWindowInSeconds: 1,
    });
    // The spec is JSON joined with the Firehose role's ARN, so it is matched as text.
    expect(JSON.stringify(template.findResources('Custom::KfekOpenSearchProvisioning'))).toContain(
      '\\"refreshSeconds\\":5',
    );
  });

  test('the sandbox applies a 1 s refresh_interval to new indices', () => {
    const { stacks } = buildTestApp();
    const provisioning = Template.fromStack(stacks.pipeline).findResources(
      'Custom::KfekOpenSearchProvisioning',
    );
    expect(JSON.stringify(provisioning)).toContain('\\"refreshSeconds\\":1');
  });
});

describe('PipelineStack, delivery.aggregation false', () => {
  test('the transform is told to write one record per document', () => {
    // GIVEN
    const { stacks } = buildTestApp({ overrides: { delivery: { aggregation: false } } });
    // WHEN
    const template = Template.fromStack(stacks.pipeline);
    // THEN
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: 'transform', EVENTS_AGGREGATION: 'false' }),
      },
    });
  });
});

describe('PipelineStack, source regions (issue 22, item 4)', () => {
  test('the transform is told the regions cloudwatch.region may name: its own and sources.regions, once each', () => {
    // GIVEN: the multi profile pins eu-west-1 and receives from eu-west-1 and us-east-1.
    const { stacks } = buildTestApp({ profile: 'multi' });
    // WHEN
    const template = Template.fromStack(stacks.pipeline);
    // THEN
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ SOURCE_REGIONS: 'eu-west-1,us-east-1' }) },
    });
  });

  test("an environment-agnostic profile names only the stack's own region", () => {
    // GIVEN
    const { stacks } = buildTestApp();
    // WHEN
    const template = Template.fromStack(stacks.pipeline);
    // THEN
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ SOURCE_REGIONS: { Ref: 'AWS::Region' } }) },
    });
  });
});

describe('PipelineStack, transport pipes', () => {
  let template: Template;
  let annotations: Annotations;
  /** What synth printed: CDK reports warning annotations on console.error while it synthesizes. */
  let synthReport: string;

  beforeAll(() => {
    const { stacks } = buildTestApp({
      overrides: {
        removalPolicy: 'destroy',
        transport: 'pipes',
        transform: { batchSize: 50, parallelizationFactor: 2 },
      },
    });
    ({ printed: synthReport } = captureConsoleError(() => {
      template = Template.fromStack(stacks.pipeline);
      annotations = Annotations.fromStack(stacks.pipeline);
    }));
  });

  test('the pipe waits for the delivery stream, like the event source mapping', () => {
    const [deliveryId] = Object.keys(template.findResources('AWS::KinesisFirehose::DeliveryStream'));
    template.hasResource('AWS::Pipes::Pipe', { DependsOn: Match.arrayWith([deliveryId]) });
  });

  test('a pipe reads the raw stream, enriches with the Pipes handler and writes the events stream', () => {
    template.resourceCountIs('AWS::Pipes::Pipe', 1);
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', 0);
    template.hasResourceProperties('AWS::Pipes::Pipe', {
      Source: Match.anyValue(),
      Enrichment: Match.anyValue(),
      Target: Match.anyValue(),
      SourceParameters: {
        KinesisStreamParameters: {
          StartingPosition: 'TRIM_HORIZON',
          BatchSize: 50,
          MaximumRetryAttempts: 3,
          MaximumRecordAgeInSeconds: 3600,
          ParallelizationFactor: 2,
          OnPartialBatchItemFailure: 'AUTOMATIC_BISECT',
          DeadLetterConfig: { Arn: Match.anyValue() },
        },
      },
      // The key every item carries (1..256 characters, never empty), not a log stream name (may be 512 or empty).
      TargetParameters: { KinesisStreamParameters: { PartitionKey: '$.kfek.partitionKey' } },
      LogConfiguration: Match.objectLike({ Level: 'ERROR' }),
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: 'transform-pipes' }) },
    });
  });

  test('the enrichment knows and may write the events stream and the dead-letter prefix (overflow, poison)', () => {
    // GIVEN: the enrichment function and its role's policy
    const functions = template.findResources('AWS::Lambda::Function', {
      Properties: {
        Environment: { Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: 'transform-pipes' }) },
      },
    });
    const [enrichment] = Object.values(functions) as Array<{
      Properties: {
        Role: { 'Fn::GetAtt': [string, string] };
        Environment: { Variables: Record<string, unknown> };
      };
    }>;
    const roleId = enrichment.Properties.Role['Fn::GetAtt'][0];
    // THEN
    expect(enrichment.Properties.Environment.Variables).toEqual(
      expect.objectContaining({
        EVENTS_STREAM_ARN: expect.anything(),
        DEAD_LETTER_BUCKET: expect.anything(),
        DEAD_LETTER_PREFIX: 'dead-letter/transform/',
        EVENTS_AGGREGATION: 'false',
      }),
    );
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: roleId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Action: ['kinesis:PutRecord', 'kinesis:PutRecords'], Effect: 'Allow' }),
          Match.objectLike({ Action: 'kms:GenerateDataKey', Effect: 'Allow' }),
          Match.objectLike({
            Action: 's3:PutObject',
            Resource: {
              'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/dead-letter/transform/\\*$')])],
            },
          }),
        ]),
      },
    });
  });

  test('the pipe role can invoke the enrichment, write the target and the dead-letter queue', () => {
    const actions = allowStatements(template).flatMap(actionsOf);
    expect(actions).toEqual(
      expect.arrayContaining([
        'lambda:InvokeFunction',
        'kinesis:PutRecords',
        'sqs:SendMessage',
        'kms:GenerateDataKey',
      ]),
    );
  });

  test('warns when the batch size can exceed the 500-results limit of a Kinesis target', () => {
    annotations.hasWarning(
      '*',
      Match.stringLikeRegexp('Pipes does not invoke a Kinesis target with more than 500'),
    );
    // and synth reports it, with the id that acknowledges it
    expect(synthReport).toMatch(/WARNING transform\.batchSize is 50 with transport "pipes"/);
    expect(synthReport).toContain("Acknowledge with 'Annotation::kfek:pipes-batch-size'");
  });
});

describe('PipelineStack, OpenSearch provisioning switches', () => {
  test.each([true, false])('openSearch.auditLogs %s reaches the provisioner spec', (auditLogs) => {
    // GIVEN
    const { stacks } = buildTestApp({ overrides: { removalPolicy: 'destroy', openSearch: { auditLogs } } });
    // WHEN
    const provisioning = JSON.stringify(
      Template.fromStack(stacks.pipeline).findResources('Custom::KfekOpenSearchProvisioning'),
    );
    // THEN
    expect(provisioning).toContain(`\\"auditLogs\\":${auditLogs}`);
  });
});
