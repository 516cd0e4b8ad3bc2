/**
 * The change planner's replacements on small hand-written templates, one rule per test: create-only properties,
 * cascades through references, custom names, the OpenSearch version upgrade, types, custom resources.
 */
import { type CfnResource, describePlan, planChange } from '../../../core/change-plan';
import { template, stream, bucket, consumerOf, deliveryStream, domain, oneStack } from './fixtures';

describe('planChange: replacements', () => {
  test('a changed create-only property replaces the resource, with its reason and the data at risk', () => {
    // GIVEN the delivery stream reads another source stream
    const before = template({ Delivery: deliveryStream('arn:aws:kinesis:eu-west-1:1:stream/a') });
    const after = template({ Delivery: deliveryStream('arn:aws:kinesis:eu-west-1:1:stream/b') });
    // WHEN
    const plan = planChange(oneStack(before, after));
    // THEN
    expect(plan.replacements).toEqual([
      {
        stackName: 's',
        logicalId: 'Delivery',
        type: 'AWS::KinesisFirehose::DeliveryStream',
        reasons: ['create-only property /properties/KinesisStreamSourceConfiguration changed'],
        stateful: true,
        refused: false,
        oldRetained: false,
        dataAtRisk: expect.stringContaining('starts reading its source stream at its creation time'),
      },
    ]);
    expect(describePlan(plan)).toContainEqual(
      expect.stringMatching(
        /^REPLACE s\/Delivery \(AWS::KinesisFirehose::DeliveryStream\) is replaced: .*Data at risk: /,
      ),
    );
  });

  test('a change to a property that is not create-only updates in place', () => {
    // GIVEN / WHEN
    const plan = planChange(
      oneStack(template({ Raw: stream() }), template({ Raw: stream({ ShardCount: 4 }) })),
    );
    // THEN
    expect(plan.stacks[0].modified).toEqual(['Raw']);
    expect(plan.replacements).toEqual([]);
  });

  test('a replacement cascades through Ref, Fn::GetAtt and Fn::Sub in create-only properties', () => {
    // GIVEN a stream whose name changes, read by a mapping (GetAtt) and a pipe (Sub), and a bucket policy on a
    // renamed bucket (Ref)
    const resources = (suffix: string): Record<string, CfnResource> => ({
      Raw: stream({ Name: `raw-${suffix}` }),
      Esm: consumerOf({ 'Fn::GetAtt': ['Raw', 'Arn'] }),
      Pipe: {
        Type: 'AWS::Pipes::Pipe',
        Properties: { Source: { 'Fn::Sub': 'arn:${AWS::Partition}:kinesis:::stream/${Raw}' }, Target: 'x' },
      },
      Bucket: bucket(`bucket-${suffix}`),
      Policy: {
        Type: 'AWS::S3::BucketPolicy',
        Properties: { Bucket: { Ref: 'Bucket' }, PolicyDocument: {} },
      },
      Unrelated: { Type: 'AWS::SNS::Topic', Properties: { DisplayName: { Ref: 'Raw' } } },
    });
    // WHEN
    const plan = planChange(oneStack(template(resources('a')), template(resources('b'))));
    // THEN
    const reasons = Object.fromEntries(plan.replacements.map((r) => [r.logicalId, r.reasons]));
    expect(reasons).toEqual({
      Raw: ['create-only property /properties/Name changed'],
      Bucket: ['create-only property /properties/BucketName changed'],
      Esm: ['create-only property /properties/EventSourceArn refers to Raw, which is replaced'],
      Pipe: ['create-only property /properties/Source refers to Raw, which is replaced'],
      Policy: ['create-only property /properties/Bucket refers to Bucket, which is replaced'],
    });
  });

  test('a cascade continues to a fixed point', () => {
    // GIVEN a renamed bucket, a policy on it, and a second policy reading the first one's id
    const resources = (name: string): Record<string, CfnResource> => ({
      Bucket: bucket(name),
      Policy: { Type: 'AWS::S3::BucketPolicy', Properties: { Bucket: { Ref: 'Bucket' } } },
      Second: { Type: 'AWS::S3::BucketPolicy', Properties: { Bucket: { 'Fn::GetAtt': 'Policy.Id' } } },
    });
    // WHEN
    const plan = planChange(oneStack(template(resources('a')), template(resources('b'))));
    // THEN
    expect(plan.replacements.map((r) => r.logicalId)).toEqual(['Bucket', 'Policy', 'Second']);
  });

  test('fails when a resource that keeps its custom name must be replaced', () => {
    // GIVEN a named delivery stream whose source changes
    const before = template({ Delivery: deliveryStream('arn:a', 'kfek-sandbox-delivery') });
    const after = template({ Delivery: deliveryStream('arn:b', 'kfek-sandbox-delivery') });
    // WHEN
    const plan = planChange(oneStack(before, after));
    // THEN
    expect(plan.replacements).toEqual([expect.objectContaining({ logicalId: 'Delivery', refused: true })]);
    expect(describePlan(plan)).toContainEqual(
      expect.stringMatching(/^REFUSED s\/Delivery .*custom-named resource requires replacing/),
    );
  });

  test('a resource given a new custom name is replaced, not refused', () => {
    // GIVEN / WHEN
    const plan = planChange(
      oneStack(template({ Raw: stream({ Name: 'a' }) }), template({ Raw: stream({ Name: 'b' }) })),
    );
    // THEN
    expect(plan.replacements).toEqual([expect.objectContaining({ refused: false, stateful: true })]);
  });

  test('fails when the OpenSearch engine version changes without EnableVersionUpgrade', () => {
    // GIVEN / WHEN
    const plan = planChange(
      oneStack(
        template({ Domain: domain('OpenSearch_2.17') }),
        template({ Domain: domain('OpenSearch_2.19') }),
      ),
    );
    // THEN the domain would be replaced, and since it keeps its name CloudFormation refuses
    expect(plan.replacements).toEqual([
      expect.objectContaining({
        logicalId: 'Domain',
        reasons: [
          'EngineVersion changed from "OpenSearch_2.17" to "OpenSearch_2.19" without UpdatePolicy.EnableVersionUpgrade',
        ],
        stateful: true,
        refused: true,
        dataAtRisk: expect.stringContaining('the new domain starts empty'),
      }),
    ]);
  });

  test('with EnableVersionUpgrade the OpenSearch engine version is upgraded in place', () => {
    // GIVEN / WHEN
    const plan = planChange(
      oneStack(
        template({ Domain: domain('OpenSearch_2.17') }),
        template({ Domain: domain('OpenSearch_2.19', true) }),
      ),
    );
    // THEN
    expect(plan.stacks[0].modified).toEqual(['Domain']);
    expect(plan.replacements).toEqual([]);
  });

  test('a changed type replaces the resource', () => {
    // GIVEN / WHEN
    const plan = planChange(oneStack(template({ X: bucket() }), template({ X: stream() })));
    // THEN
    expect(plan.replacements).toEqual([
      expect.objectContaining({
        type: 'AWS::Kinesis::Stream',
        reasons: ['type changed from AWS::S3::Bucket to AWS::Kinesis::Stream'],
        stateful: true,
        refused: false,
        dataAtRisk: expect.stringContaining('objects in the bucket'),
      }),
    ]);
  });

  test('a replaced resource with UpdateReplacePolicy Retain keeps the old one', () => {
    // GIVEN
    const retained = (name: string): CfnResource => ({
      ...stream({ Name: name }),
      UpdateReplacePolicy: 'Retain',
    });
    // WHEN
    const plan = planChange(oneStack(template({ Raw: retained('a') }), template({ Raw: retained('b') })));
    // THEN
    expect(plan.replacements[0]).toMatchObject({
      oldRetained: true,
      dataAtRisk: expect.stringContaining('kept'),
    });
  });

  test('a custom resource is never replaced by a property change', () => {
    // GIVEN
    const custom = (v: string): CfnResource => ({ Type: 'Custom::Provisioning', Properties: { Name: v } });
    // WHEN
    const plan = planChange(oneStack(template({ C: custom('a') }), template({ C: custom('b') })));
    // THEN
    expect(plan.replacements).toEqual([]);
    expect(plan.unknownTypes).toEqual([]);
  });

  test('a type missing from the schema table is reported as unchecked', () => {
    // GIVEN / WHEN
    const plan = planChange(oneStack(undefined, template({ X: { Type: 'AWS::Made::Up' } })));
    // THEN
    expect(plan.unknownTypes).toEqual(['AWS::Made::Up']);
    expect(describePlan(plan).at(-1)).toMatch(/^UNCHECKED AWS::Made::Up/);
  });
});
