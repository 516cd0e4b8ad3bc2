import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CdkJsonReadError,
  ConfigValidationError,
  DEFAULTS,
  UnknownProfileError,
  configFromCdkJson,
  indexNameFor,
  indexPatternFor,
  resolveConfig,
} from '../../core/config';
import { CDK_JSON_CONTEXT } from '../helpers/app';

const withProfile = (overrides: unknown, name = 'test'): Record<string, unknown> => ({
  kfek: { profiles: { [name]: overrides } },
});

describe('resolveConfig', () => {
  test('the sandbox profile of cdk.json is the cheap one-node default', () => {
    // WHEN
    const config = resolveConfig(CDK_JSON_CONTEXT);
    // THEN
    expect(config.profile).toBe('sandbox');
    expect(config.removalPolicy).toBe('destroy');
    expect(config.transport).toBe('lambda');
    expect(config.openSearch).toMatchObject({
      dataNodeInstanceType: 't3.small.search',
      dataNodeCount: 1,
      volumeSizeGb: 10,
      zoneAwareness: { enabled: false },
      dedicatedMasters: { enabled: false },
    });
    expect(config.streams.raw).toEqual({ mode: 'PROVISIONED', shardCount: 1, retentionHours: 24 });
    expect(config.sources.logGroups).toEqual([
      { name: '/kfek/sandbox/app', create: true, filterPattern: '', retentionDays: 14 },
    ]);
  });

  test('the production profile retains data and spreads over zones with dedicated masters', () => {
    // WHEN
    const config = resolveConfig(CDK_JSON_CONTEXT, 'production');
    // THEN
    expect(config.removalPolicy).toBe('retain');
    expect(config.openSearch.zoneAwareness).toEqual({ enabled: true, availabilityZoneCount: 2 });
    expect(config.openSearch.dedicatedMasters.enabled).toBe(true);
    expect(config.streams.raw.mode).toBe('ON_DEMAND');
    // Untouched sections keep the defaults.
    expect(config.delivery.indexPrefix).toBe(DEFAULTS.delivery.indexPrefix);
    expect(config.alarms.iteratorAgeMs).toBe(DEFAULTS.alarms.iteratorAgeMs);
  });

  test('the profile comes from the `profile` context key when not passed', () => {
    const config = resolveConfig({ ...CDK_JSON_CONTEXT, profile: 'production' });
    expect(config.profile).toBe('production');
  });

  test('a profile is a deep partial override: objects merge, arrays replace', () => {
    // WHEN
    const config = resolveConfig(
      withProfile({
        openSearch: { zoneAwareness: { enabled: true }, dataNodeCount: 2, indexTemplate: { replicas: 1 } },
        sources: { logGroups: ['/existing/one', { name: '/mine', create: true, filterPattern: 'ERROR' }] },
        alarms: { email: 'ops@example.com' },
      }),
      'test',
    );
    // THEN
    expect(config.openSearch.zoneAwareness).toEqual({ enabled: true, availabilityZoneCount: 2 });
    expect(config.openSearch.indexTemplate).toEqual({ ...DEFAULTS.openSearch.indexTemplate, replicas: 1 });
    expect(config.sources.logGroups).toEqual([
      { name: '/existing/one', create: false, filterPattern: '', retentionDays: 14 },
      { name: '/mine', create: true, filterPattern: 'ERROR', retentionDays: 14 },
    ]);
    expect(config.alarms.email).toBe('ops@example.com');
  });

  test('optional settings stay absent unless set', () => {
    const config = resolveConfig({});
    expect(config.alarms.email).toBeUndefined();
    expect(config.openSearch.retention.warmAfterDays).toBeUndefined();
    expect(config.openSearch.access.readerBackendRoles).toBeUndefined();
    expect(config.openSearch.access.adminBackendRoles).toBeUndefined();
    expect(config.env).toEqual({ account: undefined, region: undefined });
  });

  test('fails when the profile is not defined, naming the known ones', () => {
    expect(() => resolveConfig(CDK_JSON_CONTEXT, 'staging')).toThrow(UnknownProfileError);
    expect(() => resolveConfig(CDK_JSON_CONTEXT, 'staging')).toThrow(
      /Unknown config profile "staging".*"sandbox", "production".*-c profile=NAME/,
    );
  });

  test('fails when a setting is unknown, suggesting the known ones', () => {
    expect(() => resolveConfig(withProfile({ streams: { raw: { shardcount: 2 } } }), 'test')).toThrow(
      /unknown setting streams\.raw\.shardcount; known settings here: mode, retentionHours, shardCount/,
    );
  });

  test('fails with every problem at once, each with the bad value and what is expected', () => {
    // GIVEN
    const bad = {
      transport: 'kinesis',
      transform: { batchSize: 0, parallelizationFactor: 11, logRetentionDays: 10 },
      delivery: { indexRotation: 'Daily', indexPrefix: 'Logs', failedDocumentsPrefix: 'failed' },
      openSearch: { dataNodeInstanceType: 't3.small', volumeSizeGb: 5 },
      alarms: { email: 'nobody' },
    };
    // WHEN
    let error: unknown;
    try {
      resolveConfig(withProfile(bad), 'test');
    } catch (e) {
      error = e;
    }
    // THEN
    expect(error).toBeInstanceOf(ConfigValidationError);
    const problems = (error as ConfigValidationError).problems.join('\n');
    expect(problems).toMatch(/transport is "kinesis"; expected one of "lambda", "pipes"/);
    expect(problems).toMatch(/transform\.batchSize is 0; expected an integer from 1 to 10000/);
    expect(problems).toMatch(/transform\.parallelizationFactor is 11; expected an integer from 1 to 10/);
    expect(problems).toMatch(/transform\.logRetentionDays is 10; expected a CloudWatch Logs retention/);
    expect(problems).toMatch(/delivery\.indexRotation is "Daily"; expected one of "OneDay", .*"NoRotation"/);
    expect(problems).toMatch(/delivery\.indexPrefix is "Logs"; expected a lowercase OpenSearch index name/);
    expect(problems).toMatch(
      /delivery\.failedDocumentsPrefix is "failed"; expected an S3 key prefix ending with/,
    );
    expect(problems).toMatch(
      /openSearch\.dataNodeInstanceType is "t3\.small"; expected .*"t3\.small\.search"/,
    );
    expect(problems).toMatch(/openSearch\.volumeSizeGb is 5; expected an integer from 10/);
    expect(problems).toMatch(/alarms\.email is "nobody"; expected an e-mail address/);
    expect((error as ConfigValidationError).problems).toHaveLength(10);
    expect((error as Error).message).toMatch(
      /10 problem\(s\)[\s\S]*Fix them in cdk\.json under "kfek\.profiles\.test"/,
    );
  });

  test('reads the IAM ARNs of people mapped to all_access', () => {
    const admins = ['arn:aws:iam::123456789012:role/Admin', 'arn:aws:iam::123456789012:user/alice'];
    const config = resolveConfig(
      withProfile({ openSearch: { access: { adminBackendRoles: admins } } }),
      'test',
    );
    expect(config.openSearch.access.adminBackendRoles).toEqual(admins);
  });

  test('fails when an admin backend role is not an IAM role or user ARN', () => {
    expect(() =>
      resolveConfig(withProfile({ openSearch: { access: { adminBackendRoles: ['admins'] } } }), 'test'),
    ).toThrow(/openSearch\.access\.adminBackendRoles\[0\] is "admins"; expected an IAM role or user ARN/);
  });

  test.each([
    ['masterUserName', 'kfek-admin', /IAM admin role/],
    ['allowedCidrs', ['203.0.113.7/32'], /signed by IAM principals/],
  ])(
    'fails when the removed setting openSearch.access.%s is still set, naming its replacement',
    (key, value, why) => {
      // GIVEN
      const profile = withProfile({ openSearch: { access: { [key]: value } } });
      // WHEN
      let error: unknown;
      try {
        resolveConfig(profile, 'test');
      } catch (e) {
        error = e;
      }
      // THEN
      expect(error).toBeInstanceOf(ConfigValidationError);
      const problems = (error as ConfigValidationError).problems;
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatch(new RegExp(`^openSearch\\.access\\.${key} was removed: `));
      expect(problems[0]).toMatch(/use openSearch\.access\.adminBackendRoles/);
      expect(problems[0]).toMatch(why);
      // Not the generic typo message.
      expect(problems[0]).not.toMatch(/unknown setting/);
    },
  );

  test('near-realtime by default, production trades some latency for larger bulk requests (docs/latency.md)', () => {
    // WHEN
    const sandbox = resolveConfig(CDK_JSON_CONTEXT);
    const production = resolveConfig(CDK_JSON_CONTEXT, 'production');
    // THEN zero buffering, no batching window and a 1 s refresh in the sandbox
    expect(sandbox.delivery.bufferingIntervalSeconds).toBe(0);
    expect(sandbox.transform.maxBatchingWindowSeconds).toBe(0);
    expect(sandbox.openSearch.indexTemplate.refreshSeconds).toBe(1);
    expect(production.delivery).toMatchObject({ bufferingIntervalSeconds: 10, bufferingSizeMb: 10 });
    expect(production.transform.maxBatchingWindowSeconds).toBe(1);
    expect(production.openSearch.indexTemplate.refreshSeconds).toBe(5);
  });

  test.each([0, 3601, 1.5])('fails when openSearch.indexTemplate.refreshSeconds is %p', (bad) => {
    expect(() =>
      resolveConfig(withProfile({ openSearch: { indexTemplate: { refreshSeconds: bad } } }), 'test'),
    ).toThrow(/openSearch\.indexTemplate\.refreshSeconds/);
  });

  test('fails when zone awareness cannot spread the data nodes evenly', () => {
    expect(() =>
      resolveConfig(
        withProfile({ openSearch: { zoneAwareness: { enabled: true }, dataNodeCount: 3 } }),
        'test',
      ),
    ).toThrow(/dataNodeCount is 3 but zone awareness spreads nodes over 2 zones; use a multiple of 2/);
  });

  test('fails when replicas would keep every index yellow', () => {
    expect(() =>
      resolveConfig(withProfile({ openSearch: { indexTemplate: { replicas: 1 } } }), 'test'),
    ).toThrow(/replicas is 1 with 1 data node\(s\); replicas must be below the data node count/);
  });

  test('fails when warmAfterDays is set: the domain has no UltraWarm nodes for the ISM warm step', () => {
    expect(() =>
      resolveConfig(
        withProfile({ openSearch: { retention: { deleteAfterDays: 30, warmAfterDays: 7 } } }),
        'test',
      ),
    ).toThrow(
      /warmAfterDays \(7\) needs UltraWarm nodes, which kfek's domain does not have.*Remove warmAfterDays/,
    );
  });

  test('failed records expire after 90 days by default, later than the indices they failed to reach', () => {
    // GIVEN
    const context = withProfile({ openSearch: { retention: { deleteAfterDays: 30 } } });
    // WHEN
    const config = resolveConfig(context, 'test');
    // THEN
    expect(config.failedRecords).toEqual({ expireAfterDays: 90 });
  });

  test('fails when failed records would expire before (or with) the indices, naming both settings', () => {
    // GIVEN
    const context = withProfile({
      openSearch: { retention: { deleteAfterDays: 120 } },
      failedRecords: { expireAfterDays: 120 },
    });
    // WHEN
    const resolve = (): unknown => resolveConfig(context, 'test');
    // THEN
    expect(resolve).toThrow(
      /failedRecords\.expireAfterDays \(120\) must be above openSearch\.retention\.deleteAfterDays \(120\)/,
    );
  });

  test('fails when the free-storage alarm threshold is not below the volume, naming both config keys', () => {
    // GIVEN
    const context = withProfile({ openSearch: { volumeSizeGb: 10 }, alarms: { freeStorageMb: 10_240 } });
    // WHEN
    const resolve = (): unknown => resolveConfig(context, 'test');
    // THEN
    expect(resolve).toThrow(
      /alarms\.freeStorageMb \(10240\) must be below openSearch\.volumeSizeGb \(10 GiB = 10240 MB\)/,
    );
  });

  test.each(['2.5', '1.3', '2.19.1', 'latest'])(
    'fails when openSearch.engineVersion is %s, not 2.7 or later',
    (v) => {
      expect(() => resolveConfig(withProfile({ openSearch: { engineVersion: v } }), 'test')).toThrow(
        /openSearch\.engineVersion .*an OpenSearch version 2\.7 or later/,
      );
    },
  );

  test.each(['2.7', '2.19', '2.10', '3.1', '10.0'])('accepts openSearch.engineVersion %s', (v) => {
    expect(
      resolveConfig(withProfile({ openSearch: { engineVersion: v } }), 'test').openSearch.engineVersion,
    ).toBe(v);
  });

  test('fails when failedRecords.expireAfterDays is not a whole number of days', () => {
    expect(() => resolveConfig(withProfile({ failedRecords: { expireAfterDays: 0 } }), 'test')).toThrow(
      /failedRecords\.expireAfterDays is 0; expected an integer from 1 to 36500/,
    );
  });

  test('fails when a slow-log INFO threshold is not below its WARN threshold', () => {
    expect(() =>
      resolveConfig(withProfile({ openSearch: { indexTemplate: { slowSearchInfoMs: 9000 } } }), 'test'),
    ).toThrow(/slowSearchInfoMs \(9000\) must be below slowSearchWarnMs \(5000\)/);
  });

  test('fails when a log group is listed twice or is not a name', () => {
    expect(() =>
      resolveConfig(withProfile({ sources: { logGroups: ['/a', { name: '/a' }, 42] } }), 'test'),
    ).toThrow(/"\/a" is listed twice[\s\S]*sources\.logGroups\[2\] is 42/);
  });

  test('fails when name and profile make a domain name longer than 28 characters', () => {
    expect(() =>
      resolveConfig(withProfile({ name: 'kfekpipeline' }, 'production-eu-west'), 'production-eu-west'),
    ).toThrow(/domain name "kfekpipeline-production-eu-west" .* must be 3-28/);
  });

  test('aggregation is on by default with the Lambda transport, and a profile can turn it off', () => {
    expect(resolveConfig({}).delivery.aggregation).toBe(true);
    expect(resolveConfig(CDK_JSON_CONTEXT, 'production').delivery.aggregation).toBe(true);
    expect(
      resolveConfig(withProfile({ delivery: { aggregation: false } }), 'test').delivery.aggregation,
    ).toBe(false);
  });

  test('aggregation resolves to off with the Pipes transport, which cannot write aggregated records', () => {
    expect(resolveConfig(CDK_JSON_CONTEXT, 'sandbox-pipes').delivery.aggregation).toBe(false);
    expect(
      resolveConfig(withProfile({ transport: 'pipes', delivery: { aggregation: false } }), 'test').delivery
        .aggregation,
    ).toBe(false);
  });

  test('fails when aggregation is set to true with the Pipes transport, saying why and what to do', () => {
    expect(() =>
      resolveConfig(withProfile({ transport: 'pipes', delivery: { aggregation: true } }), 'test'),
    ).toThrow(/delivery\.aggregation is true but transport is "pipes".*Remove delivery\.aggregation/s);
  });

  test('fails when aggregation is not a boolean', () => {
    expect(() => resolveConfig(withProfile({ delivery: { aggregation: 'yes' } }), 'test')).toThrow(
      /delivery\.aggregation is "yes"; expected true or false/,
    );
  });

  test('fails when the profile is not an object', () => {
    expect(() => resolveConfig(withProfile('cheap'), 'test')).toThrow(
      /the profile "test" is "cheap"; expected an object of settings/,
    );
  });
});

describe('the account-level subscription policy across profiles (one per account and region)', () => {
  const policyOn = { sources: { accountPolicy: { enabled: true } } };
  const profiles = (p: Record<string, unknown>): Record<string, unknown> => ({ kfek: { profiles: p } });

  test('fails when two profiles that may share an account and region both enable it', () => {
    // GIVEN: neither pins account or region, so both deploy wherever the CLI points: the same account and region.
    const context = profiles({ a: policyOn, b: { ...policyOn, removalPolicy: 'destroy' } });
    // WHEN / THEN: whichever is synthesized, the message names the other and the way out.
    for (const [selected, other] of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      expect(() => resolveConfig(context, selected)).toThrow(
        new RegExp(
          `sources\\.accountPolicy\\.enabled is true here and in profile "${other}"[\\s\\S]*one account-level ` +
            'subscription filter policy per account and Region[\\s\\S]*pin different "account" or "region"',
        ),
      );
    }
  });

  test('fails when one profile pins the account and the other does not', () => {
    // GIVEN: b deploys wherever the CLI points, which may be a's account and region.
    const context = profiles({
      a: { ...policyOn, account: '111111111111', region: 'eu-west-1' },
      b: policyOn,
    });
    // WHEN / THEN
    expect(() => resolveConfig(context, 'a')).toThrow(ConfigValidationError);
  });

  test('profiles pinned to different regions (or accounts) may both enable it', () => {
    // GIVEN
    const context = profiles({
      a: { ...policyOn, region: 'eu-west-1' },
      b: { ...policyOn, region: 'eu-central-1' },
      c: { ...policyOn, account: '111111111111', region: 'eu-west-1' },
      d: { ...policyOn, account: '222222222222', region: 'eu-west-1' },
    });
    // WHEN / THEN: a and b differ by region; c and d by account; a and c share eu-west-1 and may share the account.
    expect(resolveConfig(context, 'b').sources.accountPolicy.enabled).toBe(true);
    expect(() => resolveConfig(context, 'd')).toThrow(/in profile "a"/);
  });

  test('a profile that leaves it off is never refused because of another', () => {
    // GIVEN
    const context = profiles({ a: policyOn, b: {} });
    // WHEN / THEN
    expect(resolveConfig(context, 'b').sources.accountPolicy.enabled).toBe(false);
    expect(resolveConfig(context, 'a').sources.accountPolicy.enabled).toBe(true);
  });
});

describe('configFromCdkJson', () => {
  test('resolves a profile of the shipped cdk.json as the app does', () => {
    const cdkJson = path.join(__dirname, '..', '..', 'cdk.json');
    expect(configFromCdkJson(cdkJson, 'production')).toEqual(resolveConfig(CDK_JSON_CONTEXT, 'production'));
  });

  test('fails when cdk.json cannot be read, naming the file', () => {
    const missing = path.join(__dirname, 'no-such-cdk.json');
    expect(() => configFromCdkJson(missing)).toThrow(CdkJsonReadError);
    expect(() => configFromCdkJson(missing)).toThrow(/could not read .*no-such-cdk\.json: Error: ENOENT/);
  });
});

describe('indexNameFor', () => {
  const at = new Date('2026-11-22T07:05:00Z');

  test.each([
    ['NoRotation', 'logs'],
    ['OneHour', 'logs-2026-11-22-07'],
    ['OneDay', 'logs-2026-11-22'],
    ['OneWeek', 'logs-2026-w47'],
    ['OneMonth', 'logs-2026-11'],
  ] as const)('%s names the index %s', (rotation, expected) => {
    expect(indexNameFor('logs', rotation, at)).toBe(expected);
  });

  test("weeks follow Firehose's documented example: 2016-02-25 is myindex-2016-w08", () => {
    expect(indexNameFor('myindex', 'OneWeek', new Date('2016-02-25T13:00:00Z'))).toBe('myindex-2016-w08');
  });

  test('weeks start on Sunday and the days before the first Sunday are week 00 of the calendar year', () => {
    // 1 January 2027 is a Friday: week 00 until Saturday the 2nd, week 01 from Sunday the 3rd.
    expect(indexNameFor('logs', 'OneWeek', new Date('2026-12-31T23:59:59Z'))).toBe('logs-2026-w52');
    expect(indexNameFor('logs', 'OneWeek', new Date('2027-01-01T00:00:00Z'))).toBe('logs-2027-w00');
    expect(indexNameFor('logs', 'OneWeek', new Date('2027-01-02T23:59:59Z'))).toBe('logs-2027-w00');
    expect(indexNameFor('logs', 'OneWeek', new Date('2027-01-03T00:00:00Z'))).toBe('logs-2027-w01');
    // A year starting on Sunday has no week 00.
    expect(indexNameFor('logs', 'OneWeek', new Date('2023-01-01T00:00:00Z'))).toBe('logs-2023-w01');
  });

  test('uses UTC, not the local time zone', () => {
    expect(indexNameFor('logs', 'OneDay', new Date('2026-11-22T23:59:59.999Z'))).toBe('logs-2026-11-22');
    expect(indexNameFor('logs', 'OneDay', new Date('2026-11-23T00:00:00Z'))).toBe('logs-2026-11-23');
  });

  test('the index pattern covers every rotated index', () => {
    expect(indexPatternFor('logs', 'OneDay')).toBe('logs-*');
    expect(indexPatternFor('logs', 'NoRotation')).toBe('logs*');
  });
});

describe('docs/settings.md "Default settings"', () => {
  /** Leaf paths of the defaults: objects recurse; arrays and scalars are settings. */
  function leafPaths(value: unknown, prefix = ''): string[] {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return Object.entries(value).flatMap(([k, v]) => leafPaths(v, prefix === '' ? k : `${prefix}.${k}`));
    }
    return [prefix];
  }

  test('lists every setting, including the optional ones', () => {
    // GIVEN
    const doc = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'settings.md'), 'utf8');
    // The table's rows only: a setting named in the prose below it is not listed.
    const table = doc
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .join('\n');
    const optional = [
      'account',
      'region',
      'openSearch.retention.warmAfterDays',
      'openSearch.access.readerBackendRoles',
      'openSearch.access.adminBackendRoles',
      'alarms.email',
      'delivery.direct.bulkMaxBytes',
      'delivery.direct.concurrency',
    ];
    // WHEN
    const missing = [...leafPaths(DEFAULTS), ...optional].filter((p) => {
      const wildcard = p.replace(/^streams\.(raw|events)\./, 'streams.*.');
      return !table.includes(`\`${p}\``) && !table.includes(`\`${wildcard}\``);
    });
    // THEN
    expect(missing).toEqual([]);
  });
});
