/**
 * The request-path builder (core/opensearch/request-path.ts) against the secured 2.19.4 node (the real security
 * plugin, one start for the file), for the names the security API takes: a request built for a generated role or
 * role-mapping name addresses exactly that role or mapping, and a kfek deploy beside kfek-looking roles with hostile
 * names (traversal, escaped separators, lists) changes no role or mapping outside kfek's own set. ISM is stood in
 * (test/helpers/ism-on-node.ts), as in transitions.secured.test.ts.
 */
import fc from 'fast-check';
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { isAddressable, mappingPath, rolePath } from '../../../core/opensearch/request-path';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { generatedName, refused } from '../../helpers/hostile-names';
import { withFakeIsm } from '../../helpers/ism-on-node';
import { useSecuredOpenSearchNode } from '../../helpers/secured-opensearch';

type Security = Record<string, unknown>;

/** Every role and every role mapping the node holds. */
async function security(client: OpenSearchHttpClient): Promise<{ roles: Security; mappings: Security }> {
  const roles = await client.request({ method: 'GET', path: '/_plugins/_security/api/roles' });
  const mappings = await client.request({ method: 'GET', path: '/_plugins/_security/api/rolesmapping' });
  expect([roles.status, mappings.status]).toEqual([200, 200]);
  return { roles: roles.body as Security, mappings: mappings.body as Security };
}

/** Roles named `kfek_x<tail>` with kfek's mark, created with the name encoded by hand (as anyone could). */
const PLANTED_TAILS = [
  '/../../rolesmapping/all_access',
  '/../../roles/victim_role',
  '%2F..%2F..%2Frolesmapping%2Fall_access',
  ',victim_role',
  '%2cvictim_role',
  '/..',
];

describe('security API paths on the secured node', () => {
  const os = useSecuredOpenSearchNode();

  beforeAll(async () => {
    const admin = os.client();
    const role = await admin.request({
      method: 'PUT',
      path: '/_plugins/_security/api/roles/victim_role',
      body: {
        description: 'a team role',
        index_permissions: [{ index_patterns: ['team-*'], allowed_actions: ['read'] }],
      },
    });
    const mapping = await admin.request({
      method: 'PUT',
      path: '/_plugins/_security/api/rolesmapping/victim_role',
      body: { backend_roles: ['team'] },
    });
    if (role.status !== 201 || mapping.status !== 201) {
      throw new Error(`victim_role: HTTP ${role.status} ${role.text} / ${mapping.status} ${mapping.text}`);
    }
  }, 60_000);

  test('each request built for a generated role or mapping name addresses exactly that one', async () => {
    const admin = os.client();
    const before = await security(admin);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('security role', 'role mapping'),
        generatedName(5),
        async (kind, value) => {
          // GIVEN a name that is not a role already there
          fc.pre(!(value in before.roles) && !(value in before.mappings));
          const addressable = isAddressable(kind, value);
          // THEN a name that could address another role or mapping is never sent
          expect(
            addressable || refused(() => (kind === 'role mapping' ? mappingPath : rolePath)(value)),
          ).toBe(true);
          if (!addressable) return;

          // WHEN the role (and for a mapping, its mapping) is created and deleted through the builder's paths
          const role = await admin.request({
            method: 'PUT',
            path: rolePath(value),
            body: { description: 'generated' },
          });
          const made = role.status === 201;
          const mapped =
            made && kind === 'role mapping'
              ? await admin.request({
                  method: 'PUT',
                  path: mappingPath(value),
                  body: { backend_roles: ['generated'] },
                })
              : undefined;
          const during = await security(admin);

          // THEN exactly that role (the security plugin may refuse a name of its own accord: then nothing exists)
          expect(Object.keys(during.roles).filter((r) => !(r in before.roles))).toEqual(made ? [value] : []);
          expect(Object.keys(during.mappings).filter((r) => !(r in before.mappings))).toEqual(
            mapped?.status === 201 ? [value] : [],
          );
          if (mapped !== undefined) await admin.request({ method: 'DELETE', path: mappingPath(value) });
          if (made) await admin.request({ method: 'DELETE', path: rolePath(value) });
          // THEN every role and mapping is as it was
          expect(await security(admin)).toEqual(before);
        },
      ),
      { numRuns: 30 },
    );
  }, 300_000);

  test("a deploy beside kfek-looking roles with hostile names changes no role or mapping outside kfek's own", async () => {
    // GIVEN roles anyone with security access could make, named under kfek's prefix with a hostile tail
    const admin = os.client();
    const planted: string[] = [];
    for (const tail of PLANTED_TAILS) {
      const path = `/_plugins/_security/api/roles/${encodeURIComponent(`kfek_x${tail}`)}`;
      const made = await admin.request({ method: 'PUT', path, body: { description: 'kfek: a copy' } });
      if (made.status === 201) planted.push(path);
    }
    // The security plugin takes all but the list forms (it refuses a name with ',').
    expect(planted.length).toBeGreaterThanOrEqual(4);
    const before = await security(admin);
    const others = (s: { roles: Security; mappings: Security }): unknown => ({
      roles: Object.fromEntries(Object.entries(s.roles).filter(([r]) => !/^kfek_(writer|reader)/.test(r))),
      mappings: Object.fromEntries(
        Object.entries(s.mappings).filter(([r]) => !/^kfek_(writer|reader)/.test(r)),
      ),
    });
    const spec = resolveOpenSearchSpec({
      indexPrefix: 'logs',
      indexTemplate: { replicas: 0 },
      access: { firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose' },
    });

    // WHEN kfek deploys, twice (the second run reads what the first made)
    const domain = withFakeIsm(admin, () => Date.now());
    await provisionOpenSearch(domain.client, spec);
    await provisionOpenSearch(domain.client, spec);

    // THEN kfek made its own roles, and every other role and mapping (all_access's among them) is as it was
    const after = await security(admin);
    expect(Object.keys(after.roles)).toEqual(expect.arrayContaining(['kfek_writer', 'kfek_reader']));
    expect(others(after)).toEqual(others(before));
  }, 240_000);
});
