/**
 * cdk-nag over the whole app: AwsSolutionsChecks and ServerlessChecks must find nothing unacknowledged.
 * With cdk-nag 3 attached as a validation plugin, `app.synth()` throws on any finding, listing them.
 */
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks } from 'cdk-nag';
import { justifyWildcardResources } from '../../lib/nag';
import { buildTestApp, CDK_JSON_CONTEXT } from '../helpers/app';

/** Every profile cdk.json ships, by name. */
const SHIPPED_PROFILES = (CDK_JSON_CONTEXT.kfek as { profiles: Record<string, Record<string, unknown>> })
  .profiles;
import { testOutdir } from '../helpers/temp-dirs';

describe('cdk-nag (AwsSolutions + Serverless)', () => {
  test.each([
    ['sandbox', { profile: 'sandbox' }],
    ['production', { profile: 'production' }],
    ['multi: two source accounts, two regions (central and source stacks)', { profile: 'multi' }],
    [
      'multi with an organization and account-level policies in the source accounts',
      {
        overrides: {
          removalPolicy: 'destroy',
          account: '111122223333',
          region: 'eu-west-1',
          sources: {
            organizationId: 'o-a1b2c3d4e5',
            regions: ['eu-west-1', 'ap-southeast-2'],
            remote: { logGroups: ['/app/orders'], accountPolicy: { enabled: true } },
          },
        },
      },
    ],
    [
      'pipes transport, account policy, admin and reader backend roles',
      {
        overrides: {
          removalPolicy: 'destroy',
          transport: 'pipes',
          transform: { batchSize: 10 },
          sources: { accountPolicy: { enabled: true } },
          openSearch: {
            access: {
              adminBackendRoles: ['arn:aws:iam::123456789012:role/Admin'],
              readerBackendRoles: ['arn:aws:iam::123456789012:role/Reader'],
            },
          },
        },
      },
    ],
  ])('%s: no unacknowledged finding', (_name, options) => {
    // GIVEN
    const { app } = buildTestApp({ ...options, nag: true });
    // WHEN / THEN
    expect(() => app.synth()).not.toThrow();
  });

  // The documented way to be notified: an alarm e-mail on any shipped profile must still synthesize with the packs.
  test.each(Object.keys(SHIPPED_PROFILES))('%s with alarms.email: no unacknowledged finding', (profile) => {
    // GIVEN
    const overrides = { ...SHIPPED_PROFILES[profile], alarms: { email: 'ops@example.com' } };
    const { app } = buildTestApp({ overrides, nag: true });
    // WHEN / THEN
    expect(() => app.synth()).not.toThrow();
  });

  test('the harness catches a finding: an unjustified wildcard resource fails synth', () => {
    // GIVEN
    const app = new App({ outdir: testOutdir() });
    const stack = new Stack(app, 'Probe');
    const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: ['arn:aws:s3:::bucket/a/*'] }),
    );
    role.addToPolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: ['arn:aws:s3:::bucket/b/*'] }),
    );
    // Only the first wildcard is justified.
    justifyWildcardResources(role, [{ resource: 'arn:aws:s3:::bucket/a/*', reason: 'test' }]);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // WHEN / THEN
    expect(() => app.synth()).toThrow(/bucket\/b\/\*/);
  });

  test('a justified wildcard resource is acknowledged with its granular id', () => {
    // GIVEN
    const app = new App({ outdir: testOutdir() });
    const stack = new Stack(app, 'Probe');
    const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(
      new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: ['arn:aws:s3:::bucket/a/*'] }),
    );
    justifyWildcardResources(role, [
      { resource: 'arn:aws:s3:::bucket/a/*', reason: 'objects named by the writer' },
    ]);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    // WHEN
    app.synth();
    // THEN
    const acks = role.node
      .findChild('DefaultPolicy')
      .node.metadata.filter((m) => m.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY);
    expect(JSON.stringify(acks)).toContain('AwsSolutions-IAM5[Resource::arn:aws:s3:::bucket/a/*]');
  });
});
