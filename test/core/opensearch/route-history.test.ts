/**
 * A route's history stays its own (issue 39, "Route changes that cross teams"), against FakeOpenSearch: a route name
 * reused on another team's stem never widens its reader role to the old stem's indices, the old stem stays readable
 * by exactly the readers it had (through a role of its own stem), the pipeline's table sends a document only to the
 * stem it was marked for, and when a retired family goes, its readers leave the built-in roles' mappings and kfek's
 * writer is not reported as drift. The rule itself is in route-table.test.ts; the real node runs the same scenario
 * in route-history.secured.test.ts.
 */
import fc from 'fast-check';
import { owningStem } from '../../../core/contracts/index-naming';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { rolePatternMatches, rolePatterns } from '../../../core/opensearch/security';
import {
  resolveOpenSearchSpec,
  type OpenSearchSpec,
  type OpenSearchSpecInput,
} from '../../../core/opensearch/spec';
import { FakeOpenSearch } from '../../helpers/fake-opensearch-service';
import type { ProvisionReport } from '../../../core/opensearch/provision-types';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-20T10:00:00Z');
const ALL = { ism: true, security: true, dashboards: true } as const;
const base: OpenSearchSpecInput = {
  indexPrefix: 'logs',
  retention: { deleteAfterDays: 14 },
  access: { firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose', readerBackendRoles: ['log-readers'] },
  keepRetiredHours: 24,
};
const ORDERS_A = { name: 'orders', indexStem: 'a-orders', retentionDays: 30, readerBackendRoles: ['team-a'] };
const ORDERS_C = { name: 'orders', indexStem: 'c-orders', retentionDays: 30, readerBackendRoles: ['team-c'] };
const PAYMENTS = {
  name: 'payments',
  indexStem: 'payments',
  retentionDays: 30,
  readerBackendRoles: ['pay-team'],
};
const teamA = resolveOpenSearchSpec({ ...base, routes: [ORDERS_A, PAYMENTS] });
const teamC = resolveOpenSearchSpec({ ...base, routes: [ORDERS_C, PAYMENTS] });
const withoutOrders = resolveOpenSearchSpec({ ...base, routes: [PAYMENTS] });

function patterns(fake: FakeOpenSearch, role: string): string[] {
  const stored = fake.roles.get(role) as
    { index_permissions: Array<{ index_patterns: string[] }> } | undefined;
  return stored?.index_permissions.flatMap((p) => p.index_patterns) ?? [];
}
const backendRoles = (fake: FakeOpenSearch, role: string): unknown => fake.mappings.get(role)?.backend_roles;
function pipelineParams(fake: FakeOpenSearch): unknown {
  const body = fake.pipelines.get('kfek-logs-document-id') as {
    processors: Array<{ script: { params: unknown } }>;
  };
  return body.processors[0].script.params;
}
const changed = (report: ProvisionReport): string[] =>
  report.steps
    .filter((s) => s.status !== 'unchanged')
    .map((s) => `${s.step}: ${s.status} (${s.impact ?? ''})`);

describe('a route name reused on another team stem', () => {
  test.each([
    ['in one deploy', [teamC]],
    ['after the route was removed first', [withoutOrders, teamC]],
  ])("never gives the new team the old stem's history (%s)", async (_how, steps) => {
    // GIVEN team A's orders route with history
    const fake = new FakeOpenSearch({ ...ALL, indices: ['a-orders-2026-11-19'] }, () => T0);
    await provisionOpenSearch(fake.client(), teamA, { now: () => T0 });

    // WHEN orders goes to team C's stem (team A's stem retired, its indices kept)
    let previous = teamA;
    let at = T0;
    for (const spec of steps) {
      at += 3_600_000;
      const now = at;
      await provisionOpenSearch(fake.client(), spec, { previous, now: () => now });
      previous = spec;
    }

    // THEN kfek_orders_reader reads team C's stem only, and is mapped to team C only
    expect(patterns(fake, 'kfek_orders_reader')).toEqual(['c-orders-*']);
    expect(backendRoles(fake, 'kfek_orders_reader')).toEqual(['team-c']);
    // AND team A's history stays readable by team A, through a role of its stem, and by nobody else
    expect(patterns(fake, 'kfek_stem_a-orders_reader')).toEqual(['a-orders-*']);
    expect(backendRoles(fake, 'kfek_stem_a-orders_reader')).toEqual(['team-a']);
    const readersOfA = [...fake.roles.keys()].filter((r) => patterns(fake, r).includes('a-orders-*'));
    expect(readersOfA).toEqual(['kfek_writer', 'kfek_stem_a-orders_reader']);
    expect(backendRoles(fake, 'opensearch_dashboards_user')).toEqual([
      'log-readers',
      'pay-team',
      'team-a',
      'team-c',
    ]);
    // AND the pipeline sends orders documents marked for a-orders there, and refuses one without a stem
    expect(pipelineParams(fake)).toEqual({
      prefix: 'logs',
      routes: { payments: 'payments' },
      marks: { orders: ['c-orders', 'a-orders'], payments: ['payments'] },
      ambiguous: ['orders'],
    });
  });

  test('a later deploy changes nothing, and keeps the old stem with its readers when team C changes its own', async () => {
    // GIVEN
    const fake = new FakeOpenSearch({ ...ALL, indices: ['a-orders-2026-11-19'] }, () => T0);
    await provisionOpenSearch(fake.client(), teamA, { now: () => T0 });
    await provisionOpenSearch(fake.client(), teamC, { previous: teamA, now: () => T0 + 3_600_000 });

    // WHEN the same profile is deployed again, then team C's readers change
    const again = await provisionOpenSearch(fake.client(), teamC, {
      previous: teamC,
      now: () => T0 + 7_200_000,
    });
    const teamC2 = resolveOpenSearchSpec({
      ...base,
      routes: [{ ...ORDERS_C, readerBackendRoles: ['team-c', 'team-c-oncall'] }, PAYMENTS],
    });
    await provisionOpenSearch(fake.client(), teamC2, { previous: teamC, now: () => T0 + 2 * DAY });

    // THEN
    expect(
      changed(again).filter((s) => /: (created|updated|deleted) /.test(s) && !/audit|dashboards/.test(s)),
    ).toEqual([]);
    expect(backendRoles(fake, 'kfek_stem_a-orders_reader')).toEqual(['team-a']);
    expect(backendRoles(fake, 'kfek_orders_reader')).toEqual(['team-c', 'team-c-oncall']);
    // Past the time a document marked by team A's transform can still arrive, a name alone means team C's stem.
    expect(pipelineParams(fake)).toMatchObject({ routes: { orders: 'c-orders', payments: 'payments' } });
    expect(pipelineParams(fake)).not.toHaveProperty('ambiguous');
  });

  test('a family retired before the stem roles moves to one, with the members its route reader had', async () => {
    // GIVEN orders retired the way kfek did before issue 39: its template names kfek_orders_reader as its reader
    const fake = new FakeOpenSearch({ ...ALL, indices: ['a-orders-2026-11-19'] }, () => T0);
    await provisionOpenSearch(fake.client(), teamA, { now: () => T0 });
    await provisionOpenSearch(fake.client(), withoutOrders, { previous: teamA, now: () => T0 + 3_600_000 });
    const template = fake.templates.get('kfek-a-orders') as { _meta: Record<string, unknown> };
    delete template._meta.kfek_readers;
    template._meta.kfek_reader_role = 'kfek_orders_reader';
    fake.roles.set('kfek_orders_reader', fake.roles.get('kfek_stem_a-orders_reader'));
    fake.mappings.set('kfek_orders_reader', { backend_roles: ['team-a'], hosts: [], users: ['alice'] });
    fake.roles.delete('kfek_stem_a-orders_reader');
    fake.mappings.delete('kfek_stem_a-orders_reader');

    // WHEN orders comes back on team C's stem
    await provisionOpenSearch(fake.client(), teamC, { previous: withoutOrders, now: () => T0 + 7_200_000 });

    // THEN
    expect(patterns(fake, 'kfek_orders_reader')).toEqual(['c-orders-*']);
    expect(fake.mappings.get('kfek_orders_reader')).toMatchObject({ backend_roles: ['team-c'], users: [] });
    expect(fake.mappings.get('kfek_stem_a-orders_reader')).toMatchObject({
      backend_roles: ['team-a'],
      users: ['alice'],
    });
  });
});

describe('a retired stem given to a route again', () => {
  test("is that route's, history included: the stem role goes, and the doctor says who loses access", async () => {
    // GIVEN team A's a-orders retired and read through its stem role
    const fake = new FakeOpenSearch({ ...ALL, indices: ['a-orders-2026-11-19'] }, () => T0);
    await provisionOpenSearch(fake.client(), teamA, { now: () => T0 });
    await provisionOpenSearch(fake.client(), withoutOrders, { previous: teamA, now: () => T0 + 3_600_000 });

    // WHEN a route of team X takes the stem a-orders
    const teamX = resolveOpenSearchSpec({
      ...base,
      routes: [{ ...ORDERS_A, name: 'x', readerBackendRoles: ['team-x'] }, PAYMENTS],
    });
    const report = await provisionOpenSearch(fake.client(), teamX, {
      previous: withoutOrders,
      now: () => T0 + 7_200_000,
    });

    // THEN
    expect(patterns(fake, 'kfek_x_reader')).toEqual(['a-orders-*']);
    expect(fake.roles.has('kfek_stem_a-orders_reader')).toBe(false);
    expect(report.steps).toContainEqual(
      expect.objectContaining({
        step: 'security role kfek_stem_a-orders_reader',
        status: 'deleted',
        impact: 'loses-access',
      }),
    );
  });
});

describe('a retired route whose last index is gone', () => {
  async function retiredThenGone(): Promise<{ fake: FakeOpenSearch; report: ProvisionReport }> {
    const fake = new FakeOpenSearch({ ...ALL, indices: ['a-orders-2026-11-19'] }, () => T0);
    fake.mappings.set('opensearch_dashboards_user', {
      backend_roles: ['by-hand'],
      hosts: [],
      users: ['someone'],
    });
    await provisionOpenSearch(fake.client(), teamA, { now: () => T0, dashboards: fake.dashboardsClient() });
    await provisionOpenSearch(fake.client(), withoutOrders, {
      previous: teamA,
      now: () => T0 + 3_600_000,
      dashboards: fake.dashboardsClient(),
    });
    expect(backendRoles(fake, 'opensearch_dashboards_user')).toContain('team-a');
    // Its retention deleted the last index, and nothing marked orders can still arrive.
    fake.indices.delete('a-orders-2026-11-19');
    const report = await provisionOpenSearch(fake.client(), withoutOrders, {
      previous: withoutOrders,
      now: () => T0 + 3 * DAY,
      dashboards: fake.dashboardsClient(),
    });
    return { fake, report };
  }

  test("takes its readers out of opensearch_dashboards_user, and only kfek's", async () => {
    // GIVEN / WHEN
    const { fake } = await retiredThenGone();

    // THEN
    expect(fake.roles.has('kfek_stem_a-orders_reader')).toBe(false);
    expect(fake.mappings.has('kfek_stem_a-orders_reader')).toBe(false);
    expect(fake.mappings.get('opensearch_dashboards_user')).toMatchObject({
      backend_roles: ['by-hand', 'log-readers', 'pay-team'],
      users: ['someone'],
    });
    expect(JSON.stringify(pipelineParams(fake))).not.toContain('orders');
  });

  test("reports kfek's writer as a change, not as drift", async () => {
    // GIVEN / WHEN
    const { report } = await retiredThenGone();

    // THEN
    expect(report.steps.filter((s) => s.impact === 'drift')).toEqual([]);
    const writer = report.steps.find((s) => s.step === 'security role kfek_writer');
    expect(writer).toMatchObject({ status: 'updated', detail: 'index patterns logs-*, payments-*, *' });
    expect(writer?.impact).not.toBe('drift');
  });
});

describe('property: any sequence of profiles', () => {
  // Each stem belongs to one team (its readers are `team-<stem>`), and route names move freely between stems.
  const STEMS = ['a-orders', 'c-orders', 'payments', 'payments-eu'];
  const NAMES = ['orders', 'pay', 'billing'];
  const profile = fc
    .uniqueArray(fc.record({ name: fc.constantFrom(...NAMES), stem: fc.constantFrom(...STEMS) }), {
      maxLength: 3,
      selector: (r) => r.name,
    })
    .filter((routes) => new Set(routes.map((r) => r.stem)).size === routes.length);

  test("never lets one stem's team read another's history, and keeps every kept index readable by its own team", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(profile, { minLength: 1, maxLength: 5 }), async (profiles) => {
        // GIVEN an empty domain
        const fake = new FakeOpenSearch(ALL, () => T0);
        let previous: OpenSearchSpec | undefined;
        for (const [step, routes] of profiles.entries()) {
          // WHEN each profile is deployed in turn, each route's stem having an index by then
          const spec = resolveOpenSearchSpec({
            ...base,
            routes: routes.map((r) => ({
              name: r.name,
              indexStem: r.stem,
              retentionDays: 30,
              readerBackendRoles: [`team-${r.stem}`],
            })),
          });
          const now = T0 + step * 3_600_000;
          await provisionOpenSearch(fake.client(), spec, {
            now: () => now,
            ...(previous ? { previous } : {}),
          });
          previous = spec;
          for (const r of routes)
            fake.indices.set(`${r.stem}-2026-11-19`, { creationDate: now, primaryShards: 1, settings: {} });

          // THEN every reader of a stem's index through kfek's roles is that stem's team
          const readers = new Map<string, Set<string>>();
          for (const [role, body] of fake.roles) {
            if (role === 'kfek_writer') continue;
            const members = (fake.mappings.get(role)?.backend_roles ?? []) as string[];
            for (const index of fake.indices.keys()) {
              if (!rolePatterns(body).some((p) => rolePatternMatches(p, index))) continue;
              const set = readers.get(index) ?? new Set<string>();
              members.forEach((m) => set.add(m));
              readers.set(index, set);
            }
          }
          for (const index of fake.indices.keys()) {
            const stem = owningStem(index, STEMS);
            expect({ index, readers: [...(readers.get(index) ?? [])] }).toEqual({
              index,
              readers: [`team-${stem}`],
            });
          }
        }
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});
