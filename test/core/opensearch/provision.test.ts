/**
 * The applier against FakeOpenSearch: the plugin paths (ISM, security, Dashboards) that the real local node lacks.
 * The index template path is also covered for real in provision.integ.test.ts.
 */
import { OpenSearchAccessDeniedError } from '../../../core/opensearch/errors';
import { defaultAuditConfig, mergeAuditConfig } from '../../../core/opensearch/audit';
import { buildIngestPipeline } from '../../../core/opensearch/ingest-pipeline';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec, type OpenSearchSpecInput } from '../../../core/opensearch/spec';
import { FakeOpenSearch } from '../../helpers/fake-opensearch-service';

const input: OpenSearchSpecInput = {
  indexPrefix: 'logs',
  retention: { deleteAfterDays: 14 },
  access: {
    firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose',
    readerBackendRoles: ['arn:aws:iam::123456789012:role/log-readers'],
  },
};
const spec = resolveOpenSearchSpec(input);
const ALL = { ism: true, security: true, dashboards: true } as const;

describe('provisionOpenSearch on a domain with every plugin', () => {
  test('creates everything on the first run, in dependency order', async () => {
    // GIVEN
    const fake = new FakeOpenSearch({ ...ALL, indices: ['logs-2026-11-21', 'other-1'] });

    // WHEN
    const report = await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });

    // THEN
    expect(report.features).toEqual(ALL);
    expect(report.steps.map((s) => `${s.step}: ${s.status}`)).toEqual([
      'ingest pipeline kfek-logs-document-id: created',
      'index template kfek-logs: created',
      'ISM policy kfek-logs-retention: created',
      'ISM logs-*: updated',
      'index settings logs-*: updated',
      'security role kfek_writer: created',
      'security role kfek_reader: created',
      'role mapping kfek_writer: created',
      'role mapping kfek_reader: created',
      'role mapping opensearch_dashboards_user: created',
      'security audit logging (on): updated',
      'dashboards saved objects: updated',
    ]);
    expect(fake.managedIndices).toEqual(new Map([['logs-2026-11-21', 'kfek-logs-retention']]));
    expect(fake.mappings.get('kfek_writer')).toEqual({
      backend_roles: ['arn:aws:iam::123456789012:role/firehose'],
      hosts: [],
      users: [],
    });
    expect(fake.savedObjects.size).toBe(6);
    const bulk = fake.requests.find((r) => r.target === 'dashboards' && r.request.method === 'POST');
    expect(bulk?.request.headers).toEqual({ 'osd-xsrf': 'true', securitytenant: 'global' });
  });

  test('a second run with the same spec writes nothing', async () => {
    // GIVEN
    const fake = new FakeOpenSearch({ ...ALL, indices: ['logs-2026-11-21'] });
    await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });
    const before = fake.requests.length;

    // WHEN
    const report = await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });

    // THEN
    expect(report.steps.map((s) => `${s.step}: ${s.status}`)).toEqual([
      'ingest pipeline kfek-logs-document-id: unchanged',
      'index template kfek-logs: unchanged',
      'ISM policy kfek-logs-retention: unchanged',
      'security role kfek_writer: unchanged',
      'security role kfek_reader: unchanged',
      'role mapping kfek_writer: unchanged',
      'role mapping kfek_reader: unchanged',
      'role mapping opensearch_dashboards_user: unchanged',
      'security audit logging (on): unchanged',
      'dashboards saved objects: updated',
    ]);
    const writes = fake.requests
      .slice(before)
      .filter((r) => r.request.method === 'PUT')
      .map((r) => r.request.path);
    // No pipeline, template, policy, role or mapping write: each is read and compared first.
    expect(writes).toEqual([]);
  });

  test('a changed retention updates the ISM policy with the sequence number ISM demands', async () => {
    // GIVEN
    const fake = new FakeOpenSearch(ALL);
    await provisionOpenSearch(fake.client(), spec);
    const seqNo = fake.policies.get('kfek-logs-retention')?.seqNo;

    // WHEN
    const changed = resolveOpenSearchSpec({ ...input, retention: { deleteAfterDays: 30 } });
    const report = await provisionOpenSearch(fake.client(), changed);

    // THEN
    expect(report.steps).toContainEqual(
      expect.objectContaining({ step: 'ISM policy kfek-logs-retention', status: 'updated' }),
    );
    expect(fake.requests.map((r) => r.request.path)).toContain(
      `/_plugins/_ism/policies/kfek-logs-retention?if_seq_no=${seqNo}&if_primary_term=1`,
    );
    expect(JSON.stringify(fake.policies.get('kfek-logs-retention')?.policy.states)).toContain(
      '"min_index_age":"30d"',
    );
  });

  test('writes the document-id pipeline before the template that names it as default_pipeline', async () => {
    // GIVEN
    const fake = new FakeOpenSearch();

    // WHEN
    await provisionOpenSearch(fake.client(), spec);

    // THEN
    // kfek's record (registry.ts) is written first, before the objects it names.
    const puts = fake.requests
      .filter((r) => r.request.method === 'PUT' && !r.request.path.startsWith('/.kfek-registry'))
      .map((r) => r.request.path);
    expect(puts.slice(0, 2)).toEqual([
      '/_ingest/pipeline/kfek-logs-document-id',
      '/_index_template/kfek-logs',
    ]);
    const template = fake.templates.get('kfek-logs') as { template: { settings: { index: object } } };
    expect(template.template.settings.index).toMatchObject({ default_pipeline: 'kfek-logs-document-id' });
  });

  test('rewrites a pipeline whose content someone changed by hand', async () => {
    // GIVEN
    const fake = new FakeOpenSearch();
    fake.pipelines.set('kfek-logs-document-id', { description: 'edited', processors: [] });

    // WHEN
    const report = await provisionOpenSearch(fake.client(), spec);

    // THEN
    expect(report.steps[0]).toMatchObject({
      step: 'ingest pipeline kfek-logs-document-id',
      status: 'updated',
    });
    expect(fake.pipelines.get('kfek-logs-document-id')).toEqual(buildIngestPipeline(spec));
  });

  test("owns its roles' mappings wholly: members mapped by hand are removed, and the step says so", async () => {
    // GIVEN: someone mapped a group and a user to kfek_reader by hand since the last deploy.
    const fake = new FakeOpenSearch({ ...ALL, indices: ['logs-2026-11-21'] });
    await provisionOpenSearch(fake.client(), spec);
    fake.mappings.set('kfek_reader', {
      backend_roles: ['arn:aws:iam::123456789012:role/log-readers', 'sso-admins'],
      hosts: [],
      users: ['alice'],
    });

    // WHEN
    const report = await provisionOpenSearch(fake.client(), spec, { previous: spec });

    // THEN
    expect(fake.mappings.get('kfek_reader')).toEqual({
      backend_roles: ['arn:aws:iam::123456789012:role/log-readers'],
      hosts: [],
      users: [],
    });
    expect(report.steps).toContainEqual({
      step: 'role mapping kfek_reader',
      status: 'updated',
      impact: 'loses-access',
      detail:
        'removes backend role sso-admins, user alice; (backend role sso-admins, user alice mapped by hand: reverted, ' +
        'kfek owns its mappings)',
    });
  });

  test('maps admins to all_access and security_manager, keeping the IAM master user already mapped there', async () => {
    // GIVEN: AWS maps the domain's master user (an IAM role) to all_access and security_manager itself.
    const master = 'arn:aws:iam::123456789012:role/kfek-OpenSearchAdminRole';
    const admin = 'arn:aws:iam::123456789012:role/Admin';
    const fake = new FakeOpenSearch(ALL);
    fake.mappings.set('all_access', { backend_roles: [master], hosts: [], users: [] });
    fake.mappings.set('security_manager', { backend_roles: [master], hosts: [], users: [] });
    const withAdmins = resolveOpenSearchSpec({
      ...input,
      access: { ...input.access, adminBackendRoles: [admin] },
    });

    // WHEN
    const first = await provisionOpenSearch(fake.client(), withAdmins);
    const second = await provisionOpenSearch(fake.client(), withAdmins);

    // THEN
    for (const role of ['all_access', 'security_manager']) {
      expect(fake.mappings.get(role)).toEqual({
        backend_roles: [admin, master],
        hosts: [],
        users: [],
        and_backend_roles: [],
      });
      expect(first.steps).toContainEqual(
        expect.objectContaining({ step: `role mapping ${role}`, status: 'updated', impact: 'grants-access' }),
      );
      expect(second.steps).toContainEqual({ step: `role mapping ${role}`, status: 'unchanged' });
    }
    // Built-in roles are never redefined.
    expect(
      fake.requests.some(
        ({ request: r }) => r.method === 'PUT' && /\/roles\/(all_access|security_manager)$/.test(r.path),
      ),
    ).toBe(false);
  });

  test('fails with an access-denied error (and what to do) when the security API refuses', async () => {
    const fake = new FakeOpenSearch({ ...ALL, forbidden: ['/_plugins/_security/api/roles'] });
    const run = provisionOpenSearch(fake.client(), spec);
    await expect(run).rejects.toBeInstanceOf(OpenSearchAccessDeniedError);
    await expect(provisionOpenSearch(fake.client(), spec)).rejects.toThrow(
      /master user .* all_access and security_manager/,
    );
  });

  test('fails when a plugin is listed but its endpoint is refused at probe time', async () => {
    const fake = new FakeOpenSearch({ ...ALL, forbidden: ['/_plugins/_ism'] });
    await expect(provisionOpenSearch(fake.client(), spec)).rejects.toBeInstanceOf(
      OpenSearchAccessDeniedError,
    );
  });

  test('skips ISM, security and Dashboards on a node without them and says so', async () => {
    const fake = new FakeOpenSearch({});
    const report = await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });
    expect(report.features).toEqual({ ism: false, security: false, dashboards: false });
    expect(report.steps.filter((s) => s.status === 'skipped').map((s) => s.detail)).toEqual([
      'no ISM plugin on the target',
      'no security plugin on the target',
      'no OpenSearch Dashboards reachable',
    ]);
  });

  test('without the security plugin, saved objects go without a tenant header', async () => {
    const fake = new FakeOpenSearch({ dashboards: true });
    await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });
    const bulk = fake.requests.find((r) => r.target === 'dashboards' && r.request.method === 'POST');
    expect(bulk?.request.headers).toEqual({ 'osd-xsrf': 'true' });
  });

  test('a feature forced off is skipped even when present', async () => {
    const fake = new FakeOpenSearch(ALL);
    const report = await provisionOpenSearch(fake.client(), spec, { features: { security: false } });
    expect(report.features.security).toBe(false);
    expect(fake.requests.some((r) => r.request.path.startsWith('/_plugins/_security'))).toBe(false);
  });

  test('best-effort Dashboards: a refused Dashboards is a failed step, everything else is applied', async () => {
    // GIVEN
    const fake = new FakeOpenSearch({ ...ALL, forbidden: ['/api/saved_objects'] });

    // WHEN
    const report = await provisionOpenSearch(fake.client(), spec, {
      dashboards: fake.dashboardsClient(),
      dashboardsBestEffort: true,
    });

    // THEN
    expect(report.steps.at(-1)).toMatchObject({
      step: 'dashboards saved objects',
      status: 'failed',
      detail: expect.stringMatching(/HTTP 403/),
    });
    expect(fake.templates.size).toBe(1);
    expect(fake.mappings.has('kfek_writer')).toBe(true);
  });

  test('best-effort Dashboards: a refused status probe is a failed step too', async () => {
    const fake = new FakeOpenSearch({ ...ALL, forbidden: ['/api/status'] });
    const report = await provisionOpenSearch(fake.client(), spec, {
      dashboards: fake.dashboardsClient(),
      dashboardsBestEffort: true,
    });
    expect(report.features).toEqual({ ism: true, security: true, dashboards: false });
    expect(report.steps.at(-1)).toMatchObject({
      status: 'failed',
      detail: expect.stringMatching(/api\/status/),
    });
  });

  test('without best effort, a refused Dashboards fails the run', async () => {
    const fake = new FakeOpenSearch({ ...ALL, forbidden: ['/api/saved_objects'] });
    await expect(
      provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() }),
    ).rejects.toBeInstanceOf(OpenSearchAccessDeniedError);
  });
});

/** A fake clock: sleeping advances it, nothing waits for real. */
function fakeClock(): { now: () => number; sleep: (ms: number) => Promise<void>; slept: number[] } {
  let t = 0;
  const slept: number[] = [];
  return {
    now: () => t,
    sleep: (ms) => {
      slept.push(ms);
      t += ms;
      return Promise.resolve();
    },
    slept,
  };
}

describe('provisionOpenSearch while IAM propagates (401/403 retried for a bounded time)', () => {
  test('a refusal that clears within the budget is waited out, and everything is applied', async () => {
    // GIVEN: the first three calls are refused, as right after the role's policy was attached.
    const fake = new FakeOpenSearch({ ...ALL, forbiddenFirstRequests: 3 });
    const clock = fakeClock();

    // WHEN
    const report = await provisionOpenSearch(fake.client(), spec, {
      accessDeniedRetry: { maxWaitMillis: 60_000, clock },
    });

    // THEN
    expect(report.steps.slice(0, 2)).toEqual([
      expect.objectContaining({ step: 'ingest pipeline kfek-logs-document-id', status: 'created' }),
      expect.objectContaining({ step: 'index template kfek-logs', status: 'created' }),
    ]);
    expect(fake.mappings.has('kfek_writer')).toBe(true);
    expect(clock.slept).toEqual([1000, 2000, 4000]);
  });

  test('fails when the refusal outlasts the budget, saying it is not propagation delay and what to do', async () => {
    // GIVEN: the security API stays forbidden.
    const fake = new FakeOpenSearch({ ...ALL, forbidden: ['/_plugins/_security'] });
    const clock = fakeClock();

    // WHEN
    const run = provisionOpenSearch(fake.client(), spec, {
      accessDeniedRetry: { maxWaitMillis: 60_000, clock },
    });

    // THEN
    await expect(run).rejects.toBeInstanceOf(OpenSearchAccessDeniedError);
    await expect(run).rejects.toThrow(/still refused after retrying for 60 s[\s\S]*master user/);
    // Bounded: never sleeps past the budget.
    expect(clock.now()).toBe(60_000);
    expect(Math.max(...clock.slept)).toBeLessThanOrEqual(15_000);
  });

  test('without a retry budget (npm start, the CLI) a refusal fails at once', async () => {
    // GIVEN
    const fake = new FakeOpenSearch({ ...ALL, forbiddenFirstRequests: 1 });
    // WHEN / THEN
    await expect(provisionOpenSearch(fake.client(), spec)).rejects.toBeInstanceOf(
      OpenSearchAccessDeniedError,
    );
    expect(fake.requests).toHaveLength(1);
  });
});

describe('provisionOpenSearch: audit logging in the security plugin', () => {
  test('turns audit logging on with the success categories left out, keeping what an operator set', async () => {
    // GIVEN: audit logging off, and an operator who ignores one user and already disabled SSL_EXCEPTION.
    const fake = new FakeOpenSearch({
      ...ALL,
      auditConfig: {
        enabled: false,
        audit: {
          enable_rest: true,
          disabled_rest_categories: ['SSL_EXCEPTION'],
          ignore_users: ['batch-job'],
        },
        compliance: { enabled: true },
      },
    });

    // WHEN
    const first = await provisionOpenSearch(fake.client(), spec);
    const second = await provisionOpenSearch(fake.client(), spec);

    // THEN: the PUT passed the fake's documented-schema check and merged instead of replacing.
    expect(first.steps).toContainEqual({ step: 'security audit logging (on)', status: 'updated' });
    expect(fake.auditConfig).toEqual({
      enabled: true,
      audit: {
        enable_rest: true,
        disabled_rest_categories: ['SSL_EXCEPTION', 'AUTHENTICATED', 'GRANTED_PRIVILEGES'],
        disabled_transport_categories: ['AUTHENTICATED', 'GRANTED_PRIVILEGES'],
        ignore_users: ['batch-job'],
      },
      compliance: { enabled: true },
    });
    expect(second.steps).toContainEqual({ step: 'security audit logging (on)', status: 'unchanged' });
  });

  test('auditLogs false turns it off and leaves the rest alone', async () => {
    // GIVEN
    const fake = new FakeOpenSearch(ALL);
    await provisionOpenSearch(fake.client(), spec);
    // WHEN
    const report = await provisionOpenSearch(
      fake.client(),
      resolveOpenSearchSpec({ ...input, auditLogs: false }),
    );
    // THEN
    expect(report.steps).toContainEqual({ step: 'security audit logging (off)', status: 'updated' });
    expect(fake.auditConfig.enabled).toBe(false);
    expect(fake.auditConfig.audit).toMatchObject({
      disabled_rest_categories: ['AUTHENTICATED', 'GRANTED_PRIVILEGES'],
    });
  });

  test('with no stored config, writes the documented defaults with audit logging on', () => {
    // GIVEN / WHEN
    const merged = mergeAuditConfig({}, true);
    // THEN
    expect(merged).toEqual(defaultAuditConfig());
    expect(merged?.enabled).toBe(true);
  });
});
