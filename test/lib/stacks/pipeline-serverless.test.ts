/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.hasResourceProperties", "*.resourceCountIs"] }] -- Template assertions throw on mismatch. */
/**
 * The whole app of a serverless profile (`sandbox-serverless`, issue 42, docs/serverless.md): the indexer writes the
 * collection as the writer role its data access policy names, signing for `aoss`, with IAM on exactly this
 * collection; no Firehose, no provisioner, no domain alarms. Built with bundling skipped (test/helpers/app.ts).
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { buildTestApp } from '../../helpers/app';

interface Statement {
  readonly Effect: string;
  readonly Action: string | string[];
  readonly Resource: unknown;
}

const actionsOf = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);

/** The export name a `{ "Fn::ImportValue": name }` reads. */
function importName(value: unknown): string {
  const name = (value as { 'Fn::ImportValue'?: unknown } | null)?.['Fn::ImportValue'];
  if (typeof name !== 'string') throw new Error(`not an import: ${JSON.stringify(value)}`);
  return name;
}

/** The logical id of the resource whose attribute the Search stack exports under `exportName`. */
function exportedLogicalId(search: Template, exportName: string): string {
  const outputs = Object.values(
    search.toJSON().Outputs as Record<string, { Value: unknown; Export?: unknown }>,
  );
  const output = outputs.find((o) => (o.Export as { Name?: string } | undefined)?.Name === exportName);
  const getAtt = (output?.Value as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt'];
  if (getAtt === undefined) throw new Error(`no GetAtt export named ${exportName}`);
  return getAtt[0];
}

describe('a serverless profile, the whole app (sandbox-serverless)', () => {
  let search: Template;
  let pipeline: Template;
  let monitoring: Template;

  beforeAll(() => {
    const { stacks } = buildTestApp({ profile: 'sandbox-serverless' });
    search = Template.fromStack(stacks.search);
    pipeline = Template.fromStack(stacks.pipeline);
    monitoring = Template.fromStack(stacks.monitoring);
  });

  test('the indexer signs for aoss and writes the collection endpoint; no Firehose', () => {
    // THEN
    pipeline.resourceCountIs('AWS::KinesisFirehose::DeliveryStream', 0);
    pipeline.hasResourceProperties('AWS::Lambda::Function', {
      FunctionName: 'kfek-sandbox-serverless-indexer',
      Environment: {
        Variables: Match.objectLike({
          OPENSEARCH_SIGNING_SERVICE: 'aoss',
          OPENSEARCH_ENDPOINT: { 'Fn::ImportValue': Match.stringLikeRegexp('CollectionEndpoint') },
        }),
      },
    });
  });

  test('the indexer runs as the role the data access policy lets write, imported from the Search stack', () => {
    // GIVEN
    const [indexer] = Object.values(
      pipeline.findResources('AWS::Lambda::Function', {
        Properties: { FunctionName: 'kfek-sandbox-serverless-indexer' },
      }),
    );
    // WHEN
    const writerId = exportedLogicalId(search, importName(indexer.Properties.Role));
    const [policy] = Object.values(search.findResources('AWS::OpenSearchServerless::AccessPolicy'));
    // THEN: the role is the collection's writer, and the deployed policy names it as a writer of the log indices.
    expect(writerId).toMatch(/^CollectionWriterRole/);
    expect(JSON.stringify(policy.Properties.Policy)).toContain(`"${writerId}","Arn"`);
  });

  test("the indexer's IAM reaches this collection's data plane only, and no domain", () => {
    // GIVEN every statement of the policies in the Pipeline stack attached to the imported writer role
    const statements = Object.values(pipeline.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes('CollectionWriterRole'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
    // WHEN
    const aoss = statements.filter((s) => actionsOf(s).some((a) => a.startsWith('aoss:')));
    // THEN
    expect(aoss).toEqual([
      {
        Effect: 'Allow',
        Action: 'aoss:APIAccessAll',
        Resource: { 'Fn::ImportValue': expect.stringMatching(/CollectionArn|Collection.*Arn/) as unknown },
      },
    ]);
    expect(statements.flatMap(actionsOf).filter((a) => a.startsWith('es:'))).toEqual([]);
  });

  test('the reconcile function signs for aoss against the collection, as the role its policy lets read only', () => {
    // GIVEN
    const [fn] = Object.values(
      pipeline.findResources('AWS::Lambda::Function', {
        Properties: { FunctionName: 'kfek-sandbox-serverless-reconcile' },
      }),
    );
    const job = (fn.Properties.Environment.Variables as Record<string, unknown>).KFEK_RECONCILE;
    // WHEN
    const roleId = exportedLogicalId(search, importName(fn.Properties.Role));
    const [policy] = Object.values(search.findResources('AWS::OpenSearchServerless::AccessPolicy'));
    const text = JSON.stringify(policy.Properties.Policy);
    const iamStatements = Object.values(pipeline.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify(p.Properties.Roles).includes('CollectionReconcileRole'))
      .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
    // THEN: the job signs for aoss at the collection's endpoint, the role is the collection's reconcile role
    expect(JSON.stringify(job)).toMatch(/signingService\\":\\"aoss/);
    expect(JSON.stringify(job)).toMatch(/CollectionEndpoint/);
    expect(roleId).toMatch(/^CollectionReconcileRole/);
    expect(text).toContain(`"${roleId}","Arn"`);
    expect(text).toContain('kfek reconcile reads every family');
    // and its IAM reaches this collection's data plane and no domain
    const actions = iamStatements.flatMap(actionsOf);
    expect(actions.filter((a) => a.startsWith('aoss:'))).toEqual(['aoss:APIAccessAll']);
    expect(actions.filter((a) => a.startsWith('es:'))).toEqual([]);
  });

  test("the provisioner applies kfek's templates to the collection's endpoint, as the admin role, before the indexer", () => {
    // GIVEN
    const [resource] = Object.values(pipeline.findResources('Custom::KfekOpenSearchProvisioning'));
    const [indexer] = Object.values(
      pipeline.findResources('AWS::Lambda::Function', {
        Properties: { FunctionName: 'kfek-sandbox-serverless-indexer' },
      }),
    );
    const provisionerPolicies = Object.values(pipeline.findResources('AWS::IAM::Policy')).filter((p) =>
      JSON.stringify(p.Properties.Roles).includes('OpenSearchAdminRole'),
    );
    // THEN: the endpoint is the collection's, no domain endpoint, no es:* grant, Dashboards objects skipped
    expect(resource.Properties).toMatchObject({
      CollectionEndpoint: { 'Fn::ImportValue': expect.stringMatching(/CollectionEndpoint/) as unknown },
      Dashboards: 'false',
    });
    expect(resource.Properties.DomainEndpoint).toBeUndefined();
    expect(
      provisionerPolicies
        .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
        .flatMap(actionsOf)
        .filter((a) => a.startsWith('es:')),
    ).toEqual([]);
    // the indexer is created after it (templates before the first index)
    expect(JSON.stringify(indexer.DependsOn)).toMatch(/OpenSearchProvisioner/);
  });

  test('monitoring watches the indexer and no domain: no OpenSearch Service alarm or metric', () => {
    // THEN
    const alarms = Object.values(monitoring.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.some((a) => JSON.stringify(a).includes('AWS/ES'))).toBe(false);
    expect(alarms.map((a) => String(a.Properties.AlarmName))).toEqual(
      expect.arrayContaining([
        'kfek-sandbox-serverless-DeliveryErrors',
        'kfek-sandbox-serverless-FailedDocuments',
      ]),
    );
    expect(JSON.stringify(monitoring.findResources('AWS::CloudWatch::Dashboard'))).not.toContain('AWS/ES');
  });

  test('cdk-nag (AwsSolutions + Serverless) finds nothing unacknowledged in any stack', () => {
    // GIVEN
    const { app } = buildTestApp({ profile: 'sandbox-serverless', nag: true });
    // WHEN / THEN
    expect(() => app.synth()).not.toThrow();
  });
});
