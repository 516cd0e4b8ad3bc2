/**
 * The heal refuses the log groups `kfek backfill` refuses, with the same reason: a group whose route takes events by
 * source account (CloudWatch Logs centralization) cannot be sent again as live sent it, because FilterLogEvents does
 * not return `@aws.account`: the heal would put those events in the default route's indices, unmasked.
 */
import type { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import type { KinesisClient } from '@aws-sdk/client-kinesis';
import { accountRoutingProblem } from '../../../core/contracts/routes';
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { MINUTE_MILLIS, reconcile } from '../../../core/reconcile/engine';
import { HealRefusedError } from '../../../core/reconcile/errors';
import type { ReconcileGroup, ReconcileReport } from '../../../core/reconcile/model';
import { type ReconcileRoute, runReconcileWith } from '../../../core/reconcile/service';
import { FakePlanner, GROUP, T0, World, event } from '../../helpers/reconcile-fakes';

const CENTRAL = '/central/app';
const route = (name: string, account: string): ReconcileRoute => ({
  name,
  match: { logGroup: CENTRAL, account: [account] },
  staticFields: {},
  processing: { drop: [] },
  indexStem: name,
});

/** A run with --heal over the first ten minutes after T0, with no lag. */
function healed(world: World, groups: readonly ReconcileGroup[]): Promise<ReconcileReport> {
  return reconcile(
    { groups, since: T0, until: T0 + 10 * MINUTE_MILLIS, lagInMillis: 0, heal: { timeoutInMillis: 10_000 } },
    world.ports(),
  );
}

describe('the heal and routes by source account', () => {
  test("fails when --heal names a group a route takes by source account, before any call, with backfill's reason", async () => {
    // GIVEN a group owned by the central account, whose events team A's route takes by source account
    const calls: string[] = [];
    const logs = {
      send: (command: { constructor: { name: string } }) => {
        calls.push(command.constructor.name);
        return Promise.resolve({ subscriptionFilters: [] });
      },
    } as unknown as CloudWatchLogsClient;
    const kinesis = {
      send: () => Promise.reject(new Error('no Kinesis call expected')),
    } as unknown as KinesisClient;
    const search = {
      baseUrl: 'http://127.0.0.1:2',
      request: () => Promise.reject(new Error('no OpenSearch call expected')),
    } as unknown as OpenSearchHttpClient;

    // WHEN
    const run = runReconcileWith(
      () => Object.assign(new FakePlanner(), { documentIdsOf: () => [] }),
      {
        groups: [{ name: CENTRAL }],
        owner: '999999999999',
        rawStream: 'raw',
        index: { prefix: 'logs', rotation: 'OneDay' },
        routes: [route('teama', '111111111111')],
        kept: { maxMessages: 0 },
        since: T0,
        until: T0 + 60 * MINUTE_MILLIS,
        lagInMillis: 0,
        countMode: 'scan',
        heal: { timeoutInMillis: 1000 },
      },
      { logs, kinesis, search },
      { now: () => T0 + 2 * 60 * MINUTE_MILLIS, sleep: () => Promise.resolve() },
    );

    // THEN
    await expect(run).rejects.toThrow(HealRefusedError);
    await expect(run).rejects.toMatchObject({ exitCode: 2 });
    await expect(run).rejects.toThrow(
      new RegExp(
        `reconcile --heal: cannot reproduce the live documents of ${CENTRAL} \\(owned by 999999999999\\): route ` +
          'teama takes its events by source account \\(111111111111\\).*FilterLogEvents does not return their ' +
          'source account',
      ),
    );
    // (only the subscription was read: nothing counted, nothing sent)
    expect(calls).toEqual(['DescribeSubscriptionFiltersCommand']);
  });

  test('a refused group is judged but its missing events are never sent, and the report says why', async () => {
    // GIVEN two groups with a lost event each, one of them refused
    const world = new World();
    const refused = {
      ...GROUP,
      logGroup: CENTRAL,
      healRefusal: 'central: route teama takes its events by source account',
    };
    world.write(GROUP, [event('a1', 60), event('a2', 120)]);
    world.write(GROUP, [event('lost', 180)], false);
    world.write(refused, [event('b1', 60)]);
    world.write(refused, [event('blost', 180)], false);

    // WHEN
    const report = await healed(world, [GROUP, refused]);

    // THEN
    expect(world.healed.map((e) => e.id)).toEqual(['lost']);
    const [healedGroup, refusedGroup] = report.groups;
    expect(healedGroup.states).toMatchObject({ healed: 1, missing: 0 });
    expect(healedGroup.healRefused).toBeUndefined();
    expect(refusedGroup.states).toMatchObject({ missing: 1, healed: 0 });
    expect(refusedGroup.healRefused).toBe(refused.healRefusal);
  });

  test('the rule and its wording are the ones backfill refuses by', () => {
    expect(accountRoutingProblem(CENTRAL, '999999999999', [route('teama', '111111111111')])).toBe(
      `${CENTRAL} (owned by 999999999999): route teama takes its events by source account (111111111111)`,
    );
    expect(accountRoutingProblem(CENTRAL, '111111111111', [route('teama', '111111111111')])).toBeUndefined();
  });
});

describe('the heal and the stem live used', () => {
  test.each([
    ['a route removed while its indices are kept', 'orders-old'],
    ['a stem change with the old stem retained', 'orders-2025'],
  ])('never heals through a transform that sends the events elsewhere: %s', async (_, liveStem) => {
    // GIVEN live put the group's documents under another stem than the profile (the fake planner's `logs`) now does
    const world = new World();
    world.liveStem = liveStem;
    world.write(GROUP, [event('a1', 60), event('a2', 120)]);
    world.write(GROUP, [event('lost', 180)], false);

    // WHEN
    const report = await healed(world, [GROUP]);

    // THEN nothing was sent; the event stays missing and the report says where live put the group's documents
    expect(world.healed).toEqual([]);
    expect(report.totals).toMatchObject({ missing: 1, healed: 0 });
    expect(report.groups[0].healRefused).toMatch(
      new RegExp(`live put its documents .* in ${liveStem}'s indices`),
    );
  });

  test('heals when live used the stem the profile uses now', async () => {
    const world = new World();
    world.write(GROUP, [event('a1', 60)]);
    world.write(GROUP, [event('lost', 180)], false);

    const report = await healed(world, [GROUP]);

    expect(world.healed.map((e) => e.id)).toEqual(['lost']);
    expect(report.totals).toMatchObject({ missing: 0, healed: 1 });
    expect(report.groups[0].healRefused).toBeUndefined();
  });
});
