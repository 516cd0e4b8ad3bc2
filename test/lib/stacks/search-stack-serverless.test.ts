/**
 * The Search stack of a serverless profile (issue 42, docs/serverless.md): a SEARCH collection in a NextGen group that
 * scales to zero, its encryption, network and data access policies, and the indexer's writer role; what each principal
 * may do is checked against the policy's intent with the same evaluator the conformance stand-in enforces.
 */
import { App, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { accessFamiliesOf, resolveConfig, type PipelineConfig } from '../../../core/config';
import { type AccessStatement, policyAllows } from '../../../core/opensearch/serverless-access';
import { SearchStack } from '../../../lib/stacks/search-stack';
import SANDBOX_SERVERLESS from '../../fixtures/sandbox-serverless.profile.json';
import { testContext } from '../../helpers/app';
import { CfnResolver, type CfnTemplate } from '../../helpers/cfn-resolve';
import { type Call, failures, MATRIX_TARGET, type PolicyDocument } from '../../helpers/permission-matrix';
import { testOutdir } from '../../helpers/temp-dirs';

const READER = 'arn:aws:iam::123456789012:role/PaymentsReader';
const DEFAULT_READER = 'arn:aws:iam::123456789012:role/Everyone';
const ADMIN = 'arn:aws:iam::123456789012:role/Admin';
const AUDIT_READER = 'arn:aws:iam::123456789012:role/AuditReader';

function serverlessConfig(): PipelineConfig {
  const profile = {
    ...SANDBOX_SERVERLESS,
    openSearch: {
      ...SANDBOX_SERVERLESS.openSearch,
      access: { readerBackendRoles: [DEFAULT_READER], adminBackendRoles: [ADMIN] },
    },
    routes: [
      {
        name: 'payments',
        match: { logGroupPrefix: '/app/payments' },
        indexStem: 'payments',
        readerBackendRoles: [READER],
      },
      {
        name: 'audit',
        match: { logGroupPrefix: '/app/audit' },
        indexStem: 'audit',
        readerBackendRoles: [AUDIT_READER],
      },
    ],
  };
  return resolveConfig({ kfek: { profiles: { 'sandbox-serverless': profile } } }, 'sandbox-serverless');
}

function buildSearch(nag = false, reconcile = false): { app: App; stack: SearchStack; template: Template } {
  const config = serverlessConfig();
  const app = new App({ context: testContext(), outdir: testOutdir() });
  const stack = new SearchStack(app, 'Search', {
    domainName: 'kfek-sandbox-serverless',
    openSearch: config.openSearch,
    streams: config.streams,
    failedRecords: config.failedRecords,
    accessFamilies: accessFamiliesOf(config),
    reconcile,
  });
  if (nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  return { app, stack, template: Template.fromStack(stack) };
}

/** The data access policy as deployed, with the role ARNs CloudFormation would resolve named by their logical ids. */
function deployedPolicy(template: Template): readonly AccessStatement[] {
  const [policy] = Object.values(template.findResources('AWS::OpenSearchServerless::AccessPolicy'));
  const joined = (policy.Properties as { Policy: unknown }).Policy;
  // Stack.toJsonString renders the role ARNs as Fn::GetAtt inside an Fn::Join; name each by its role's logical id.
  const parts = (joined as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  const text = parts
    .map((p) => (typeof p === 'string' ? p : `role:${(p as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]}`))
    .join('');
  return JSON.parse(text) as AccessStatement[];
}

function roleId(template: Template, descriptionPart: string): string {
  return `role:${roleIdOf(template, descriptionPart)}`;
}

describe('Search stack, openSearch.kind "serverless"', () => {
  test('creates a SEARCH collection in a NextGen group with minimum capacity 0, and no domain', () => {
    // WHEN
    const { template, stack } = buildSearch();
    // THEN
    template.resourceCountIs('AWS::OpenSearchService::Domain', 0);
    template.hasResourceProperties('AWS::OpenSearchServerless::CollectionGroup', {
      Name: 'kfek-sandbox-serverless',
      Generation: 'NEXTGEN',
      StandbyReplicas: 'DISABLED',
      CapacityLimits: {
        MinIndexingCapacityInOcu: 0,
        MinSearchCapacityInOcu: 0,
        MaxIndexingCapacityInOcu: 4,
        MaxSearchCapacityInOcu: 4,
      },
    });
    template.hasResourceProperties('AWS::OpenSearchServerless::Collection', {
      Name: 'kfek-sandbox-serverless',
      Type: 'SEARCH',
      CollectionGroupName: 'kfek-sandbox-serverless',
    });
    expect(stack.domain).toBeUndefined();
    expect(stack.collection?.collectionEndpoint).toBeDefined();
  });

  test('the collection is created after the policies that cover it (CloudFormation cannot see the name link)', () => {
    // WHEN
    const { template } = buildSearch();
    // THEN
    const [collection] = Object.values(template.findResources('AWS::OpenSearchServerless::Collection'));
    const policies = Object.keys(template.findResources('AWS::OpenSearchServerless::SecurityPolicy'));
    expect(policies).toHaveLength(2);
    expect(collection.DependsOn).toEqual(expect.arrayContaining(policies));
  });

  test('encryption with an AWS-owned key and a network policy, both on exactly this collection', () => {
    // WHEN
    const { template } = buildSearch();
    // THEN
    template.hasResourceProperties('AWS::OpenSearchServerless::SecurityPolicy', {
      Type: 'encryption',
      Name: 'kfek-sandbox-serverless-enc',
      Policy: JSON.stringify({
        Rules: [{ ResourceType: 'collection', Resource: ['collection/kfek-sandbox-serverless'] }],
        AWSOwnedKey: true,
      }),
    });
    const [network] = Object.values(
      template.findResources('AWS::OpenSearchServerless::SecurityPolicy', {
        Properties: { Type: 'network', Name: 'kfek-sandbox-serverless-net' },
      }),
    );
    expect(JSON.parse((network.Properties as { Policy: string }).Policy)).toEqual([
      {
        Rules: [
          { ResourceType: 'collection', Resource: ['collection/kfek-sandbox-serverless'] },
          { ResourceType: 'dashboard', Resource: ['collection/kfek-sandbox-serverless'] },
        ],
        AllowFromPublic: true,
      },
    ]);
  });

  test('each route is read by its readers only, the default route by the default readers only', () => {
    // GIVEN
    const { template } = buildSearch();
    const policy = deployedPolicy(template);
    const index = (name: string): string => `index/kfek-sandbox-serverless/${name}`;
    // THEN
    expect(policyAllows(policy, READER, 'aoss:ReadDocument', index('payments-2026-11-29'))).toBe(true);
    expect(policyAllows(policy, READER, 'aoss:ReadDocument', index('logs-2026-11-29'))).toBe(false);
    expect(policyAllows(policy, DEFAULT_READER, 'aoss:ReadDocument', index('logs-2026-11-29'))).toBe(true);
    expect(policyAllows(policy, DEFAULT_READER, 'aoss:ReadDocument', index('payments-2026-11-29'))).toBe(
      false,
    );
    for (const reader of [READER, DEFAULT_READER]) {
      expect(policyAllows(policy, reader, 'aoss:WriteDocument', index('logs-2026-11-29'))).toBe(false);
      expect(policyAllows(policy, reader, 'aoss:DeleteIndex', index('payments-2026-11-29'))).toBe(false);
    }
  });

  test("the indexer's role writes kfek's families and nothing else; the provisioner the templates and the record only", () => {
    // GIVEN
    const { template } = buildSearch();
    const policy = deployedPolicy(template);
    const writer = roleId(template, 'direct-delivery indexer');
    const provisioner = roleId(template, 'OpenSearch master user');
    const index = (name: string): string => `index/kfek-sandbox-serverless/${name}`;
    const collection = 'collection/kfek-sandbox-serverless';
    // THEN
    for (const family of ['logs-2026-11-29', 'payments-2026-11-29']) {
      expect(policyAllows(policy, writer, 'aoss:WriteDocument', index(family))).toBe(true);
      expect(policyAllows(policy, writer, 'aoss:CreateIndex', index(family))).toBe(true);
    }
    expect(policyAllows(policy, writer, 'aoss:WriteDocument', index('other-2026-11-29'))).toBe(false);
    expect(policyAllows(policy, writer, 'aoss:DeleteIndex', index('logs-2026-11-29'))).toBe(false);
    expect(policyAllows(policy, writer, 'aoss:ReadDocument', index('logs-2026-11-29'))).toBe(false);
    // AND it reads kfek's record (its route pairs, lambda/indexer/routes.ts), and never writes it
    expect(policyAllows(policy, writer, 'aoss:ReadDocument', index('.kfek-registry'))).toBe(true);
    expect(policyAllows(policy, writer, 'aoss:WriteDocument', index('.kfek-registry'))).toBe(false);
    expect(policyAllows(policy, writer, 'aoss:DescribeIndex', index('.kfek-registry'))).toBe(false);
    expect(policyAllows(policy, provisioner, 'aoss:UpdateCollectionItems', collection)).toBe(true);
    expect(policyAllows(policy, provisioner, 'aoss:WriteDocument', index('.kfek-registry'))).toBe(true);
    expect(policyAllows(policy, provisioner, 'aoss:DeleteCollectionItems', collection)).toBe(false);
    expect(policyAllows(policy, provisioner, 'aoss:DeleteIndex', index('logs-2026-11-29'))).toBe(false);
    expect(policyAllows(policy, provisioner, 'aoss:WriteDocument', index('logs-2026-11-29'))).toBe(false);
    expect(policyAllows(policy, ADMIN, 'aoss:DeleteIndex', index('logs-2026-11-29'))).toBe(true);
    expect(policyAllows(policy, ADMIN, 'aoss:DeleteCollectionItems', collection)).toBe(true);
  });

  test("each principal's allowed (permission, resource) pairs are exactly the intended ones", () => {
    // GIVEN every principal the policy names, and every permission on every family, kfek's record, a foreign index
    // and the collection's items
    const { template } = buildSearch(false, true);
    const policy = deployedPolicy(template);
    const role = (part: string): string => roleId(template, part);
    const kfek = ['logs-2026-11-29', 'payments-2026-11-29', 'audit-2026-11-29'];
    const indices = [...kfek, 'other-2026-11-29', '.kfek-registry'];
    const indexPermissions = ['ReadDocument', 'WriteDocument', 'CreateIndex', 'UpdateIndex'];
    const all = {
      index: [...indexPermissions, 'DescribeIndex', 'DeleteIndex'],
      collection: ['Describe', 'Create', 'Update', 'Delete'].map((v) => `${v}CollectionItems`),
    };
    const allowed = (principal: string): string[] => [
      ...indices.flatMap((i) =>
        all.index
          .filter((p) => policyAllows(policy, principal, `aoss:${p}`, `index/kfek-sandbox-serverless/${i}`))
          .map((p) => `${p} ${i}`),
      ),
      ...all.collection
        .filter((p) => policyAllows(policy, principal, `aoss:${p}`, 'collection/kfek-sandbox-serverless'))
        .map((p) => `${p} collection`),
    ];
    const on = (resources: readonly string[], permissions: readonly string[]): string[] =>
      resources.flatMap((r) => permissions.map((p) => `${p} ${r}`));
    // WHEN
    const matrix = Object.fromEntries(
      [
        ['payments reader', READER],
        ['audit reader', AUDIT_READER],
        ['default reader', DEFAULT_READER],
        ['indexer', role('direct-delivery indexer')],
        ['retention', role('scheduled retention function')],
        ['reconcile', role('scheduled reconcile function')],
        ['provisioner', role('OpenSearch master user')],
        ['admin', ADMIN],
        ['stranger', 'arn:aws:iam::123456789012:role/Stranger'],
      ].map(([who, principal]) => [who, allowed(principal).sort()]),
    );
    // THEN
    const sorted = (pairs: string[]): string[] => [...pairs].sort();
    expect(matrix).toEqual({
      'payments reader': sorted(on(['payments-2026-11-29'], ['ReadDocument', 'DescribeIndex'])),
      'audit reader': sorted(on(['audit-2026-11-29'], ['ReadDocument', 'DescribeIndex'])),
      'default reader': sorted(on(['logs-2026-11-29'], ['ReadDocument', 'DescribeIndex'])),
      indexer: sorted([
        ...on(kfek, ['WriteDocument', 'CreateIndex', 'UpdateIndex', 'DescribeIndex']),
        'ReadDocument .kfek-registry',
      ]),
      retention: sorted(on(kfek, ['DescribeIndex', 'DeleteIndex'])),
      reconcile: sorted([
        ...on([...kfek, '.kfek-registry'], ['ReadDocument', 'DescribeIndex']),
        'DescribeCollectionItems collection',
      ]),
      provisioner: sorted([
        ...on(['.kfek-registry'], ['ReadDocument', 'WriteDocument', 'CreateIndex']),
        ...on(['collection'], ['DescribeCollectionItems', 'CreateCollectionItems', 'UpdateCollectionItems']),
      ]),
      admin: sorted([...on(indices, all.index), ...on(['collection'], all.collection)]),
      stranger: [],
    });
  });

  test("IAM admits the writer and the provisioner to this collection's data plane only", () => {
    // WHEN
    const { template } = buildSearch();
    // THEN
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (p) =>
        (p.Properties as { PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } })
          .PolicyDocument.Statement,
    );
    const [collectionId] = Object.keys(template.findResources('AWS::OpenSearchServerless::Collection'));
    const aossStatements = statements.filter((s) => JSON.stringify(s.Action).includes('aoss'));
    expect(aossStatements.length).toBeGreaterThan(0);
    for (const statement of aossStatements) {
      expect(statement.Action).toBe('aoss:APIAccessAll');
      expect(statement.Resource).toEqual({ 'Fn::GetAtt': [collectionId, 'Arn'] });
    }
  });

  test('cdk-nag (AwsSolutions + Serverless) finds nothing unacknowledged', () => {
    // GIVEN
    const { app } = buildSearch(true);
    // WHEN / THEN
    expect(() => app.synth()).not.toThrow();
  });

  test("iam-simulate: each data-plane role's IAM reaches this collection's data plane, nothing else of aoss", async () => {
    // GIVEN the stack (with the reconcile function's role) resolved to concrete ARNs
    const { stack, template } = buildSearch(false, true);
    const raw = template.toJSON() as CfnTemplate;
    const resolver = new CfnResolver([{ stackName: stack.stackName, template: raw }], MATRIX_TARGET);
    const [collectionId] = Object.keys(template.findResources('AWS::OpenSearchServerless::Collection'));
    const collectionArn = resolver.attribute(stack.stackName, collectionId, 'Arn');
    const policies = Object.entries(template.findResources('AWS::IAM::Policy'));
    const callsFor = (roleDescription: string): Call[] => {
      const roleId = roleIdOf(template, roleDescription);
      const principal = resolver.attribute(stack.stackName, roleId, 'Arn');
      const identityPolicies = policies
        .filter(([, p]) => JSON.stringify((p.Properties as { Roles: unknown }).Roles).includes(roleId))
        .map(([name, p]) => ({
          name,
          policy: resolver.resolve(
            stack.stackName,
            (p.Properties as { PolicyDocument: unknown }).PolicyDocument,
          ) as PolicyDocument,
        }));
      const call = (action: string, arn: string, expect: 'Allowed' | 'Denied'): Call => ({
        caller: roleDescription,
        principal,
        action,
        resource: arn,
        resourceArn: arn,
        identityPolicies,
        expect,
      });
      const other = collectionArn.replace(/collection\/.*/, 'collection/someoneelse0000000000');
      return [
        call('aoss:APIAccessAll', collectionArn, 'Allowed'),
        call('aoss:APIAccessAll', other, 'Denied'),
        call('aoss:DeleteCollection', collectionArn, 'Denied'),
        call('aoss:UpdateCollection', collectionArn, 'Denied'),
      ];
    };
    // WHEN
    const problems = await failures(
      [
        'direct-delivery indexer',
        'OpenSearch master user',
        'scheduled retention function',
        'scheduled reconcile function',
      ].flatMap(callsFor),
      MATRIX_TARGET.account,
    );
    // THEN
    expect(problems).toEqual([]);
  });
});

/** The logical id of the one role whose description matches. */
function roleIdOf(template: Template, descriptionPart: string): string {
  const ids = Object.keys(
    template.findResources('AWS::IAM::Role', {
      Properties: { Description: Match.stringLikeRegexp(descriptionPart) },
    }),
  );
  expect(ids).toHaveLength(1);
  return ids[0];
}
