/**
 * Day 2 inside OpenSearch (issue 30): profiles applied one after another to one domain, as deploys apply them, and
 * after each step what the domain does: who can read which index, which policy manages each existing index (and on
 * which version), where a document lands, and what is refused.
 *
 * The domain is the secured node (OpenSearch 2.19.4 with the real security plugin: roles, mappings, templates,
 * ingest pipelines, indices, searches as each user) with ISM stood in: no Maven Central artifact provides the ISM
 * plugin for it, so `/_plugins/_ism/...` goes, with the same bodies, to test/helpers/fake-ism.ts over the node's own
 * indices (its `delete` action deletes them on the node). The fake's clock moves days ahead where ISM's age matters;
 * everything else runs at the node's time.
 *
 * One file past ~300 lines on purpose: the steps build on one another on one node (a second file would start a
 * second secured node).
 */
import type { HttpResponse, OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch, type ProvisionReport } from '../../../core/opensearch/provision';
import {
  resolveOpenSearchSpec,
  type OpenSearchSpec,
  type OpenSearchSpecInput,
} from '../../../core/opensearch/spec';
import { FakeOpenSearch } from '../../helpers/fake-opensearch-service';
import { withFakeIsm, type NodeWithIsm } from '../../helpers/ism-on-node';
import { useSecuredOpenSearchNode } from '../../helpers/secured-opensearch';

const FIREHOSE = 'arn:aws:iam::123456789012:role/kfek-firehose';
/** The people whose access the steps change (the admin and Firehose are checked on their own). */
const READERS = ['logs-reader', 'logs-reader-2', 'pay-reader', 'search-reader', 'audit-reader', 'ops-admin'];

const BASE: OpenSearchSpecInput = {
  indexPrefix: 'logs',
  // One node: replicas would leave every index yellow.
  indexTemplate: { replicas: 0 },
  retention: { deleteAfterDays: 14 },
  access: {
    firehoseRoleArn: FIREHOSE,
    readerBackendRoles: ['log-readers'],
    adminBackendRoles: ['ops-admins'],
  },
  routes: [
    { name: 'payments', indexStem: 'payments', retentionDays: 30, readerBackendRoles: ['pay-readers'] },
    { name: 'search', indexStem: 'search', retentionDays: 7, readerBackendRoles: ['search-readers'] },
  ],
};

/** Step 3: payments keeps 60 days instead of 30, search 3 instead of 7. */
const RETENTION: OpenSearchSpecInput = {
  ...BASE,
  access: { firehoseRoleArn: FIREHOSE, readerBackendRoles: ['log-readers-2'] },
  routes: [
    { name: 'payments', indexStem: 'payments', retentionDays: 60, readerBackendRoles: ['pay-readers'] },
    { name: 'search', indexStem: 'search', retentionDays: 3, readerBackendRoles: ['search-readers'] },
  ],
};
/** Step 4: search moves to the stem search-eu; payments is renamed pay, same stem. */
const MOVED: OpenSearchSpecInput = {
  ...RETENTION,
  routes: [
    { name: 'pay', indexStem: 'payments', retentionDays: 60, readerBackendRoles: ['pay-readers'] },
    { name: 'search', indexStem: 'search-eu', retentionDays: 3, readerBackendRoles: ['search-readers'] },
  ],
};
/** Step 5: the index prefix becomes logs-v2. */
const PREFIXED: OpenSearchSpecInput = { ...MOVED, indexPrefix: 'logs-v2' };
/** Step 6: pay is removed; audit, whose stem extends the new prefix, is added. */
const RESHAPED: OpenSearchSpecInput = {
  ...PREFIXED,
  routes: [
    { name: 'search', indexStem: 'search-eu', retentionDays: 3, readerBackendRoles: ['search-readers'] },
    { name: 'audit', indexStem: 'logs-v2-audit', retentionDays: 14, readerBackendRoles: ['audit-readers'] },
  ],
};

let eventId = 0;
/** A document as the transform writes it, marked with a route name when given. */
function documentFor(message: string, route?: string): Record<string, unknown> {
  return {
    '@timestamp': '2026-11-20T09:00:00.000Z',
    message,
    cloudwatch: { id: String(++eventId), logGroup: '/kfek/day2', logStream: 's1', owner: '123456789012' },
    ...(route === undefined ? {} : { kfek: { route } }),
  };
}

describe('a domain converged by every deploy (issue 30), on the secured 2.19.4 node with ISM stood in', () => {
  const os = useSecuredOpenSearchNode({
    users: [
      { name: 'firehose', backendRoles: [FIREHOSE] },
      { name: 'logs-reader', backendRoles: ['log-readers'] },
      { name: 'logs-reader-2', backendRoles: ['log-readers-2'] },
      { name: 'pay-reader', backendRoles: ['pay-readers'] },
      { name: 'search-reader', backendRoles: ['search-readers'] },
      { name: 'audit-reader', backendRoles: ['audit-readers'] },
      { name: 'ops-admin', backendRoles: ['ops-admins'] },
      { name: 'sso-admin', backendRoles: ['sso-admins'] },
    ],
  });
  let offsetMillis = 0;
  const now = (): number => Date.now() + offsetMillis;
  let domain: NodeWithIsm;
  const dashboards = new FakeOpenSearch({ dashboards: true });
  let previous: OpenSearchSpec | undefined;

  /** One deploy: the provisioner with the previous deploy's spec (as the custom resource gets it), then ISM's next run. */
  async function deploy(input: OpenSearchSpecInput): Promise<ProvisionReport> {
    const spec = resolveOpenSearchSpec(input);
    const report = await provisionOpenSearch(domain.client, spec, {
      dashboards: dashboards.dashboardsClient(),
      now,
      ...(previous === undefined ? {} : { previous }),
    });
    previous = spec;
    await domain.ism.runJobs();
    return report;
  }

  /** Firehose's bulk into `index` as the writer; where each document landed, or its refusal. */
  async function deliver(index: string, docs: readonly Record<string, unknown>[]): Promise<string[]> {
    const ndjson = docs
      .map((d) => `${JSON.stringify({ index: { _index: index } })}\n${JSON.stringify(d)}\n`)
      .join('');
    const response = await os.client('firehose').request({
      method: 'POST',
      path: '/_bulk?refresh=true',
      body: ndjson,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(response.status).toBe(200);
    const items = (response.body as { items: Array<Record<string, { _index: string; status: number }>> })
      .items;
    return items
      .map((i) => Object.values(i)[0])
      .map((i) => (i.status === 201 ? i._index : `refused ${i.status}`));
  }

  /** The node's log indices (not the system ones, nor the security plugin's audit log). */
  async function indices(): Promise<string[]> {
    const listed = (await get(os.client('admin'), '/_cat/indices?format=json&h=index')) as Array<{
      index: string;
    }>;
    return listed
      .map((i) => i.index)
      .filter((i) => !i.startsWith('.') && !i.startsWith('security-auditlog'))
      .sort();
  }

  /** Who of {@link READERS} may search each of kfek's indices. */
  async function whoReads(): Promise<Record<string, string[]>> {
    const names = await indices();
    const rows = await Promise.all(
      names.map(async (index) => {
        const statuses = await Promise.all(
          READERS.map(
            async (user) =>
              (
                await os
                  .client(user)
                  .request({ method: 'POST', path: `/${index}/_search`, body: { size: 0 } })
              ).status,
          ),
        );
        return [index, READERS.filter((_, i) => statuses[i] === 200)] as const;
      }),
    );
    return Object.fromEntries(rows);
  }

  /** The policy managing each index, and whether it runs the policy's current version (explain, through the client). */
  async function managedBy(): Promise<Record<string, string>> {
    const names = await indices();
    const explained = (await get(domain.client, `/_plugins/_ism/explain/${names.join(',')}`)) as Record<
      string,
      { policy_id?: string; policy_seq_no?: number }
    >;
    const listed = (await get(domain.client, '/_plugins/_ism/policies?size=100')) as {
      policies: Array<{ _id: string; _seq_no: number }>;
    };
    const seq = new Map(listed.policies.map((p) => [p._id, p._seq_no]));
    return Object.fromEntries(
      names.map((n) => {
        const e = explained[n];
        if (e?.policy_id === undefined) return [n, 'unmanaged'];
        return [n, `${e.policy_id}${e.policy_seq_no === seq.get(e.policy_id) ? '' : ' (old version)'}`];
      }),
    );
  }

  async function get(client: OpenSearchHttpClient, path: string): Promise<unknown> {
    const response: HttpResponse = await client.request({ method: 'GET', path });
    expect({ path, status: response.status }).toEqual({ path, status: 200 });
    return response.body;
  }

  async function put(client: OpenSearchHttpClient, path: string, body: unknown): Promise<void> {
    const response = await client.request({ method: 'PUT', path, body });
    expect({ path, status: response.status }).toEqual({ path, status: expect.any(Number) as number });
    if (response.status !== 200 && response.status !== 201) throw new Error(`PUT ${path}: ${response.text}`);
  }

  async function status(user: string, method: 'GET' | 'POST', path: string): Promise<number> {
    return (
      await os.client(user).request({ method, path, ...(method === 'POST' ? { body: { size: 0 } } : {}) })
    ).status;
  }

  async function hits(user: string, index: string): Promise<number> {
    const body = (await get(os.client(user), `/${index}/_search?size=0&track_total_hits=true`)) as {
      hits: { total: { value: number } };
    };
    return body.hits.total.value;
  }

  const steps = (report: ProvisionReport, impact: string): string[] =>
    report.steps.filter((s) => s.impact === impact).map((s) => s.step);

  beforeAll(() => {
    domain = withFakeIsm(os.client('admin'), now);
  });

  test("1. the first deploy: each team reads its own indices, each index runs its family's policy", async () => {
    await deploy(BASE);
    expect(
      await deliver('logs-2026-11-20', [
        documentFor('plain'),
        documentFor('pay', 'payments'),
        documentFor('find', 'search'),
      ]),
    ).toEqual(['logs-2026-11-20', 'payments-2026-11-20', 'search-2026-11-20']);
    await domain.ism.runJobs();

    expect(await whoReads()).toEqual({
      'logs-2026-11-20': ['logs-reader', 'ops-admin'],
      'payments-2026-11-20': ['pay-reader', 'ops-admin'],
      'search-2026-11-20': ['search-reader', 'ops-admin'],
    });
    expect(await managedBy()).toEqual({
      'logs-2026-11-20': 'kfek-logs-retention',
      'payments-2026-11-20': 'kfek-payments-retention',
      'search-2026-11-20': 'kfek-search-retention',
    });
  });

  test('2. readers and admins leave the profile: they lose access; hand edits are reverted and reported', async () => {
    // GIVEN hand edits since the last deploy: a member mapped to kfek's reader role, a restriction added to a route's
    // reader role, and a colleague mapped to all_access (a built-in role: not kfek's to prune)
    const admin = os.client('admin');
    const mapping = (await get(admin, '/_plugins/_security/api/rolesmapping/kfek_reader')) as Record<
      string,
      object
    >;
    await put(admin, '/_plugins/_security/api/rolesmapping/kfek_reader', {
      ...mapping.kfek_reader,
      backend_roles: ['log-readers', 'search-readers'],
      reserved: undefined,
      hidden: undefined,
    });
    const role = (await get(admin, '/_plugins/_security/api/roles/kfek_payments_reader')) as Record<
      string,
      { index_permissions: Array<Record<string, unknown>> } & Record<string, unknown>
    >;
    const { reserved: _r, hidden: _h, static: _s, ...body } = role.kfek_payments_reader;
    await put(admin, '/_plugins/_security/api/roles/kfek_payments_reader', {
      ...body,
      index_permissions: body.index_permissions.map((p) => ({ ...p, dls: '{"term": {"level": "ERROR"}}' })),
    });
    const all = (await get(admin, '/_plugins/_security/api/rolesmapping/all_access')) as Record<
      string,
      { backend_roles: string[] }
    >;
    await put(admin, '/_plugins/_security/api/rolesmapping/all_access', {
      backend_roles: [...all.all_access.backend_roles, 'sso-admins'],
      hosts: [],
      users: [],
    });
    expect((await whoReads())['logs-2026-11-20']).toEqual(['logs-reader', 'search-reader', 'ops-admin']);

    // WHEN the default readers are replaced and the admins removed
    const report = await deploy({
      ...BASE,
      access: { firehoseRoleArn: FIREHOSE, readerBackendRoles: ['log-readers-2'] },
    });

    // THEN
    expect(steps(report, 'loses-access')).toEqual([
      'role mapping kfek_reader',
      'role mapping opensearch_dashboards_user',
      'role mapping all_access',
      'role mapping security_manager',
    ]);
    expect(report.steps.find((s) => s.step === 'role mapping kfek_reader')?.detail).toBe(
      'adds backend role log-readers-2; removes backend role log-readers, backend role search-readers; ' +
        '(backend role search-readers mapped by hand: reverted, kfek owns its mappings)',
    );
    expect(steps(report, 'drift')).toEqual(['security role kfek_payments_reader']);
    expect(await whoReads()).toEqual({
      'logs-2026-11-20': ['logs-reader-2'],
      'payments-2026-11-20': ['pay-reader'],
      'search-2026-11-20': ['search-reader'],
    });
    // The colleague mapped by hand to all_access stays; the admins the profile named are gone.
    expect(await status('sso-admin', 'POST', '/logs-2026-11-20/_search')).toBe(200);
    expect(await status('ops-admin', 'GET', '/_plugins/_security/api/rolesmapping')).toBe(403);
    // The hand-added document-level restriction is gone: the payments reader sees every document again.
    expect(await hits('pay-reader', 'payments-2026-11-20')).toBe(1);
  });

  test('3. a retention change reaches the indices ISM already manages (change_policy), longer and shorter', async () => {
    // WHEN payments keeps 60 days instead of 30, search 3 instead of 7
    const report = await deploy(RETENTION);

    // THEN the plan said what each costs, and every existing index runs the new version after ISM's next run
    expect(
      report.steps.filter((s) => s.step.startsWith('ISM ')).map((s) => [s.step, s.status, s.impact]),
    ).toEqual([
      ['ISM policy kfek-logs-retention', 'unchanged', undefined],
      ['ISM policy kfek-payments-retention', 'updated', 'keeps-longer'],
      ['ISM policy kfek-search-retention', 'updated', 'loses-data'],
      ['ISM payments-*', 'updated', undefined],
      ['ISM search-*', 'updated', undefined],
    ]);
    expect(await managedBy()).toEqual({
      'logs-2026-11-20': 'kfek-logs-retention',
      'payments-2026-11-20': 'kfek-payments-retention',
      'search-2026-11-20': 'kfek-search-retention',
    });
  });

  test("4. a route's stem changes and another is renamed: history stays with its readers and policy", async () => {
    // WHEN search moves to search-eu (a stem extending the old one) and payments is renamed pay (same stem)
    const report = await deploy(MOVED);
    // THEN nothing was refused, the old stem is kept, and the old name still routes what is in flight
    // (the pipeline is kept too: it still knows the retired name `payments`)
    expect(steps(report, 'kept')).toEqual([
      'indices search-*',
      'index template kfek-search',
      'ingest pipeline kfek-logs-document-id',
      'ISM policy kfek-search-retention',
    ]);
    expect(
      await deliver('logs-2026-11-21', [
        documentFor('new stem', 'search'),
        documentFor('renamed', 'pay'),
        documentFor('in flight under the old name', 'payments'),
      ]),
    ).toEqual(['search-eu-2026-11-21', 'payments-2026-11-21', 'payments-2026-11-21']);
    await domain.ism.runJobs();
    expect(await whoReads()).toEqual({
      'logs-2026-11-20': ['logs-reader-2'],
      'payments-2026-11-20': ['pay-reader'],
      'payments-2026-11-21': ['pay-reader'],
      'search-2026-11-20': ['search-reader'],
      'search-eu-2026-11-21': ['search-reader'],
    });
    expect(await managedBy()).toEqual({
      'logs-2026-11-20': 'kfek-logs-retention',
      'payments-2026-11-20': 'kfek-payments-retention',
      'payments-2026-11-21': 'kfek-payments-retention',
      'search-2026-11-20': 'kfek-search-retention',
      'search-eu-2026-11-21': 'kfek-search-eu-retention',
    });
  });

  test('5. a new index prefix extending the old one: refused only while a foreign template ties, then both are read', async () => {
    // GIVEN someone's template at the priority kfek's logs-v2 template takes, on overlapping indices
    const admin = os.client('admin');
    await put(admin, '/_index_template/team-logs', { index_patterns: ['logs-v2-team-*'], priority: 207 });
    // WHEN the prefix changes to logs-v2: refused before anything is changed, saying which template and why
    await expect(deploy(PREFIXED)).rejects.toThrow(
      /OpenSearch would refuse index template kfek-logs-v2 .*team-logs .*same priority 207.*nothing was changed/,
    );
    expect((await admin.request({ method: 'GET', path: '/_index_template/kfek-logs-v2' })).status).toBe(404);
    // AND with that template moved to another priority (the fix), the deploy goes through
    await put(admin, '/_index_template/team-logs', { index_patterns: ['logs-v2-team-*'], priority: 50 });
    const report = await deploy(PREFIXED);
    expect(steps(report, 'refused')).toEqual([]);

    // THEN Firehose, until its own update, still writes the old prefix, and after it the new one
    expect(
      await deliver('logs-2026-11-22', [documentFor('old prefix'), documentFor('routed', 'pay')]),
    ).toEqual(['logs-2026-11-22', 'payments-2026-11-22']);
    expect(
      await deliver('logs-v2-2026-11-22', [documentFor('new prefix'), documentFor('routed', 'search')]),
    ).toEqual(['logs-v2-2026-11-22', 'search-eu-2026-11-22']);
    await domain.ism.runJobs();
    const readers = await whoReads();
    expect(readers['logs-2026-11-22']).toEqual(['logs-reader-2']);
    expect(readers['logs-v2-2026-11-22']).toEqual(['logs-reader-2']);
    const managed = await managedBy();
    expect([managed['logs-2026-11-22'], managed['logs-v2-2026-11-22']]).toEqual([
      'kfek-logs-retention',
      'kfek-logs-v2-retention',
    ]);
  });

  test('6. a route is removed and one extending the prefix is added: history kept, nobody reads what is not theirs', async () => {
    const report = await deploy(RESHAPED);
    expect(steps(report, 'kept')).toEqual(
      expect.arrayContaining(['indices payments-*', 'ISM policy kfek-payments-retention']),
    );
    // The retired stem is read through its own role, by whom read it (issue 39), not through the route's name.
    expect(report.steps).toContainEqual(
      expect.objectContaining({ step: 'role mapping kfek_stem_payments_reader', status: 'created' }),
    );
    expect(
      await deliver('logs-v2-2026-11-23', [
        documentFor('audited', 'audit'),
        documentFor('still in flight', 'pay'),
        documentFor('plain'),
      ]),
    ).toEqual(['logs-v2-audit-2026-11-23', 'payments-2026-11-23', 'logs-v2-2026-11-23']);
    await domain.ism.runJobs();
    const readers = await whoReads();
    expect(readers['logs-v2-audit-2026-11-23']).toEqual(['audit-reader']);
    expect(readers['logs-v2-2026-11-23']).toEqual(['logs-reader-2']);
    expect(readers['payments-2026-11-23']).toEqual(['pay-reader']);
    // The default readers' own pattern excludes the longer stem: searching it whole is refused, excluding it works.
    expect(await status('logs-reader-2', 'POST', '/logs-v2-*/_search')).toBe(403);
    expect(await status('logs-reader-2', 'POST', '/logs-v2-*,-logs-v2-audit-*/_search')).toBe(200);
    expect((await managedBy())['logs-v2-audit-2026-11-23']).toBe('kfek-logs-v2-audit-retention');
  });

  test("7. a raised field limit reaches today's index at once; a new shard count waits for the next one", async () => {
    const report = await deploy({
      ...RESHAPED,
      indexTemplate: { replicas: 0, shards: 2, totalFieldsLimit: 2000 },
    });
    expect(report.steps.find((s) => s.step === 'index settings logs-v2-*')).toMatchObject({
      status: 'updated',
      detail: expect.stringMatching(
        /index\.mapping\.total_fields\.limit.*index\.number_of_shards 2 waits for the next index/,
      ) as string,
    });
    const settings = (await get(
      os.client('admin'),
      '/logs-v2-2026-11-23/_settings?flat_settings=true',
    )) as Record<string, { settings: Record<string, string> }>;
    expect(settings['logs-v2-2026-11-23'].settings).toMatchObject({
      'index.mapping.total_fields.limit': '2000',
      'index.number_of_shards': '1',
    });
  });

  test('8. when the last old index is deleted by its own schedule, the next deploy removes what was kept for it', async () => {
    // GIVEN 61 days later (ISM's clock): every retired family's indices reached their retention and were deleted
    offsetMillis = 61 * 86_400_000;
    await domain.ism.runJobs();
    await domain.ism.runJobs();
    await domain.ism.runJobs();
    expect(await indices()).toEqual([]);

    // WHEN the same profile is deployed again
    const report = await deploy({
      ...RESHAPED,
      indexTemplate: { replicas: 0, shards: 2, totalFieldsLimit: 2000 },
    });

    // THEN the retired stems' templates, policies, pipeline and reader role are gone, and so are their names
    expect(report.steps.filter((s) => s.status === 'deleted').map((s) => s.step)).toEqual([
      'indices logs-*',
      'indices payments-*',
      'indices search-*',
      'security role kfek_stem_payments_reader',
      'security role kfek_stem_search_reader',
      'index template kfek-payments',
      'index template kfek-logs',
      'index template kfek-search',
      'ingest pipeline kfek-logs-document-id',
      'ISM policy kfek-logs-retention',
      'ISM policy kfek-payments-retention',
      'ISM policy kfek-search-retention',
      'dashboards saved objects index-pattern/kfek-logs-index-pattern',
      'dashboards saved objects index-pattern/kfek-payments-index-pattern',
      'dashboards saved objects index-pattern/kfek-search-index-pattern',
    ]);
    const pipeline = (await get(os.client('admin'), '/_ingest/pipeline/kfek-logs-v2-document-id')) as Record<
      string,
      { processors: Array<{ script: { params: unknown } }> }
    >;
    expect(pipeline['kfek-logs-v2-document-id'].processors[0].script.params).toEqual({
      prefix: 'logs-v2',
      routes: { search: 'search-eu', audit: 'logs-v2-audit' },
      marks: { search: ['search-eu'], audit: ['logs-v2-audit'] },
      nested: ['logs-v2-audit'],
    });
    // AND the readers of the removed pay route leave Dashboards with its last index (issue 39)
    const dashboardsUsers = (await get(
      os.client('admin'),
      '/_plugins/_security/api/rolesmapping/opensearch_dashboards_user',
    )) as Record<string, { backend_roles: string[] }>;
    expect(dashboardsUsers.opensearch_dashboards_user.backend_roles).not.toContain('pay-readers');
    expect(report.steps.filter((s) => s.impact === 'drift')).toEqual([]);
  });
});
