/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "expectRow"] }] -- expectRow asserts every call of a row. */
/**
 * The permission matrix (issue 11, section 1): every call kfek makes across a service boundary, evaluated against
 * the SYNTHESIZED templates of every cdk.json profile and of the variants (account-level subscription policy, alarm
 * e-mail, Pipes transport in production), with a real IAM policy evaluator.
 *
 * Why @cloud-copilot/iam-simulate and not string matching: a grant is more than a statement that names the action.
 * Whether a call succeeds depends on how IAM combines identity policies, resource policies (bucket, queue, topic,
 * domain), trust policies and KMS key policies (a key policy must delegate to IAM before any identity policy counts;
 * a service principal is only ever allowed by a resource policy), on explicit denies such as enforce-TLS, and on
 * conditions (`aws:SourceArn`, `aws:SourceAccount`, `aws:SecureTransport`, `kms:ViaService`). The alarm-topic defect
 * is exactly this kind: the KMS grant for CloudWatch was there, a topic policy existed, yet nothing allowed
 * `sns:Publish`. iam-simulate evaluates those rules offline and explains the decisive statements.
 * It is AGPL-3.0-or-later: a devDependency used here only, never bundled or shipped.
 *
 * Each row derives its resources from the wiring in the templates (the role a subscription filter names, the
 * stream an event source mapping reads, the bucket in the transform's environment), finds them by construct path,
 * and fails naming caller, action and resource when a grant is missing.
 */
import * as fs from 'node:fs';
import { buildSecurityRoles } from '../../../core/opensearch/security';
import { resolveOpenSearchSpec, type OpenSearchSpecInput } from '../../../core/opensearch/spec';
import { type AppModel, type Call, failures, matrixModel } from '../../helpers/permission-matrix';
import { ALLOW_ROWS, DENY_ROWS, USER_POLICY_FILE, type VariantTraits } from './rows';
import { CONTEXT_KEY, isCrossAccount, resolveConfig } from '../../../core/config';
import { CDK_JSON_CONTEXT, deploysDomain, testContext, type TestAppOptions } from '../../helpers/app';

interface Variant extends VariantTraits {
  readonly name: string;
  readonly options: TestAppOptions;
}

const PROFILES = (CDK_JSON_CONTEXT[CONTEXT_KEY] as { profiles: Record<string, Record<string, unknown>> })
  .profiles;

function variant(name: string, options: TestAppOptions): Variant {
  const profile = options.overrides === undefined ? (options.profile ?? 'sandbox') : 'test';
  const config = resolveConfig(testContext(options), profile);
  return {
    name,
    options,
    transport: config.transport,
    accountPolicy: config.sources.accountPolicy.enabled,
    alarmEmail: config.alarms.email !== undefined,
    crossAccount: isCrossAccount(config.sources),
    organization: config.sources.organizationId !== undefined,
    reconcile: config.reconcile.enabled,
    delivery: config.delivery.mode,
  };
}

/**
 * Every profile of cdk.json that deploys a domain, and the variants the profiles do not cover. A Serverless profile
 * (`openSearch.kind: serverless`) has no domain, Firehose or provisioner, so none of these rows apply to it: its
 * indexer's, readers' and admin's permissions are checked against the collection's data access policy by
 * test/lib/stacks/search-stack-serverless.test.ts and pipeline-serverless.test.ts.
 */
const onDomain = (p: string): boolean => deploysDomain(PROFILES[p]);
const VARIANTS: readonly Variant[] = [
  ...Object.keys(PROFILES)
    .filter(onDomain)
    .map((p) => variant(`profile ${p}`, { profile: p })),
  variant('sandbox + account-level subscription policy', {
    overrides: {
      ...PROFILES.sandbox,
      sources: {
        ...(PROFILES.sandbox.sources as object),
        accountPolicy: { enabled: true, excludeLogGroups: ['/aws/lambda/noisy'] },
      },
    },
  }),
  variant('sandbox + alarm e-mail', {
    overrides: { ...PROFILES.sandbox, alarms: { email: 'ops@example.com' } },
  }),
  variant('multi + organization and account-level policies in the source accounts', {
    overrides: {
      ...PROFILES.multi,
      sources: {
        ...(PROFILES.multi.sources as object),
        organizationId: 'o-a1b2c3d4e5',
        remote: {
          logGroups: ['/app/orders'],
          accountPolicy: { enabled: true, excludeLogGroups: ['/aws/noisy'] },
        },
      },
    },
  }),
  variant('production + pipes transport', {
    overrides: { ...PROFILES.production, transport: 'pipes', transform: { batchSize: 10 } },
  }),
];

/** Rows × variants actually checked (reported at the end). */
let checkedRows = 0;
let checkedCalls = 0;

async function expectRow(calls: readonly Call[], m: AppModel): Promise<void> {
  checkedRows += 1;
  checkedCalls += calls.length;
  const failed = await failures(calls, m.account);
  // The message names caller, action and resource of every call that did not get its decision.
  expect(failed).toEqual([]);
}

describe.each(VARIANTS)('permission matrix: $name', (v) => {
  let model: AppModel;
  beforeAll(() => {
    // One synth per variant, shared by its rows.
    model = matrixModel(v.options);
  });

  describe('allowed', () => {
    test.each(ALLOW_ROWS.filter((r) => r.when?.(v) ?? true))('$name', async (row) => {
      await expectRow(row.calls(model), model);
    });
  });

  describe('denied', () => {
    test.each(DENY_ROWS.filter((r) => r.when?.(v) ?? true))('$name', async (row) => {
      await expectRow(row.calls(model), model);
    });
  });

  test("OpenSearch fine-grained access control is the second gate: the delivery's role is the one mapped to kfek_writer", () => {
    // GIVEN the synthesized delivery (Firehose's stream or the indexer), provisioner custom resource and domain
    const direct = v.delivery === 'direct';
    const writerRoleArn = direct
      ? model.attr(
          model.functionRole(model.find('Pipeline/Indexer/Indexer/Function', 'AWS::Lambda::Function')),
        )
      : (
          model.find('Pipeline/Delivery', 'AWS::KinesisFirehose::DeliveryStream').properties
            .AmazonopensearchserviceDestinationConfiguration as { RoleARN: string }
        ).RoleARN;
    const cr = model.find('Pipeline/OpenSearchProvisioner/Resource', 'Custom::KfekOpenSearchProvisioning');
    const spec = JSON.parse(cr.properties.Spec as string) as OpenSearchSpecInput;
    const domain = model.find('Search/Search/Domain', 'AWS::OpenSearchService::Domain');
    const provisionerFn = model.find('Pipeline/OpenSearchProvisioner/Function', 'AWS::Lambda::Function');

    // WHEN the provisioner's own builders turn the spec into role mappings (what it PUTs to the security API)
    const roles = buildSecurityRoles(resolveOpenSearchSpec(spec));

    // THEN the role the delivery signs with is the backend role of kfek_writer (with Firehose delivering, beside the
    // indexer's fixed-name role, so a switch from direct keeps the running indexer's access), and the provisioner runs
    // as the master user
    expect(spec.access?.firehoseRoleArn).toBe(writerRoleArn);
    const indexerFixedName = expect.stringMatching(
      /^arn:aws:iam::\d{12}:role\/[a-z0-9-]+-indexer$/,
    ) as string;
    const expected = direct ? [writerRoleArn] : [writerRoleArn, indexerFixedName];
    const mapped = roles.find((r) => r.name === 'kfek_writer')?.mapping?.backend_roles ?? [];
    expect(mapped).toHaveLength(expected.length);
    expect(mapped).toEqual(expect.arrayContaining(expected));
    const security = domain.properties.AdvancedSecurityOptions as {
      Enabled: boolean;
      MasterUserOptions: { MasterUserARN: string };
    };
    expect(security.Enabled).toBe(true);
    expect(security.MasterUserOptions.MasterUserARN).toBe(model.attr(model.functionRole(provisionerFn)));
  });
});

describe('permission matrix: a removed grant fails its row, naming caller, action and resource', () => {
  let model: AppModel;
  beforeAll(() => {
    model = matrixModel({ profile: 'sandbox' });
  });

  test('fails when the Firehose role loses s3:PutObject on failed documents', async () => {
    // GIVEN the Firehose S3 row, with s3:PutObject taken out of the role's policies
    const row = ALLOW_ROWS.find((r) => r.name.startsWith('Firehose | s3:PutObject'));
    if (row === undefined) throw new Error('row missing');
    const withoutPut = row.calls(model).map((c) => ({
      ...c,
      identityPolicies: (c.identityPolicies ?? []).map((p) => ({
        ...p,
        policy: {
          ...p.policy,
          Statement: p.policy.Statement.filter((s) => !JSON.stringify(s.Action).includes('s3:PutObject')),
        },
      })),
    }));

    // WHEN
    const failed = await failures(withoutPut, model.account);

    // THEN
    // PutObject (both prefixes) and AbortMultipartUpload share the removed statement.
    expect(failed).toHaveLength(3);
    expect(failed[0]).toMatch(
      /^expected Allowed, got ImplicitlyDenied: Pipeline\/Delivery\/Role\/Resource \(arn:aws:iam::\d+:role\/.+\) -> s3:PutObject on Search\/FailedRecordsBucket\/Resource\/failed-documents\//,
    );
  });

  test('fails when the delivery role trust loses its aws:SourceArn scope to another account', async () => {
    // GIVEN CloudWatch Logs of another account asking for the delivery role
    const row = ALLOW_ROWS[0];
    const [call] = row.calls(model);
    const foreign = {
      ...call,
      context: { 'aws:SourceArn': 'arn:aws:logs:eu-west-1:444455556666:log-group:/x' },
    };

    // WHEN
    const failed = await failures([foreign], model.account);

    // THEN
    expect(failed).toEqual([
      expect.stringMatching(
        /^expected Allowed, got ImplicitlyDenied: logs\.amazonaws\.com .* sts:AssumeRole on Search\/LogsDeliveryRole\/Role\/Resource/,
      ),
    ]);
  });
});

describe('permission matrix: a cross-account hop that loses its grant fails', () => {
  let model: AppModel;
  beforeAll(() => {
    model = matrixModel({ profile: 'multi' });
  });

  test('fails when the destination access policy stops admitting a source account', async () => {
    // GIVEN the PutSubscriptionFilter row, with the destination policy admitting only the first source account
    const row = ALLOW_ROWS.find((r) => r.name.startsWith('source account | logs:PutSubscriptionFilter'));
    if (row === undefined) throw new Error('row missing');
    const narrowed = row.calls(model).map((c) => ({
      ...c,
      resourcePolicy: c.resourcePolicy && {
        ...c.resourcePolicy,
        policy: {
          ...c.resourcePolicy.policy,
          Statement: c.resourcePolicy.policy.Statement.map((st) => ({
            ...st,
            Principal: { AWS: ['222233334444'] },
          })),
        },
      },
    }));

    // WHEN
    const failed = await failures(narrowed, model.account);

    // THEN: two regions x two log groups of the second account
    expect(failed).toHaveLength(4);
    expect(failed[0]).toMatch(
      /^expected Allowed, got ImplicitlyDenied: source account 333344445555 deployer .* -> logs:PutSubscriptionFilter on Destination/,
    );
  });

  test('fails when the destination role trust loses a source region', async () => {
    // GIVEN CloudWatch Logs delivering for a source account from a region without a destination
    const row = ALLOW_ROWS.find((r) => r.name.startsWith('CloudWatch Logs (delivering for a source account'));
    if (row === undefined) throw new Error('row missing');
    const [call] = row.calls(model);
    const elsewhere = {
      ...call,
      context: { 'aws:SourceArn': 'arn:aws:logs:ap-south-1:222233334444:log-group:/app/orders' },
    };

    // WHEN
    const failed = await failures([elsewhere], model.account);

    // THEN
    expect(failed).toEqual([
      expect.stringMatching(
        /^expected Allowed, got ImplicitlyDenied: logs\.amazonaws\.com .* on DestinationRole\//,
      ),
    ]);
  });
});

describe('docs/deploy/opensearch-user-policy.json', () => {
  test('grants only es:ESHttp* on the placeholder domain paths', () => {
    const doc = JSON.parse(fs.readFileSync(USER_POLICY_FILE, 'utf8')) as {
      Statement: { Action: string[]; Resource: string }[];
    };
    expect(doc.Statement).toHaveLength(1);
    expect(doc.Statement[0].Action.every((a) => /^es:ESHttp(Get|Head|Post|Put|Delete|Patch)$/.test(a))).toBe(
      true,
    );
    expect(doc.Statement[0].Resource).toBe('arn:aws:es:<region>:<account>:domain/kfek-<profile>/*');
  });
});

afterAll(() => {
  // A figure for the report: rows × variants evaluated, and how many calls they made.
  process.stdout.write(`permission matrix: ${checkedRows} row checks, ${checkedCalls} calls evaluated\n`);
});
