/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.hasResourceProperties", "*.hasResource", "*.resourceCountIs", "*.resourcePropertiesCountIs"] }] -- Template assertions throw on mismatch. */
/**
 * `delivery.mode: direct` in the CDK app (issue 41): the Pipeline stack's indexer instead of Firehose, its least
 * privilege, its writer mapping, and the Monitoring stack's delivery alarms. The app is built with bundling skipped
 * (test/helpers/app.ts), so the handler's code is not read.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { DirectToOpenSearch } from '../../../lib/constructs/direct-to-opensearch';
import { buildTestApp } from '../../helpers/app';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const resourcesOf = (s: Statement): unknown[] => (Array.isArray(s.Resource) ? s.Resource : [s.Resource]);

/** The path below the domain of a `[<domain ARN>, path]` join, the only shape the indexer's es: resources have. */
function domainPathOf(resource: unknown): string {
  const parts = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1];
  if (parts?.length !== 2 || typeof parts[1] !== 'string' || JSON.stringify(parts[0]).includes('*')) {
    throw new Error(`not a path of the domain ARN: ${JSON.stringify(resource)}`);
  }
  expect(JSON.stringify(parts[0])).toMatch(/SearchDomain\w*Arn/);
  return parts[1];
}

/** The indexer function's environment variables in `template`. */
function indexerVariables(template: Template): Record<string, unknown> {
  const [fn] = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { FunctionName: Match.stringLikeRegexp('-indexer$') },
    }),
  );
  return fn.Properties.Environment.Variables as Record<string, unknown>;
}

/** The Allow statements of the policies attached to the role whose logical id starts with `rolePrefix`. */
function roleStatements(template: Template, rolePrefix: string): Statement[] {
  const out: Statement[] = [];
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy'))) {
    const roles = policy.Properties.Roles as Array<{ Ref?: string }>;
    if (!roles.some((r) => r.Ref?.startsWith(rolePrefix) === true)) continue;
    out.push(...(policy.Properties.PolicyDocument.Statement as Statement[]));
  }
  return out.filter((s) => s.Effect === 'Allow');
}

describe('Pipeline stack, delivery mode direct (sandbox-direct)', () => {
  let pipeline: Template;
  let monitoring: Template;

  beforeAll(() => {
    const { stacks } = buildTestApp({ profile: 'sandbox-direct' });
    pipeline = Template.fromStack(stacks.pipeline);
    monitoring = Template.fromStack(stacks.monitoring);
  });

  test('creates no delivery stream and no Firehose role output, but the indexer function', () => {
    pipeline.resourceCountIs('AWS::KinesisFirehose::DeliveryStream', 0);
    pipeline.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'kfek-sandbox-direct-indexer',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      Environment: {
        Variables: Match.objectLike({
          OPENSEARCH_ENDPOINT: Match.anyValue(),
          FAILED_DOCUMENTS_BUCKET: Match.anyValue(),
          FAILED_DOCUMENTS_PREFIX: 'failed-documents/',
          INDEX_PREFIX: 'logs',
          INDEX_ROTATION: 'OneDay',
          INDEX_SHARDS: '1',
          POWERTOOLS_SERVICE_NAME: 'indexer',
          POWERTOOLS_METRICS_NAMESPACE: 'kfek',
        }),
      },
      LoggingConfig: Match.objectLike({ LogGroup: Match.anyValue() }),
    });
    pipeline.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/aws/lambda/kfek-sandbox-direct-indexer',
      RetentionInDays: 14,
    });
    expect(Object.keys(pipeline.findOutputs('FirehoseRoleArn'))).toEqual([]);
    expect(Object.keys(pipeline.findOutputs('IndexerRoleArn'))).toEqual(['IndexerRoleArn']);
  });

  test('the indexer reads the events stream from its oldest record, with partial batch responses and bisection', () => {
    pipeline.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
    pipeline.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: Match.stringLikeRegexp('^IndexerFunction') },
      EventSourceArn: Match.anyValue(),
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: 100,
      MaximumBatchingWindowInSeconds: 0,
      ParallelizationFactor: 1,
      MaximumRetryAttempts: 3,
      MaximumRecordAgeInSeconds: 3600,
      BisectBatchOnFunctionError: true,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
    });
  });

  test("the indexer may POST to _bulk and GET kfek's ingest pipeline, and nothing else on the domain", () => {
    // GIVEN
    const statements = roleStatements(pipeline, 'IndexerRole');
    // WHEN
    const es = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('es:')));
    // THEN: one action on exactly one path each, no wildcard
    expect(es.map((s) => [actionsOf(s), resourcesOf(s).map(domainPathOf)])).toEqual([
      [['es:ESHttpPost'], ['/_bulk']],
      [['es:ESHttpGet'], ['/_ingest/pipeline/kfek-logs-document-id']],
    ]);
  });

  test('the indexer reads its route table from the pipeline the provisioner writes, named in its environment', () => {
    pipeline.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'kfek-sandbox-direct-indexer',
      Environment: {
        Variables: Match.objectLike({
          KFEK_INGEST_PIPELINE: resolveOpenSearchSpec({ indexPrefix: 'logs' }).names.ingestPipeline,
        }),
      },
    });
  });

  test('the indexer writes failed documents under their prefix only, and reads or deletes nothing', () => {
    const statements = roleStatements(pipeline, 'IndexerRole');
    const s3 = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('s3:')));
    const actions = s3.flatMap(actionsOf);
    expect(actions).not.toContain('s3:GetObject');
    expect(actions).not.toContain('s3:DeleteObject');
    expect(JSON.stringify(s3)).toContain('/failed-documents/*');
    // Kinesis read through the event source's grant; no write to any stream.
    const kinesis = statements.flatMap(actionsOf).filter((a) => a.startsWith('kinesis:'));
    expect(kinesis).toEqual(expect.arrayContaining(['kinesis:GetRecords', 'kinesis:GetShardIterator']));
    expect(kinesis.filter((a) => a.startsWith('kinesis:Put'))).toEqual([]);
  });

  test("the provisioner maps the indexer's role to the writer role, before the indexer reads", () => {
    const [provisioner] = Object.entries(pipeline.findResources('Custom::KfekOpenSearchProvisioning'));
    expect(JSON.stringify(provisioner[1].Properties.Spec)).toContain('IndexerRole');
    const mapping = Object.values(
      pipeline.findResources('AWS::Lambda::EventSourceMapping', {
        Properties: { FunctionName: { Ref: Match.stringLikeRegexp('^IndexerFunction') } },
      }),
    )[0];
    expect(mapping.DependsOn).toEqual(expect.arrayContaining([provisioner[0]]));
  });

  test('the transform waits for its reader: the indexer mapping exists before the transform writes', () => {
    const mappings = pipeline.findResources('AWS::Lambda::EventSourceMapping');
    const [indexerId] = Object.entries(mappings).find(([id]) => id.startsWith('IndexerFunction'))!;
    const [, transform] = Object.entries(mappings).find(([id]) => id.startsWith('TransformFunction'))!;
    expect(transform.DependsOn).toEqual(expect.arrayContaining([indexerId]));
  });

  test("the delivery alarms watch the indexer's metrics and IteratorAge, not Firehose's", () => {
    const alarms = Object.values(monitoring.findResources('AWS::CloudWatch::Alarm'));
    expect(JSON.stringify(alarms)).not.toContain('AWS/Firehose');
    monitoring.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'kfek-sandbox-direct-DeliveryErrors',
      Namespace: 'kfek',
      MetricName: 'DeliveryErrors',
      Dimensions: [{ Name: 'service', Value: 'indexer' }],
    });
    monitoring.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'kfek-sandbox-direct-DeliveryDataFreshness',
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Dimensions: [{ Name: 'FunctionName', Value: Match.anyValue() }],
      Threshold: 900_000,
    });
    monitoring.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'kfek-sandbox-direct-FailedDocuments',
      MetricName: 'RefusedDocuments',
      Dimensions: [{ Name: 'service', Value: 'indexer' }],
    });
    const dashboard = JSON.stringify(monitoring.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboard).toContain('Indexer delivery');
    expect(dashboard).not.toContain('AWS/Firehose');
  });
});

describe("the indexer's ingest pipeline follows the profile (KFEK_INGEST_PIPELINE)", () => {
  test("another index prefix: the provisioner's pipeline of that prefix, in the environment and the grant", () => {
    // GIVEN a direct profile whose default route writes app-*
    const { stacks } = buildTestApp({
      overrides: { delivery: { mode: 'direct', indexPrefix: 'app' } },
    });
    const pipeline = Template.fromStack(stacks.pipeline);
    // WHEN
    const name = indexerVariables(pipeline).KFEK_INGEST_PIPELINE;
    const gets = roleStatements(pipeline, 'IndexerRole').filter((s) => actionsOf(s).includes('es:ESHttpGet'));
    // THEN: the name the provisioner gives that prefix's pipeline, and the grant on that path only
    expect(name).toBe(resolveOpenSearchSpec({ indexPrefix: 'app' }).names.ingestPipeline);
    expect(gets.flatMap(resourcesOf).map(domainPathOf)).toEqual([`/_ingest/pipeline/${String(name)}`]);
  });

  test('a Serverless collection has no ingest pipeline: the variable is unset and no es: action is granted', () => {
    // GIVEN
    const { stacks } = buildTestApp({ profile: 'sandbox-serverless' });
    // WHEN
    const pipeline = Template.fromStack(stacks.pipeline);
    // THEN
    expect(indexerVariables(pipeline)).not.toHaveProperty('KFEK_INGEST_PIPELINE');
    // AND the indexer reads the route pairs in kfek's record there instead
    expect(indexerVariables(pipeline).KFEK_ROUTE_RECORD).toBe('.kfek-registry');
    const statements = Object.values(pipeline.findResources('AWS::IAM::Policy')).flatMap(
      (p) => p.Properties.PolicyDocument.Statement as Statement[],
    );
    expect(statements.flatMap(actionsOf).filter((a) => a.startsWith('es:'))).toEqual([]);
  });

  test('fails when the indexer is given an ingest pipeline to read on a collection', () => {
    // GIVEN an indexer writing a collection
    const { config } = buildTestApp({ profile: 'sandbox-direct' });
    const stack = new Stack(new App(), 'Pipeline');
    const role = iam.Role.fromRoleArn(stack, 'Writer', 'arn:aws:iam::123456789012:role/kfek-writer');
    const collection = {
      endpoint: 'https://abc.us-east-1.aoss.amazonaws.com',
      arn: 'arn:aws:aoss:us-east-1:123456789012:collection/abc',
      writerRole: role,
    };
    // WHEN it is also given a pipeline THEN synth refuses it, naming the fix
    expect(
      () =>
        new DirectToOpenSearch(stack, 'Indexer', {
          eventsStream: kinesis.Stream.fromStreamArn(
            stack,
            'Events',
            'arn:aws:kinesis:us-east-1:123456789012:stream/events',
          ),
          collection,
          bucket: s3.Bucket.fromBucketName(stack, 'Bucket', 'failed'),
          failedDocumentsPrefix: 'failed-documents/',
          indexPrefix: 'logs',
          indexRotation: 'OneDay',
          indexShards: 1,
          settings: config.delivery.direct,
          ingestPipeline: 'kfek-logs-document-id',
        }),
    ).toThrow(/collection has no ingest pipeline.*leave ingestPipeline unset/);
  });

  test("a domain's indexer is given no collection record to read (KFEK_ROUTE_RECORD unset)", () => {
    // GIVEN
    const { stacks } = buildTestApp({ profile: 'sandbox-direct' });
    // WHEN
    const pipeline = Template.fromStack(stacks.pipeline);
    // THEN
    expect(indexerVariables(pipeline)).not.toHaveProperty('KFEK_ROUTE_RECORD');
    expect(indexerVariables(pipeline)).toHaveProperty('KFEK_INGEST_PIPELINE');
  });

  test('with Firehose delivering no function is given the variable', () => {
    // GIVEN
    const { stacks } = buildTestApp();
    // WHEN
    const functions = Template.fromStack(stacks.pipeline).findResources('AWS::Lambda::Function');
    // THEN
    expect(JSON.stringify(functions)).not.toContain('KFEK_INGEST_PIPELINE');
  });
});

describe('delivery mode firehose keeps the indexer mapped', () => {
  test("the writer mapping names the indexer's fixed-name role, so a switch from direct never refuses it", () => {
    const { stacks } = buildTestApp();
    const pipeline = Template.fromStack(stacks.pipeline);
    pipeline.resourceCountIs('AWS::KinesisFirehose::DeliveryStream', 1);
    const [provisioner] = Object.values(pipeline.findResources('Custom::KfekOpenSearchProvisioning'));
    const spec = JSON.stringify(provisioner.Properties.Spec);
    expect(spec).toContain('writerBackendRoles');
    expect(spec).toContain(':role/kfek-sandbox-indexer');
  });
});

describe('delivery mode direct with the pipes transport', () => {
  test('the pipe writes the events stream and the indexer reads it, as with the lambda transport', () => {
    const { stacks } = buildTestApp({
      overrides: { transport: 'pipes', delivery: { mode: 'direct' } },
    });
    const pipeline = Template.fromStack(stacks.pipeline);
    pipeline.resourceCountIs('AWS::Pipes::Pipe', 1);
    pipeline.resourceCountIs('AWS::KinesisFirehose::DeliveryStream', 0);
    pipeline.resourcePropertiesCountIs(
      'AWS::Lambda::EventSourceMapping',
      { StartingPosition: 'TRIM_HORIZON', FunctionResponseTypes: ['ReportBatchItemFailures'] },
      1,
    );
  });
});
