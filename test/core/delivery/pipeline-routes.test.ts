/** The route table read back from the pipeline the provisioner writes (core/delivery/pipeline-routes.ts). */
import { pipelineRoutesOf } from '../../../core/delivery/pipeline-routes';
import { buildIngestPipeline } from '../../../core/opensearch/ingest-pipeline';
import { routeTableOf } from '../../../core/opensearch/route-table';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';

const spec = resolveOpenSearchSpec({
  indexPrefix: 'logs',
  routes: [
    { name: 'orders', indexStem: 'c-orders', retentionDays: 7 },
    { name: 'audit', indexStem: 'logs-audit', retentionDays: 7 },
  ],
});
const NAME = spec.names.ingestPipeline;
const now = Date.parse('2026-11-29T12:00:00Z');

describe('pipelineRoutesOf', () => {
  test.each([
    [
      'retired pairs kfek keeps (a name moved to another stem, a removed route)',
      routeTableOf(
        [
          { name: 'orders', stem: 'c-orders', retiredAt: undefined },
          { name: 'orders', stem: 'a-orders', retiredAt: '2026-11-29T10:00:00Z' },
          { name: 'billing', stem: 'billing', retiredAt: '2026-11-20T10:00:00Z' },
        ],
        now,
        24 * 3_600_000,
      ),
      ['logs-audit'],
    ],
    ['no route at all', routeTableOf([], now, 0), []],
  ])('reads back the table and nested stems the provisioner wrote: %s', (_what, table, nested) => {
    // GIVEN the pipeline body the provisioner PUTs, as GET _ingest/pipeline/<name> answers it
    const answer = { [NAME]: buildIngestPipeline(spec, { prefix: 'logs', table, nested }) };
    // WHEN
    const read = pipelineRoutesOf(JSON.parse(JSON.stringify(answer)), NAME);
    // THEN
    expect(read).toEqual({ table, nested });
  });

  test.each([
    ['another pipeline', { other: buildIngestPipeline(spec) }],
    ['a pipeline without kfek script', { [NAME]: { processors: [{ set: { field: 'x', value: 1 } }] } }],
    [
      'a table of the wrong shape',
      { [NAME]: { processors: [{ script: { tag: 'kfek-route-and-id', params: { routes: { a: 1 } } } }] } },
    ],
    ['no answer body', null],
  ])('fails when the answer holds %s: undefined, so the profile routes apply', (_what, answer) => {
    expect(pipelineRoutesOf(answer, NAME)).toBeUndefined();
  });
});
