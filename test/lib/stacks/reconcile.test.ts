/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.hasResourceProperties", "*.resourceCountIs"] }] -- Template assertions throw on mismatch. */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestApp } from '../../helpers/app';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}

const actions = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);

describe('the scheduled reconcile function (production)', () => {
  const { stacks, config } = buildTestApp({ profile: 'production' });
  const pipeline = Template.fromStack(stacks.pipeline);
  const monitoring = Template.fromStack(stacks.monitoring);
  const reconcile = stacks.pipeline.reconcile;
  const roleId = stacks.pipeline.getLogicalId(reconcile!.role.node.defaultChild as never);
  const statements = (): Statement[] =>
    Object.values(pipeline.findResources('AWS::IAM::Policy'))
      .filter((p) => (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);

  test('runs every 15 minutes on Node 24 with the job, the routes and its metric namespace in its environment', () => {
    expect(reconcile).toBeDefined();
    pipeline.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      Targets: [
        Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 900 } }),
      ],
    });
    pipeline.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'kfek-production-reconcile',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Timeout: 900,
      Environment: {
        Variables: Match.objectLike({
          KFEK_RECONCILE: Match.anyValue(),
          POWERTOOLS_METRICS_NAMESPACE: 'kfek',
          POWERTOOLS_SERVICE_NAME: 'reconcile',
        }),
      },
    });
  });

  test('its role may do exactly what a run does, on exactly what it needs', () => {
    const byAction = new Map<string, Statement[]>();
    for (const s of statements()) {
      expect(s.Effect).toBe('Allow');
      for (const a of actions(s)) byAction.set(a, [...(byAction.get(a) ?? []), s]);
    }
    expect([...byAction.keys()].sort()).toEqual(
      [
        'es:ESHttpGet',
        'es:ESHttpPost',
        'kinesis:PutRecord',
        'kinesis:PutRecords',
        'kms:Decrypt',
        'kms:GenerateDataKey',
        'logs:CreateLogStream',
        'logs:DescribeSubscriptionFilters',
        'logs:FilterLogEvents',
        'logs:GetQueryResults',
        'logs:PutLogEvents',
        's3:GetObject',
        's3:ListBucket',
        'logs:StartQuery',
        'logs:StopQuery',
      ].sort(),
    );
    // The one literal "*": Logs Insights' results and cancellation, which take no resource.
    const wildcard = statements().filter(
      (s) => s.Resource === '*' || (Array.isArray(s.Resource) && s.Resource.includes('*')),
    );
    expect(wildcard.flatMap(actions).sort()).toEqual(['logs:GetQueryResults', 'logs:StopQuery']);
    // CloudWatch Logs reads on the configured log group only.
    const read = byAction.get('logs:FilterLogEvents')![0];
    expect(JSON.stringify(read.Resource)).toContain(':log-group:/kfek/production/app');
    expect((read.Resource as unknown[]).length).toBe(2 * config.sources.logGroups.length);
    // Listing is limited to the three kept prefixes.
    expect(byAction.get('s3:ListBucket')![0].Condition).toEqual({
      StringLike: { 's3:prefix': ['dead-letter/transform/*', 'aws/lambda/*', 'failed-documents/*'] },
    });
  });

  test('fine-grained access control maps its role to the reader roles', () => {
    // The provisioner's spec (a JSON string with the role's ARN joined in) names the role among the readers.
    const cr = Object.values(pipeline.findResources('Custom::KfekOpenSearchProvisioning'))[0];
    const spec = JSON.stringify(cr.Properties.Spec);
    expect(spec).toMatch(/readerBackendRoles/);
    expect(spec).toContain(`"${roleId}","Arn"`);
  });

  test('the Monitoring stack alarms on missing events and on runs that fail or do not start', () => {
    monitoring.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'kfek-production-MissingEvents',
      MetricName: 'MissingEvents',
      Namespace: 'kfek',
      Dimensions: [{ Name: 'service', Value: 'reconcile' }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      Period: 900,
      TreatMissingData: 'notBreaching',
      AlarmActions: [Match.anyValue()],
    });
    monitoring.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'kfek-production-ReconcileErrors',
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: 'kfek-production-reconcile' }],
      Threshold: 2,
    });
    monitoring.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'kfek-production-ReconcileNotRunning',
      MetricName: 'Invocations',
      TreatMissingData: 'breaching',
      EvaluationPeriods: 2,
    });
    const dashboard = JSON.stringify(monitoring.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboard).toContain('missing after heal');
    expect(dashboard).toContain('SEARCH(');
  });
});

describe('without reconcile (sandbox)', () => {
  test('there is no reconcile function, schedule or alarm', () => {
    const { stacks } = buildTestApp();
    expect(stacks.pipeline.reconcile).toBeUndefined();
    Template.fromStack(stacks.pipeline).resourceCountIs('AWS::Events::Rule', 0);
    const alarms = Object.values(
      Template.fromStack(stacks.monitoring).findResources('AWS::CloudWatch::Alarm'),
    );
    expect(
      alarms.map((a) => a.Properties.AlarmName as string).filter((n) => /Reconcile|Missing/.test(n)),
    ).toEqual([]);
  });
});
