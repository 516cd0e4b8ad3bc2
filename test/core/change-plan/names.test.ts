/**
 * The change planner's deletions and name clashes on small hand-written templates: data deleted or retained, and
 * names moved between logical ids or stacks.
 */
import { planChange, type StackChangeInput } from '../../../core/change-plan';
import { template, logGroup, oneStack } from './fixtures';

describe('planChange: deletions and names', () => {
  test('a removed stateful resource is deleted with its data; a retained one stays', () => {
    // GIVEN
    const before = template({
      Gone: logGroup('/a'),
      Kept: logGroup('/b', 'Retain'),
      Topic: { Type: 'AWS::SNS::Topic' },
    });
    // WHEN
    const plan = planChange(oneStack(before, template({})));
    // THEN
    expect(plan.deletions).toEqual([
      expect.objectContaining({
        logicalId: 'Gone',
        stateful: true,
        retained: false,
        dataAtRisk: expect.stringContaining('log events'),
      }),
      expect.objectContaining({ logicalId: 'Kept', stateful: true, retained: true, dataAtRisk: '' }),
      expect.objectContaining({ logicalId: 'Topic', stateful: false, retained: false, dataAtRisk: '' }),
    ]);
  });

  test('fails when a named resource moves to another logical id in the same stack', () => {
    // GIVEN a renamed construct: same log group name, new logical id
    // WHEN
    const plan = planChange(
      oneStack(template({ Old: logGroup('/kfek/app') }), template({ New: logGroup('/kfek/app') })),
    );
    // THEN
    expect(plan.nameClashes).toEqual([
      {
        stackName: 's',
        logicalId: 'New',
        type: 'AWS::Logs::LogGroup',
        name: '/kfek/app',
        heldBy: { stackName: 's', logicalId: 'Old' },
        reason: 'created-before-deleted',
        message: expect.stringContaining('the create fails ("/kfek/app already exists")'),
      },
    ]);
    expect(plan.deletions).toEqual([expect.objectContaining({ logicalId: 'Old', stateful: true })]);
  });

  test('a named resource moved to a stack deployed after the one that deletes it is created fine', () => {
    // GIVEN
    const input = (order: string[]): StackChangeInput => ({
      before: { sources: template({ App: logGroup('/kfek/app') }), search: template({}) },
      after: { sources: template({}), search: template({ App: logGroup('/kfek/app') }) },
      order,
    });
    // WHEN / THEN
    expect(planChange(input(['sources', 'search'])).nameClashes).toEqual([]);
    expect(planChange(input(['search', 'sources'])).nameClashes).toEqual([
      expect.objectContaining({ stackName: 'search', reason: 'created-before-deleted' }),
    ]);
  });

  test('fails when the name is held by a removed resource that DeletionPolicy Retain leaves behind', () => {
    // GIVEN
    const input: StackChangeInput = {
      before: { sources: template({ App: logGroup('/kfek/app', 'Retain') }), search: template({}) },
      after: { sources: template({}), search: template({ App: logGroup('/kfek/app') }) },
      order: ['sources', 'search'],
    };
    // WHEN
    const plan = planChange(input);
    // THEN
    expect(plan.nameClashes).toEqual([expect.objectContaining({ reason: 'retained' })]);
    expect(plan.deletions).toEqual([expect.objectContaining({ retained: true })]);
  });

  test('fails when the name is held by a stack the app no longer has', () => {
    // GIVEN / WHEN
    const plan = planChange({
      before: { old: template({ App: logGroup('/kfek/app') }) },
      after: { fresh: template({ App: logGroup('/kfek/app') }) },
      order: ['fresh'],
    });
    // THEN
    expect(plan.nameClashes).toEqual([
      expect.objectContaining({ stackName: 'fresh', reason: 'left-deployed' }),
    ]);
  });
});
