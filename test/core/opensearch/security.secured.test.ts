/**
 * kfek's access control on a REAL security plugin: OpenSearch 2.11.1 with opensearch-security 2.11.1.0 over HTTPS
 * (test/helpers/secured-opensearch.ts), provisioned by core/opensearch/provision.ts with a spec like the shipped
 * one, used by users whose backend roles are what kfek maps: the Firehose role's ARN, a readers' group, a route's
 * readers. The same roles and mappings are checked against FakeOpenSearch in provision.test.ts; this file proves the
 * real API accepts them and that they let through exactly what they should.
 *
 * One file on purpose, past the usual size: every test here needs the same provisioned secured node, and a second
 * file would start a second one (9-14 s each).
 */
import { defaultAuditConfig } from '../../../core/opensearch/audit';
import type { HttpResponse, OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch, type ProvisionReport } from '../../../core/opensearch/provision';
import { buildReaderRole, buildRouteReaderRole, buildWriterRole } from '../../../core/opensearch/security';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { SECURED_OPENSEARCH_VERSION } from '../../../scripts/opensearch-node';
import { bulkIndex } from '../../helpers/opensearch';
import { useSecuredOpenSearchNode } from '../../helpers/secured-opensearch';

const FIREHOSE_ROLE = 'arn:aws:iam::123456789012:role/kfek-firehose';
const spec = resolveOpenSearchSpec({
  indexPrefix: 'logs',
  // One node: replicas would leave every index yellow.
  indexTemplate: { replicas: 0 },
  access: {
    firehoseRoleArn: FIREHOSE_ROLE,
    readerBackendRoles: ['kfek-readers'],
    adminBackendRoles: ['kfek-admins'],
  },
  routes: [
    { name: 'payments', indexStem: 'payments', retentionDays: 30, readerBackendRoles: ['payments-readers'] },
    { name: 'search', indexStem: 'team-search', retentionDays: 7, readerBackendRoles: ['search-readers'] },
  ],
});
const DAY = '2026-11-25';
const INDEX = `logs-${DAY}`;

let eventId = 0;
/** A document as the transform writes it, marked with a route when given. */
function documentFor(message: string, route?: string): Record<string, unknown> {
  return {
    '@timestamp': `${DAY}T09:00:00.000Z`,
    message,
    cloudwatch: { id: String(++eventId), logGroup: '/kfek/secured', logStream: 's1', owner: '123456789012' },
    ...(route === undefined ? {} : { kfek: { route } }),
  };
}

interface BulkItem {
  readonly [action: string]: {
    readonly _index: string;
    readonly status: number;
    readonly error?: { type: string };
  };
}

function bulkItems(response: HttpResponse): BulkItem[keyof BulkItem][] {
  expect(response.status).toBe(200);
  return (response.body as { items: BulkItem[] }).items.map((item) => Object.values(item)[0]);
}

async function get(client: OpenSearchHttpClient, path: string): Promise<Record<string, unknown>> {
  const response = await client.request({ method: 'GET', path });
  expect({ path, status: response.status }).toEqual({ path, status: 200 });
  return response.body as Record<string, unknown>;
}

async function searchStatus(client: OpenSearchHttpClient, pattern: string): Promise<number> {
  const response = await client.request({ method: 'POST', path: `/${pattern}/_search`, body: { size: 0 } });
  return response.status;
}

async function hitCount(client: OpenSearchHttpClient, pattern: string): Promise<number> {
  const response = await client.request({ method: 'POST', path: `/${pattern}/_search`, body: { size: 0 } });
  expect({ pattern, status: response.status }).toEqual({ pattern, status: 200 });
  return (response.body as { hits: { total: { value: number } } }).hits.total.value;
}

/** Polls `check` every 200 ms until it answers true, for at most `timeoutMillis`; fails naming `what`. */
async function eventually(
  what: string,
  check: () => Promise<boolean>,
  timeoutMillis = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMillis;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMillis} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The security objects kfek owns or maps, as the API answers them. */
async function securityState(admin: OpenSearchHttpClient): Promise<unknown> {
  const roles = await get(admin, '/_plugins/_security/api/roles');
  return {
    roles: Object.fromEntries(Object.entries(roles).filter(([name]) => name.startsWith('kfek_'))),
    mappings: await get(admin, '/_plugins/_security/api/rolesmapping'),
    audit: await get(admin, '/_plugins/_security/api/audit'),
  };
}

function statusOf(report: ProvisionReport, step: string): string | undefined {
  return report.steps.find((s) => s.step === step)?.status;
}

describe('kfek access control on OpenSearch 2.19.4 with the security plugin', () => {
  const os = useSecuredOpenSearchNode({
    users: [
      { name: 'firehose', backendRoles: [FIREHOSE_ROLE] },
      { name: 'reader', backendRoles: ['kfek-readers'] },
      { name: 'payments-reader', backendRoles: ['payments-readers'] },
      { name: 'colleague-admin', backendRoles: ['kfek-admins'] },
      { name: 'stranger', backendRoles: ['mapped-to-nothing'] },
    ],
  });
  let first: ProvisionReport;

  beforeAll(async () => {
    first = await provisionOpenSearch(os.client('admin'), spec);
    // The day's indices of the default route and both routes, created by the writer through the templates (and the
    // pipeline, which moves routed documents), so the readers have something to find.
    const items = bulkItems(
      await bulkIndex(os.client('firehose'), INDEX, [
        documentFor('plain one'),
        documentFor('pay one', 'payments'),
        documentFor('search one', 'search'),
      ]),
    );
    const placed = JSON.stringify(items.map((i) => [i._index, i.status]));
    const expected = JSON.stringify([
      [INDEX, 201],
      [`payments-${DAY}`, 201],
      [`team-search-${DAY}`, 201],
    ]);
    if (placed !== expected) throw new Error(`The writer's first bulk placed ${placed}, not ${expected}`);
  }, 120_000);

  describe('the provisioner', () => {
    test('applies every role, mapping and the audit configuration, and the real API stores them as sent', async () => {
      // THEN the security plugin was found and every security step went through
      expect(first.version).toBe(SECURED_OPENSEARCH_VERSION);
      expect(first.features.security).toBe(true);
      const security = first.steps.filter((s) => /^(security role|role mapping|security audit)/.test(s.step));
      expect(security.map((s) => [s.step, s.status])).toEqual([
        ['security role kfek_writer', 'created'],
        ['security role kfek_reader', 'created'],
        ['security role kfek_payments_reader', 'created'],
        ['security role kfek_search_reader', 'created'],
        ['role mapping kfek_writer', 'created'],
        ['role mapping kfek_reader', 'created'],
        ['role mapping kfek_payments_reader', 'created'],
        ['role mapping kfek_search_reader', 'created'],
        ['role mapping opensearch_dashboards_user', 'created'],
        // The node maps its own admin to both; kfek's admins are added beside it, nobody is removed.
        ['role mapping all_access', 'updated'],
        ['role mapping security_manager', 'updated'],
        // The plugin ships audit.yml with audit logging on and the same categories off.
        ['security audit logging (on)', 'unchanged'],
      ]);

      const admin = os.client('admin');
      const roles = await get(admin, '/_plugins/_security/api/roles');
      for (const [name, body] of [
        ['kfek_writer', buildWriterRole(spec)],
        ['kfek_reader', buildReaderRole(spec)],
        ['kfek_payments_reader', buildRouteReaderRole(spec.routes[0])],
      ] as const) {
        expect(roles[name]).toMatchObject({
          description: body.description,
          cluster_permissions: body.cluster_permissions,
          // The API adds the empty `fls` and `masked_fields` kfek does not send.
          index_permissions: body.index_permissions.map((p): unknown => expect.objectContaining(p)),
          tenant_permissions: body.tenant_permissions,
        });
      }
      const mappings = await get(admin, '/_plugins/_security/api/rolesmapping');
      expect(mappings).toMatchObject({
        kfek_writer: { backend_roles: [FIREHOSE_ROLE] },
        kfek_reader: { backend_roles: ['kfek-readers'] },
        kfek_payments_reader: { backend_roles: ['payments-readers'] },
        opensearch_dashboards_user: { backend_roles: ['kfek-readers', 'payments-readers', 'search-readers'] },
        all_access: { backend_roles: ['admin', 'kfek-admins'] },
        security_manager: { backend_roles: ['admin', 'kfek-admins'] },
      });

      // AND each user gets the roles kfek meant, as the plugin resolves them
      const rolesOf = async (user: string): Promise<string[]> => {
        const roles = (await get(os.client(user), '/_plugins/_security/authinfo')).roles as string[];
        return [...roles].sort();
      };
      expect(await rolesOf('firehose')).toEqual(['kfek_writer']);
      expect(await rolesOf('reader')).toEqual(['kfek_reader', 'opensearch_dashboards_user']);
      expect(await rolesOf('payments-reader')).toEqual([
        'kfek_payments_reader',
        'opensearch_dashboards_user',
      ]);
      expect(await rolesOf('colleague-admin')).toEqual(['all_access', 'security_manager']);
      expect(await rolesOf('stranger')).toEqual([]);
    });

    test('re-applying changes nothing: the API answers the same objects, and no mapping or audit setting is written', async () => {
      // GIVEN
      const admin = os.client('admin');
      const before = await securityState(admin);

      // WHEN
      const again = await provisionOpenSearch(admin, spec);

      // THEN roles, mappings and the audit configuration are compared with what the API answers and left alone
      // (sameRole in security.ts), and the API answers the same objects as before
      const security = again.steps.filter((s) => /^(security role|role mapping|security audit)/.test(s.step));
      expect(security.filter((s) => s.step.startsWith('security role'))).toHaveLength(4);
      expect(security.filter((s) => s.status !== 'unchanged')).toEqual([]);
      expect(await securityState(admin)).toEqual(before);
    });

    test("the audit API accepts kfek's configuration turned off, on, and as kfek writes it to a domain with none; refusals are audited", async () => {
      const admin = os.client('admin');
      const audit = async (): Promise<Record<string, unknown>> =>
        (await get(admin, '/_plugins/_security/api/audit')).config as Record<string, unknown>;

      // WHEN audit logging is turned off, then on again
      const off = await provisionOpenSearch(admin, { ...spec, auditLogs: false });
      expect(statusOf(off, 'security audit logging (off)')).toBe('updated');
      expect(await audit()).toMatchObject({ enabled: false });
      const on = await provisionOpenSearch(admin, spec);
      expect(statusOf(on, 'security audit logging (on)')).toBe('updated');
      expect(await audit()).toMatchObject({
        enabled: true,
        audit: {
          disabled_rest_categories: ['AUTHENTICATED', 'GRANTED_PRIVILEGES'],
          disabled_transport_categories: ['AUTHENTICATED', 'GRANTED_PRIVILEGES'],
        },
      });

      // AND the whole default configuration kfek sends when a domain has none stored is accepted as it is
      const put = await admin.request({
        method: 'PUT',
        path: '/_plugins/_security/api/audit/config',
        body: defaultAuditConfig(),
      });
      expect(put.status).toBe(200);
      expect(await audit()).toEqual(defaultAuditConfig());
      const settled = await provisionOpenSearch(admin, spec);
      expect(statusOf(settled, 'security audit logging (on)')).toBe('unchanged');

      // THEN a refused request lands in the audit log (the node's security-auditlog-* indices)
      const refused = await os.client('stranger').request({ method: 'GET', path: `/${INDEX}/_search` });
      expect(refused.status).toBe(403);
      await eventually('the refusal in the audit log', async () => {
        const found = await admin.request({
          method: 'POST',
          path: '/security-auditlog-*/_search',
          body: {
            size: 0,
            // The plugin's audit indices are dynamically mapped: text fields, so match rather than term.
            query: {
              bool: {
                filter: [
                  { match: { audit_category: 'MISSING_PRIVILEGES' } },
                  { match: { audit_request_effective_user: 'stranger' } },
                ],
              },
            },
          },
        });
        return (
          found.status === 200 && (found.body as { hits: { total: { value: number } } }).hits.total.value > 0
        );
      });
    });
  });

  describe('the writer role (what Firehose is mapped to)', () => {
    test("bulk-writes the day's index, created through the template with kfek's pipeline", async () => {
      // WHEN
      const items = bulkItems(await bulkIndex(os.client('firehose'), INDEX, [documentFor('two')]));

      // THEN
      expect(items.map((i) => i.status)).toEqual([201]);
      const settings = await get(os.client('admin'), `/${INDEX}/_settings`);
      expect(settings[INDEX]).toMatchObject({
        settings: { index: { default_pipeline: spec.names.ingestPipeline, number_of_replicas: '0' } },
      });
    });

    test("answers the checks Firehose makes of its destination, on the cluster and on kfek's indices", async () => {
      // The GETs security.ts lists from the Firehose guide, `_stats` and `_all/_settings` (every index) included.
      const writer = os.client('firehose');
      for (const path of [
        '/_cluster/stats',
        '/_nodes/stats',
        '/_stats',
        '/_all/_settings',
        '/logs-*/_stats',
        '/logs-*/_settings',
        `/${INDEX}/_mapping`,
      ]) {
        const response = await writer.request({ method: 'GET', path });
        expect({ path, status: response.status }).toEqual({ path, status: 200 });
      }
    });

    test('gets 403 on other indices, on deleting, on reading, on templates and on the security API', async () => {
      // GIVEN an index outside kfek's patterns that exists (the admin made it)
      const admin = os.client('admin');
      expect((await admin.request({ method: 'PUT', path: '/other-app' })).status).toBe(200);
      const writer = os.client('firehose');

      // WHEN / THEN writing elsewhere, new index or existing, is refused per document
      for (const index of [`other-${DAY}`, 'other-app']) {
        const items = bulkItems(await bulkIndex(writer, index, [documentFor('elsewhere')]));
        expect(items.map((i) => [i.status, i.error?.type])).toEqual([[403, 'security_exception']]);
      }
      // AND deleting a document or an index, reading, and changing templates or security are refused
      const bulkDelete = await writer.request({
        method: 'POST',
        path: '/_bulk',
        body: `${JSON.stringify({ delete: { _index: INDEX, _id: 'any', routing: 'any' } })}\n`,
        headers: { 'content-type': 'application/x-ndjson' },
      });
      expect(bulkItems(bulkDelete).map((i) => i.status)).toEqual([403]);
      for (const request of [
        { method: 'DELETE', path: `/${INDEX}` },
        { method: 'POST', path: '/logs-*/_search', body: { size: 0 } },
        { method: 'GET', path: `/${INDEX}/_doc/any?routing=any` },
        { method: 'PUT', path: '/_index_template/kfek-logs', body: { index_patterns: ['logs-*'] } },
        { method: 'GET', path: '/_plugins/_security/api/roles' },
        {
          method: 'PUT',
          path: '/_plugins/_security/api/rolesmapping/all_access',
          body: { users: ['firehose'] },
        },
      ] as const) {
        const response = await writer.request(request);
        expect({ ...request, status: response.status }).toEqual({ ...request, status: 403 });
      }
    });
  });

  describe('the readers', () => {
    test("the default reader searches logs-* and is refused writes and the routes' indices", async () => {
      const reader = os.client('reader');
      expect(await hitCount(reader, 'logs-*')).toBeGreaterThanOrEqual(1);

      const items = bulkItems(await bulkIndex(reader, INDEX, [documentFor('from a reader')]));
      expect(items.map((i) => i.status)).toEqual([403]);
      expect((await reader.request({ method: 'DELETE', path: `/${INDEX}` })).status).toBe(403);
      expect(await searchStatus(reader, 'payments-*')).toBe(403);
      expect(await searchStatus(reader, 'team-search-*')).toBe(403);
    });

    test("a route's reader reads its own indices and gets 403 on another team's and on the default ones", async () => {
      const payments = os.client('payments-reader');
      expect(await hitCount(payments, 'payments-*')).toBe(1);
      expect(await searchStatus(payments, 'team-search-*')).toBe(403);
      expect(await searchStatus(payments, `team-search-${DAY}`)).toBe(403);
      expect(await searchStatus(payments, 'logs-*')).toBe(403);
      const items = bulkItems(await bulkIndex(payments, `payments-${DAY}`, [documentFor('from a reader')]));
      expect(items.map((i) => i.status)).toEqual([403]);
    });

    test('a user mapped to no kfek role reads nothing', async () => {
      const stranger = os.client('stranger');
      for (const pattern of ['logs-*', 'payments-*', 'team-search-*']) {
        expect(await searchStatus(stranger, pattern)).toBe(403);
      }
    });
  });
});
