/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.hasResourceProperties", "*.hasResource", "*.resourceCountIs", "*.allResources", "*.allResourcesProperties", "*.hasWarning"] }] -- Template assertions throw on mismatch. */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kinesis from 'aws-cdk-lib/aws-kinesis';
import { resolveConfig } from '../../../core/config';
import { constructIdFor } from '../../../lib/constructs/log-subscription';
import { SourcesStack } from '../../../lib/stacks/sources-stack';
import { buildTestApp } from '../../helpers/app';
import { testOutdir } from '../../helpers/temp-dirs';

describe('SourcesStack', () => {
  let sandbox: Template;
  let withPolicy: Template;
  let pipelineLogGroupCount: number;

  beforeAll(() => {
    sandbox = Template.fromStack(buildTestApp().stacks.sources);
    const app = buildTestApp({
      overrides: {
        removalPolicy: 'destroy',
        sources: {
          logGroups: [
            {
              name: '/kfek/test/api',
              create: true,
              retentionDays: 30,
              filterPattern: '{ $.level = "ERROR" }',
            },
            '/aws/lambda/existing-function',
          ],
          accountPolicy: { enabled: true, excludeLogGroups: ['/aws/noisy'] },
        },
      },
    });
    pipelineLogGroupCount = app.stacks.search.logGroups.length;
    withPolicy = Template.fromStack(app.stacks.sources);
  });

  test('creates the configured log group as STANDARD with retention, and subscribes it to the raw stream', () => {
    sandbox.resourceCountIs('AWS::Logs::LogGroup', 1);
    sandbox.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/kfek/sandbox/app',
      LogGroupClass: 'STANDARD',
      RetentionInDays: 14,
    });
    sandbox.resourceCountIs('AWS::Logs::SubscriptionFilter', 1);
    sandbox.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      LogGroupName: { Ref: Match.stringLikeRegexp('^LogGroupKfekSandboxApp') },
      FilterPattern: '',
      Distribution: 'Random',
      DestinationArn: Match.anyValue(),
      RoleArn: Match.anyValue(),
    });
    sandbox.resourceCountIs('AWS::Logs::AccountPolicy', 0);
  });

  test('subscribes existing log groups by name without creating them, with per-group patterns', () => {
    withPolicy.resourceCountIs('AWS::Logs::LogGroup', 1);
    withPolicy.resourceCountIs('AWS::Logs::SubscriptionFilter', 2);
    withPolicy.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      LogGroupName: '/aws/lambda/existing-function',
      FilterPattern: '',
    });
    withPolicy.hasResourceProperties('AWS::Logs::SubscriptionFilter', {
      FilterPattern: '{ $.level = "ERROR" }',
    });
    withPolicy.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: '/kfek/test/api',
      RetentionInDays: 30,
    });
  });

  test("the account policy excludes the pipeline's own log groups, the configured ones and the subscribed ones", () => {
    withPolicy.resourceCountIs('AWS::Logs::AccountPolicy', 1);
    withPolicy.hasResourceProperties('AWS::Logs::AccountPolicy', {
      PolicyName: 'kfek-test-subscription',
      PolicyType: 'SUBSCRIPTION_FILTER_POLICY',
      Scope: 'ALL',
    });
    const policy = Object.values(withPolicy.findResources('AWS::Logs::AccountPolicy'))[0] as {
      Properties: { SelectionCriteria: { 'Fn::Join': [string, unknown[]] }; PolicyDocument: unknown };
    };
    const parts = policy.Properties.SelectionCriteria['Fn::Join'][1];
    // The pipeline's own log groups by their fixed names, whatever the transport (the pipe's too), so a transport
    // switch leaves the policy unchanged and nothing is imported from the Pipeline stack.
    expect(parts[0]).toBe(
      'LogGroupName NOT IN ["/aws/lambda/kfek-test-transform","/aws/kinesisfirehose/kfek-test-delivery",' +
        '"/aws/vendedlogs/pipes/kfek-test-transform","/aws/lambda/kfek-test-provisioner",' +
        '"/aws/lambda/kfek-test-provisioner-provider","/aws/lambda/kfek-test-reconcile",' +
        '"/aws/lambda/kfek-test-indexer","',
    );
    // The domain's log groups are imported from the Search stack, which always exports them.
    const imports = parts.filter((p) => typeof p === 'object' && p !== null && 'Fn::ImportValue' in p);
    expect(imports).toHaveLength(pipelineLogGroupCount);
    // slow search, slow index, app, audit
    expect(pipelineLogGroupCount).toBe(4);
    expect(JSON.stringify(imports)).not.toContain('-pipeline:');
    const literal = parts.filter((p): p is string => typeof p === 'string').join('');
    expect(literal).toContain('"/aws/noisy"');
    expect(literal).toContain('"/kfek/test/api"');
    expect(literal).toContain('"/aws/lambda/existing-function"');
    expect(JSON.stringify(policy.Properties.PolicyDocument)).toMatch(
      /DestinationArn.*RoleArn.*Distribution\\":\\"Random/,
    );
  });

  test('fails when two log group names map to the same construct ID', () => {
    // GIVEN
    const app = new App({ outdir: testOutdir() });
    const stack = new Stack(app, 'Inputs');
    const stream = new kinesis.Stream(stack, 'Raw');
    const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('logs.amazonaws.com') });
    const sources = resolveConfig({
      kfek: { profiles: { sandbox: { sources: { logGroups: ['/app/one', '/app.one'] } } } },
    }).sources;
    // WHEN / THEN
    expect(
      () => new SourcesStack(app, 'Sources', { rawStream: stream, subscriptionRole: role, sources }),
    ).toThrow(/"\/app\/one" and "\/app\.one" both map to construct ID LogGroupAppOne.*Rename one/);
  });

  test('construct IDs derive from the name, so reordering the config replaces nothing', () => {
    expect(constructIdFor('/aws/lambda/my-fn_2')).toBe('LogGroupAwsLambdaMyFn2');
    expect(constructIdFor('/')).toBe('LogGroupUnnamed');
  });

  test('matches the snapshot', () => {
    expect(sandbox.toJSON()).toMatchSnapshot();
  });
});
