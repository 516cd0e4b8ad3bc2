/**
 * Reconcile finds an event in every index kfek keeps for it, on the real node: after a stem change (or a route
 * removed while its indices are kept) the old stem's documents are counted and found, where a search of the
 * profile's current stems alone calls them missing. The stems come from kfek's index templates (their `_meta`
 * ledger), read only from the templates kfek's own record (`.kfek-registry`, written by the provisioner) holds with
 * the content it wrote: a hand-made `kfek-evil` or a copy of kfek's template whose ledger names another team's stem is
 * ignored and named in a warning (main read both), and a stem that is no stem (`*`, a list) never widens the search.
 */
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { type OpenSearchSpec, resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { documentIdFor } from '../../../core/opensearch/ingest-pipeline';
import { keptStems } from '../../../core/reconcile/kept-stems';
import { RequestMeter } from '../../../core/reconcile/ports';
import { searchSide } from '../../../core/reconcile/search-side';
import { useOpenSearchNode } from '../../helpers/opensearch';
import { GROUP, T0 } from '../../helpers/reconcile-fakes';

const opensearch = useOpenSearchNode();

const MAPPINGS = {
  properties: {
    '@timestamp': { type: 'date' },
    cloudwatch: { properties: { logGroup: { type: 'keyword' }, owner: { type: 'keyword' } } },
    kfek: { properties: { joined: { type: 'integer' } } },
  },
};

async function put(client: OpenSearchHttpClient, path: string, body: unknown): Promise<void> {
  const response = await client.request({ method: 'PUT', path, body });
  expect([200, 201]).toContain(response.status);
}

function doc(id: string, at: number): Record<string, unknown> {
  return {
    '@timestamp': new Date(at).toISOString(),
    message: `line ${id}`,
    cloudwatch: { logGroup: GROUP.logGroup, owner: GROUP.owner, logStream: 's1', id },
  };
}

const spec = (ordersStem: string): OpenSearchSpec =>
  resolveOpenSearchSpec({
    indexPrefix: 'logs',
    indexTemplate: { shards: 1, replicas: 0 },
    retention: { deleteAfterDays: 7 },
    access: { firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose' },
    routes: [{ name: 'orders', indexStem: ordersStem, retentionDays: 30, readerBackendRoles: ['team-a'] }],
  });

test('counts and finds the events of a retired stem kfek recorded; never a stem a forged or copied template names', async () => {
  // GIVEN the route orders moved from orders-a to orders-b by two deploys (orders-a's index kept, so its template
  // stays, with its ledger, in kfek's record), a hand-made kfek-evil whose ledger names another team's stem, a copy
  // of kfek's own template under another name, a forged ledger naming `*`, and someone else's template
  const client = opensearch.client();
  await provisionOpenSearch(client, spec('orders-a'));
  await put(client, '/orders-a-2026-11-27', {});
  await provisionOpenSearch(client, spec('orders-b'));
  const own = (await client.request({ method: 'GET', path: '/_index_template/kfek-orders-a' })).body as {
    index_templates: [{ index_template: Record<string, unknown> }];
  };
  const copy = own.index_templates[0].index_template;
  const templates: [string, Record<string, unknown>][] = [
    [
      'kfek-evil',
      { index_patterns: ['evil-*'], priority: 301, _meta: { managed_by: 'kfek', kfek_stem: 'teamx' } },
    ],
    [
      'kfek-orders-copy',
      {
        ...copy,
        index_patterns: ['copy-*'],
        priority: 302,
        _meta: { ...(copy._meta as object), kfek_stem: 'teamx' },
      },
    ],
    [
      'kfek-forged',
      { index_patterns: ['forged-*'], priority: 303, _meta: { managed_by: 'kfek', kfek_stem: '*' } },
    ],
    [
      'teamx',
      { index_patterns: ['teamx-*'], priority: 304, _meta: { managed_by: 'teamx', kfek_stem: 'teamx' } },
    ],
  ];
  for (const [name, body] of templates) {
    await put(client, `/_index_template/${name}`, {
      template: { settings: { number_of_replicas: 0 }, mappings: MAPPINGS },
      ...body,
    });
  }
  // one event in the current stem's index, one (of the window before the change) in the retired stem's
  const now = documentIdFor(GROUP.logGroup, 's1', 'now');
  const old = documentIdFor(GROUP.logGroup, 's1', 'old');
  await put(client, `/logs-2026-11-27/_doc/${now}?refresh=true`, doc('now', T0 + 90_000));
  await put(client, `/orders-a-2026-11-27/_doc/${old}?refresh=true`, doc('old', T0 + 30_000));
  await put(client, `/teamx-2026-11-27/_doc/${old}x?refresh=true`, doc('teamx', T0 + 30_000));
  const meter = new RequestMeter();

  // WHEN
  const kept = await keptStems({ client, meter, current: ['logs', 'orders-b'] });
  const side = searchSide({ client, stems: kept.stems, rotation: 'OneDay', meter });
  const currentOnly = searchSide({ client, stems: ['logs'], rotation: 'OneDay', meter });
  const counts = await side.countPerMinute([GROUP], T0, T0 + 2 * 60_000);
  const found = await side.find([
    { id: old, stem: 'logs', at: T0 + 30_000 },
    { id: now, stem: 'logs', at: T0 + 90_000 },
  ]);

  // THEN the retired stem kfek recorded is searched, no stem a template kfek did not record names, and each such
  // `kfek-*` template is named in a warning (`teamx` is no `kfek-*` template: not listed at all)
  expect(kept.stems).toEqual(['logs', 'orders-b', 'orders-a']);
  expect(kept.note).toBeUndefined();
  expect(kept.ignored.map((line) => /^index template (\S+): ignored: /.exec(line)?.[1]).sort()).toEqual([
    'kfek-evil',
    'kfek-forged',
    'kfek-orders-copy',
  ]);
  expect([...(counts.events.get(GROUP.logGroup) ?? new Map<number, number>())]).toEqual([
    [T0, 1],
    [T0 + 60_000, 1],
  ]);
  expect(found.get(old)).toMatchObject({ index: 'orders-a-2026-11-27', stem: 'orders-a' });
  expect(found.get(now)).toMatchObject({ index: 'logs-2026-11-27', stem: 'logs' });
  // where live put the group's events at each time: the heal compares it with where it would put them now
  expect(await side.stemAt(GROUP, T0 + 60_000)).toBe('orders-a');
  expect(await side.stemAt(GROUP, T0 + 120_000)).toBe('logs');
  expect(await side.stemAt(GROUP, T0)).toBeUndefined();
  // (what main searched: the profile's current stem only, where the old event is not)
  expect(
    (await currentOnly.countPerMinute([GROUP], T0, T0 + 60_000)).events.get(GROUP.logGroup)?.get(T0),
  ).toBeUndefined();
});
