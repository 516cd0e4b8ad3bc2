/**
 * Order across an update (issue 30.4), proven from the synthesized templates' dependencies, not from timing.
 * CloudFormation creates and updates a resource only after every resource it depends on (`DependsOn`, `Ref`,
 * `Fn::GetAtt`) is done, so in every shipped profile:
 * - the transform function, whose environment names the routes it marks documents with, depends on the OpenSearch
 *   provisioner: the ingest pipeline's route table knows a new route name (and still knows a retired one) before any
 *   transform can write it; the event source mapping or pipe that invokes the function comes after the function;
 * - the Firehose delivery stream depends on the provisioner: the writer role covers a new index prefix, and the
 *   template exists, before Firehose writes there;
 * - the provisioner depends on neither (no cycle, and its own update never waits for them).
 */
import { Template } from 'aws-cdk-lib/assertions';
import { TransformEnvVar } from '../../../core/contracts/transform-env';
import { buildTestApp, CDK_JSON_CONTEXT } from '../../helpers/app';

type Resources = Record<string, { Type: string; DependsOn?: string | string[]; Properties?: unknown }>;

/** Logical ids a value references (`Ref`, `Fn::GetAtt`), at any depth. */
function references(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => references(v, out));
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      if (key === 'Ref' && typeof v === 'string') out.add(v);
      else if (key === 'Fn::GetAtt' && Array.isArray(v) && typeof v[0] === 'string') out.add(v[0]);
      else references(v, out);
    }
  }
  return out;
}

/** Everything `id` waits for before CloudFormation creates or updates it. */
function dependenciesOf(resources: Resources, id: string): Set<string> {
  const seen = new Set<string>();
  const todo = [id];
  while (todo.length > 0) {
    const current = resources[todo.pop() as string];
    if (current === undefined) continue;
    const direct = [...[current.DependsOn ?? []].flat(), ...references(current.Properties)].filter(
      (d) => resources[d] !== undefined,
    );
    for (const d of direct) {
      if (!seen.has(d)) {
        seen.add(d);
        todo.push(d);
      }
    }
  }
  return seen;
}

// A serverless profile has no provisioner and no ingest pipeline (docs/serverless.md): no route table to wait for.
const SHIPPED = (CDK_JSON_CONTEXT.kfek as { profiles: Record<string, { openSearch?: { kind?: string } }> })
  .profiles;
const PROFILES = Object.keys(SHIPPED).filter((p) => SHIPPED[p].openSearch?.kind !== 'serverless');

describe.each(PROFILES)('the Pipeline stack of profile %s updates in a safe order', (profile) => {
  const { stacks } = buildTestApp({ profile });
  const resources = Template.fromStack(stacks.pipeline).toJSON().Resources as Resources;
  const idsOf = (type: string): string[] =>
    Object.keys(resources).filter((id) => resources[id].Type === type);
  const [provisioner] = idsOf('Custom::KfekOpenSearchProvisioning');
  const transform = idsOf('AWS::Lambda::Function').filter((id) =>
    JSON.stringify(resources[id].Properties).includes(TransformEnvVar.ServiceName),
  );
  const invokers = [...idsOf('AWS::Lambda::EventSourceMapping'), ...idsOf('AWS::Pipes::Pipe')];

  test('the transform function (and the reconcile function, which plans with the same routes), and what invokes the transform, wait for the route table', () => {
    // With delivery direct the indexer names the routes too (its environment) and waits as well.
    expect(transform.length).toBe(profile === 'production' || profile.endsWith('-direct') ? 2 : 1);
    // The transform's invoker, and with delivery direct the indexer's event source mapping, which waits too (below).
    expect(invokers).toHaveLength(profile.endsWith('-direct') ? 2 : 1);
    for (const id of [...transform, ...invokers]) {
      expect({ id, waitsForProvisioner: dependenciesOf(resources, id).has(provisioner) }).toEqual({
        id,
        waitsForProvisioner: true,
      });
    }
  });

  test('the delivery stream, or the indexer and its mapping, wait for the writer role and the template', () => {
    const indexer = idsOf('AWS::Lambda::Function').filter((id) =>
      JSON.stringify(resources[id].Properties).includes('"POWERTOOLS_SERVICE_NAME":"indexer"'),
    );
    expect(indexer).toHaveLength(profile.endsWith('-direct') ? 1 : 0);
    for (const id of [...idsOf('AWS::KinesisFirehose::DeliveryStream'), ...indexer]) {
      expect({ id, waitsForProvisioner: dependenciesOf(resources, id).has(provisioner) }).toEqual({
        id,
        waitsForProvisioner: true,
      });
    }
  });

  test('the provisioner waits for neither', () => {
    const own = dependenciesOf(resources, provisioner);
    expect(
      [...transform, ...invokers, ...idsOf('AWS::KinesisFirehose::DeliveryStream')].filter((id) =>
        own.has(id),
      ),
    ).toEqual([]);
  });
});
