/**
 * Properties of ownership by record and drift by content (issue 39), over generated names and edits, on
 * FakeOpenSearch (every plugin): whatever copies of kfek's objects exist under other names, marks and ledgers kept or
 * forged, no deploy (also one that prunes) sends a write naming one of them, and each stays as it was; whatever hand
 * edit of kfek's retention policy or template keeps the marks, the deploy restores the profile's content and reports
 * it as drift with what changed.
 */
import fc from 'fast-check';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec, type OpenSearchSpecInput } from '../../../core/opensearch/spec';
import { FakeOpenSearch } from '../../helpers/fake-opensearch-service';

const input: OpenSearchSpecInput = {
  indexPrefix: 'app',
  retention: { deleteAfterDays: 14 },
  access: { firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose', readerBackendRoles: ['app-readers'] },
  routes: [{ name: 'orders', indexStem: 'orders', retentionDays: 21, readerBackendRoles: ['orders-team'] }],
};
const spec = resolveOpenSearchSpec(input);
const ALL = { ism: true, security: true, dashboards: true } as const;
const KFEK_ROLES = new Set(['kfek_writer', 'kfek_reader', 'kfek_orders_reader']);
const KFEK_OBJECTS = new Set(['kfek-app', 'kfek-orders', 'kfek-app-retention', 'kfek-orders-retention']);

async function deployed(): Promise<FakeOpenSearch> {
  const fake = new FakeOpenSearch({ ...ALL, indices: ['app-2026-11-24', 'orders-2026-11-24'] });
  await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });
  await fake.ism.runJobs();
  return fake;
}

const copies = fc.record({
  role: fc.stringMatching(/^kfek_[a-z][a-z0-9_]{0,16}$/).filter((n) => !KFEK_ROLES.has(n)),
  object: fc.stringMatching(/^kfek-[a-z][a-z0-9]{0,12}$/).filter((n) => !KFEK_OBJECTS.has(n)),
  forgeLedger: fc.boolean(),
});

describe('ownership by record, over generated copies and edits', () => {
  test('property: no deploy writes, reverts or deletes a copy of a kfek object under another name', async () => {
    await fc.assert(
      fc.asyncProperty(copies, async ({ role, object, forgeLedger }) => {
        // GIVEN copies of kfek's reader role, template, policy, pipeline and index pattern, marks kept
        const fake = await deployed();
        fake.roles.set(role, structuredClone(fake.roles.get('kfek_reader')));
        fake.mappings.set(role, { backend_roles: ['team-a'], hosts: [], users: [] });
        const template = structuredClone(fake.templates.get('kfek-app')) as Record<string, unknown>;
        const stem = object.slice('kfek-'.length);
        const meta = { ...(template._meta as object), ...(forgeLedger ? { kfek_stem: stem } : {}) };
        fake.templates.set(object, { ...template, index_patterns: [`${stem}-*`], priority: 3, _meta: meta });
        const policy = structuredClone(fake.policies.get('kfek-app-retention'));
        if (policy !== undefined) fake.policies.set(`${object}-retention`, policy);
        fake.pipelines.set(
          `${object}-document-id`,
          structuredClone(fake.pipelines.get('kfek-app-document-id') ?? {}),
        );
        fake.savedObjects.set(`index-pattern/${object}-index-pattern`, {
          type: 'index-pattern',
          id: `${object}-index-pattern`,
        });
        const before = JSON.stringify([
          fake.roles.get(role),
          fake.mappings.get(role),
          fake.templates.get(object),
          fake.pipelines.get(`${object}-document-id`),
        ]);
        const sent = fake.requests.length;
        // WHEN kfek deploys, then a profile without the route prunes what kfek owns
        await provisionOpenSearch(fake.client(), spec, {
          dashboards: fake.dashboardsClient(),
          previous: spec,
        });
        const without = resolveOpenSearchSpec({ ...input, routes: [] });
        await provisionOpenSearch(fake.client(), without, {
          dashboards: fake.dashboardsClient(),
          previous: spec,
        });
        // THEN no write names a copy, and every copy is as it was
        const names = new Set([
          role,
          object,
          `${object}-retention`,
          `${object}-document-id`,
          `${object}-index-pattern`,
        ]);
        const touching = fake.requests
          .slice(sent)
          .filter((r) => r.request.method !== 'GET')
          .filter((r) => r.request.path.split(/[/?]/).some((segment) => names.has(segment)));
        expect(touching).toEqual([]);
        expect(
          JSON.stringify([
            fake.roles.get(role),
            fake.mappings.get(role),
            fake.templates.get(object),
            fake.pipelines.get(`${object}-document-id`),
          ]),
        ).toBe(before);
        expect(fake.policies.has(`${object}-retention`)).toBe(true);
        expect(fake.savedObjects.has(`index-pattern/${object}-index-pattern`)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  test('property: an edit of kfek policy or template that keeps the marks is restored and reported with what changed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 400 }).filter((d) => d !== 21),
        fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/).filter((p) => p !== 'orders'),
        fc.stringMatching(/^_none$|^[a-z][a-z0-9-]{0,12}$/).filter((p) => p !== 'kfek-app-document-id'),
        async (days, pattern, pipeline) => {
          // GIVEN
          const fake = await deployed();
          const policy = fake.policies.get('kfek-orders-retention');
          if (policy === undefined) throw new Error('no policy');
          const renderedPolicy = structuredClone(policy.policy.states);
          fake.policies.set('kfek-orders-retention', {
            ...policy,
            policy: JSON.parse(
              JSON.stringify(policy.policy).replace('"min_index_age":"21d"', `"min_index_age":"${days}d"`),
            ) as Record<string, unknown>,
          });
          const rendered = fake.templates.get('kfek-orders') as {
            index_patterns: string[];
            template: { settings: { index: Record<string, unknown> } };
          };
          const edited = structuredClone(rendered);
          edited.index_patterns.push(`${pattern}-*`);
          edited.template.settings.index.default_pipeline = pipeline;
          fake.templates.set('kfek-orders', edited);
          // WHEN
          const report = await provisionOpenSearch(fake.client(), spec, {
            dashboards: fake.dashboardsClient(),
          });
          // THEN
          const policyStep = report.steps.find((s) => s.step === 'ISM policy kfek-orders-retention');
          expect(policyStep?.impact).toBe(days > 21 ? 'loses-data' : 'drift');
          expect(policyStep?.detail).toContain(`min_index_age ${days}d -> 21d`);
          expect(fake.policies.get('kfek-orders-retention')?.policy.states).toEqual(renderedPolicy);
          const templateStep = report.steps.find((s) => s.step === 'index template kfek-orders');
          expect(templateStep).toMatchObject({ status: 'updated', impact: 'drift' });
          expect(templateStep?.detail).toContain(`index_patterns + ${pattern}-*`);
          expect(templateStep?.detail).toContain(
            `template.settings.index.default_pipeline ${pipeline} -> kfek-app-document-id`,
          );
          expect(fake.templates.get('kfek-orders')).toEqual(rendered);
        },
      ),
      { numRuns: 40 },
    );
  });
});
