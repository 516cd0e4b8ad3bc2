/**
 * The routes contract (issue 24): the matching the transform does (routeFor, globs), and the KFEK_ROUTES variable
 * written at synth and read by the transform (serializeRoutes / parseRoutes).
 */
import { readTransformRoute } from '../../../core/contracts/route-reader';
import { type TransformRoute, globMatch, routeFor } from '../../../core/contracts/routes';
import {
  RoutesEnvError,
  TransformEnvVar,
  TransformServiceName,
  parseRoutes,
  serializeRoutes,
  transformEnvironment,
} from '../../../core/contracts/transform-env';

const route = (name: string, match: TransformRoute['match']): TransformRoute => ({
  name,
  match,
  staticFields: {},
  processing: { drop: [] },
});

describe('globMatch', () => {
  test.each([
    ['/aws/lambda/*', '/aws/lambda/pay', true],
    ['/aws/lambda/*', '/aws/lambda/', true],
    ['/aws/lambda/*', '/aws/lambdax', false],
    ['*-payments', '/aws/lambda/checkout-payments', true],
    ['/kfek/*/app', '/kfek/teams/x/app', true],
    ['/kfek/?/app', '/kfek/a/app', true],
    ['/kfek/?/app', '/kfek/ab/app', false],
    ['a*b*c', 'aXbYc', true],
    ['a*b*c', 'aXbY', false],
    ['**', '', true],
    ['exact', 'exact', true],
    ['exact', 'exactly', false],
  ])('%s against %s: %s', (pattern, text, expected) => {
    expect(globMatch(pattern, text)).toBe(expected);
  });

  test('a pattern of many stars against a long name that fails at the end takes no exponential time', () => {
    // GIVEN a glob that a backtracking regular expression would need ~n^5 steps for
    const pattern = `${'a*'.repeat(5)}b`;
    const text = 'a'.repeat(512);
    // WHEN
    const started = process.hrtime.bigint();
    const result = globMatch(pattern, text);
    // THEN
    expect(result).toBe(false);
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(1000);
  });
});

describe('routeFor', () => {
  const routes = [
    route('payments', { logGroupPrefix: '/kfek/teams/payments' }),
    route('search-eu', { logGroupPattern: '/kfek/teams/search*', account: ['111122223333'] }),
    route('search', { logGroupPattern: '/kfek/teams/search*' }),
    route('audit', { account: ['444455556666'] }),
  ];

  test.each([
    ['/kfek/teams/payments-api', '123456789012', 'payments'],
    ['/kfek/teams/search', '111122223333', 'search-eu'],
    ['/kfek/teams/search', '123456789012', 'search'],
    ['/kfek/teams/search', undefined, 'search'],
    ['/anything', '444455556666', 'audit'],
    ['/kfek/teams/payments', '444455556666', 'payments'],
    ['/kfek/sandbox/app', '123456789012', undefined],
  ])(
    '%s from %s goes to %s (the first match wins; none: the default route)',
    (logGroup, account, expected) => {
      expect(routeFor({ logGroup, ...(account === undefined ? {} : { account }) }, routes)?.name).toBe(
        expected,
      );
    },
  );

  test('no routes: every event goes to the default route', () => {
    expect(routeFor({ logGroup: '/kfek/app', account: '123456789012' }, [])).toBeUndefined();
  });
});

describe('KFEK_ROUTES', () => {
  const routes: TransformRoute[] = [
    {
      name: 'payments',
      indexStem: 'team-payments',
      match: { logGroupPrefix: '/kfek/teams/payments', account: ['123456789012'] },
      staticFields: { team: 'payments', 'service.tier': 'gold' },
      processing: {
        mask: { detectors: ['email', 'creditCard'], custom: [{ name: 'orderId', pattern: 'ORD-\\d{6}' }] },
        drop: [
          { name: 'health', messagePattern: 'GET /health' },
          { name: 'debug', field: 'level', fieldPattern: '^DEBUG$' },
        ],
        multiline: { mode: 'java' },
      },
    },
    route('search', { logGroup: '/kfek/teams/search' }),
  ];

  test('what serializeRoutes writes, parseRoutes reads back as it was', () => {
    // WHEN
    const text = serializeRoutes(routes);
    // THEN
    // The stem only where it is not the name (issue 39: the transform marks it; the 4 KB are spared).
    const [{ indexStem, ...payments }, search] = routes;
    expect(JSON.parse(text)).toEqual({ v: 1, routes: [{ ...payments, stem: indexStem }, search] });
    expect(parseRoutes(text)).toEqual([routes[0], { ...search, indexStem: 'search' }]);
  });

  test.each([['Pay'], ['a,b'], [''], [7]])('fails when a route of KFEK_ROUTES has the stem %j', (stem) => {
    // GIVEN
    const text = JSON.stringify({ v: 1, routes: [{ name: 'pay', match: { logGroup: '/a' }, stem }] });
    // WHEN / THEN
    expect(() => parseRoutes(text)).toThrow(
      /routes\[0\]\.stem is ("[^"]+": it (has uppercase|contains ",")|(""|7); expected the stem of the route's index names)/,
    );
  });

  test('transformEnvironment writes KFEK_ROUTES only when there are routes', () => {
    const common = { serviceName: TransformServiceName.kinesis };
    expect(transformEnvironment({ ...common, routes })[TransformEnvVar.Routes]).toBe(serializeRoutes(routes));
    expect(transformEnvironment({ ...common, routes: [] })).not.toHaveProperty(TransformEnvVar.Routes);
    expect(transformEnvironment(common)).not.toHaveProperty(TransformEnvVar.Routes);
  });

  test('unset or empty: no routes', () => {
    expect(parseRoutes(undefined)).toEqual([]);
    expect(parseRoutes('')).toEqual([]);
  });

  test.each([
    ['not JSON', '{', /KFEK_ROUTES is not valid: it is not JSON/],
    ['another version', '{"v":2,"routes":[]}', /expected \{"v":1,"routes":\[\.\.\.\]\}/],
    ['no routes array', '{"v":1}', /expected \{"v":1/],
    [
      'a pattern that does not compile',
      JSON.stringify({
        v: 1,
        routes: [
          { ...route('a', { logGroup: '/a' }), processing: { drop: [{ name: 'x', messagePattern: '(' }] } },
        ],
      }),
      /routes\[0\]\.processing\.drop\[0\]\.messagePattern is "\(", which does not compile/,
    ],
    [
      'a route listed twice',
      JSON.stringify({ v: 1, routes: [route('a', { logGroup: '/a' }), route('a', { logGroup: '/b' })] }),
      /route "a" is listed twice/,
    ],
    [
      'an OpenSearch setting the transform does not read',
      JSON.stringify({ v: 1, routes: [{ ...route('a', { logGroup: '/a' }), indexStem: 'a' }] }),
      /unknown setting routes\[0\]\.indexStem/,
    ],
  ])('fails with a RoutesEnvError when the variable holds %s', (_what, value, message) => {
    expect(() => parseRoutes(value)).toThrow(RoutesEnvError);
    expect(() => parseRoutes(value)).toThrow(message);
  });
});

describe('readTransformRoute', () => {
  function problemsOf(value: unknown): string[] {
    const problems: string[] = [];
    readTransformRoute(value, 'routes[0]', problems);
    return problems;
  }

  test.each([
    [{ name: 'a', match: { logGroup: '/a' }, staticFields: { team: 'a' } }, []],
    [
      { name: 'default', match: { logGroup: '/a' } },
      [/routes\[0\]\.name is "default", the name of the route of events no route matches/],
    ],
    [
      { name: 'a', match: { logGroupPattern: '/a/b' } },
      [/has no "\*" or "\?"; for one exact name use "logGroup": "\/a\/b"/],
    ],
    [
      { name: 'a', match: { account: [] } },
      [/routes\[0\]\.match\.account is \[\]; expected a 12-digit AWS account id/],
    ],
    [{ name: 'a', match: { account: '123456789012' } }, []],
    [
      {
        name: 'a',
        match: { logGroup: '/a' },
        staticFields: { 'message.x': 'y', team: 'a', 'team.name': 'b' },
      },
      [/"message\.x" is a name kfek or OpenSearch owns/, /"team\.name" and "team" map the same path "team"/],
    ],
    [
      { name: 'a', match: { logGroup: '/a' }, staticFields: { 'a.b.c.d': 'x' } },
      [/"a\.b\.c\.d" is no field name OpenSearch maps as written/],
    ],
    [
      {
        name: 'a',
        match: { logGroup: '/a' },
        processing: { mask: { detectors: ['ssn'], custom: [{ name: 'w', pattern: '\\b' }] } },
      },
      [
        /mask\.detectors\[0\] is "ssn"; expected one of "email", "creditCard"/,
        /mask\.custom\[0\]\.pattern is "\\\\b", which matches empty text/,
      ],
    ],
    [
      { name: 'a', match: { logGroup: '/a' }, processing: { multiline: { mode: 'java', pattern: 'x' } } },
      [/multiline\.pattern is set but mode is "java"/],
    ],
    [
      { name: 'a', match: { logGroup: '/a' }, processing: { drop: [{ name: 'x', field: 'level' }] } },
      [/drop\[0\] gives "field" without "fieldPattern"; give both/],
    ],
  ])('%j: %j', (value, expected) => {
    expect(problemsOf(value)).toEqual(expected.map((m) => expect.stringMatching(m) as unknown));
  });
});
