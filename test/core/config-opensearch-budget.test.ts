/**
 * What a profile's indices cost the domain (issue 30.5), checked at synth: NoRotation is refused with its reason,
 * and a profile whose shards would outgrow the data nodes' 1,000-per-node limit is refused with the numbers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  ConfigValidationError,
  resolveConfig,
  retiredNamesHours,
  shardBudgetOf,
  SYSTEM_SHARD_RESERVE,
} from '../../core/config';

const CDK_JSON = JSON.parse(readFileSync(join(__dirname, '..', '..', 'cdk.json'), 'utf8')) as {
  context: Record<string, unknown>;
};

function problemsOf(profile: Record<string, unknown>): string[] {
  try {
    resolveConfig({ kfek: { profiles: { test: profile } } }, 'test');
  } catch (error) {
    if (error instanceof ConfigValidationError) return [...error.problems];
    throw error;
  }
  return [];
}

describe('index rotation', () => {
  test('fails when the rotation is NoRotation, saying why and what to use', () => {
    expect(problemsOf({ delivery: { indexRotation: 'NoRotation' } })).toEqual([
      expect.stringMatching(
        /^delivery\.indexRotation is NoRotation: Firehose would write every document to one index named "logs", .*"logs-\*".* Use OneDay/,
      ),
    ]);
  });
});

describe('shard budget', () => {
  test("the sandbox keeps 15 daily indices of one shard, well inside one node's 1,000", () => {
    const budget = shardBudgetOf(resolveConfig(CDK_JSON.context, 'sandbox'));
    expect(budget).toEqual({
      families: [{ stem: 'logs', retentionDays: 14, indices: 15, shards: 15 }],
      total: 15 + SYSTEM_SHARD_RESERVE,
      limit: 1000,
    });
  });

  test('counts routes, rotation, shards and replicas: the teams profile hourly needs 1,277 shards', () => {
    // GIVEN the shipped teams profile (one data node, 1 shard, 0 replicas; 14, 30 and 7 days) rotated hourly
    const teams = resolveConfig(CDK_JSON.context, 'teams');
    const hourly = { ...teams, delivery: { ...teams.delivery, indexRotation: 'OneHour' as const } };
    // THEN
    expect(shardBudgetOf(hourly)).toMatchObject({
      families: [
        { stem: 'logs', indices: 14 * 24 + 1 },
        { stem: 'payments', indices: 30 * 24 + 1 },
        { stem: 'search', indices: 7 * 24 + 1 },
      ],
      total: 51 * 24 + 3 + SYSTEM_SHARD_RESERVE,
      limit: 1000,
    });
  });

  test("fails when the shards would pass the data nodes' limit, naming the families and the fixes", () => {
    const profile = (CDK_JSON.context.kfek as { profiles: Record<string, Record<string, unknown>> }).profiles
      .teams;
    const problems = problemsOf({ ...profile, delivery: { indexRotation: 'OneHour' } });
    expect(problems).toEqual([
      expect.stringMatching(
        /^the indices would hold 1277 shards once every retention is reached \(logs-\*: 337 indices x 1 shards, payments-\*: 721 indices x 1 shards, search-\*: 169 indices x 1 shards, and 50 for OpenSearch's own indices\), more than the 1000 that 1 data node\(s\) hold .* Rotate less often than OneHour/,
      ),
    ]);
  });

  test('replicas and shards multiply: 2 shards, 1 replica, 30 daily indices on 2 nodes is 124 + the reserve', () => {
    const config = resolveConfig(
      {
        kfek: {
          profiles: {
            test: {
              openSearch: {
                dataNodeCount: 2,
                indexTemplate: { shards: 2, replicas: 1 },
                retention: { deleteAfterDays: 30 },
              },
            },
          },
        },
      },
      'test',
    );
    expect(shardBudgetOf(config)).toMatchObject({ total: 31 * 4 + SYSTEM_SHARD_RESERVE, limit: 2000 });
  });
});

describe('retired names', () => {
  test('stay known as long as a document marked with them can arrive: the longest stream retention or bucket expiry', () => {
    const sandbox = resolveConfig(CDK_JSON.context, 'sandbox');
    expect(retiredNamesHours(sandbox)).toBe(90 * 24);
    expect(
      retiredNamesHours({
        ...sandbox,
        streams: { ...sandbox.streams, raw: { ...sandbox.streams.raw, retentionHours: 8760 } },
      }),
    ).toBe(8760);
  });
});
