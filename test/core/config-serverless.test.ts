/**
 * `openSearch.kind: "serverless"` (issue 42, docs/serverless.md): the sandbox-serverless profile resolves, and every
 * setting a Serverless collection cannot honour is refused at synth with the reason and the fix.
 */
import { ConfigValidationError, resolveConfig } from '../../core/config';
import SANDBOX_SERVERLESS from '../fixtures/sandbox-serverless.profile.json';

/** The sandbox-serverless profile with `overrides` merged over its top-level sections (undefined removes one). */
function serverlessWith(overrides: Record<string, unknown>): Record<string, unknown> {
  const base = SANDBOX_SERVERLESS as Record<string, unknown>;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const current = base[key];
    if (value === undefined) {
      delete merged[key];
      continue;
    }
    merged[key] =
      typeof current === 'object' && current !== null && typeof value === 'object' && value !== null
        ? { ...current, ...value }
        : value;
  }
  return { kfek: { profiles: { 'sandbox-serverless': merged } } };
}

function problemsOf(overrides: Record<string, unknown>): string[] {
  try {
    resolveConfig(serverlessWith(overrides), 'sandbox-serverless');
  } catch (error) {
    if (error instanceof ConfigValidationError) return [...error.problems];
    throw error;
  }
  throw new Error(`expected a ConfigValidationError for ${JSON.stringify(overrides)}`);
}

describe('the sandbox-serverless profile', () => {
  test('resolves to a SEARCH collection in a group that scales to zero, delivered directly', () => {
    // WHEN
    const config = resolveConfig(serverlessWith({}), 'sandbox-serverless');
    // THEN
    expect(config.openSearch.kind).toBe('serverless');
    expect(config.openSearch.serverless).toEqual({
      collectionType: 'SEARCH',
      standbyReplicas: false,
      capacity: { minIndexingOcu: 0, maxIndexingOcu: 4, minSearchOcu: 0, maxSearchOcu: 4 },
    });
  });

  test('a profile that says nothing keeps a domain', () => {
    // WHEN
    const config = resolveConfig({ kfek: { profiles: { plain: {} } } }, 'plain');
    // THEN
    expect(config.openSearch.kind).toBe('domain');
  });
});

describe('what a Serverless collection cannot do is refused at synth', () => {
  test.each(['firehose', undefined])(
    'fails when delivery.mode is %p: Firehose cannot send kfek ids to a collection',
    (mode) => {
      // WHEN
      const problems = problemsOf({ delivery: mode === undefined ? undefined : { mode } });
      // THEN
      expect(problems).toEqual([
        expect.stringMatching(/^delivery\.mode is "firehose" but openSearch\.kind is "serverless".*"direct"/),
      ]);
    },
  );

  test.each(['TIMESERIES', 'VECTORSEARCH'])(
    'fails when the collection type is %s, which drops the ids kfek sends',
    (collectionType) => {
      // WHEN
      const problems = problemsOf({
        openSearch: { kind: 'serverless', auditLogs: false, serverless: { collectionType } },
      });
      // THEN
      expect(problems).toEqual([
        expect.stringMatching(
          new RegExp(`collectionType is "${collectionType}", which does not keep the _id.*Use "SEARCH"`),
        ),
      ]);
    },
  );

  test('fails when the indices rotate hourly', () => {
    // WHEN
    const problems = problemsOf({ delivery: { mode: 'direct', indexRotation: 'OneHour' } });
    // THEN
    expect(problems).toEqual([expect.stringMatching(/indexRotation is "OneHour".*Use "OneDay" or longer/)]);
  });

  test('resolves with the reconcile function on: it signs for aoss and sends no routing to a collection', () => {
    // WHEN
    const config = resolveConfig(serverlessWith({ reconcile: { enabled: true } }), 'sandbox-serverless');
    // THEN
    expect(config.reconcile.enabled).toBe(true);
  });

  test('fails when audit logs are on (the security plugin is not there)', () => {
    // WHEN
    const problems = problemsOf({ openSearch: { kind: 'serverless', auditLogs: true } });
    // THEN
    expect(problems).toEqual([expect.stringMatching(/auditLogs is true.*CloudTrail/)]);
  });

  test('fails when a warm phase is asked for (no UltraWarm)', () => {
    // WHEN
    const problems = problemsOf({
      openSearch: { kind: 'serverless', auditLogs: false, retention: { warmAfterDays: 3 } },
    });
    // THEN
    expect(problems).toEqual([expect.stringMatching(/warmAfterDays \(3\) needs UltraWarm/)]);
  });

  test.each(['Indexing', 'Search'])('fails when the minimum %s OCUs exceed the maximum', (kind) => {
    // WHEN
    const problems = problemsOf({
      openSearch: {
        kind: 'serverless',
        auditLogs: false,
        serverless: { capacity: { [`min${kind}Ocu`]: 5, [`max${kind}Ocu`]: 2 } },
      },
    });
    // THEN
    expect(problems).toEqual([
      expect.stringMatching(new RegExp(`min${kind}Ocu \\(5\\) is above max${kind}Ocu \\(2\\)`)),
    ]);
  });

  test('fails when the kind is neither domain nor serverless', () => {
    // WHEN
    const problems = problemsOf({ openSearch: { kind: 'cluster' } });
    // THEN
    expect(problems).toEqual(expect.arrayContaining([expect.stringMatching(/openSearch\.kind.*"cluster"/)]));
  });

  test('a domain profile is not held to the collection rules', () => {
    // WHEN hourly rotation, audit logs and Firehose on a domain
    const config = resolveConfig(
      {
        kfek: {
          profiles: { d: { delivery: { indexRotation: 'OneHour' }, openSearch: { auditLogs: true } } },
        },
      },
      'd',
    );
    // THEN
    expect(config.openSearch.kind).toBe('domain');
  });
});
