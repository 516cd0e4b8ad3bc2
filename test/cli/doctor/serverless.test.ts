/**
 * `kfek doctor` on a serverless profile (issue 42, docs/serverless.md): it plans the collection and its policies
 * from the synthesized assembly, as it plans a domain, says when the group never idles at zero, and runs no
 * domain-only check.
 */
import { runChecks } from '../../../cli/doctor/checks';
import type { DoctorFacts } from '../../../cli/doctor/model';
import { readPlan } from '../../../cli/doctor/plan';
import SANDBOX_SERVERLESS from '../../fixtures/sandbox-serverless.profile.json';
import { buildTestApp } from '../../helpers/app';

const PROFILE = {
  ...SANDBOX_SERVERLESS,
  routes: [
    {
      name: 'payments',
      match: { logGroupPrefix: '/app/payments' },
      indexStem: 'payments',
      readerBackendRoles: ['arn:aws:iam::123456789012:role/PaymentsReader'],
    },
  ],
};

function plannedFacts(profile: Record<string, unknown>): DoctorFacts {
  const { app } = buildTestApp({ overrides: profile });
  const plan = readPlan(app.synth().directory, 'test');
  return {
    profile: 'test',
    region: { ok: true, value: 'eu-west-1' },
    identity: { ok: true, value: 'arn:aws:sts::123456789012:assumed-role/Admin/jane' },
    plan: { ok: true, value: plan },
  };
}

describe('kfek doctor, openSearch.kind "serverless"', () => {
  test('plans the collection, its group and its policies, and checks nothing of a domain', () => {
    // GIVEN
    const facts = plannedFacts(PROFILE);
    // WHEN
    const findings = runChecks(facts);
    // THEN
    const collection = facts.plan?.ok === true ? facts.plan.value.collection : undefined;
    expect(collection).toMatchObject({
      name: 'kfek-test',
      type: 'SEARCH',
      group: { generation: 'NEXTGEN', minIndexingOcu: 0, minSearchOcu: 0 },
      policies: expect.arrayContaining([
        expect.objectContaining({ type: 'encryption', name: 'kfek-test-enc' }),
        expect.objectContaining({ type: 'network', name: 'kfek-test-net' }),
        expect.objectContaining({ type: 'data', name: 'kfek-test-acc' }),
      ]),
    });
    expect(collection?.access).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          description: 'readers of payments-*',
          patterns: ['index/kfek-test/payments-*'],
          permissions: ['aoss:ReadDocument', 'aoss:DescribeIndex'],
          principals: ['arn:aws:iam::123456789012:role/PaymentsReader'],
        }),
        expect.objectContaining({
          description: "kfek's retention function deletes kfek's indices past retention",
          patterns: ['index/kfek-test/logs-*', 'index/kfek-test/payments-*'],
          permissions: ['aoss:DescribeIndex', 'aoss:DeleteIndex'],
        }),
      ]),
    );
    const byCheck = new Map(findings.map((f) => [f.check, f]));
    expect(byCheck.get('collection')).toMatchObject({
      status: 'ok',
      finding: expect.stringMatching(
        /^collection kfek-test \(SEARCH\) in NEXTGEN group kfek-test, indexing 0-/,
      ),
    });
    expect(byCheck.get('opensearch-instance')).toMatchObject({
      status: 'skip',
      finding: expect.stringMatching(/not applicable/),
    });
    expect(byCheck.has('domain')).toBe(false);
  });

  test('warns when the group keeps compute while idle', () => {
    // GIVEN
    const busy = {
      ...PROFILE,
      openSearch: { ...PROFILE.openSearch, serverless: { capacity: { minIndexingOcu: 1, minSearchOcu: 1 } } },
    };
    // WHEN
    const finding = runChecks(plannedFacts(busy)).find((f) => f.check === 'collection');
    // THEN
    expect(finding).toMatchObject({
      status: 'warn',
      finding: expect.stringMatching(/never idles at zero compute/),
      fix: expect.stringMatching(/minIndexingOcu and minSearchOcu to 0/),
    });
  });
});
