/**
 * Issue 42: a document marked with a route that left the profile, on a Serverless collection (the conformance
 * stand-in in front of the real node, the data access policy enforced). Team A's `orders` on `a-orders`, then a
 * profile that gives `orders` to team C's `c-orders` and keeps team A's stem under another route name (the writer may
 * write only the profile's families). The collection's provisioner records the pairs it served in kfek's record;
 * the shipped indexer reads them as the writer (RouteSource, signed port, `KFEK_ROUTE_RECORD`) and its deliverBatch
 * puts (orders, a-orders) in `a-orders-<day>` and (orders, c-orders) in `c-orders-<day>`, never in the default index.
 */
import { type Clock, SYSTEM_CLOCK } from '../../../core/clock';
import { IndexerEnvVar } from '../../../core/contracts/indexer-env';
import { indexNameFor } from '../../../core/contracts/index-naming';
import type { DeliveryTarget } from '../../../core/delivery/document-plan';
import { nestedStems } from '../../../core/opensearch/families';
import { registryIndex } from '../../../core/opensearch/registry';
import { routeRecordPath } from '../../../core/opensearch/route-record';
import { profileRouteTable } from '../../../core/opensearch/route-table';
import { collectionAccessPolicy } from '../../../core/opensearch/serverless-access';
import { provisionCollection } from '../../../core/opensearch/serverless-provision';
import { indexFamilies, type OpenSearchSpec } from '../../../core/opensearch/spec';
import { signedBulkPort } from '../../../lambda/indexer/adapters';
import { deliverBatch, type DeliveryResult } from '../../../lambda/indexer/deliver';
import { readIndexerEnv } from '../../../lambda/indexer/env';
import { signedRouteSource } from '../../../lambda/indexer/routes';
import { markedOrder, ordersMove } from '../../helpers/route-move';
import {
  STANDIN_REGION,
  standinClient,
  standinIdentity,
  useServerlessStandin,
} from '../../helpers/serverless-standin';

jest.setTimeout(180_000);

const ADMIN = standinIdentity('provisioner');
const WRITER = standinIdentity('indexer');
const HOUR = 3_600_000;
const DEPLOYED_A = Date.parse('2026-11-28T08:00:00.000Z');
const ARRIVAL = Date.now();
const { teamA, teamC } = ordersMove({ indexPrefix: 'logs', keepRetiredHours: 24 }, [
  { name: 'orderhistory', indexStem: 'a-orders', retentionDays: 7 },
]);
const fixedClock = (at: number): Clock => ({ now: () => at, sleep: SYSTEM_CLOCK.sleep });

/** The indexer's target for `spec` as env.ts builds it from the Pipeline stack's KFEK_ROUTES: its routes only. */
const profileTarget = (spec: OpenSearchSpec): DeliveryTarget => ({
  prefix: 'logs',
  rotation: 'OneDay',
  shards: 1,
  table: profileRouteTable(spec.routes),
  nested: nestedStems(
    'logs',
    spec.routes.map((r) => r.indexStem),
  ),
});

describe('retired routes on a collection: recorded by the provisioner, read by the indexer (stand-in)', () => {
  const { node, standin: running } = useServerlessStandin({
    identities: [ADMIN, WRITER],
    // The policy the Search stack renders for team C's profile (its families only).
    accessPolicy: collectionAccessPolicy({
      collection: 'kfek-standin',
      writers: [WRITER.principal],
      admins: [ADMIN.principal],
      families: indexFamilies(teamC).map((f) => ({ indexPattern: f.indexPattern, readers: [] })),
      recordIndex: registryIndex(teamC.name),
    }),
  });
  const admin = (): ReturnType<typeof standinClient> => standinClient(running().url, ADMIN);

  beforeAll(async () => {
    await provisionCollection(admin(), teamA, { clock: fixedClock(DEPLOYED_A) });
    await provisionCollection(admin(), teamC, { clock: fixedClock(DEPLOYED_A + HOUR) });
  });

  /** The shipped delivery code, signed as the writer, with the route table `routes` gives; the warnings it logged. */
  async function deliver(
    texts: readonly string[],
    record: string | undefined,
  ): Promise<{ result: DeliveryResult; warnings: string[] }> {
    const env = readIndexerEnv({
      [IndexerEnvVar.Endpoint]: running().url,
      [IndexerEnvVar.FailedDocumentsBucket]: 'failed-bucket',
      [IndexerEnvVar.IndexPrefix]: 'logs',
      [IndexerEnvVar.IndexRotation]: 'OneDay',
      [IndexerEnvVar.IndexShards]: '1',
      [IndexerEnvVar.SigningService]: 'aoss',
      ...(record === undefined ? {} : { [IndexerEnvVar.RouteRecord]: record }),
      AWS_REGION: STANDIN_REGION,
    });
    const signing = {
      endpoint: env.endpoint,
      region: env.region,
      service: env.signingService,
      credentials: () => Promise.resolve(WRITER),
    };
    const warnings: string[] = [];
    const log = { warn: (message: string): void => void warnings.push(message) };
    const routes = signedRouteSource({ ...env, target: profileTarget(teamC) }, signing, SYSTEM_CLOCK, log);
    const records = texts.map((text, i) => ({
      sequenceNumber: String(i),
      data: Buffer.from(text),
      arrival: ARRIVAL,
    }));
    const result = await deliverBatch(
      records,
      { ...env, target: await routes.target() },
      {
        bulk: signedBulkPort(signing),
        store: { put: () => Promise.reject(new Error('no document may be refused here')) },
        clock: SYSTEM_CLOCK,
        random: Math.random,
        objectName: () => 'unused',
        log,
      },
      Date.now() + 60_000,
    );
    // Serverless has no _refresh (the stand-in refuses it): the test refreshes the node behind it.
    await fetch(`${node.node().url}/_refresh`, { method: 'POST' });
    return { result, warnings };
  }

  /** Where the node stored the documents of `ids` (by their `cloudwatch.id`): id -> [index, kfek.unknownRoute]. */
  async function whereStored(ids: readonly string[]): Promise<Map<string, [string, unknown]>> {
    const found = await admin().request({
      method: 'POST',
      path: '/logs-*,a-orders-*,c-orders-*/_search',
      body: { size: 1000, query: { match_all: {} } },
    });
    const hits = (found.body as { hits: { hits: { _index: string; _source: Record<string, unknown> }[] } })
      .hits.hits;
    return new Map(
      hits
        .filter((h) => ids.includes((h._source.cloudwatch as { id: string }).id))
        .map((h) => {
          const cw = h._source.cloudwatch as { id: string };
          const kfek = h._source.kfek as Record<string, unknown> | undefined;
          return [cw.id, [h._index, kfek?.unknownRoute]];
        }),
    );
  }

  const day = (stem: string): string => indexNameFor(stem, 'OneDay', new Date(ARRIVAL));

  test("each team's marked document lands in its own team's index, neither in the default index", async () => {
    // GIVEN documents team A's and team C's transforms marked `orders`
    const texts = [markedOrder('kept-a', 'a-orders', ARRIVAL), markedOrder('kept-c', 'c-orders', ARRIVAL)];
    // WHEN the indexer reads the record and delivers them
    const { result, warnings } = await deliver(texts, registryIndex(teamC.name));
    // THEN
    expect(warnings).toEqual([]);
    expect(result.failures).toEqual([]);
    expect(running().refusals).toEqual([]);
    const stored = await whereStored(['kept-a', 'kept-c']);
    expect(stored.get('kept-a')).toEqual([day('a-orders'), undefined]);
    expect(stored.get('kept-c')).toEqual([day('c-orders'), undefined]);
  });

  test("fails when the record is not read: the profile routes apply, team A's document goes to the default index", async () => {
    // GIVEN a record index the writer may not read (the data access policy names kfek's record only)
    const before = running().refusals.length;
    // WHEN
    const { result, warnings } = await deliver(
      [markedOrder('unread-a', 'a-orders', ARRIVAL)],
      '.other-registry',
    );
    // THEN the read was refused, the indexer said so, and the document is kept in the default index, marked
    expect(
      running()
        .refusals.slice(before)
        .map((r) => r.status),
    ).toEqual([403]);
    expect(warnings).toEqual([
      expect.stringMatching(/could not read the collection's recorded route pairs.*HTTP 403/),
    ]);
    expect(result.failures).toEqual([]);
    expect((await whereStored(['unread-a'])).get('unread-a')).toEqual([day('logs'), 'orders']);
  });

  test('with no record configured the indexer asks nothing and the profile routes apply', async () => {
    // GIVEN
    const before = running().refusals.length;
    // WHEN
    const { warnings } = await deliver([markedOrder('none-a', 'a-orders', ARRIVAL)], undefined);
    // THEN
    expect(warnings).toEqual([]);
    expect(running().refusals.slice(before)).toEqual([]);
    expect((await whereStored(['none-a'])).get('none-a')).toEqual([day('logs'), 'orders']);
  });

  test('a deploy past the grace period keeps a retired pair while its stem has indices; an unchanged one writes nothing', async () => {
    // GIVEN team A's stem has an index (a document delivered to it)
    await deliver([markedOrder('late-a', 'a-orders', ARRIVAL)], registryIndex(teamC.name));
    const before = running().refusals.length;
    const read = async (): Promise<{ _seq_no: number; _source: { pairs: unknown[] } }> =>
      (await admin().request({ method: 'GET', path: routeRecordPath(registryIndex(teamC.name)) })).body as {
        _seq_no: number;
        _source: { pairs: unknown[] };
      };
    // WHEN team C's profile is deployed again two days later (keepRetiredHours 24), twice
    await provisionCollection(admin(), teamC, { clock: fixedClock(DEPLOYED_A + 48 * HOUR) });
    const first = await read();
    await provisionCollection(admin(), teamC, { clock: fixedClock(DEPLOYED_A + 49 * HOUR) });
    const second = await read();
    // THEN the stand-in took the index listing, the pair is kept with when it left, and nothing was rewritten
    expect(running().refusals.slice(before)).toEqual([]);
    expect(first._source.pairs).toContainEqual({
      name: 'orders',
      stem: 'a-orders',
      retiredAt: new Date(DEPLOYED_A + HOUR).toISOString(),
    });
    expect(second._seq_no).toBe(first._seq_no);
  });
});
