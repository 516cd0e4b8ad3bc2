/**
 * Ownership of roles by kfek's record (issue 39) on the secured OpenSearch 2.19.4 node (the real security plugin),
 * ISM stood in: a copy of a kfek role made through the API keeps its `kfek:` description and its name may start with
 * `kfek_`, yet no deploy touches it or its mapping, also when the profile changes and kfek prunes; a hand edit of a
 * kfek role is reverted and reported with what changed; a deploy that changes nothing writes nothing. One node for
 * the file; the tests run in order on it.
 */
import type { HttpRequest, OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch, type ProvisionReport } from '../../../core/opensearch/provision';
import {
  resolveOpenSearchSpec,
  type OpenSearchSpecInput,
  type OpenSearchSpec,
} from '../../../core/opensearch/spec';
import { withFakeIsm, type NodeWithIsm } from '../../helpers/ism-on-node';
import { useSecuredOpenSearchNode } from '../../helpers/secured-opensearch';

const input: OpenSearchSpecInput = {
  indexPrefix: 'svc',
  indexTemplate: { shards: 1, replicas: 0 },
  retention: { deleteAfterDays: 14 },
  access: {
    firehoseRoleArn: 'arn:aws:iam::123456789012:role/kfek-firehose',
    readerBackendRoles: ['svc-readers'],
  },
  routes: [
    { name: 'billing', indexStem: 'billing', retentionDays: 30, readerBackendRoles: ['billing-team'] },
  ],
};
const spec = resolveOpenSearchSpec(input);
const COPIES = ['kfek_team_reader', 'kfek_billing_reader_copy', 'kfek_audit_reader'];

async function send(client: OpenSearchHttpClient, request: HttpRequest): Promise<Record<string, unknown>> {
  const answer = await client.request(request);
  if (answer.status >= 300)
    throw new Error(`${request.method} ${request.path}: ${answer.status} ${answer.text}`);
  return answer.body as Record<string, unknown>;
}

const role = async (client: OpenSearchHttpClient, name: string): Promise<Record<string, unknown>> =>
  (await send(client, { method: 'GET', path: `/_plugins/_security/api/roles/${name}` }))[name] as Record<
    string,
    unknown
  >;

const changed = (report: ProvisionReport): string[] =>
  report.steps.filter((s) => !['unchanged', 'skipped'].includes(s.status)).map((s) => s.step);

describe("kfek's roles are the ones its record names, on the secured node", () => {
  const os = useSecuredOpenSearchNode({ users: [{ name: 'team-member', backendRoles: ['team-a'] }] });
  let domain: NodeWithIsm;
  let previous: OpenSearchSpec | undefined;
  async function deploy(next: OpenSearchSpec): Promise<ProvisionReport> {
    const report = await provisionOpenSearch(domain.client, next, previous === undefined ? {} : { previous });
    previous = next;
    return report;
  }

  beforeAll(async () => {
    domain = withFakeIsm(os.client('admin'), () => Date.now());
    await deploy(spec);
  });

  test('a second deploy writes nothing: roles read back from the plugin compare equal', async () => {
    expect(changed(await deploy(spec)).filter((s) => s !== 'security audit logging (on)')).toEqual([]);
  });

  test('copies of kfek roles made through the API, description kept, survive deploys with their mappings', async () => {
    // GIVEN each copy of a kfek reader role, with the API's answer as its body and a team mapped to it
    const admin = os.client('admin');
    for (const [copy, from] of COPIES.map((c, i) => [c, i === 1 ? 'kfek_billing_reader' : 'kfek_reader'])) {
      const { reserved: _r, hidden: _h, static: _s, ...body } = await role(admin, from);
      await send(admin, { method: 'PUT', path: `/_plugins/_security/api/roles/${copy}`, body });
      await send(admin, {
        method: 'PUT',
        path: `/_plugins/_security/api/rolesmapping/${copy}`,
        body: { backend_roles: ['team-a'] },
      });
    }
    // WHEN kfek deploys the same profile, then one without the route (it prunes the route's reader)
    const reports = [await deploy(spec), await deploy(resolveOpenSearchSpec({ ...input, routes: [] }))];
    // THEN kfek's route reader is gone; every copy and its mapping are as the team left them
    expect(reports[1].steps.filter((s) => s.status === 'deleted').map((s) => s.step)).toContain(
      'security role kfek_billing_reader',
    );
    for (const copy of COPIES) {
      expect(String((await role(admin, copy)).description)).toMatch(/^kfek:/);
      const mapping = await send(admin, {
        method: 'GET',
        path: `/_plugins/_security/api/rolesmapping/${copy}`,
      });
      expect((mapping[copy] as { backend_roles: string[] }).backend_roles).toEqual(['team-a']);
    }
    expect(reports.flatMap(changed).filter((s) => COPIES.some((c) => s.includes(c)))).toEqual([]);
  });

  test('a hand edit of kfek_reader is reverted and reported with what changed', async () => {
    // GIVEN someone added document-level security to kfek_reader, its description kept
    const admin = os.client('admin');
    const { reserved: _r, hidden: _h, static: _s, ...body } = await role(admin, 'kfek_reader');
    const permissions = (body.index_permissions as Array<Record<string, unknown>>).map((p) => ({
      ...p,
      dls: '{"term":{"level":"ERROR"}}',
    }));
    await send(admin, {
      method: 'PUT',
      path: '/_plugins/_security/api/roles/kfek_reader',
      body: { ...body, index_permissions: permissions },
    });
    // WHEN
    const report = await deploy(previous ?? spec);
    // THEN
    const step = report.steps.find((s) => s.step === 'security role kfek_reader');
    expect(step).toMatchObject({ status: 'updated', impact: 'drift' });
    expect(step?.detail).toContain('index_permissions[0].dls {"term":{"level":"ERROR"}} -> ""');
    expect(JSON.stringify(await role(admin, 'kfek_reader'))).not.toContain('ERROR');
  });
});
