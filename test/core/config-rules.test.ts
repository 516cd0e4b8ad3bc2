/**
 * Each rule the config and the OpenSearch spec share is written once (core/contracts/config-rules.ts): for any value,
 * the config refuses it exactly when the spec does, with the same message but for the path (the profile's, the
 * spec input's). The spec used to be weaker: it let through stems over OpenSearch's own indices, backend roles with
 * wildcards, and stems kfek could not put into a request path.
 */
import fc from 'fast-check';
import { ConfigValidationError, resolveConfig } from '../../core/config';
import { openSearchSpecInputOf } from '../../core/config/opensearch-spec';
import { CONFIG_RULES, type ConfigRule } from '../../core/contracts/config-rules';
import { indexStemProblem } from '../../core/contracts/index-naming';
import { OpenSearchSpecError } from '../../core/opensearch/errors';
import { TOTAL_FIELDS_LIMIT_RULE } from '../../core/opensearch/mappings';
import { nameProblem } from '../../core/opensearch/request-path';
import { type OpenSearchSpecInput, resolveOpenSearchSpec } from '../../core/opensearch/spec';

const ROUTE = {
  name: 'payments',
  match: { logGroup: '/kfek/payments' },
  indexStem: 'payments',
  retentionDays: 7,
};
const BASE = { routes: [ROUTE], failedRecords: { expireAfterDays: 60 } };

function withProfile(profile: Record<string, unknown>): Record<string, unknown> {
  return { kfek: { profiles: { test: profile } } };
}

function configProblems(profile: Record<string, unknown>): readonly string[] {
  try {
    resolveConfig(withProfile(profile), 'test');
    return [];
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems;
    throw error;
  }
}

function specProblems(input: OpenSearchSpecInput): readonly string[] {
  try {
    resolveOpenSearchSpec(input);
    return [];
  } catch (error) {
    if (error instanceof OpenSearchSpecError) return error.problems;
    throw error;
  }
}

/** `value` set at a dotted path (`routes[].x` is the first route's `x`) of a copy of `base`. */
function setAt(base: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const out = structuredClone<Record<string, unknown>>(base);
  let at: Record<string, unknown> = out;
  const parts = path.replace('routes[]', 'routes.0').split('.');
  parts.slice(0, -1).forEach((part) => {
    const next = (at[part] ?? {}) as Record<string, unknown>;
    at[part] = next;
    at = next;
  });
  at[parts[parts.length - 1]] = value;
  return out;
}

/** The problems of one setting by its own rule: `<path> is <value>...` and `<path>[i] is ...`, with `<path>` as `as`. */
function ruleProblems(problems: readonly string[], path: string, value: unknown, as: string): string[] {
  const heads = [`${path} is ${JSON.stringify(value)}`, `${path}[`];
  return problems
    .filter((p) => heads.some((h) => p.startsWith(h)) && !/ with \d+ data node/.test(p))
    .map((p) => `${as}${p.slice(path.length)}`);
}

const validSpec = openSearchSpecInputOf(resolveConfig(withProfile(BASE), 'test'));

/** Both readers on one bad or good value of a shared rule: the rule's problems of each, named alike. */
function bothOn(rule: ConfigRule, value: unknown): { config: string[]; spec: string[] } {
  const path = rule.path ?? '';
  const specPath = rule.specPath ?? '';
  const config = ruleProblems(
    configProblems(setAt(BASE, path, value)),
    path.replace('[]', '[0]'),
    value,
    'X',
  );
  const specInput = setAt(validSpec as unknown as Record<string, unknown>, specPath, value);
  const spec = ruleProblems(
    specProblems(specInput as unknown as OpenSearchSpecInput),
    specPath.replace('[]', '[0]'),
    value,
    'X',
  );
  return { config, spec };
}

const SHARED_INT_RULES = [
  TOTAL_FIELDS_LIMIT_RULE,
  CONFIG_RULES.shards,
  CONFIG_RULES.replicas,
  CONFIG_RULES.refreshSeconds,
  CONFIG_RULES.slowSearchWarnMs,
  CONFIG_RULES.slowIndexInfoMs,
  CONFIG_RULES.deleteAfterDays,
  CONFIG_RULES.routeRetentionDays,
];

/** Values of every JSON kind, bounds and their neighbours among them. */
const anyValue = fc.oneof(
  fc.integer({ min: -3, max: 40_000 }),
  fc.constantFrom(
    0,
    1,
    14,
    15,
    16,
    137,
    138,
    1024,
    1025,
    100_000,
    100_001,
    3600,
    3601,
    36_500,
    36_501,
    3_600_000,
    3_600_001,
  ),
  fc.double({ noNaN: true }),
  fc.string({ maxLength: 6 }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.integer(), { maxLength: 2 }),
);

describe('the rules the config and the OpenSearch spec share', () => {
  test.each(SHARED_INT_RULES.map((rule) => [rule.path, rule] as const))(
    '%s: the spec refuses exactly what the config refuses, in the same words',
    (_path, rule) => {
      fc.assert(
        fc.property(anyValue, (value) => {
          const { config, spec } = bothOn(rule, value);
          expect(spec).toEqual(config);
        }),
        { seed: 40, numRuns: 60 },
      );
    },
  );

  test.each([
    ['a good prefix', 'app-logs'],
    ['uppercase', 'Logs'],
    ['a wildcard', 'logs*'],
    ['a leading underscore', '_logs'],
    ['a leading dot', '.logs'],
    ['201 characters', 'l'.repeat(201)],
    ['a number', 7],
    ['null', null],
  ])('indexPrefix with %s: the same verdict and words in both', (_what, value) => {
    const { config, spec } = bothOn(CONFIG_RULES.indexPrefix, value);
    expect(spec).toEqual(config);
  });

  test.each([
    ['a good stem', 'team-payments'],
    ['uppercase', 'Pay'],
    ['a comma', 'a,b'],
    ['a tab', 'pay\tments'],
    ['a zero-width space', 'pay\u200bments'],
    ['a percent escape', 'pay%2cments'],
    ['a lone surrogate', 'pay\ud800'],
    ['a leading dot', '.pay'],
    ['an empty string', ''],
    ['a number', 42],
  ])('a route stem with %s: the same verdict and words in both', (_what, value) => {
    const { config, spec } = bothOn(CONFIG_RULES.indexStem, value);
    expect(spec).toEqual(config);
    expect(config.length).toBe(value === 'team-payments' ? 0 : 1);
  });

  test.each([
    ['a group', ['pay-team']],
    ['a star', ['*']],
    ['a question mark', ['team-?']],
    ['a regular expression', ['/.*/']],
    ['blanks at an end', [' pay-team']],
    ['an empty name', ['']],
    ['a number', [7]],
    ['no list', 'pay-team'],
  ])('route readers with %s: the same verdict and words in both', (_what, value) => {
    const { config, spec } = bothOn(CONFIG_RULES.routeReaderBackendRoles, value);
    expect(spec).toEqual(config);
  });

  test.each([['*'], ['team-?'], ['/admins.*/'], [' x']])(
    'fails when the spec names reader or admin backend role %j, as the config does',
    (role) => {
      // GIVEN the role among the readers and the admins of a spec
      const input = { ...validSpec, access: { readerBackendRoles: [role], adminBackendRoles: [role] } };
      // WHEN / THEN
      expect(specProblems(input)).toEqual([
        expect.stringMatching(/^access\.readerBackendRoles\[0\] is /),
        expect.stringMatching(/^access\.adminBackendRoles\[0\] is /),
      ]);
    },
  );

  test('the spec takes every admin the config takes, an IAM ARN longer than a group name too', () => {
    // GIVEN an admin role ARN with a long path, which the config takes
    const admin = `arn:aws:iam::123456789012:role/${'p/'.repeat(150)}Admin`;
    expect(configProblems({ openSearch: { access: { adminBackendRoles: [admin] } } })).toEqual([]);
    // WHEN / THEN
    expect(specProblems({ ...validSpec, access: { adminBackendRoles: [admin] } })).toEqual([]);
  });

  test.each([
    ['security-auditlog', /OpenSearch's own security-auditlog-\* indices overlap/],
    ['security', /"security-\*" also matches "security-auditlog-2026-11-25"/],
    ['top_queries-x', /"top_queries-\*" also matches "top_queries-x-2026-11-25"/],
  ])("fails when a spec's route stem %j takes OpenSearch's own indices", (stem, message) => {
    // GIVEN
    const input = { ...validSpec, routes: [{ name: 'pay', indexStem: stem, retentionDays: 7 }] };
    // WHEN / THEN
    expect(specProblems(input)).toEqual([expect.stringMatching(message)]);
  });

  test.each([['security'], ['security-auditlog'], ['top_queries']])(
    "fails when the default route's prefix %j takes OpenSearch's own indices, in the config and the spec",
    (prefix) => {
      expect(configProblems({ delivery: { indexPrefix: prefix } })).toEqual([
        expect.stringMatching(/^delivery\.indexPrefix ".*" and OpenSearch's own .* indices overlap/),
      ]);
      expect(specProblems({ ...validSpec, indexPrefix: prefix, routes: [] })).toEqual([
        expect.stringMatching(/^indexPrefix ".*" and OpenSearch's own .* indices overlap/),
      ]);
    },
  );

  test('every stem the rule accepts names indices and patterns kfek can address in a request path', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }), (stem) => {
        fc.pre(indexStemProblem(stem) === undefined);
        expect([
          nameProblem('index', `${stem}-2026-11-25-00`),
          nameProblem('index pattern', `${stem}-*`),
        ]).toEqual([undefined, undefined]);
      }),
      { seed: 40, numRuns: 2000 },
    );
  });
});
