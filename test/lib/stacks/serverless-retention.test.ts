/**
 * A serverless profile's scheduled retention (issue 42, docs/serverless.md "Retention"): the function, its daily
 * schedule, its least privilege (IAM on this collection only, the data access policy on kfek's patterns only), its
 * alarms and its dashboard row, and cdk-nag. The handler itself runs on the conformance stand-in
 * (test/lambda/serverless-retention/handler.integ.test.ts).
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RETENTION_SERVICE_NAME, RetentionEnvVar } from '../../../core/contracts/retention-env';
import { type AccessStatement, policyAllows } from '../../../core/opensearch/serverless-access';
import SANDBOX_SERVERLESS from '../../fixtures/sandbox-serverless.profile.json';
import { buildTestApp, type TestApp } from '../../helpers/app';

const PROFILE = {
  ...SANDBOX_SERVERLESS,
  openSearch: { ...SANDBOX_SERVERLESS.openSearch, retention: { deleteAfterDays: 14 } },
  routes: [
    {
      name: 'payments',
      match: { logGroupPrefix: '/app/payments' },
      indexStem: 'payments',
      retentionDays: 30,
      readerBackendRoles: ['arn:aws:iam::123456789012:role/PaymentsReader'],
    },
  ],
};

let built: TestApp | undefined;
function app(): TestApp {
  built ??= buildTestApp({ overrides: PROFILE });
  return built;
}
const search = (): Template => Template.fromStack(app().stacks.search);
const monitoring = (): Template => Template.fromStack(app().stacks.monitoring);

function retentionRoleId(template: Template): string {
  const ids = Object.keys(
    template.findResources('AWS::IAM::Role', {
      Properties: { Description: Match.stringLikeRegexp('retention function') },
    }),
  );
  expect(ids).toHaveLength(1);
  return ids[0];
}

/** The data access policy with each role ARN written `role:<logical id>`. */
function deployedPolicy(template: Template): readonly AccessStatement[] {
  const [policy] = Object.values(template.findResources('AWS::OpenSearchServerless::AccessPolicy'));
  const parts = (policy.Properties as { Policy: { 'Fn::Join': [string, unknown[]] } }).Policy['Fn::Join'][1];
  const text = parts
    .map((p) => (typeof p === 'string' ? p : `role:${(p as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]}`))
    .join('');
  return JSON.parse(text) as AccessStatement[];
}

describe('scheduled retention of a serverless profile', () => {
  test('a Node.js 24 function runs once a day with the families, rotation and collection endpoint', () => {
    // WHEN
    const template = search();
    // THEN
    template.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'kfek-test-retention',
      Runtime: 'nodejs24.x',
      Environment: {
        Variables: Match.objectLike({
          [RetentionEnvVar.Families]: JSON.stringify([
            { stem: 'logs', retentionDays: 14 },
            { stem: 'payments', retentionDays: 30 },
          ]),
          [RetentionEnvVar.IndexRotation]: 'OneDay',
          [RetentionEnvVar.CollectionUrl]: {
            'Fn::GetAtt': [Match.stringLikeRegexp('Collection'), 'CollectionEndpoint'],
          },
          [RetentionEnvVar.ServiceName]: RETENTION_SERVICE_NAME,
        }),
      },
    });
    const rules = template.findResources('AWS::Events::Rule', {
      Properties: { ScheduleExpression: 'rate(1 day)' },
    });
    expect(Object.keys(rules)).toHaveLength(1);
  });

  test("the data access policy lets its role list and delete kfek's families only, never read or write", () => {
    // GIVEN
    const template = search();
    const policy = deployedPolicy(template);
    const role = `role:${retentionRoleId(template)}`;
    const index = (name: string): string => `index/kfek-test/${name}`;
    // THEN
    for (const name of ['logs-2026-10-01', 'payments-2026-10-01']) {
      expect(policyAllows(policy, role, 'aoss:DeleteIndex', index(name))).toBe(true);
      expect(policyAllows(policy, role, 'aoss:DescribeIndex', index(name))).toBe(true);
      expect(policyAllows(policy, role, 'aoss:ReadDocument', index(name))).toBe(false);
      expect(policyAllows(policy, role, 'aoss:WriteDocument', index(name))).toBe(false);
    }
    expect(policyAllows(policy, role, 'aoss:DeleteIndex', index('other-2026-10-01'))).toBe(false);
    expect(policyAllows(policy, role, 'aoss:DescribeIndex', index('*'))).toBe(false);
    expect(policyAllows(policy, role, 'aoss:UpdateCollectionItems', 'collection/kfek-test')).toBe(false);
  });

  test("its IAM reaches this collection's data plane and its own log group, nothing else", () => {
    // GIVEN
    const template = search();
    const roleId = retentionRoleId(template);
    // WHEN
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify((p.Properties as { Roles: unknown }).Roles).includes(roleId))
      .flatMap(
        (p) => (p.Properties as { PolicyDocument: { Statement: unknown[] } }).PolicyDocument.Statement,
      );
    // THEN
    const [collectionId] = Object.keys(template.findResources('AWS::OpenSearchServerless::Collection'));
    expect(statements).toEqual([
      expect.objectContaining({
        Action: 'aoss:APIAccessAll',
        Resource: { 'Fn::GetAtt': [collectionId, 'Arn'] },
      }),
      expect.objectContaining({
        Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        Resource: { 'Fn::GetAtt': [expect.stringMatching(/^RetentionLogGroup/), 'Arn'] },
      }),
    ]);
  });

  test('alarms on a failed or refused deletion, a failed run and a day without a run; a dashboard row', () => {
    // WHEN
    const template = monitoring();
    // THEN
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'kfek-test-RetentionFailures',
      MetricName: 'RetentionFailures',
      Namespace: 'kfek',
      Dimensions: [{ Name: 'service', Value: RETENTION_SERVICE_NAME }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      Period: 86400,
      AlarmActions: [Match.anyValue()],
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'kfek-test-RetentionNotRunning',
      MetricName: 'Invocations',
      Dimensions: [{ Name: 'FunctionName', Value: 'kfek-test-retention' }],
      TreatMissingData: 'breaching',
      EvaluationPeriods: 2,
    });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'kfek-test-RetentionErrors',
      MetricName: 'Errors',
    });
    const [dashboard] = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(JSON.stringify(dashboard)).toContain('Retention: indices deleted, failures (per run)');
  });

  test('a domain profile has no retention function and no retention alarms', () => {
    // WHEN
    const domain = buildTestApp({ profile: 'sandbox' });
    // THEN
    const functions = Template.fromStack(domain.stacks.search).findResources('AWS::Lambda::Function', {
      Properties: { FunctionName: Match.stringLikeRegexp('retention') },
    });
    expect(Object.keys(functions)).toEqual([]);
    expect(JSON.stringify(Template.fromStack(domain.stacks.monitoring).toJSON())).not.toContain('Retention');
  });

  test('cdk-nag (AwsSolutions + Serverless) finds nothing unacknowledged', () => {
    // GIVEN
    const { app: nagged } = buildTestApp({ overrides: PROFILE, nag: true });
    // WHEN / THEN
    expect(() => nagged.synth()).not.toThrow();
  });
});
