/**
 * What kfek owns is what its own record names (issue 39, core/opensearch/registry.ts), and drift is judged by content
 * (core/opensearch/drift.ts), against FakeOpenSearch (ISM, security and Dashboards): copies of kfek's objects under
 * other names, marks kept or not, are never touched; hand edits that keep the marks are restored and reported with
 * what changed; a template that lost its mark is still kfek's; a domain deployed before the record adopts its own
 * objects and nothing else. ownership.integ.test.ts and ownership.secured.test.ts hold the same on real nodes.
 */
import { readDomainFor } from '../../../core/opensearch/domain-read';
import type { HttpRequest, OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import {
  OpenSearchRegistryConflictError,
  registryIndex,
  registryPaths,
} from '../../../core/opensearch/registry';
import { resolveOpenSearchSpec, type OpenSearchSpecInput } from '../../../core/opensearch/spec';
import { planDomain } from '../../../core/opensearch/domain-plan';
import { FakeOpenSearch } from '../../helpers/fake-opensearch-service';

const PAYMENTS = {
  name: 'payments',
  indexStem: 'payments',
  retentionDays: 30,
  readerBackendRoles: ['pay-team'],
};
const input: OpenSearchSpecInput = {
  indexPrefix: 'logs',
  retention: { deleteAfterDays: 14 },
  access: {
    firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose',
    readerBackendRoles: ['log-readers'],
  },
  routes: [PAYMENTS],
};
const spec = resolveOpenSearchSpec(input);
const ALL = { ism: true, security: true, dashboards: true } as const;

async function send(client: OpenSearchHttpClient, request: HttpRequest, ok = [200, 201]): Promise<unknown> {
  const answer = await client.request(request);
  if (!ok.includes(answer.status))
    throw new Error(`${request.method} ${request.path}: ${answer.status} ${answer.text}`);
  return answer.body;
}

/** A domain kfek deployed `spec` to, with an index per family. */
async function deployed(): Promise<FakeOpenSearch> {
  const fake = new FakeOpenSearch({ ...ALL, indices: ['logs-2026-11-24', 'payments-2026-11-24'] });
  await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });
  return fake;
}

/** Copies a role through the API under another name (its `kfek:` description kept) and maps someone to it. */
async function copyRole(fake: FakeOpenSearch, from: string, to: string): Promise<void> {
  const client = fake.client();
  const got = (await send(client, {
    method: 'GET',
    path: `/_plugins/_security/api/roles/${from}`,
  })) as Record<string, Record<string, unknown>>;
  const { reserved: _r, hidden: _h, static: _s, ...role } = got[from];
  await send(client, { method: 'PUT', path: `/_plugins/_security/api/roles/${to}`, body: role });
  await send(client, {
    method: 'PUT',
    path: `/_plugins/_security/api/rolesmapping/${to}`,
    body: { backend_roles: ['team-a'], hosts: [], users: [] },
  });
}

/** Edits kfek's ISM policy through the API as an operator would: the description (and its hash) kept. */
async function editPolicy(fake: FakeOpenSearch, id: string, minIndexAge: string): Promise<void> {
  const stored = fake.policies.get(id);
  if (stored === undefined) throw new Error(`no policy ${id}`);
  const { policy_id: _id, last_updated_time: _t, schema_version: _v, ...policy } = stored.policy;
  const edited = JSON.parse(
    JSON.stringify(policy).replace(/"min_index_age":"\d+d"/, `"min_index_age":"${minIndexAge}"`),
  ) as unknown;
  await send(fake.client(), {
    method: 'PUT',
    path: `/_plugins/_ism/policies/${id}?if_seq_no=${stored.seqNo}&if_primary_term=${stored.primaryTerm}`,
    body: { policy: edited },
  });
}

const stepsOf = (report: {
  steps: readonly { step: string; status: string; impact?: string; detail?: string }[];
}) => report.steps.filter((s) => s.status !== 'unchanged');

describe("kfek's record of what it owns", () => {
  test('names exactly the objects kfek wrote, and a second deploy writes nothing to it', async () => {
    // GIVEN
    const fake = await deployed();
    const record = fake.hidden.get(registryIndex('kfek'))?.get('objects');
    // THEN
    expect(Object.keys((record?.source as { objects: object }).objects).sort()).toEqual(
      [
        'index-template:kfek-logs',
        'index-template:kfek-payments',
        'ingest-pipeline:kfek-logs-document-id',
        'ism-policy:kfek-logs-retention',
        'ism-policy:kfek-payments-retention',
        'security-role:kfek_payments_reader',
        'security-role:kfek_reader',
        'security-role:kfek_writer',
        ...[...fake.savedObjects.keys()].map((k) => `saved-object:${k}`),
      ].sort(),
    );
    // WHEN
    const before = fake.requests.length;
    await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });
    // THEN
    const writes = fake.requests
      .slice(before)
      .filter((r) => r.request.path.startsWith('/.kfek-registry/_doc'));
    expect(writes.map((r) => r.request.method)).toEqual(['GET']);
  });
});

describe('copies of kfek objects under other names', () => {
  test.each(['kfek_team_reader', 'kfek_orders_reader', 'kfek_reader_copy'])(
    'a copy of kfek_reader named %s survives every deploy with its mapping',
    async (copy) => {
      // GIVEN a team copied kfek_reader through the API (the description "kfek: ..." is kept) and mapped itself
      const fake = await deployed();
      await copyRole(fake, 'kfek_reader', copy);
      // WHEN kfek deploys, then a profile without the route (which prunes what kfek owns)
      const without = resolveOpenSearchSpec({ ...input, routes: [] });
      const reports = [
        await provisionOpenSearch(fake.client(), spec, { previous: spec }),
        await provisionOpenSearch(fake.client(), without, { previous: spec }),
      ];
      // THEN the copy and its mapping are as the team left them, and no step names them
      expect((fake.roles.get(copy) as { description: string }).description).toMatch(/^kfek:/);
      expect(fake.mappings.get(copy)).toEqual({ backend_roles: ['team-a'], hosts: [], users: [] });
      expect(reports.flatMap((r) => r.steps.map((s) => s.step)).filter((s) => s.includes(copy))).toEqual([]);
    },
  );

  test('copies of a template, an ISM policy, a pipeline and a saved object keep their marks and stay', async () => {
    // GIVEN copies with kfek's marks under other names
    const fake = await deployed();
    const template = fake.templates.get('kfek-logs') as Record<string, unknown>;
    fake.templates.set('kfek-logs-copy', { ...template, index_patterns: ['copy-*'], priority: 10 });
    const policy = fake.policies.get('kfek-logs-retention')?.policy as Record<string, unknown>;
    await send(fake.client(), {
      method: 'PUT',
      path: '/_plugins/_ism/policies/kfek-copy-retention',
      body: { policy: { ...policy, ism_template: [{ index_patterns: ['copy-*'], priority: 1 }] } },
    });
    fake.pipelines.set('kfek-copy-document-id', fake.pipelines.get('kfek-logs-document-id') ?? {});
    fake.savedObjects.set('index-pattern/kfek-copy-index-pattern', {
      type: 'index-pattern',
      id: 'kfek-copy-index-pattern',
      attributes: { title: 'copy-*' },
    });
    // WHEN
    const report = await provisionOpenSearch(fake.client(), spec, { dashboards: fake.dashboardsClient() });
    // THEN
    expect(stepsOf(report).map((s) => s.step)).toEqual(['dashboards saved objects']);
    expect(fake.templates.has('kfek-logs-copy')).toBe(true);
    expect(fake.policies.has('kfek-copy-retention')).toBe(true);
    expect(fake.pipelines.has('kfek-copy-document-id')).toBe(true);
    expect(fake.savedObjects.has('index-pattern/kfek-copy-index-pattern')).toBe(true);
  });
});

describe("forged marks don't make other indices kfek's", () => {
  test("a marked policy and template named for another team's stem neither own nor change its indices", async () => {
    // GIVEN another team's index, and a policy and template with kfek's marks and names for its stem
    const fake = new FakeOpenSearch({ ...ALL, indices: ['logs-2026-11-24', 'victim-2026-11-24'] });
    await provisionOpenSearch(fake.client(), spec);
    const policy = fake.policies.get('kfek-logs-retention')?.policy as Record<string, unknown>;
    await send(fake.client(), {
      method: 'PUT',
      path: '/_plugins/_ism/policies/kfek-victim-retention',
      body: { policy: { ...policy, ism_template: [{ index_patterns: ['none-*'], priority: 2 }] } },
    });
    const template = fake.templates.get('kfek-logs') as Record<string, unknown>;
    fake.templates.set('kfek-victim', {
      ...template,
      index_patterns: ['victim-*'],
      priority: 3,
      _meta: { ...(template._meta as object), kfek_stem: 'victim' },
    });
    const sent = fake.requests.length;
    // WHEN
    await provisionOpenSearch(fake.client(), spec, { previous: spec });
    // THEN nothing is written to the team's index, nor to the forged objects
    const writes = fake.requests
      .slice(sent)
      .filter((r) => r.request.method !== 'GET' && r.request.path.includes('victim'));
    expect(writes.map((r) => `${r.request.method} ${r.request.path}`)).toEqual([]);
    expect(fake.managedIndices.has('victim-2026-11-24')).toBe(false);
    expect(fake.indices.get('victim-2026-11-24')?.settings).toEqual({});
  });
});

describe('hand edits are judged by content', () => {
  test.each(['1d', '3d'])(
    'an ISM policy edited to delete after %s, its description kept, is restored and reported as drift',
    async (age) => {
      // GIVEN ISM runs the indices on kfek's policy, then an operator edits it
      const fake = await deployed();
      await fake.ism.runJobs();
      await editPolicy(fake, 'kfek-logs-retention', age);
      // WHEN
      const report = await provisionOpenSearch(fake.client(), spec);
      // THEN
      const step = report.steps.find((s) => s.step === 'ISM policy kfek-logs-retention');
      expect(step).toMatchObject({ status: 'updated', impact: 'drift' });
      expect(step?.detail).toContain(`min_index_age ${age} -> 14d`);
      expect(JSON.stringify(fake.policies.get('kfek-logs-retention')?.policy.states)).toContain(
        '"min_index_age":"14d"',
      );
      // and the indices it manages move to the restored version
      expect(report.steps.map((s) => `${s.step}: ${s.status}`)).toContain('ISM logs-*: updated');
    },
  );

  test('an ISM policy edited to keep longer than the profile is restored as a loss of data, with what changed', async () => {
    const fake = await deployed();
    await editPolicy(fake, 'kfek-logs-retention', '90d');
    const planned = planDomain(spec, await readDomainFor(fake.client(), spec), { now: Date.now() });
    expect(planned.changes.find((c) => c.name === 'kfek-logs-retention')?.fix).toBe(
      'the longer retention was set by hand: to keep it, put it in the profile (openSearch.retention.deleteAfterDays), or snapshot the indices first',
    );
    const report = await provisionOpenSearch(fake.client(), spec);
    const step = report.steps.find((s) => s.step === 'ISM policy kfek-logs-retention');
    expect(step).toMatchObject({ status: 'updated', impact: 'loses-data' });
    expect(step?.detail).toContain('min_index_age 90d -> 14d');
  });

  test('a route template edited with its _meta kept (an extra pattern, default_pipeline _none) is restored', async () => {
    // GIVEN
    const fake = await deployed();
    const rendered = fake.templates.get('kfek-payments') as {
      index_patterns: string[];
      template: { settings: { index: Record<string, unknown> } };
    };
    const edited = structuredClone(rendered);
    edited.index_patterns.push('foo-*');
    edited.template.settings.index.default_pipeline = '_none';
    await send(fake.client(), { method: 'PUT', path: '/_index_template/kfek-payments', body: edited });
    // WHEN
    const report = await provisionOpenSearch(fake.client(), spec);
    // THEN
    const step = report.steps.find((s) => s.step === 'index template kfek-payments');
    expect(step).toMatchObject({ status: 'updated', impact: 'drift' });
    expect(step?.detail).toContain('index_patterns + foo-*');
    expect(step?.detail).toContain('template.settings.index.default_pipeline _none -> kfek-logs-document-id');
    expect(fake.templates.get('kfek-payments')).toEqual(rendered);
  });

  test.each([
    ['without _meta', (meta: Record<string, unknown>) => ({ ...meta, _meta: undefined })],
    [
      'with _meta.managed_by changed',
      (t: Record<string, unknown>) => ({ ...t, _meta: { managed_by: 'someone' } }),
    ],
  ])('a kfek template %s deploys without a clash with itself, and is restored', async (_label, edit) => {
    // GIVEN
    const fake = await deployed();
    const rendered = fake.templates.get('kfek-logs') as Record<string, unknown>;
    fake.templates.set('kfek-logs', JSON.parse(JSON.stringify(edit(rendered))) as Record<string, unknown>);
    // WHEN
    const report = await provisionOpenSearch(fake.client(), spec);
    // THEN
    expect(report.steps.find((s) => s.step === 'index template kfek-logs')).toMatchObject({
      status: 'updated',
      impact: 'drift',
    });
    expect(fake.templates.get('kfek-logs')).toEqual(rendered);
  });

  test("a template that lost its mark on a domain without a record is kfek's by name: no clash either", async () => {
    const fake = await deployed();
    fake.hidden.clear();
    const rendered = fake.templates.get('kfek-logs') as Record<string, unknown>;
    fake.templates.set('kfek-logs', { ...rendered, _meta: {} });
    await expect(provisionOpenSearch(fake.client(), spec)).resolves.toBeDefined();
    expect(fake.templates.get('kfek-logs')).toEqual(rendered);
  });

  test.each([
    [
      'an error notification',
      { error_notification: { destination: { slack: { url: 'https://hooks.example' } } } },
    ],
    ['another ISM template priority', { ism_template: [{ index_patterns: ['logs-*'], priority: 1 }] }],
    ['no description', { description: '' }],
  ])('an ISM policy given %s by hand is restored and reported as drift', async (_label, edit) => {
    const fake = await deployed();
    const stored = fake.policies.get('kfek-logs-retention');
    if (stored === undefined) throw new Error('no policy');
    fake.policies.set('kfek-logs-retention', { ...stored, policy: { ...stored.policy, ...edit } });
    const report = await provisionOpenSearch(fake.client(), spec);
    const step = report.steps.find((s) => s.step === 'ISM policy kfek-logs-retention');
    expect(step).toMatchObject({ status: 'updated', impact: 'drift' });
    expect(step?.detail).toMatch(/edited by hand, restored to the profile's: \S/);
  });

  test('an edited pipeline is restored and reported as drift with what changed', async () => {
    const fake = await deployed();
    fake.pipelines.set('kfek-logs-document-id', { description: 'hand', processors: [] });
    const report = await provisionOpenSearch(fake.client(), spec);
    const step = report.steps.find((s) => s.step === 'ingest pipeline kfek-logs-document-id');
    expect(step).toMatchObject({ status: 'updated', impact: 'drift' });
    expect(step?.detail).toMatch(/edited by hand, restored to the profile's: .*description hand ->/);
  });

  test('kfek doctor shows the drift with what changed before the deploy', async () => {
    const fake = await deployed();
    await editPolicy(fake, 'kfek-payments-retention', '2d');
    const plan = planDomain(spec, await readDomainFor(fake.client(), spec), { now: Date.now() });
    expect(plan.changes.find((c) => c.name === 'kfek-payments-retention')).toMatchObject({
      impact: 'drift',
      detail: expect.stringContaining('min_index_age 2d -> 30d') as string,
    });
  });
});

describe('a domain deployed before the record', () => {
  test('adopts its own objects, by the names kfek renders, and no copy', async () => {
    // GIVEN an older kfek deployed spec (marks, no record), then a team copied kfek_reader and kfek's template
    const fake = await deployed();
    fake.hidden.clear();
    await copyRole(fake, 'kfek_reader', 'kfek_team_reader');
    const template = fake.templates.get('kfek-logs') as Record<string, unknown>;
    fake.templates.set('kfek-team', { ...template, index_patterns: ['team-*'], priority: 9 });
    // WHEN the route is removed (its indices are gone), with the previous spec passed as the custom resource does
    fake.indices.delete('payments-2026-11-24');
    const without = resolveOpenSearchSpec({
      ...input,
      routes: [],
      keepRetiredHours: 0,
    });
    const report = await provisionOpenSearch(fake.client(), without, { previous: spec });
    // THEN the route's objects, adopted by name, are pruned; the copies stay
    expect(report.steps.filter((s) => s.status === 'deleted').map((s) => s.step)).toEqual(
      expect.arrayContaining([
        'index template kfek-payments',
        'ISM policy kfek-payments-retention',
        'security role kfek_payments_reader',
      ]),
    );
    expect(fake.roles.has('kfek_team_reader')).toBe(true);
    expect(fake.mappings.get('kfek_team_reader')).toEqual({
      backend_roles: ['team-a'],
      hosts: [],
      users: [],
    });
    expect(fake.templates.has('kfek-team')).toBe(true);
    const record = fake.hidden.get(registryIndex('kfek'))?.get('objects')?.source as { objects: object };
    expect(Object.keys(record.objects).filter((k) => k.includes('team'))).toEqual([]);
  });
});

describe('hand edits on a domain deployed before the record', () => {
  test('what differs from both the profile and the previous deploy is drift; a profile change is not', async () => {
    // GIVEN an older kfek's deploy (no record), its policy and route template edited by hand, marks kept
    const fake = await deployed();
    fake.hidden.clear();
    await editPolicy(fake, 'kfek-logs-retention', '1d');
    const template = fake.templates.get('kfek-payments') as { index_patterns: string[] };
    fake.templates.set('kfek-payments', {
      ...template,
      index_patterns: [...template.index_patterns, 'foo-*'],
    });
    // WHEN the profile also changes the payments retention
    const next = resolveOpenSearchSpec({ ...input, routes: [{ ...PAYMENTS, retentionDays: 60 }] });
    const report = await provisionOpenSearch(fake.client(), next, { previous: spec });
    // THEN
    const impacts = Object.fromEntries(report.steps.map((s) => [s.step, s.impact]));
    expect(impacts['ISM policy kfek-logs-retention']).toBe('drift');
    expect(impacts['index template kfek-payments']).toBe('drift');
    expect(impacts['ISM policy kfek-payments-retention']).toBe('keeps-longer');
  });
});

describe("writing kfek's record", () => {
  test('fails when another deploy changed the record during this one, naming the record and what to do', async () => {
    // GIVEN a deploy that adds a route, and another that writes the record between this one's read and write
    const fake = await deployed();
    const wider = resolveOpenSearchSpec({
      ...input,
      routes: [PAYMENTS, { ...PAYMENTS, name: 'search', indexStem: 'search' }],
    });
    const client = fake.client();
    let raced = false;
    const racing: OpenSearchHttpClient = {
      baseUrl: client.baseUrl,
      async request(request) {
        const answer = await client.request(request);
        const docs = fake.hidden.get(registryIndex('kfek'));
        const doc = docs?.get('objects');
        if (
          !raced &&
          request.method === 'GET' &&
          request.path.startsWith('/.kfek-registry/') &&
          doc !== undefined
        ) {
          raced = true;
          docs?.set('objects', { ...doc, seqNo: doc.seqNo + 100 });
        }
        return answer;
      },
    };
    // WHEN
    const deploy = provisionOpenSearch(racing, wider);
    // THEN it stops before changing anything; run again, it deploys
    await expect(deploy).rejects.toThrow(OpenSearchRegistryConflictError);
    expect(fake.roles.has('kfek_search_reader')).toBe(false);
    await expect(provisionOpenSearch(racing, wider)).resolves.toBeDefined();
    expect(fake.roles.has('kfek_search_reader')).toBe(true);
  });

  test('fails when the record index cannot be created, with what OpenSearch said', async () => {
    const fake = new FakeOpenSearch({ ...ALL });
    const client = fake.client();
    const refusing: OpenSearchHttpClient = {
      baseUrl: client.baseUrl,
      request: (request) =>
        request.method === 'PUT' && request.path === '/.kfek-registry'
          ? Promise.resolve({ status: 400, body: {}, text: '{"error":"index.hidden is not allowed"}' })
          : client.request(request),
    };
    await expect(provisionOpenSearch(refusing, spec)).rejects.toThrow(
      /Creating kfek's record index \.kfek-registry failed \(400: .*index\.hidden is not allowed/,
    );
  });
});

describe('where the record is written', () => {
  test('every request on the record goes to the paths registryPaths names (what the IAM policy must allow)', async () => {
    const fake = await deployed();
    const paths = fake.requests
      .map((r) => r.request.path.split('?')[0])
      .filter((p) => p.startsWith('/.kfek-registry'));
    expect(new Set(paths)).toEqual(new Set(registryPaths('kfek').map((p) => `/${p}`)));
  });
});
