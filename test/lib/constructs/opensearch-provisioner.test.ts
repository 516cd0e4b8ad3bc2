/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "template.hasResourceProperties", "template.resourceCountIs"] }] -- CDK assertions are assertions. */
import { App, Fn, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as opensearch from 'aws-cdk-lib/aws-opensearchservice';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import {
  OpenSearchProvisioner,
  type OpenSearchProvisionerProps,
} from '../../../lib/constructs/opensearch-provisioner';
import { testOutdir } from '../../helpers/temp-dirs';

const DOMAIN_ARN = 'arn:aws:es:eu-west-1:123456789012:domain/kfek-sandbox';

interface Built {
  readonly stack: Stack;
  readonly template: Template;
  readonly provisioner: OpenSearchProvisioner;
}

function build(overrides: Partial<OpenSearchProvisionerProps> = {}): Built {
  // Bundling skipped: these tests assert wiring, and esbuild would add seconds per stack.
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, outdir: testOutdir() });
  const stack = new Stack(app, 'Test', { env: { account: '123456789012', region: 'eu-west-1' } });
  const domain = opensearch.Domain.fromDomainAttributes(stack, 'Domain', {
    domainArn: DOMAIN_ARN,
    domainEndpoint: 'search-kfek-sandbox-abc.eu-west-1.es.amazonaws.com',
  });
  const firehoseRole = new iam.Role(stack, 'FirehoseRole', {
    assumedBy: new iam.ServicePrincipal('firehose.amazonaws.com'),
  });
  const provisioner = new OpenSearchProvisioner(stack, 'Provisioner', {
    domain,
    indexPrefix: 'logs',
    indexTemplate: { shards: 1, replicas: 0, totalFieldsLimit: 1000 },
    retention: { deleteAfterDays: 14 },
    writerRole: firehoseRole,
    ...overrides,
  });
  return { stack, template: Template.fromStack(stack), provisioner };
}

function specHashOf(template: Template): string {
  const resources = template.findResources('Custom::KfekOpenSearchProvisioning');
  const [resource] = Object.values(resources) as { Properties: { SpecHash: string } }[];
  return resource.Properties.SpecHash;
}

describe('OpenSearchProvisioner', () => {
  test('passes admin backend roles in the spec, and a change of them re-applies (new spec hash)', () => {
    // GIVEN
    const admin = 'arn:aws:iam::123456789012:role/Admin';
    // WHEN
    const withAdmins = build({ adminBackendRoles: [admin] });
    // THEN
    const spec = JSON.stringify(withAdmins.template.findResources('Custom::KfekOpenSearchProvisioning'));
    expect(spec).toContain(`\\"adminBackendRoles\\":[\\"${admin}\\"]`);
    expect(specHashOf(withAdmins.template)).not.toBe(specHashOf(build().template));
  });

  test('exposes both of its log groups (function and provider), for the account subscription policy', () => {
    const { provisioner } = build();
    expect(provisioner.logGroups.map((g) => g.node.id)).toEqual(['LogGroup', 'ProviderLogGroup']);
  });

  test('creates a custom resource with the domain endpoint, the spec as JSON and its hash', () => {
    // GIVEN / WHEN
    const { template } = build();

    // THEN
    template.resourceCountIs('Custom::KfekOpenSearchProvisioning', 1);
    template.hasResourceProperties('Custom::KfekOpenSearchProvisioning', {
      ServiceToken: Match.anyValue(),
      DomainEndpoint: 'search-kfek-sandbox-abc.eu-west-1.es.amazonaws.com',
      Spec: {
        'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('"indexPrefix":"logs"')])],
      },
      SpecHash: Match.stringLikeRegexp('^[0-9a-f]{64}$'),
      Dashboards: 'true',
    });
  });

  test('the provisioner function is arm64 on the current Node runtime, handler onEvent', () => {
    const { template } = build();
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.onEvent',
      Runtime: 'nodejs24.x',
      Architectures: ['arm64'],
      Timeout: 300,
    });
  });

  test("grants reads on the domain, writes and DELETE on kfek's own names only (no other domain)", () => {
    const { template } = build();
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Effect: 'Allow',
            Action: ['es:ESHttpGet', 'es:ESHttpHead'],
            Resource: [DOMAIN_ARN, `${DOMAIN_ARN}/*`],
          },
          {
            Effect: 'Allow',
            Action: ['es:ESHttpPut', 'es:ESHttpPost'],
            Resource: [
              `${DOMAIN_ARN}/_index_template/kfek-*`,
              `${DOMAIN_ARN}/_ingest/pipeline/kfek-*`,
              `${DOMAIN_ARN}/_plugins/_ism/policies/kfek-*`,
              `${DOMAIN_ARN}/_plugins/_security/api/roles/kfek_*`,
              `${DOMAIN_ARN}/_plugins/_security/api/rolesmapping/kfek_*`,
              `${DOMAIN_ARN}/_plugins/_security/api/rolesmapping/opensearch_dashboards_user`,
              `${DOMAIN_ARN}/_plugins/_security/api/rolesmapping/all_access`,
              `${DOMAIN_ARN}/_plugins/_security/api/rolesmapping/security_manager`,
              `${DOMAIN_ARN}/_plugins/_security/api/audit/config`,
              `${DOMAIN_ARN}/_plugins/_ism/add/*`,
              `${DOMAIN_ARN}/_plugins/_ism/change_policy/*`,
              Match.stringLikeRegexp(`^${DOMAIN_ARN}/[a-z0-9._-]+-\\*/_settings$`),
              `${DOMAIN_ARN}/_dashboards/api/saved_objects/_bulk_create`,
              `${DOMAIN_ARN}/.kfek-registry`,
              `${DOMAIN_ARN}/.kfek-registry/_doc/objects`,
            ],
          },
          {
            Effect: 'Deny',
            Action: 'es:ESHttpDelete',
            Resource: [`${DOMAIN_ARN}/*,*`, `${DOMAIN_ARN}/*%2c*`, `${DOMAIN_ARN}/*%2C*`],
          },
        ]),
      },
    });
    // No statement anywhere in the construct's own policy allows a wildcard action, and es:ESHttpDelete only on the
    // paths of kfek's objects (issue 30: pruning what it owns), never on the domain's every path (an index).
    const policies = template.findResources('AWS::IAM::Policy');
    const statements = Object.values(policies).flatMap(
      (p) =>
        (p as { Properties: { PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } } })
          .Properties.PolicyDocument.Statement,
    );
    const actions = statements.flatMap((s) =>
      Array.isArray(s.Action) ? (s.Action as unknown[]) : [s.Action],
    );
    expect(actions.filter((a) => a === '*' || a === 'es:*')).toEqual([]);
    const deletes = statements.filter(
      (s) => s.Action === 'es:ESHttpDelete' && (s as { Effect?: string }).Effect === 'Allow',
    );
    expect(deletes.map((s) => s.Resource)).toEqual([
      [
        `${DOMAIN_ARN}/_index_template/kfek-*`,
        `${DOMAIN_ARN}/_ingest/pipeline/kfek-*`,
        `${DOMAIN_ARN}/_plugins/_ism/policies/kfek-*`,
        `${DOMAIN_ARN}/_plugins/_security/api/roles/kfek_*`,
        `${DOMAIN_ARN}/_plugins/_security/api/rolesmapping/kfek_*`,
        `${DOMAIN_ARN}/_dashboards/api/saved_objects/*/kfek-*`,
      ],
    ]);
  });

  test('uses a given role (e.g. the domain master user) instead of creating one', () => {
    // GIVEN
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] }, outdir: testOutdir() });
    const stack = new Stack(app, 'GivenRole');
    const role = new iam.Role(stack, 'MasterRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    });
    const domain = opensearch.Domain.fromDomainAttributes(stack, 'Domain', {
      domainArn: DOMAIN_ARN,
      domainEndpoint: 'search-kfek-sandbox-abc.eu-west-1.es.amazonaws.com',
    });

    // WHEN
    const provisioner = new OpenSearchProvisioner(stack, 'Provisioner', {
      domain,
      indexPrefix: 'logs',
      writerRole: iam.Role.fromRoleArn(stack, 'Firehose', 'arn:aws:iam::123456789012:role/firehose'),
      role,
    });

    // THEN
    expect(provisioner.role).toBe(role);
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.onEvent',
      Role: { 'Fn::GetAtt': [Match.stringLikeRegexp('^MasterRole'), 'Arn'] },
    });
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: Match.stringLikeRegexp('^MasterRole') }],
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Action: Match.arrayWith(['es:ESHttpPut']) })]),
      },
    });
  });

  test('a config change changes the spec hash (so CloudFormation re-applies)', () => {
    const a = specHashOf(build().template);
    const b = specHashOf(build({ retention: { deleteAfterDays: 30 } }).template);
    const c = specHashOf(build().template);
    expect(a).not.toBe(b);
    expect(a).toBe(c);
  });

  test('fails when the index prefix is not a valid index name', () => {
    expect(() => build({ indexPrefix: 'Logs*' })).toThrow(
      /indexPrefix is "Logs\*"; expected a lowercase OpenSearch index name prefix/,
    );
  });

  test('fails when warmAfterDays is not below deleteAfterDays', () => {
    expect(() => build({ retention: { deleteAfterDays: 7, warmAfterDays: 7 } })).toThrow(
      /retention\.warmAfterDays is 7; expected an integer from 1 to 6\. The warm move must come before deletion/,
    );
  });

  test('matches the snapshot', () => {
    expect(build().template.toJSON()).toMatchSnapshot();
  });
});

describe('OpenSearchProvisioner under cdk-nag', () => {
  test('AwsSolutions and Serverless checks find nothing unacknowledged, also with an imported domain', () => {
    // GIVEN: the domain imported from the stateful stack, the provisioner beside Firehose (as the app wires it).
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
    const env = { account: '123456789012', region: 'eu-west-1' };
    const pipeline = new Stack(app, 'Pipeline', { env });
    // Imported attributes: the granular nag ids then hold Fn::ImportValue references, the hard case.
    const domain = opensearch.Domain.fromDomainAttributes(pipeline, 'Domain', {
      domainArn: Fn.importValue('KfekSearchDomainArn'),
      domainEndpoint: Fn.importValue('KfekSearchDomainEndpoint'),
    });
    const firehoseRole = new iam.Role(pipeline, 'FirehoseRole', {
      assumedBy: new iam.ServicePrincipal('firehose.amazonaws.com'),
    });

    // WHEN
    new OpenSearchProvisioner(pipeline, 'Provisioner', {
      domain,
      indexPrefix: 'logs',
      writerRole: firehoseRole,
    });

    // THEN: synth throws on any unacknowledged finding.
    expect(() => app.synth()).not.toThrow();
  });
});
