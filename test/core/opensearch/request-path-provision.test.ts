/**
 * A deploy with hostile names in the domain (issue 39, "Names that become other requests"): saved-object ids,
 * template, pipeline, policy and role names under kfek's own prefixes that, put into a path as they are, would
 * address another object once a hop resolves `..` or decodes an escape. Against the in-memory domain
 * (test/helpers/fake-opensearch-service.ts, every plugin); the real node holds the same in request-path.integ.test.ts
 * and request-path.secured.test.ts.
 */
import fc from 'fast-check';
import { canonicalTarget } from '../../../core/aws-signing';
import { POLICY_HASH_MARKER } from '../../../core/opensearch/ism-policy';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { FakeOpenSearch } from '../../helpers/fake-opensearch-service';

const spec = resolveOpenSearchSpec({
  indexPrefix: 'logs',
  access: { firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose', readerBackendRoles: ['readers'] },
});

/** The tails that turned a name into another request: traversal, an escaped separator, a list. */
const TAILS = [
  '/../../../../../_plugins/_security/api/rolesmapping/all_access',
  '%2F..%2F..%2F_plugins%2F_security%2Fapi%2Frolesmapping%2Fall_access',
  '/..',
  '%2e%2e',
  ',all_access',
  '%2call_access',
  '?x=',
  '#x',
  '\u200b',
];

/** Plants one object of each kind named `<kfek's prefix>x<tail>`, with kfek's marks (a copy anyone could make). */
function plant(fake: FakeOpenSearch, tail: string): void {
  fake.savedObjects.set(`index-pattern/kfek-x${tail}`, {
    type: 'index-pattern',
    id: `kfek-x${tail}`,
    attributes: { title: 'logs-*' },
  });
  fake.roles.set(`kfek_x${tail}`, { description: 'kfek: a copy', cluster_permissions: [] });
  fake.mappings.set(`kfek_x${tail}`, { backend_roles: ['team'], hosts: [], users: [] });
  fake.templates.set(`kfek-x${tail}`, {
    index_patterns: ['zz-*'],
    priority: 3,
    _meta: { managed_by: 'kfek', kfek_stem: 'zz' },
  });
  fake.pipelines.set(`kfek-x${tail}-document-id`, { description: 'a copy', processors: [] });
  fake.policies.set(`kfek-x${tail}`, {
    seqNo: 1,
    primaryTerm: 1,
    policy: { description: `copied ${POLICY_HASH_MARKER}`, states: [] },
  });
}

describe('a deploy beside hostile names', () => {
  test('never sends a path that a hop would resolve or decode into another object, and leaves those objects alone', async () => {
    await fc.assert(
      fc.asyncProperty(fc.subarray(TAILS, { minLength: 1 }), async (tails) => {
        // GIVEN a domain with kfek-looking objects whose names hold a hostile tail
        const fake = new FakeOpenSearch({
          ism: true,
          security: true,
          dashboards: true,
          indices: ['logs-2026-11-29'],
        });
        for (const tail of tails) plant(fake, tail);
        fake.mappings.set('all_access', { backend_roles: ['admins'], hosts: [], users: ['master'] });
        const before = JSON.stringify([...(fake.mappings.get('all_access')!.backend_roles as string[])]);

        // WHEN kfek deploys
        await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });

        // THEN every request went out in the form the signer and the URL parser keep (nothing to resolve)
        const changes = fake.requests.filter((r) => r.request.method !== 'GET');
        for (const { target, request } of changes) {
          const base = target === 'dashboards' ? '/_dashboards' : '';
          const sent = `${base}${request.path.split('?')[0]}`;
          expect(canonicalTarget(sent).path).toBe(sent);
          expect(new URL(`https://domain${sent}`).pathname).toBe(sent);
        }
        // THEN no request touched the planted objects, and the built-in mapping kept its members
        const touched = changes.map((r) => decodeURIComponent(r.request.path.split('?')[0]));
        for (const tail of tails) {
          expect(touched.filter((p) => p.includes(`x${tail}`))).toEqual([]);
          expect(fake.savedObjects.has(`index-pattern/kfek-x${tail}`)).toBe(true);
          expect(fake.roles.has(`kfek_x${tail}`)).toBe(true);
          expect(fake.templates.has(`kfek-x${tail}`)).toBe(true);
        }
        expect(JSON.stringify(fake.mappings.get('all_access')!.backend_roles)).toBe(before);
      }),
      { numRuns: 30 },
    );
  });
});
