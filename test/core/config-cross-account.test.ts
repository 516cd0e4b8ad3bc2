import { ConfigValidationError, isCrossAccount, resolveConfig } from '../../core/config';
import { CDK_JSON_CONTEXT } from '../helpers/app';

const CENTRAL = { account: '111122223333', region: 'eu-west-1' };

const withProfile = (overrides: unknown): Record<string, unknown> => ({
  kfek: { profiles: { test: overrides } },
});

function problemsOf(overrides: unknown): string {
  try {
    resolveConfig(withProfile(overrides), 'test');
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigValidationError');
}

describe('resolveConfig: sources.accounts, organizationId, regions, remote', () => {
  test('single-account profiles resolve to no source accounts, no regions', () => {
    // WHEN
    const config = resolveConfig(CDK_JSON_CONTEXT, 'sandbox');
    // THEN
    expect(isCrossAccount(config.sources)).toBe(false);
    expect(config.sources.accounts).toEqual([]);
    expect(config.sources.regions).toEqual([]);
    expect(config.sources.organizationId).toBeUndefined();
  });

  test('the multi profile of cdk.json: two source accounts, two regions, two remote log groups', () => {
    // WHEN
    const config = resolveConfig(CDK_JSON_CONTEXT, 'multi');
    // THEN
    expect(isCrossAccount(config.sources)).toBe(true);
    expect(config.env).toEqual(CENTRAL);
    expect(config.sources.accounts).toEqual(['222233334444', '333344445555']);
    expect(config.sources.regions).toEqual(['eu-west-1', 'us-east-1']);
    expect(config.sources.remote.logGroups).toEqual(['/app/orders', '/app/payments']);
    expect(config.sources.remote.accountPolicy.enabled).toBe(false);
  });

  test('regions default to the central region; an organization alone is enough', () => {
    // WHEN
    const config = resolveConfig(
      withProfile({
        ...CENTRAL,
        sources: { organizationId: 'o-a1b2c3d4e5', remote: { accountPolicy: { enabled: true } } },
      }),
      'test',
    );
    // THEN
    expect(config.sources.regions).toEqual(['eu-west-1']);
    expect(config.sources.organizationId).toBe('o-a1b2c3d4e5');
    expect(config.sources.accounts).toEqual([]);
  });

  test('fails when account ids, organization id or regions are malformed or repeated', () => {
    // WHEN
    const message = problemsOf({
      ...CENTRAL,
      sources: {
        accounts: ['2222', '333344445555', '333344445555'],
        organizationId: 'org-1',
        regions: ['Europe', 'us-east-1', 'us-east-1'],
        remote: { logGroups: ['/app/orders'] },
      },
    });
    // THEN
    expect(message).toMatch(/sources\.accounts\[0\] is "2222"; expected a 12-digit AWS account id/);
    expect(message).toMatch(/sources\.accounts\[2\] "333344445555" is listed twice/);
    expect(message).toMatch(/sources\.organizationId is "org-1"; expected an AWS Organizations id/);
    expect(message).toMatch(/sources\.regions\[0\] is "Europe"; expected an AWS Region code/);
    expect(message).toMatch(/sources\.regions\[2\] "us-east-1" is listed twice/);
  });

  test('fails when a cross-account profile does not pin the central account and region', () => {
    // WHEN
    const message = problemsOf({
      sources: { accounts: ['222233334444'], remote: { logGroups: ['/app/orders'] } },
    });
    // THEN
    expect(message).toMatch(/need "account" and "region" pinned in the profile/);
  });

  test('fails when the central account is listed as a source account', () => {
    // WHEN
    const message = problemsOf({
      ...CENTRAL,
      sources: { accounts: ['111122223333'], remote: { logGroups: ['/app/orders'] } },
    });
    // THEN
    expect(message).toMatch(/sources\.accounts lists 111122223333, the profile's own \(central\) account/);
  });

  test('fails when the source stacks would subscribe nothing', () => {
    // WHEN
    const message = problemsOf({ ...CENTRAL, sources: { accounts: ['222233334444'] } });
    // THEN
    expect(message).toMatch(/source stacks would subscribe nothing/);
  });

  test('fails when regions or remote settings are set without any source account', () => {
    // WHEN
    const message = problemsOf({
      ...CENTRAL,
      sources: { regions: ['us-east-1'], remote: { logGroups: ['/app/orders'] } },
    });
    // THEN
    expect(message).toMatch(
      /sources\.regions and sources\.remote\.logGroups are set but neither sources\.accounts nor sources\.organizationId/,
    );
  });

  test('fails on an unknown remote setting, naming the known ones', () => {
    // WHEN
    const message = problemsOf({
      ...CENTRAL,
      sources: { accounts: ['222233334444'], remote: { logGroup: ['/app/orders'] } },
    });
    // THEN
    expect(message).toMatch(
      /unknown setting sources\.remote\.logGroup; known settings here: accountPolicy, filterPattern, logGroups/,
    );
  });
});
