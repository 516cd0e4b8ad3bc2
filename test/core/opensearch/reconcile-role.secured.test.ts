/**
 * The reconcile function's own role (issue 39, reconcile finds every stem kfek keeps), on the secured 2.19.4 node:
 * the function is mapped as a reader of kfek's indices, and reader roles may not list index templates (a cluster
 * action), so without `<name>_reconcile` the scheduled function saw only the profile's stems and reported a retired
 * stem's kept events as missing. With it, the same backend role lists kfek's templates and finds the retired stem;
 * a plain reader still cannot, and the role grants nothing else. It reads the stems only from the templates kfek's
 * own record (`.kfek-registry`) vouches for, so the role may get that record's document (and nothing more): a
 * `kfek-evil` made by someone who may write templates, or a copy of kfek's, is ignored and named in a warning.
 */
import { planDomain } from '../../../core/opensearch/domain-plan';
import { stateFromSpec } from '../../../core/opensearch/domain-read';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec, type OpenSearchSpecInput } from '../../../core/opensearch/spec';
import { type KeptStems, keptStems } from '../../../core/reconcile/kept-stems';
import { RequestMeter } from '../../../core/reconcile/ports';
import { withFakeIsm, type NodeWithIsm } from '../../helpers/ism-on-node';
import { useSecuredOpenSearchNode } from '../../helpers/secured-opensearch';

const RECONCILE = 'arn:aws:iam::123456789012:role/kfek-reconcile';
const base = (stem: string, reconcile: boolean): OpenSearchSpecInput => ({
  indexPrefix: 'logs',
  indexTemplate: { replicas: 0 },
  retention: { deleteAfterDays: 14 },
  access: {
    firehoseRoleArn: 'arn:aws:iam::123456789012:role/kfek-firehose',
    // As the Pipeline stack maps it: a reader of every family, and its own role beside.
    readerBackendRoles: ['log-readers', RECONCILE],
    ...(reconcile ? { reconcileBackendRoles: [RECONCILE] } : {}),
  },
  routes: [{ name: 'orders', indexStem: stem, retentionDays: 30, readerBackendRoles: ['team-a', RECONCILE] }],
});

test('the role is planned only with reconcile backend roles, holds template listing only, and stays out of Dashboards', () => {
  // GIVEN a deployed profile without a reconcile function
  const now = Date.parse('2026-11-29T08:00:00Z');
  const without = resolveOpenSearchSpec(base('a-orders', false));
  const withRole = resolveOpenSearchSpec(base('a-orders', true));
  // WHEN the profile gains one
  const changes = planDomain(withRole, stateFromSpec(without, now), { now, previous: without }).changes;
  // THEN the role and its mapping are created, and nothing maps the function into Dashboards' built-in role
  const role = changes.find((c) => c.kind === 'security-role' && c.name === 'kfek_reconcile');
  expect(role?.action).toBe('create');
  expect(role?.requests[0].body).toEqual({
    description: expect.stringMatching(/^kfek: /) as unknown,
    cluster_permissions: ['indices:admin/index_template/get'],
    // kfek's record of what it owns, one document get: kept-stems.ts trusts only the templates it vouches for
    index_permissions: [{ index_patterns: ['.kfek-registry'], allowed_actions: ['indices:data/read/get'] }],
    tenant_permissions: [],
  });
  const mapping = changes.find((c) => c.kind === 'role-mapping' && c.name === 'kfek_reconcile');
  expect(mapping?.requests[0].body).toMatchObject({ backend_roles: [RECONCILE] });
  const dashboards = changes.find(
    (c) => c.kind === 'role-mapping' && c.name === 'opensearch_dashboards_user',
  );
  expect(JSON.stringify(dashboards?.requests ?? [])).not.toContain(RECONCILE);
  // AND a profile deployed with it plans nothing more for it; one without it plans no such role
  const again = planDomain(withRole, stateFromSpec(withRole, now), { now, previous: withRole }).changes;
  expect(again.filter((c) => c.name === 'kfek_reconcile').map((c) => c.action)).toEqual([
    'unchanged',
    'unchanged',
  ]);
  expect(planDomain(without, stateFromSpec(without, now), { now }).changes.map((c) => c.name)).not.toContain(
    'kfek_reconcile',
  );
});

describe('on the secured 2.19.4 node', () => {
  const os = useSecuredOpenSearchNode({
    users: [
      { name: 'reconcile', backendRoles: [RECONCILE] },
      { name: 'reader', backendRoles: ['log-readers'] },
    ],
  });
  let domain: NodeWithIsm;
  const now = (): number => Date.now();

  beforeAll(() => {
    domain = withFakeIsm(os.client('admin'), now);
  });

  const stemsSeenBy = async (user: string): Promise<KeptStems> =>
    keptStems({ client: os.client(user), meter: new RequestMeter(), current: ['logs', 'b-orders'] });

  test('the reconcile backend role finds a retired stem; a reader cannot list templates, with or without it', async () => {
    // GIVEN orders on a-orders with an index, then moved to b-orders (a-orders kept), deployed WITHOUT the role
    await provisionOpenSearch(domain.client, resolveOpenSearchSpec(base('a-orders', false)), { now });
    const created = await os.client('admin').request({ method: 'PUT', path: '/a-orders-2026-11-20' });
    expect(created.status).toBe(200);
    await provisionOpenSearch(domain.client, resolveOpenSearchSpec(base('b-orders', false)), { now });
    // THEN the function, a reader everywhere, cannot list templates: only the profile's stems, and it says so
    const before = await stemsSeenBy('reconcile');
    expect(before.stems).toEqual(['logs', 'b-orders']);
    expect(before.note).toMatch(/could not be read \(HTTP 403\)/);

    // WHEN the profile maps the function to its own role
    await provisionOpenSearch(domain.client, resolveOpenSearchSpec(base('b-orders', true)), { now });

    // THEN it finds the retired stem as well; a plain reader still cannot list templates
    const after = await stemsSeenBy('reconcile');
    expect(after.stems).toEqual(['logs', 'b-orders', 'a-orders']);
    expect(after.note).toBeUndefined();
    expect(after.ignored).toEqual([]);
    const reader = await os.client('reader').request({ method: 'GET', path: '/_index_template/kfek-*' });
    expect(reader.status).toBe(403);
    // AND the role adds nothing but the listing and the record's one document: no write, no search, no settings
    const write = await os.client('reconcile').request({
      method: 'PUT',
      path: '/_index_template/kfek-forged',
      body: { index_patterns: ['forged-*'] },
    });
    expect(write.status).toBe(403);
    for (const request of [
      { method: 'PUT' as const, path: '/.kfek-registry/_doc/objects', body: { objects: {} } },
      { method: 'POST' as const, path: '/.kfek-registry/_search', body: {} },
    ]) {
      expect((await os.client('reconcile').request(request)).status).toBe(403);
    }
    expect(
      (await os.client('reader').request({ method: 'GET', path: '/.kfek-registry/_doc/objects' })).status,
    ).toBe(403);

    // WHEN someone who may write index templates (not kfek) makes kfek-evil, whose ledger names another team's
    // stem, and copies kfek's retired template under another name with that stem in its ledger
    const admin = os.client('admin');
    const listed = await admin.request({ method: 'GET', path: '/_index_template/kfek-a-orders' });
    const own = (listed.body as { index_templates: [{ index_template: Record<string, unknown> }] })
      .index_templates[0].index_template;
    const forged: [string, Record<string, unknown>][] = [
      [
        'kfek-evil',
        { index_patterns: ['evil-*'], priority: 301, _meta: { managed_by: 'kfek', kfek_stem: 'team-b' } },
      ],
      [
        'kfek-a-orders-copy',
        {
          ...own,
          index_patterns: ['copy-*'],
          priority: 302,
          _meta: { ...(own._meta as object), kfek_stem: 'team-b' },
        },
      ],
    ];
    for (const [name, body] of forged) {
      expect((await admin.request({ method: 'PUT', path: `/_index_template/${name}`, body })).status).toBe(
        200,
      );
    }

    // THEN the function never reads them as kfek's: the same stems, and a warning line naming each
    const forgedSeen = await stemsSeenBy('reconcile');
    expect(forgedSeen.stems).toEqual(['logs', 'b-orders', 'a-orders']);
    expect(forgedSeen.ignored).toEqual([
      expect.stringMatching(/^index template kfek-a-orders-copy: ignored: kfek's record .* does not name it/),
      expect.stringMatching(
        /^index template kfek-evil: ignored: kfek's record .* \("team-b"\) is not searched/,
      ),
    ]);
  }, 240_000);
});
