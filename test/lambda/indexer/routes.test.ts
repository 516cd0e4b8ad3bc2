/** When the indexer reads the pipeline's route table (lambda/indexer/routes.ts), on a fake clock. */
import type { DeliveryTarget } from '../../../core/delivery/document-plan';
import { buildIngestPipeline } from '../../../core/opensearch/ingest-pipeline';
import { profileRouteTable, routeTableOf } from '../../../core/opensearch/route-table';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import type { BulkResponse, PipelinePort } from '../../../lambda/indexer/ports';
import { ROUTES_REFRESH_MILLIS, ROUTES_RETRY_MILLIS, RouteSource } from '../../../lambda/indexer/routes';

const spec = resolveOpenSearchSpec({ indexPrefix: 'logs' });
const NAME = spec.names.ingestPipeline;
const base: DeliveryTarget = { prefix: 'logs', rotation: 'OneDay', shards: 1, table: profileRouteTable([]) };
const kept = routeTableOf([{ name: 'orders', stem: 'a-orders', retiredAt: '2026-11-29T10:00:00Z' }], 0, 0);
const ok: BulkResponse = {
  status: 200,
  text: JSON.stringify({ [NAME]: buildIngestPipeline(spec, { prefix: 'logs', table: kept }) }),
};

function source(answers: Array<BulkResponse | Error>, named = true) {
  let now = 0;
  const reads: string[] = [];
  const warnings: string[] = [];
  const port: PipelinePort = {
    get: (name) => {
      reads.push(name);
      const next = answers.shift() ?? ok;
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
  };
  const routes = new RouteSource({
    base,
    ...(named ? { source: { kind: 'pipeline', name: NAME, port } as const } : {}),
    clock: { now: () => now, sleep: () => Promise.resolve() },
    log: { warn: (message) => warnings.push(message) },
  });
  return { routes, reads, warnings, advance: (millis: number) => (now += millis) };
}

describe('RouteSource', () => {
  test("uses the pipeline's table from the first batch on, and reads it again only after the refresh time", async () => {
    // GIVEN
    const { routes, reads, warnings, advance } = source([ok]);
    // WHEN / THEN
    expect((await routes.target()).table).toEqual(kept);
    advance(ROUTES_REFRESH_MILLIS - 1);
    await routes.target();
    expect(reads).toHaveLength(1);
    advance(1);
    await routes.target();
    expect(reads).toHaveLength(2);
    expect(warnings).toEqual([]);
  });

  test.each([
    ['refuses it', { status: 403, text: 'no' }, /HTTP 403/],
    ['does not answer', new Error('ECONNREFUSED'), /no answer: Error: ECONNREFUSED/],
    ['answers text that is not JSON', { status: 200, text: '<html>' }, /not JSON/],
    ['has no kfek route table', { status: 200, text: '{}' }, /has no kfek route table/],
  ])(
    "fails when the domain %s: the profile's routes, one warning, a new read after the retry time",
    async (_what, answer, reason) => {
      // GIVEN
      const { routes, reads, warnings, advance } = source([answer]);
      // WHEN
      const first = await routes.target();
      advance(ROUTES_RETRY_MILLIS - 1);
      await routes.target();
      // THEN
      expect(first).toBe(base);
      expect(reads).toHaveLength(1);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(reason);
      advance(1);
      expect((await routes.target()).table).toEqual(kept);
    },
  );

  test('never reads without a pipeline name (a Serverless collection, or the variable unset)', async () => {
    const { routes, reads } = source([], false);
    expect(await routes.target()).toBe(base);
    expect(reads).toEqual([]);
  });
});
