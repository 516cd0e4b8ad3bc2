/**
 * The change planner on small hand-written templates: what happens to each stack, and the updates CloudFormation
 * refuses because of exports in use.
 */
import { ChangePlanError, describePlan, planChange, type StackChangeInput } from '../../../core/change-plan';
import {
  template,
  exported,
  importValue,
  stream,
  bucket,
  consumerOf,
  RAW_ARN,
  producer,
  consumer,
  oneStack,
} from './fixtures';

describe('planChange: stacks', () => {
  test('unchanged templates: every stack unchanged, nothing refused, replaced or deleted', () => {
    // GIVEN
    const templates = { search: producer(true), pipeline: consumer(true) };
    // WHEN
    const plan = planChange({ before: templates, after: templates, order: ['search', 'pipeline'] });
    // THEN
    expect(plan.stacks.map((s) => [s.stackName, s.action])).toEqual([
      ['search', 'unchanged'],
      ['pipeline', 'unchanged'],
    ]);
    expect(plan).toMatchObject({
      refused: [],
      replacements: [],
      deletions: [],
      nameClashes: [],
      unknownTypes: [],
    });
    expect(describePlan(plan)).toEqual([
      'search: unchanged (cdk deploy skips it)',
      'pipeline: unchanged (cdk deploy skips it)',
    ]);
  });

  test('key order alone is no change', () => {
    // GIVEN
    const before = template({
      Raw: { Properties: { ShardCount: 1, Name: 'raw' }, Type: 'AWS::Kinesis::Stream' },
    });
    const after = template({ Raw: stream({ Name: 'raw' }) });
    // WHEN / THEN
    expect(planChange(oneStack(before, after)).stacks[0].action).toBe('unchanged');
  });

  test('a stack that does not exist is created; one the app dropped is left deployed', () => {
    // GIVEN / WHEN
    const plan = planChange({
      before: { search: undefined, old: producer(false) },
      after: { search: producer(true) },
      order: ['search'],
    });
    // THEN
    expect(plan.stacks).toEqual([
      { stackName: 'search', action: 'create', added: ['Raw'], removed: [], modified: [] },
      { stackName: 'old', action: 'left-deployed', added: [], removed: [], modified: [] },
    ]);
  });

  test('an update lists what it adds, removes and modifies', () => {
    // GIVEN
    const before = template({ A: stream(), B: bucket() });
    const after = template({ A: stream({ RetentionPeriodHours: 48 }), C: bucket() });
    // WHEN
    const plan = planChange(oneStack(before, after));
    // THEN
    expect(plan.stacks[0]).toEqual({
      stackName: 's',
      action: 'update',
      added: ['C'],
      removed: ['B'],
      modified: ['A'],
    });
    expect(plan.replacements).toEqual([]);
  });

  test('fails when the order misses a stack, names an unknown one or repeats one', () => {
    // GIVEN
    const after = { a: producer(true), b: consumer(true) };
    // WHEN / THEN
    expect(() => planChange({ before: {}, after, order: ['a'] })).toThrow(ChangePlanError);
    expect(() => planChange({ before: {}, after, order: ['a'] })).toThrow(/order misses b/);
    expect(() => planChange({ before: {}, after, order: ['a', 'b', 'c'] })).toThrow(/order lists c/);
    expect(() => planChange({ before: {}, after, order: ['a', 'b', 'a'] })).toThrow(/twice/);
  });
});

describe('planChange: exports in use', () => {
  test('fails when a stack removes an export that a stack deployed after it still imports', () => {
    // GIVEN the consumer stops importing, but it deploys after the producer (CDK's deadly embrace)
    const input: StackChangeInput = {
      before: { search: producer(true), pipeline: consumer(true) },
      after: { search: producer(false), pipeline: consumer(false) },
      order: ['search', 'pipeline'],
    };
    // WHEN
    const plan = planChange(input);
    // THEN
    expect(plan.refused).toEqual([
      {
        stackName: 'search',
        exportName: RAW_ARN,
        kind: 'export-removed',
        importers: ['pipeline'],
        message: expect.stringContaining(`Cannot delete export ${RAW_ARN} as it is in use by pipeline`),
      },
    ]);
    expect(describePlan(plan).at(-1)).toMatch(/cdk deploy stops at the first stack that fails/);
  });

  test('an export removed after its importer stopped importing in an earlier-deployed stack is fine', () => {
    // GIVEN the consumer, no longer depending on the producer, deploys first
    const input: StackChangeInput = {
      before: { search: producer(true), pipeline: consumer(true) },
      after: { search: producer(false), pipeline: consumer(false) },
      order: ['pipeline', 'search'],
    };
    // WHEN / THEN
    expect(planChange(input).refused).toEqual([]);
  });

  test('fails when a stack the app no longer has still imports the export', () => {
    // GIVEN
    const input: StackChangeInput = {
      before: { search: producer(true), legacy: consumer(true) },
      after: { search: producer(false) },
      order: ['search'],
    };
    // WHEN / THEN
    expect(planChange(input).refused).toEqual([
      expect.objectContaining({ kind: 'export-removed', importers: ['legacy'] }),
    ]);
  });

  test('fails when the value of an imported export changes', () => {
    // GIVEN the export now points at the stream's name instead of its ARN
    const after = template({ Raw: stream() }, { RawArn: exported(RAW_ARN, { Ref: 'Raw' }) });
    // WHEN
    const plan = planChange({
      before: { search: producer(true), pipeline: consumer(true) },
      after: { search: after, pipeline: consumer(true) },
      order: ['search', 'pipeline'],
    });
    // THEN
    expect(plan.refused).toEqual([
      expect.objectContaining({
        kind: 'export-changed',
        importers: ['pipeline'],
        message: expect.stringContaining(`Cannot update export ${RAW_ARN} as it is in use by pipeline`),
      }),
    ]);
  });

  test('fails when an imported export refers to a resource that is replaced', () => {
    // GIVEN a bucket renamed (a create-only property) whose name another stack imports
    const search = (name: string) =>
      template({ Bucket: bucket(name) }, { BucketName: exported('search:Bucket', { Ref: 'Bucket' }) });
    const pipeline = template({
      Topic: { Type: 'AWS::SNS::Topic', Properties: { DisplayName: importValue('search:Bucket') } },
    });
    // WHEN
    const plan = planChange({
      before: { search: search('kept-a'), pipeline },
      after: { search: search('kept-b'), pipeline },
      order: ['search', 'pipeline'],
    });
    // THEN
    expect(plan.refused).toEqual([
      expect.objectContaining({
        kind: 'export-changed',
        message: expect.stringContaining(
          'would replace Bucket and so change the value of export search:Bucket',
        ),
      }),
    ]);
  });

  test('fails when an import needs an export that a refused update never created', () => {
    // GIVEN the producer swaps one export for another while the consumer swaps its import the same way
    const NEW = 'search:RawName';
    const searchAfter = template({ Raw: stream() }, { RawName: exported(NEW, { Ref: 'Raw' }) });
    const pipelineAfter = template({ Esm: consumerOf(importValue(NEW)) });
    // WHEN
    const plan = planChange({
      before: { search: producer(true), pipeline: consumer(true) },
      after: { search: searchAfter, pipeline: pipelineAfter },
      order: ['search', 'pipeline'],
    });
    // THEN the producer is refused and rolled back, so the consumer's new import finds nothing
    expect(plan.refused.map((r) => [r.stackName, r.kind])).toEqual([
      ['search', 'export-removed'],
      ['pipeline', 'import-missing'],
    ]);
    expect(plan.refused[1].message).toContain(`No export named ${NEW} found`);
  });

  test('an export nobody imports may be removed or changed', () => {
    // GIVEN / WHEN
    const plan = planChange({
      before: { search: producer(true), pipeline: consumer(false) },
      after: { search: producer(false), pipeline: consumer(false) },
      order: ['search', 'pipeline'],
    });
    // THEN
    expect(plan.refused).toEqual([]);
  });
});

describe('planChange: names that are also names of every object', () => {
  test.each(['valueOf', 'toString', 'constructor', 'hasOwnProperty', '__proto__'])(
    'a deployed resource %s that the new template drops is deleted; a stack of that name is created',
    (name) => {
      // GIVEN a deployed stream under the logical id, dropped by the new template
      const before = template({ Keep: stream({ Name: 'keep' }) });
      Object.defineProperty(before.Resources, name, {
        value: stream({ Name: 'gone' }),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      const after = template({ Keep: stream({ Name: 'keep' }) });
      // WHEN
      const plan = planChange(oneStack(before, after));
      // THEN
      expect(plan.stacks[0].removed).toEqual([name]);
      expect(plan.deletions.map((d) => d.logicalId)).toEqual([name]);
      // AND a stack named like it, deployed nowhere, is created
      const created = planChange({ before: {}, after: { [name]: after }, order: [name] });
      expect(created.stacks.map((s) => s.action)).toEqual(['create']);
    },
  );
});
