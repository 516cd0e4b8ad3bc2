/**
 * Reconcile finds an event in every index kfek keeps for it, on the real node: after a stem change (or a route
 * removed while its indices are kept) the old stem's documents are counted and found, where a search of the
 * profile's current stems alone calls them missing. The stems come from kfek's index templates (their `_meta`
 * ledger), and a stem read from the domain that is no stem (`*`, a list) never widens the search.
 */
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
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

test('counts and finds the events of a retired stem kept in the domain; never a stem that is no stem', async () => {
  // GIVEN the profile's stem `logs` and a retired stem `orders-a` (its template still there with its ledger), a
  // forged kfek template whose ledger names `*`, and someone else's template
  const client = opensearch.client();
  const templates: [string, string, Record<string, unknown>][] = [
    ['kfek-logs', 'logs-*', { managed_by: 'kfek', kfek_stem: 'logs' }],
    [
      'kfek-orders-a',
      'orders-a-*',
      { managed_by: 'kfek', kfek_stem: 'orders-a', kfek_retired_at: '2026-11-27T09:00:00Z' },
    ],
    ['kfek-forged', 'forged-*', { managed_by: 'kfek', kfek_stem: '*' }],
    ['teamx', 'teamx-*', { managed_by: 'teamx', kfek_stem: 'teamx' }],
  ];
  for (const [i, [name, pattern, meta]] of templates.entries()) {
    await put(client, `/_index_template/${name}`, {
      index_patterns: [pattern],
      priority: 200 + i,
      template: { settings: { number_of_replicas: 0 }, mappings: MAPPINGS },
      _meta: meta,
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
  const kept = await keptStems({ client, meter, current: ['logs'] });
  const side = searchSide({ client, stems: kept.stems, rotation: 'OneDay', meter });
  const currentOnly = searchSide({ client, stems: ['logs'], rotation: 'OneDay', meter });
  const counts = await side.countPerMinute([GROUP], T0, T0 + 2 * 60_000);
  const found = await side.find([
    { id: old, stem: 'logs', at: T0 + 30_000 },
    { id: now, stem: 'logs', at: T0 + 90_000 },
  ]);

  // THEN
  expect(kept.stems).toEqual(['logs', 'orders-a']);
  expect(kept.note).toBeUndefined();
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
