/**
 * Settings resolveConfig accepted and should not have (issue 22, item 8): each is refused at synth with the bad value
 * and the fix, instead of deploying something else than the profile says or failing later in CloudFormation.
 */
import { ConfigValidationError, UnknownProfileError, resolveConfig } from '../../core/config';
import { APP_FIELD_BUDGET } from '../../core/contracts/field-budget';
import { CDK_JSON_CONTEXT } from '../helpers/app';

const withProfile = (overrides: unknown, name = 'test'): Record<string, unknown> => ({
  kfek: { profiles: { [name]: overrides } },
});

/** The problems resolving `overrides` as profile `test` reports (fails the test when there are none). */
function problemsOf(overrides: unknown): string[] {
  try {
    resolveConfig(withProfile(overrides), 'test');
  } catch (error) {
    if (error instanceof ConfigValidationError) return [...error.problems];
    throw error;
  }
  throw new Error(`expected a ConfigValidationError for ${JSON.stringify(overrides)}`);
}

/** The shipped profiles with `name` replaced by `value` (as cdk.json would hold it). */
function shippedWith(name: string, value: unknown): Record<string, unknown> {
  const section = CDK_JSON_CONTEXT.kfek as { profiles: Record<string, unknown> };
  return { ...CDK_JSON_CONTEXT, kfek: { profiles: { ...section.profiles, [name]: value } } };
}

describe('a profile or section that is not an object', () => {
  test.each([null, 'cheap', 42, [], true])(
    'fails when the profile "production" is %j, instead of deploying the defaults under its name',
    (value) => {
      // WHEN
      let error: unknown;
      try {
        resolveConfig(shippedWith('production', value), 'production');
      } catch (e) {
        error = e;
      }
      // THEN
      expect(error).toBeInstanceOf(ConfigValidationError);
      expect((error as ConfigValidationError).problems).toEqual([
        expect.stringMatching(
          new RegExp(
            `^the profile "production" is ${escape(JSON.stringify(value))}; expected an object of settings ` +
              '.*\\{\\} keeps every default',
          ),
        ),
      ]);
    },
  );

  test('fails when a section is null, naming the settings it holds', () => {
    expect(problemsOf({ openSearch: { indexTemplate: null } })).toEqual([
      expect.stringMatching(
        /^openSearch\.indexTemplate is null; expected an object with the settings aggregatableFields, refreshSeconds, replicas, shards/,
      ),
    ]);
  });
});

describe('keys named like Object.prototype members', () => {
  const names = ['toString', 'hasOwnProperty', 'constructor', '__proto__', 'valueOf', 'isPrototypeOf'];

  test.each(names)('fails when a profile sets "%s" at the top level or in a section', (name) => {
    // GIVEN: JSON.parse, as cdk.json is read, makes even "__proto__" an own key.
    const profile: unknown = JSON.parse(
      `{"${name}": {}, "openSearch": {"indexTemplate": {"${name}": 5}}, "sources": {"${name}": {}}}`,
    );
    // WHEN
    const problems = problemsOf(profile);
    // THEN
    expect(problems).toEqual([
      expect.stringMatching(new RegExp(`^unknown setting ${name}; known settings here: account, alarms`)),
      expect.stringMatching(
        new RegExp(`^unknown setting openSearch\\.indexTemplate\\.${name}; known settings`),
      ),
      expect.stringMatching(new RegExp(`^unknown setting sources\\.${name}; known settings`)),
    ]);
  });

  test.each(['constructor', 'toString', '__proto__'])(
    'fails when the selected profile is named "%s" and cdk.json does not define it',
    (name) => {
      expect(() => resolveConfig(CDK_JSON_CONTEXT, name)).toThrow(UnknownProfileError);
    },
  );
});

describe('S3 prefixes of kept data', () => {
  test.each([
    ['', /\(it is empty/],
    ['../poison/', /"\.\." or "\." as a path segment/],
    ['dead/../letter/', /"\.\." or "\." as a path segment/],
    ['dead..letter/', /contains "\.\."/],
    ['./poison/', /"\.\." or "\." as a path segment/],
    ['/poison/', /starts with "\/"/],
    ['dead//letter/', /contains "\/\/"/],
    ['dead*/', /contains "\*"/],
    ['dead-letter', /does not end with "\/"/],
  ])('fails when transform.deadLetterPrefix is %j', (prefix, why) => {
    const problems = problemsOf({ transform: { deadLetterPrefix: prefix } });
    expect(problems).toEqual([
      expect.stringMatching(new RegExp(`^transform\\.deadLetterPrefix is ${escape(JSON.stringify(prefix))}`)),
    ]);
    expect(problems[0]).toMatch(why);
    expect(problems[0]).toMatch(/such as "dead-letter\/transform\/"/);
  });

  test('fails when the dead-letter and failed-documents prefixes are equal', () => {
    const problems = problemsOf({
      transform: { deadLetterPrefix: 'kept/' },
      delivery: { failedDocumentsPrefix: 'kept/' },
    });
    expect(problems).toEqual([
      expect.stringMatching(
        /^transform\.deadLetterPrefix \("kept\/"\) and delivery\.failedDocumentsPrefix \("kept\/"\) overlap/,
      ),
    ]);
  });

  test('fails when one prefix lies under the other, which would mix kept objects of two kinds', () => {
    const problems = problemsOf({
      transform: { deadLetterPrefix: 'kept/' },
      delivery: { failedDocumentsPrefix: 'kept/documents/' },
    });
    expect(problems).toEqual([
      expect.stringMatching(/^transform\.deadLetterPrefix \("kept\/"\) and delivery\.failedDocumentsPrefix/),
    ]);
    expect(problems[0]).toMatch(/kfek replay/);
  });

  test.each([
    ['aws/lambda/', 'transform.deadLetterPrefix'],
    ['aws/lambda/poison/', 'transform.deadLetterPrefix'],
    ['aws/', 'delivery.failedDocumentsPrefix'],
  ])("fails when %j overlaps Lambda's own on-failure prefix aws/lambda/ (%s)", (prefix, setting) => {
    const [section, key] = setting.split('.');
    const problems = problemsOf({ [section]: { [key]: prefix } });
    expect(problems).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${escape(setting)} \\(${escape(JSON.stringify(prefix))}\\) and .*"aws/lambda/".* overlap`,
        ),
      ),
    ]);
  });

  test('distinct prefixes that share a first segment are accepted', () => {
    const config = resolveConfig(
      withProfile({
        transform: { deadLetterPrefix: 'kept/dead-letter/' },
        delivery: { failedDocumentsPrefix: 'kept/failed-documents/' },
      }),
      'test',
    );
    expect(config.transform.deadLetterPrefix).toBe('kept/dead-letter/');
    expect(config.delivery.failedDocumentsPrefix).toBe('kept/failed-documents/');
  });
});

describe('openSearch.indexTemplate.totalFieldsLimit', () => {
  test("fails when it is below the fields kfek maps itself plus one document's app-field budget", () => {
    // WHEN
    const problems = problemsOf({ openSearch: { indexTemplate: { totalFieldsLimit: 120 } } });
    // THEN: the minimum comes from the template's own fields and APP_FIELD_BUDGET, both named.
    expect(problems).toHaveLength(1);
    const match = /maps (\d+) fields itself .* up to (\d+) app fields .* at least (\d+)/.exec(problems[0]);
    expect(match).not.toBeNull();
    const [own, budget, minimum] = match!.slice(1).map(Number);
    expect(budget).toBe(APP_FIELD_BUDGET);
    expect(own).toBeGreaterThan(20);
    expect(minimum).toBe(own + budget);
    expect(problems[0]).toMatch(/^openSearch\.indexTemplate\.totalFieldsLimit is 120/);
    // AND the boundary is exactly the minimum.
    expect(problemsOf({ openSearch: { indexTemplate: { totalFieldsLimit: minimum - 1 } } })).toHaveLength(1);
    const config = resolveConfig(
      withProfile({ openSearch: { indexTemplate: { totalFieldsLimit: minimum } } }),
      'test',
    );
    expect(config.openSearch.indexTemplate.totalFieldsLimit).toBe(minimum);
  });
});

describe('OpenSearch backend roles', () => {
  test.each([['*'], ['logs-*'], ['reader?'], ['/^admin.+$/'], ['arn:aws:iam::123456789012:role/*']])(
    'fails when a reader backend role is the wildcard %j, which would map every user to kfek_reader',
    (role) => {
      const problems = problemsOf({ openSearch: { access: { readerBackendRoles: ['readers', role] } } });
      expect(problems).toEqual([
        expect.stringMatching(
          new RegExp(
            `^openSearch\\.access\\.readerBackendRoles\\[1\\] is ${escape(JSON.stringify(role))}; .*wildcard`,
          ),
        ),
      ]);
    },
  );

  test.each([[''], ['   '], [' readers'], ['readers\n']])(
    'fails when a reader backend role is %j',
    (role) => {
      const problems = problemsOf({ openSearch: { access: { readerBackendRoles: [role] } } });
      expect(problems).toEqual([
        expect.stringMatching(
          new RegExp(`^openSearch\\.access\\.readerBackendRoles\\[0\\] is ${escape(JSON.stringify(role))}`),
        ),
      ]);
    },
  );

  test('fails when an admin backend role is a wildcard, saying it would give everyone all_access', () => {
    expect(problemsOf({ openSearch: { access: { adminBackendRoles: ['*'] } } })).toEqual([
      expect.stringMatching(/^openSearch\.access\.adminBackendRoles\[0\] is "\*"; .*wildcard.*all_access/),
    ]);
  });

  test('IAM role ARNs and plain group names are accepted as reader roles', () => {
    const roles = ['arn:aws:iam::123456789012:role/Reader', 'saml-readers', 'Domain Users'];
    const config = resolveConfig(
      withProfile({ openSearch: { access: { readerBackendRoles: roles } } }),
      'test',
    );
    expect(config.openSearch.access.readerBackendRoles).toEqual(roles);
  });
});

describe('log groups under the reserved "aws/" prefix', () => {
  test('fails when kfek would create a log group named aws/...', () => {
    expect(problemsOf({ sources: { logGroups: [{ name: 'aws/app', create: true }] } })).toEqual([
      expect.stringMatching(/^sources\.logGroups\[0\]\.name "aws\/app" starts with "aws\/".*CreateLogGroup/),
    ]);
  });

  test('fails when a subscribed group is named aws/... and suggests the /aws/... group AWS services write', () => {
    // WHEN
    const problems = problemsOf({
      account: '111122223333',
      region: 'eu-west-1',
      sources: {
        logGroups: ['aws/lambda/checkout'],
        accounts: ['222233334444'],
        remote: { logGroups: ['aws/lambda/orders'] },
      },
    });
    // THEN
    expect(problems).toEqual([
      expect.stringMatching(
        /^sources\.logGroups\[0\]\.name "aws\/lambda\/checkout" .*"\/aws\/lambda\/checkout"/,
      ),
      expect.stringMatching(
        /^sources\.remote\.logGroups\[0\] "aws\/lambda\/orders" .*"\/aws\/lambda\/orders"/,
      ),
    ]);
  });

  test('/aws/... groups, and aws/spans (which AWS creates and documents as subscribable), are accepted', () => {
    const config = resolveConfig(
      withProfile({
        sources: {
          logGroups: ['/aws/lambda/checkout', 'aws/spans'],
          accountPolicy: { enabled: true, excludeLogGroups: ['aws/spans', 'aws/other'] },
        },
      }),
      'test',
    );
    expect(config.sources.logGroups.map((g) => g.name)).toEqual(['/aws/lambda/checkout', 'aws/spans']);
  });
});

describe('regions', () => {
  // Every Region of every partition the installed AWS SDK for JavaScript v3 knows (@aws-sdk/core 3.981's
  // partitions data), the standard partition's newest ones included.
  const REAL_REGIONS = [
    'af-south-1',
    'ap-east-1',
    'ap-east-2',
    'ap-northeast-1',
    'ap-northeast-2',
    'ap-northeast-3',
    'ap-south-1',
    'ap-south-2',
    'ap-southeast-1',
    'ap-southeast-2',
    'ap-southeast-3',
    'ap-southeast-4',
    'ap-southeast-5',
    'ap-southeast-6',
    'ap-southeast-7',
    'ca-central-1',
    'ca-west-1',
    'eu-central-1',
    'eu-central-2',
    'eu-north-1',
    'eu-south-1',
    'eu-south-2',
    'eu-west-1',
    'eu-west-2',
    'eu-west-3',
    'il-central-1',
    'me-central-1',
    'me-south-1',
    'me-west-1',
    'mx-central-1',
    'sa-east-1',
    'sa-west-1',
    'us-east-1',
    'us-east-2',
    'us-west-1',
    'us-west-2',
    'cn-north-1',
    'cn-northwest-1',
    'us-gov-east-1',
    'us-gov-west-1',
    'us-iso-east-1',
    'us-iso-west-1',
    'us-isob-east-1',
    'us-isob-west-1',
    'us-isof-east-1',
    'us-isof-south-1',
    'eu-isoe-west-1',
    'eusc-de-east-1',
  ];
  const MALFORMED = [
    'eu-west-1x',
    'EU-WEST-1',
    'euwest1',
    'eu-west',
    'xx-west-1',
    'eu-westwest-1',
    'us-gov-1',
    'eu-west-0',
    'eu_west_1',
    ' eu-west-1',
  ];

  test.each(MALFORMED)('fails when region is %j', (region) => {
    expect(problemsOf({ region })).toEqual([
      expect.stringMatching(
        new RegExp(`^region is ${escape(JSON.stringify(region))}; expected an AWS Region code`),
      ),
    ]);
  });

  test('fails when a source region is malformed, naming each', () => {
    const problems = problemsOf({
      account: '111122223333',
      region: 'eu-west-1',
      sources: { accounts: ['222233334444'], regions: MALFORMED, remote: { logGroups: ['/app/orders'] } },
    });
    expect(problems).toHaveLength(MALFORMED.length);
    MALFORMED.forEach((r, i) => {
      expect(problems[i]).toMatch(
        new RegExp(
          `^sources\\.regions\\[${i}\\] is ${escape(JSON.stringify(r))}; expected an AWS Region code`,
        ),
      );
    });
  });

  test('every Region of the aws, aws-cn, aws-us-gov and isolated partitions is accepted', () => {
    for (const region of REAL_REGIONS) {
      expect(resolveConfig(withProfile({ region }), 'test').env.region).toBe(region);
    }
    const config = resolveConfig(
      withProfile({
        account: '111122223333',
        region: 'eu-west-1',
        sources: {
          accounts: ['222233334444'],
          regions: REAL_REGIONS,
          remote: { logGroups: ['/app/orders'] },
        },
      }),
      'test',
    );
    expect(config.sources.regions).toEqual(REAL_REGIONS);
  });
});

describe('EBS volume sizes per data node instance type (OpenSearch Service EBS volume size quotas)', () => {
  test.each([
    ['t3.small.search', 200, '10 to 100 GiB'],
    ['t3.medium.search', 201, '10 to 200 GiB'],
    ['m5.large.search', 1025, '10 to 1024 GiB'],
    ['m6g.xlarge.search', 2049, '10 to 2048 GiB'],
    ['c5.large.search', 300, '10 to 256 GiB'],
    ['c6g.12xlarge.search', 4609, '10 to 4608 GiB'],
    ['r5.large.search', 2049, '10 to 2048 GiB'],
    ['r6g.8xlarge.search', 16385, '10 to 16384 GiB'],
  ])('fails when a %s data node has a %i GiB volume, naming the allowed range', (type, size, range) => {
    const problems = problemsOf({
      openSearch: { dataNodeInstanceType: type, volumeSizeGb: size },
      alarms: { freeStorageMb: 2048 },
    });
    expect(problems).toEqual([
      expect.stringMatching(
        new RegExp(`^openSearch\\.volumeSizeGb is ${size} but .*"${escape(type)}" .*${range}`),
      ),
    ]);
  });

  test.each(['t2.small.search', 'm4.large.search', 'r4.xlarge.search'])(
    'fails when the data node type %s cannot have the gp3 volume kfek gives every data node',
    (type) => {
      expect(problemsOf({ openSearch: { dataNodeInstanceType: type } })).toEqual([
        expect.stringMatching(new RegExp(`^openSearch\\.dataNodeInstanceType "${escape(type)}" .*gp3`)),
      ]);
    },
  );

  test.each(['r6gd.large.search', 'i3.xlarge.search'])(
    'fails when the data node type %s has instance storage and no EBS volume',
    (type) => {
      expect(problemsOf({ openSearch: { dataNodeInstanceType: type } })).toEqual([
        expect.stringMatching(new RegExp(`^openSearch\\.dataNodeInstanceType "${escape(type)}" .*no EBS`)),
      ]);
    },
  );

  test.each([
    ['t3.medium.search', 200],
    ['r5.12xlarge.search', 24_576],
    ['r6g.12xlarge.search', 20_000],
    // Not in the table kfek encodes: accepted whatever the size, never guessed.
    ['r7g.large.search', 100],
    ['m7g.xlarge.search', 20_000],
    ['c7g.large.search', 3000],
  ])('a %s data node with %i GiB is accepted', (type, size) => {
    const config = resolveConfig(
      withProfile({ openSearch: { dataNodeInstanceType: type, volumeSizeGb: size } }),
      'test',
    );
    expect(config.openSearch.volumeSizeGb).toBe(size);
  });
});

describe('the shipped profiles', () => {
  test.each(['sandbox', 'production', 'multi', 'sandbox-pipes'])('%s still resolves', (profile) => {
    expect(resolveConfig(CDK_JSON_CONTEXT, profile).profile).toBe(profile);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

describe('openSearch.indexTemplate.aggregatableFields', () => {
  test('takes app field paths', () => {
    const config = resolveConfig(
      withProfile({ openSearch: { indexTemplate: { aggregatableFields: ['status', 'http.*', 'a.b.c'] } } }),
      'test',
    );
    expect(config.openSearch.indexTemplate.aggregatableFields).toEqual(['status', 'http.*', 'a.b.c']);
  });

  test.each([
    ['kfek.route', /"kfek" is a field kfek maps itself/],
    ['cloudwatch.logGroup', /"cloudwatch" is a field kfek maps itself/],
    ['a.b.c.d', /4 levels deep.*flat_object/],
    ['http method', /expected an app field path/],
    ['', /expected an app field path/],
    ['a..b', /expected an app field path/],
  ])('refuses %j with the reason', (path, reason) => {
    expect(problemsOf({ openSearch: { indexTemplate: { aggregatableFields: [path] } } })).toEqual([
      expect.stringMatching(reason),
    ]);
  });

  test('refuses a path listed twice and more than 50 paths', () => {
    expect(
      problemsOf({ openSearch: { indexTemplate: { aggregatableFields: ['status', 'status'] } } }),
    ).toEqual([expect.stringMatching(/aggregatableFields\[1\] "status" is listed twice/)]);
    const many = Array.from({ length: 51 }, (_, i) => `f${i}`);
    expect(problemsOf({ openSearch: { indexTemplate: { aggregatableFields: many } } })).toEqual([
      expect.stringMatching(/names 51 fields, more than 50/),
    ]);
  });
});
