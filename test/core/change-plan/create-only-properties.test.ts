/**
 * The checked-in schema table (core/change-plan/create-only-properties.json) against its sources: the
 * CloudFormation resource schemas cfn-lint ships in .venv (the test suite's pretest installs it), and the resource
 * types in the synthesized templates of every profile cdk.json ships. Regenerate it with
 * `node -r ts-node/register/transpile-only scripts/create-only-properties.ts`.
 */
import table from '../../../core/change-plan/create-only-properties.json';
import { STATEFUL_TYPES } from '../../../core/change-plan';
import { isCustomType } from '../../../core/change-plan/schema-table';
import { assemblyTypes, buildTable, shippedProfiles } from '../../../scripts/create-only-properties';
import { buildTestApp } from '../../helpers/app';

const REGENERATE = 'node -r ts-node/register/transpile-only scripts/create-only-properties.ts';

describe('the create-only properties table', () => {
  test("matches the resource schemas cfn-lint ships in .venv (else regenerate it: see this file's header)", () => {
    // GIVEN / WHEN
    const fresh = buildTable(Object.keys(table.types));
    // THEN
    expect({ source: table.source, types: table.types }).toEqual({
      source: fresh.source,
      types: fresh.types,
    });
  });

  test.each(shippedProfiles())('has every resource type profile %s synthesizes', (profile) => {
    // GIVEN
    const dir = buildTestApp({ profile }).app.synth().directory;
    // WHEN
    const missing = [...assemblyTypes(dir)].filter((t) => !isCustomType(t) && !(t in table.types));
    // THEN
    expect({ missing, fix: REGENERATE }).toEqual({ missing: [], fix: REGENERATE });
  });

  test('has every stateful type, and the schema facts the planner relies on', () => {
    // GIVEN
    const types: Readonly<Record<string, { createOnly: readonly string[]; names: readonly string[] }>> =
      table.types;
    // WHEN / THEN
    expect(Object.keys(STATEFUL_TYPES).filter((t) => !(t in types))).toEqual([]);
    expect(types['AWS::Kinesis::Stream']).toEqual({
      createOnly: ['/properties/Name'],
      names: ['/properties/Name'],
    });
    expect(types['AWS::KinesisFirehose::DeliveryStream'].createOnly).toEqual(
      expect.arrayContaining([
        '/properties/DeliveryStreamName',
        '/properties/KinesisStreamSourceConfiguration',
      ]),
    );
    expect(types['AWS::Lambda::EventSourceMapping'].createOnly).toEqual(
      expect.arrayContaining(['/properties/EventSourceArn', '/properties/StartingPosition']),
    );
    // The queue's identifier is its URL (read-only): its name property is QueueName.
    expect(types['AWS::SQS::Queue'].names).toEqual(['/properties/QueueName']);
    // EngineVersion is not create-only: the planner's own rule covers it (UpdatePolicy.EnableVersionUpgrade).
    expect(types['AWS::OpenSearchService::Domain'].createOnly).not.toContain('/properties/EngineVersion');
  });
});
