/**
 * A profile's `routes` (issue 24): read with their defaults, refused with the bad value and the fix, and checked
 * against each other (index stems apart, wholly shadowed routes) and the rest of the profile.
 */
import { ConfigValidationError, resolveConfig, routeOverlapWarnings } from '../../core/config';
import { MIN_TOTAL_FIELDS_LIMIT } from '../../core/opensearch/mappings';

const withRoutes = (routes: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  kfek: { profiles: { test: { routes, ...extra } } },
});

function problemsOf(routes: unknown, extra: Record<string, unknown> = {}): string[] {
  try {
    resolveConfig(withRoutes(routes, extra), 'test');
  } catch (error) {
    if (error instanceof ConfigValidationError) return [...error.problems];
    throw error;
  }
  throw new Error(`expected a ConfigValidationError for ${JSON.stringify(routes)}`);
}

const payments = {
  name: 'payments',
  match: { logGroupPrefix: '/kfek/teams/payments' },
  indexStem: 'payments',
};
const search = { name: 'search', match: { logGroup: '/kfek/teams/search' }, indexStem: 'search' };
/** `payments` matching `first`, then `search` matching `later`. */
const twoRoutes = (first: object, later: object): object[] => [
  { ...payments, match: first },
  { ...search, match: later },
];

describe('routes', () => {
  test('none by default', () => {
    expect(resolveConfig({}, 'sandbox').routes).toEqual([]);
  });

  test('a route takes the default retention, no readers, no static fields and no processing unless it says', () => {
    // WHEN
    const config = resolveConfig(
      withRoutes([payments], { openSearch: { retention: { deleteAfterDays: 21 } } }),
      'test',
    );
    // THEN
    expect(config.routes).toEqual([
      { ...payments, retentionDays: 21, readerBackendRoles: [], staticFields: {}, processing: { drop: [] } },
    ]);
  });

  test('every setting of a route is read as written, account as a list', () => {
    // GIVEN
    const route = {
      name: 'payments',
      match: { logGroupPattern: '/kfek/teams/pay*', account: '123456789012' },
      indexStem: 'team-payments',
      retentionDays: 7,
      readerBackendRoles: ['arn:aws:iam::123456789012:role/payments-readers', 'payments-team'],
      staticFields: { team: 'payments', 'service.tier': 'gold' },
      processing: {
        mask: { detectors: ['email', 'jwt'], custom: [{ name: 'iban', pattern: 'DE\\d{20}' }] },
        drop: [{ name: 'health', messagePattern: 'GET /health', field: 'level', fieldPattern: 'DEBUG' }],
        multiline: { mode: 'pattern', pattern: '^\\s+at ' },
      },
    };
    // WHEN
    const [read] = resolveConfig(withRoutes([route]), 'test').routes;
    // THEN
    expect(read).toEqual({ ...route, match: { ...route.match, account: ['123456789012'] } });
  });

  test('fails when routes is not a list', () => {
    expect(problemsOf({ payments })).toEqual([
      expect.stringMatching(/^routes is \{.*\}; expected an array\.$/),
    ]);
  });

  test.each([
    ['Payments', /routes\[0\]\.indexStem is "Payments": it has uppercase letters/],
    ['pay ments', /it contains " "; OpenSearch refuses/],
    ['pay#1', /it contains "#"/],
    ['_pay', /starts with "_", "-" or "\+"/],
    ['+pay', /starts with "_", "-" or "\+"/],
    ['.', /starts with "\.", the namespace of hidden and system indices/],
    ['..', /starts with "\."/],
    ['p'.repeat(242), /the index name has 256 bytes, more than OpenSearch's 255/],
  ])('fails when an index stem is %j', (stem, message) => {
    expect(problemsOf([{ ...payments, indexStem: stem }])).toEqual([expect.stringMatching(message)]);
  });

  test.each([
    [
      'logs',
      /routes\[0\]\.indexStem "logs" and delivery\.indexPrefix \(the default route\) "logs" cannot both be stems: they are equal/,
    ],
    [
      'logs-2026',
      /"logs-2026" continues "logs-" with a digit, as the rotation suffix of "logs"'s own indices does/,
    ],
    ['security-auditlog', /OpenSearch's own security-auditlog-\* indices/],
    ['security', /"security-\*" also matches "security-auditlog-2026-11-25"/],
  ])("fails when an index stem %j takes the default route's or OpenSearch's indices", (stem, message) => {
    expect(problemsOf([{ ...payments, indexStem: stem }])).toEqual([expect.stringMatching(message)]);
  });

  test.each([
    ['a route stem extending the prefix', [{ ...payments, indexStem: 'logs-payments' }], {}],
    [
      'the prefix extending a route stem',
      [{ ...payments, indexStem: 'app' }],
      { delivery: { indexPrefix: 'app-logs' } },
    ],
    ['a route stem extending another', [payments, { ...search, indexStem: 'payments-search' }], {}],
  ])('accepts stems that extend one another with a letter: %s (issue 30)', (_, routes, profile) => {
    expect(() => resolveConfig(withRoutes(routes, profile), 'test')).not.toThrow();
  });

  test('fails when two routes share a stem or a name', () => {
    expect(
      problemsOf([
        payments,
        { ...search, indexStem: 'payments-search' },
        { ...search, match: { logGroup: '/x' }, indexStem: 'payments' },
      ]),
    ).toEqual([
      expect.stringMatching(/^routes\[2\] name "search" is used twice/),
      expect.stringMatching(
        /^routes\[2\]\.indexStem "payments" and routes\[0\]\.indexStem \("payments"\) "payments" cannot both be stems: they are equal/,
      ),
    ]);
  });

  test('fails when an earlier route matches everything a later one does, and names both', () => {
    expect(
      problemsOf([
        { ...payments, match: { logGroupPattern: '/kfek/teams/*' } },
        { ...search, match: { logGroup: '/kfek/teams/search', account: ['123456789012'] } },
      ]),
    ).toEqual([
      expect.stringMatching(
        /^routes\[1\] \("search", match .*\) can never be chosen: routes\[0\] \("payments", match .*\) comes first and matches everything it matches .*Move "search" before "payments"/,
      ),
    ]);
  });

  test.each([
    [{ logGroupPrefix: '/a/' }, { logGroup: '/a/b' }],
    [{ logGroupPrefix: '/a/' }, { logGroupPrefix: '/a/b' }],
    [{ logGroupPrefix: '/a/' }, { logGroupPattern: '/a/*/x' }],
    [{ logGroupPattern: '/a/*' }, { logGroupPrefix: '/a/b' }],
    [{ logGroupPattern: '/a/*' }, { logGroupPattern: '/a/b*' }],
    [{ account: ['111122223333', '444455556666'] }, { logGroup: '/x', account: ['444455556666'] }],
  ])('%j wholly shadows a later %j', (first, later) => {
    expect(problemsOf(twoRoutes(first, later))).toEqual([
      expect.stringMatching(/^routes\[1\] \("search".*can never be chosen/),
    ]);
  });

  test.each([
    [{ logGroupPrefix: '/a/b' }, { logGroupPrefix: '/a/' }],
    [{ logGroupPattern: '/a/*-x' }, { logGroupPrefix: '/a/' }],
    [{ logGroup: '/a/b' }, { logGroupPattern: '/a/*' }],
    [{ account: ['111122223333'] }, { logGroup: '/x' }],
  ])('%j before %j: a warning that names both, no error', (first, later) => {
    // WHEN
    const config = resolveConfig(withRoutes(twoRoutes(first, later)), 'test');
    // THEN
    expect(routeOverlapWarnings(config.routes)).toEqual([
      expect.stringMatching(
        /^route "payments" \(routes\[0\], match .*\) shadows route "search" \(routes\[1\], match .*\) where both match/,
      ),
    ]);
  });

  test.each([
    [{ logGroup: '/a' }, { logGroup: '/b' }],
    [{ logGroupPrefix: '/a/' }, { logGroupPrefix: '/b/' }],
    [{ logGroupPattern: '/a/*' }, { logGroup: '/b/a' }],
    [{ account: ['111122223333'] }, { account: ['444455556666'] }],
  ])('%j and %j never meet: no warning', (first, later) => {
    const config = resolveConfig(withRoutes(twoRoutes(first, later)), 'test');
    expect(routeOverlapWarnings(config.routes)).toEqual([]);
  });

  test('fails when a route keeps its logs as long as the failed records, or longer', () => {
    expect(problemsOf([{ ...payments, retentionDays: 90 }])).toEqual([
      expect.stringMatching(
        /^routes\[0\]\.retentionDays \(90\) must be below failedRecords\.expireAfterDays \(90\)/,
      ),
    ]);
  });

  test('fails when static fields would not fit the total fields limit', () => {
    // GIVEN the smallest limit kfek's own documents fit in
    const extra = { openSearch: { indexTemplate: { totalFieldsLimit: MIN_TOTAL_FIELDS_LIMIT } } };
    // THEN
    expect(
      problemsOf([{ ...payments, staticFields: { team: 'payments', 'service.tier': 'gold' } }], extra),
    ).toEqual([
      expect.stringMatching(
        new RegExp(
          `routes\\[0\\]\\.staticFields map 3 fields.*Raise the limit to ${MIN_TOTAL_FIELDS_LIMIT + 3}`,
        ),
      ),
    ]);
  });

  test("fails when the routes do not fit the transform's environment", () => {
    // GIVEN routes whose patterns alone take more than 3 KB
    const custom = Array.from({ length: 4 }, (_, i) => ({ name: `p${i}`, pattern: `x${'y'.repeat(900)}` }));
    // THEN
    expect(problemsOf([{ ...payments, processing: { mask: { custom } } }])).toEqual([
      expect.stringMatching(
        /^routes take \d+ bytes as the transform's KFEK_ROUTES environment variable, more than the 3072/,
      ),
    ]);
  });

  test('fails when a reader backend role is a wildcard, naming the route', () => {
    expect(problemsOf([{ ...payments, readerBackendRoles: ['*'] }])).toEqual([
      expect.stringMatching(
        /^routes\[0\]\.readerBackendRoles\[0\] is "\*".*the reader role of route "payments"/,
      ),
    ]);
  });

  test('fails when a route has a setting kfek does not know', () => {
    expect(problemsOf([{ ...payments, retention: 7 }])).toEqual([
      expect.stringMatching(
        /^unknown setting routes\[0\]\.retention; known settings here: indexStem, match, name, processing, readerBackendRoles, retentionDays, staticFields\.$/,
      ),
    ]);
  });
});

describe('many overlapping routes are reported once, by their shape', () => {
  const nested = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      name: `r${i}`,
      match: { logGroupPrefix: `/app/${'a'.repeat(n - i)}` },
      indexStem: `s${'x'.repeat(i)}q`,
    }));

  test.each([40, 500])(
    '%i nested routes give one warning of bounded size, naming the count and the first pairs',
    (n) => {
      const warnings = routeOverlapWarnings(nested(n));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        new RegExp(`^${(n * (n - 1)) / 2} pairs of routes that may match the same events`),
      );
      expect(warnings[0]).toContain('(1) route "r0"');
      expect(warnings[0].length).toBeLessThan(10_000);
    },
  );

  test('shadowed routes and overlapping stems are each one problem too', () => {
    const routes = Array.from({ length: 40 }, (_, i) => ({
      name: `r${i}`,
      match: { logGroup: '/app/same' },
      indexStem: `stem${'-x'.repeat(i)}`,
    }));
    const problems = problemsOf(routes);
    expect(
      problems.filter((p) => /pairs of routes where a later route can never be chosen/.test(p)),
    ).toHaveLength(1);
    expect(problems.join('\n').length).toBeLessThan(5000);
  });
});
