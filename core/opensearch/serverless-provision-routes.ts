/**
 * The (route name, stem) pairs a collection's provisioner has served (issue 42, docs/serverless.md "Routes that left
 * the profile"): a collection has no ingest pipeline to hold the route table a domain keeps, so the provisioner keeps
 * the pairs in kfek's own record (`.<name>-registry`, document `routes`), which only it writes (STYLE 22), and the
 * indexer reads them there (lambda/indexer/routes.ts) and builds its table with the same rule as the domain's
 * pipeline (route-table.ts `routeTableOf`). A document a transform marked (orders, a-orders) before a deploy gave
 * `orders` to team C's `c-orders` then lands in team A's `a-orders` indices, never in the default index, which
 * another team reads.
 *
 * What it keeps: every pair of the profile (current), and each pair that left it, with when it left, while documents
 * marked with it can still arrive (`keepRetiredHours`) or its stem still has indices (a replay of failed documents
 * days later). A pair the profile takes back is current again.
 */
import { call, record } from './provision-client';
import type { OpenSearchHttpClient } from './http';
import { OpenSearchRegistryConflictError, registryIndex } from './registry';
import { name as one, requestPath } from './request-path';
import { ROUTES_DOC, type RouteRecord, routeRecordFrom, routeRecordPath } from './route-record';
import type { RoutePair } from './route-table';
import type { OpenSearchSpec } from './spec';

/**
 * The pairs after a deploy of `spec` at `now`: the profile's, current; each recorded pair the profile no longer has,
 * retired when it first left; retired pairs past the grace period only while `hasIndices(stem)` says so.
 */
export async function nextRoutePairs(
  before: readonly RoutePair[],
  spec: OpenSearchSpec,
  now: number,
  hasIndices: (stem: string) => Promise<boolean>,
): Promise<RoutePair[]> {
  const current = spec.routes.map((r) => ({ name: r.route, stem: r.indexStem, retiredAt: undefined }));
  const isCurrent = (p: RoutePair): boolean => current.some((c) => c.name === p.name && c.stem === p.stem);
  const graceMillis = spec.keepRetiredHours * 3_600_000;
  const retired: RoutePair[] = [];
  for (const p of before) {
    if (isCurrent(p) || retired.some((r) => r.name === p.name && r.stem === p.stem)) continue;
    const retiredAt = p.retiredAt ?? new Date(now).toISOString();
    if (now - Date.parse(retiredAt) < graceMillis || (await hasIndices(p.stem))) {
      retired.push({ name: p.name, stem: p.stem, retiredAt });
    }
  }
  return [...current, ...retired];
}

const samePairs = (a: readonly RoutePair[], b: readonly RoutePair[]): boolean =>
  JSON.stringify(a) === JSON.stringify(b);

/**
 * Records the pairs a deploy of `spec` serves in the collection's record (after registry.ts created its index);
 * writes nothing when they did not change.
 * @throws OpenSearchRegistryConflictError when another deploy changed the document meanwhile
 */
export async function recordRoutePairs(
  client: OpenSearchHttpClient,
  spec: OpenSearchSpec,
  now: number,
): Promise<RouteRecord> {
  const index = registryIndex(spec.name);
  const got = await call(client, { method: 'GET', path: routeRecordPath(index) }, [200, 404]);
  const before = got.status === 200 ? routeRecordFrom(got.body) : undefined;
  const hasIndices = async (stem: string): Promise<boolean> => {
    // `GET _cat/indices/<pattern>` is one of the two APIs Serverless lists for indices (serverless-retention.ts).
    const listed = await call(
      client,
      {
        method: 'GET',
        path: requestPath(['_cat', 'indices', one('index pattern', `${stem}-*`)], { format: 'json' }),
      },
      [200, 404],
    );
    return Array.isArray(listed.body) && listed.body.length > 0;
  };
  const pairs = await nextRoutePairs(before?.pairs ?? [], spec, now, hasIndices);
  const next = { pairs, keepRetiredHours: spec.keepRetiredHours };
  if (
    before !== undefined &&
    samePairs(before.pairs, pairs) &&
    before.keepRetiredHours === next.keepRetiredHours
  ) {
    return before;
  }
  const answer = record(got.body);
  const query =
    got.status === 200
      ? { if_seq_no: Number(answer._seq_no), if_primary_term: Number(answer._primary_term) }
      : { op_type: 'create' };
  const put = await call(
    client,
    {
      method: 'PUT',
      path: requestPath([one('index', index), '_doc', ROUTES_DOC], query),
      // JSON has no undefined: a current pair is written with `retiredAt: null`.
      body: { kfek: spec.name, ...next, pairs: pairs.map((p) => ({ ...p, retiredAt: p.retiredAt ?? null })) },
    },
    [200, 201, 409],
  );
  if (put.status === 409) throw new OpenSearchRegistryConflictError(index, put.text, ROUTES_DOC);
  return next;
}
