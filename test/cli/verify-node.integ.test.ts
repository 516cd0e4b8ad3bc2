/**
 * `kfek verify` against the real local OpenSearch node with the shipped index template: proves that the phrase
 * query on the analysed `message` field finds every layout the generator writes once the transform core has
 * shaped it into a document, and nothing of another run.
 */
import { toDocument } from '../../core/transform/document';
import { generateEvents } from '../../core/log-generator';
import { provisionOpenSearch } from '../../core/opensearch/provision';
import { resolveOpenSearchSpec } from '../../core/opensearch/spec';
import { verifyRun } from '../../cli/verify';
import { bulkIndex, useOpenSearchNode } from '../helpers/opensearch';

const os = useOpenSearchNode();
const spec = resolveOpenSearchSpec({
  indexPrefix: 'logs',
  // One node: replicas would leave every index yellow.
  indexTemplate: { shards: 1, replicas: 0, totalFieldsLimit: 1000 },
  retention: { deleteAfterDays: 7 },
  access: { firehoseRoleArn: 'arn:aws:iam::123456789012:role/firehose' },
});
const T0 = Date.UTC(2026, 10, 23, 9, 0, 0);
const SOURCE = { logGroup: '/kfek/app', logStream: 'kfek-cli/x', owner: '123456789012' };

/**
 * The documents the transform core makes of a generated run (the shape Firehose indexes). Event ids are unique per
 * run, as CloudWatch's are: the index's default pipeline derives `_id` from group, stream and event id.
 */
function documentsOf(runId: string, count: number, seed: number): unknown[] {
  return generateEvents(count, { runId, seed }, (i) => T0 + i).map((event) =>
    toDocument({ id: `${runId}-${event.seq}`, timestamp: event.timestamp, message: event.message }, SOURCE),
  );
}

test('finds every event of the run in every layout, and none of a run whose id starts the same', async () => {
  // GIVEN the shipped template, run "r-real" (skipping seq 17) and run "r-real-2" in the same daily index
  await provisionOpenSearch(os.client(), spec);
  const run = documentsOf('r-real', 600, 1).filter((_, seq) => seq !== 17);
  const other = documentsOf('r-real-2', 200, 2);
  const bulk = await bulkIndex(os.client(), 'logs-2026-11-23', [...run, ...other]);
  expect((bulk.body as { errors: boolean }).errors).toBe(false);

  // WHEN
  const result = await verifyRun(os.client(), {
    runId: 'r-real',
    indexPattern: 'logs-*',
    expected: 600,
    timeoutInMillis: 0,
    pageSize: 250,
  });

  // THEN
  expect(result).toEqual(
    expect.objectContaining({
      delivered: 599,
      missing: 1,
      missingSample: [17],
      duplicates: 0,
      complete: false,
    }),
  );
  const otherResult = await verifyRun(os.client(), { runId: 'r-real-2', expected: 200, timeoutInMillis: 0 });
  expect(otherResult).toEqual(expect.objectContaining({ delivered: 200, missing: 0, complete: true }));
});
