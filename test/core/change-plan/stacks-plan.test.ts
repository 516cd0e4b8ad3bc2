/**
 * What a profile's stacks say they will deploy (core/change-plan/stacks-plan.ts), on hand-written templates: the
 * shapes the synthesized app does not always produce (an imported stream, an on-demand stream, a subscription whose
 * log group is a `Ref`, CloudFormation's defaults). test/cli/doctor/plan.test.ts reads real synthesized assemblies.
 */
import { type AssemblyStack, planOf } from '../../../core/change-plan/stacks-plan';
import type { CfnTemplate } from '../../../core/change-plan/types';

function stack(id: string, body: CfnTemplate, properties: Record<string, unknown> = {}): AssemblyStack {
  return { id, stackName: `kfek-x-${id}`, body, properties, environment: undefined, dependencies: [] };
}

const PIPELINE = stack(
  'Pipeline',
  {
    Resources: {
      Raw: { Type: 'AWS::Kinesis::Stream', Properties: { ShardCount: 3 } },
      Events: {
        Type: 'AWS::Kinesis::Stream',
        Properties: { StreamModeDetails: { StreamMode: 'ON_DEMAND' } },
      },
      Domain: { Type: 'AWS::OpenSearchService::Domain', Properties: { DomainName: 'kfek-x' } },
      Transform: { Type: 'AWS::Lambda::Function', Properties: { ReservedConcurrentExecutions: 5 } },
      Indexer: { Type: 'AWS::Lambda::Function', Properties: { ReservedConcurrentExecutions: '2' } },
      EventsMapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: { EventSourceArn: { 'Fn::GetAtt': ['Events', 'Arn'] } },
      },
    },
    Outputs: { RawArn: { Value: { 'Fn::GetAtt': ['Raw', 'Arn'] }, Export: { Name: 'kfek-x-raw-arn' } } },
  },
  { requiresBootstrapStackVersion: 6, bootstrapStackVersionSsmParameter: '/cdk-bootstrap/hnb659fds/version' },
);

const SOURCES = stack(
  'Sources',
  {
    Resources: {
      Group: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: '/app/x' } },
      Filter: {
        Type: 'AWS::Logs::SubscriptionFilter',
        Properties: {
          LogGroupName: { Ref: 'Group' },
          DestinationArn: { 'Fn::ImportValue': 'kfek-x-raw-arn' },
        },
      },
      Pipe: {
        Type: 'AWS::Pipes::Pipe',
        Properties: {
          Source: { 'Fn::ImportValue': 'kfek-x-raw-arn' },
          SourceParameters: { KinesisStreamParameters: { ParallelizationFactor: 4 } },
        },
      },
    },
  },
  { requiresBootstrapStackVersion: 21 },
);

describe('planOf', () => {
  test('reads names, bootstrap, consumers through an import, concurrency and subscriptions across stacks', () => {
    // WHEN
    const plan = planOf('x', [PIPELINE, SOURCES]);

    // THEN
    expect(plan.stackNames).toEqual({ Pipeline: 'kfek-x-Pipeline', Sources: 'kfek-x-Sources' });
    expect(plan.requiredBootstrapVersion).toBe(21);
    expect(plan.bootstrapParameter).toBe('/cdk-bootstrap/hnb659fds/version');
    expect(plan.consumers).toEqual([
      { logicalId: 'EventsMapping', parallelizationFactor: 1, shardCount: undefined },
      { logicalId: 'Pipe', parallelizationFactor: 4, shardCount: 3 },
    ]);
    expect(plan.reservedConcurrency).toBe(7);
    expect(plan.namedResources).toEqual([
      { kind: 'opensearch-domain', name: 'kfek-x', stackName: 'kfek-x-Pipeline' },
      { kind: 'log-group', name: '/app/x', stackName: 'kfek-x-Sources' },
    ]);
    expect(plan.subscriptions).toEqual([{ logGroupName: '/app/x', destinationExport: 'kfek-x-raw-arn' }]);
    expect(plan.stacks.map((s) => s.id)).toEqual(['Pipeline', 'Sources']);
  });

  test("fills in CloudFormation's defaults for a domain the template leaves unsized", () => {
    // WHEN
    const plan = planOf('x', [PIPELINE]);

    // THEN
    expect(plan.domain).toEqual({
      name: 'kfek-x',
      engineVersion: 'OpenSearch_1.0',
      instanceType: 'r5.large.search',
      instanceCount: 1,
      masterCount: 0,
    });
  });

  test('skips a consumer whose source is not a Kinesis stream it can find', () => {
    // GIVEN a mapping of an import no stack exports
    const lost = stack('Other', {
      Resources: {
        Mapping: {
          Type: 'AWS::Lambda::EventSourceMapping',
          Properties: { EventSourceArn: { 'Fn::ImportValue': 'nobody-exports-this' } },
        },
      },
    });

    // THEN
    expect(planOf('x', [lost]).consumers).toEqual([]);
  });
});
