/* eslint jest/expect-expect: ["warn", { "assertFunctionNames": ["expect", "*.allResources"] }] -- Template assertions throw on mismatch. */
/**
 * `removalPolicy: retain` keeps data when a stack is deleted or a resource replaced, but must not keep resources a
 * failed first create rolls back: a plain `Retain` leaves the fixed-name domain and log groups behind, and the retry
 * fails with "already exists" (issue 11). CloudFormation's `RetainExceptOnCreate` is made for this:
 * https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/aws-attribute-deletionpolicy.html
 */
import type { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildTestApp } from '../helpers/app';

/** Data-bearing resource types of the stateful stacks (Search, Sources). */
const DATA_BEARING = [
  'AWS::OpenSearchService::Domain',
  'AWS::Logs::LogGroup',
  'AWS::Kinesis::Stream',
  'AWS::KMS::Key',
  'AWS::S3::Bucket',
  'AWS::SQS::Queue',
];

describe('removal policies of a retained profile (production)', () => {
  const { stacks } = buildTestApp({ profile: 'production' });
  const templates = (Object.entries(stacks) as [string, Stack][]).map(
    ([name, stack]) => [name, Template.fromStack(stack)] as const,
  );

  test('no resource of any stack is plainly Retained: a rolled-back first create leaves nothing behind', () => {
    // GIVEN / WHEN
    const retained = templates.flatMap(([name, template]) =>
      Object.entries(template.toJSON().Resources as Record<string, { DeletionPolicy?: string }>)
        .filter(([, r]) => r.DeletionPolicy === 'Retain')
        .map(([id]) => `${name}/${id}`),
    );
    // THEN
    expect(retained).toEqual([]);
  });

  test.each(['search', 'sources'] as const)(
    'the %s stack keeps its data on delete and on replacement, except after a failed create',
    (name) => {
      // GIVEN
      const template = Template.fromStack(stacks[name]);
      const present = DATA_BEARING.filter((type) => Object.keys(template.findResources(type)).length > 0);
      // WHEN / THEN
      expect(present.length).toBeGreaterThan(0);
      for (const type of present) {
        template.allResources(type, {
          DeletionPolicy: 'RetainExceptOnCreate',
          UpdateReplacePolicy: 'Retain',
        });
      }
    },
  );
});
