/**
 * The indices a domain holds (domain-state.ts): the visible ones, and for kfek's the dynamic settings it sets and
 * ISM's view of them.
 */
import { DYNAMIC_SETTINGS, type IndexState, type ManagedState } from './domain-state';
import type { OpenSearchHttpClient } from './http';
import { call, list, record } from './provision-client';
import { chunkNames, isAddressable, names as nameList, requestPath } from './request-path';

/** `GET _cat/indices` of the visible indices: kfek's are among them, told apart by stem. */
export async function readIndices(client: OpenSearchHttpClient): Promise<IndexState[]> {
  const listed = await call(
    client,
    { method: 'GET', path: '/_cat/indices?format=json&h=index,creation.date,pri,rep&expand_wildcards=open' },
    [200],
  );
  return list(listed.body)
    .map((row) => record(row))
    .filter(
      (row) =>
        typeof row.index === 'string' && !row.index.startsWith('.') && isAddressable('index', row.index),
    )
    .map((row) => ({
      name: String(row.index),
      creationDate: Number(row['creation.date']),
      primaryShards: Number(row.pri),
      replicas: Number(row.rep),
      settings: {},
    }));
}

/**
 * Adds the dynamic settings and ISM's view to the named indices, in lists that keep each request line under
 * OpenSearch's 4 KiB (each name goes into the URL; a 200-character stem makes 20 names too many).
 */
export async function describeIndices(
  client: OpenSearchHttpClient,
  indices: readonly IndexState[],
  wanted: ReadonlySet<string>,
  ism: boolean,
): Promise<IndexState[]> {
  const names = indices.filter((i) => wanted.has(i.name)).map((i) => i.name);
  const settings = new Map<string, Record<string, string>>();
  const managed = new Map<string, ManagedState>();
  const settingsPaths = chunkNames('index', names, (chunk) =>
    requestPath([chunk, '_settings', nameList('setting', DYNAMIC_SETTINGS)], { flat_settings: true }),
  );
  for (const path of settingsPaths) {
    const got = await call(client, { method: 'GET', path }, [200]);
    for (const [index, value] of Object.entries(record(got.body))) {
      const flat = record(record(value).settings);
      settings.set(index, Object.fromEntries(Object.entries(flat).map(([k, v]) => [k, String(v)])));
    }
  }
  const explainPaths = ism
    ? chunkNames('index', names, (chunk) => requestPath(['_plugins', '_ism', 'explain', chunk]))
    : [];
  for (const path of explainPaths) {
    const explained = await call(client, { method: 'GET', path }, [200]);
    for (const [index, value] of Object.entries(record(explained.body))) {
      if (index === 'total_managed_indices') continue;
      const v = record(value);
      const policyId = v['index.plugins.index_state_management.policy_id'] ?? v.policy_id;
      const seqNo = v.policy_seq_no;
      const state = record(v.state).name;
      managed.set(index, {
        policyId: typeof policyId === 'string' ? policyId : null,
        ...(typeof seqNo === 'number' ? { policySeqNo: seqNo } : {}),
        ...(typeof state === 'string' ? { state } : {}),
      });
    }
  }
  return indices.map((i) => {
    const m = managed.get(i.name);
    return { ...i, settings: settings.get(i.name) ?? i.settings, ...(m === undefined ? {} : { managed: m }) };
  });
}
