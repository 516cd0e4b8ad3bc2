/**
 * The shipped retention function (lambda/serverless-retention/handler.ts, issue 42) on the Serverless conformance
 * stand-in in front of the real node, with the data access policy kfek deploys: it deletes kfek's expired indices and
 * leaves fresh ones, look-alikes and foreign indices; a refused request or an unreachable collection is a failure it
 * counts in `RetentionFailures` (which the alarm watches) without throwing.
 */
import { retentionEnvironment, RetentionMetricName } from '../../../core/contracts/retention-env';
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { collectionAccessPolicy } from '../../../core/opensearch/serverless-access';
import type { StandinIdentity } from '../../../scripts/serverless/standin';
import {
  STANDIN_REGION,
  standinClient,
  standinIdentity,
  useServerlessStandin,
} from '../../helpers/serverless-standin';
import { type RetentionHandlerRun, runRetentionHandlerAs, seedIndices } from '../../helpers/retention-run';

jest.setTimeout(180_000);

const RETAINER = standinIdentity('retention');
const WRITER = standinIdentity('writer');
const ADMIN = standinIdentity('admin');
const POLICY = collectionAccessPolicy({
  collection: 'kfek-standin',
  writers: [WRITER.principal],
  retainers: [RETAINER.principal],
  admins: [ADMIN.principal],
  families: ['logs-*', 'payments-*'].map((indexPattern) => ({ indexPattern, readers: [] })),
});
const FAMILIES = [
  { stem: 'logs', retentionDays: 14 },
  { stem: 'payments', retentionDays: 30 },
];
const DUE = '2026-11-29T12:00:00Z';

/** Runs the handler module as `who`, with the environment the Search stack writes, and the EMF metrics it printed. */
function runAs(who: StandinIdentity, collectionUrl: string): Promise<RetentionHandlerRun> {
  const env = retentionEnvironment({
    collectionUrl,
    families: FAMILIES,
    indexRotation: 'OneDay',
    metricsNamespace: 'kfek',
  });
  return runRetentionHandlerAs(who, env, STANDIN_REGION, DUE);
}

describe('the retention function on the Serverless stand-in', () => {
  const { node, standin } = useServerlessStandin({
    identities: [RETAINER, WRITER, ADMIN],
    accessPolicy: POLICY,
  });
  const admin = (): OpenSearchHttpClient => standinClient(standin().url, ADMIN);

  const seed = (names: readonly string[]): Promise<void> =>
    seedIndices(admin(), names, '2026-10-01T00:00:00.000Z');
  const indices = async (): Promise<string[]> => {
    const listed = await node.client().request({ method: 'GET', path: '/_cat/indices?format=json&h=index' });
    return (listed.body as { index: string }[]).map((r) => r.index).sort();
  };

  test("deletes kfek's expired indices and leaves fresh, look-alike and foreign ones", async () => {
    // GIVEN
    const kept = [
      'logs-2026-11-28',
      'payments-2026-11-10',
      'logs-restored',
      'logs-2026-10-01-restored',
      'logsbackup-2026-10-01',
      'other-2026-10-01',
    ];
    await seed(['logs-2026-10-01', 'logs-2026-11-14', 'payments-2026-10-01', ...kept]);
    // WHEN
    const { run, metrics } = await runAs(RETAINER, standin().url);
    // THEN logs-2026-11-14 ended 11-15, 14 days before the run; payments keeps 30 days
    expect(run).toEqual({
      deleted: ['logs-2026-10-01', 'logs-2026-11-14', 'payments-2026-10-01'],
      failed: [],
    });
    expect(metrics).toEqual({ [RetentionMetricName.DeletedIndices]: 3, [RetentionMetricName.Failures]: 0 });
    expect(await indices()).toEqual(expect.arrayContaining(kept));
    expect(await indices()).not.toEqual(expect.arrayContaining(['logs-2026-10-01']));
  });

  test('fails when its deletion is refused: counted, reported, not thrown', async () => {
    // GIVEN an expired index, and a role the policy does not let delete (the indexer's)
    await seed(['logs-2026-09-01']);
    // WHEN
    const { run, metrics } = await runAs(WRITER, standin().url);
    // THEN
    expect(run.deleted).toEqual([]);
    expect(run.failed).toEqual([
      { index: 'logs-2026-09-01', reason: expect.stringMatching(/HTTP 403.*aoss:DeleteIndex/) },
    ]);
    expect(metrics[RetentionMetricName.Failures]).toBe(1);
    expect(await indices()).toContain('logs-2026-09-01');
  });

  test('fails when the listing is refused or the collection cannot be reached: one failure, nothing deleted', async () => {
    // GIVEN a signer the stand-in does not know, and an address nothing listens on
    const stranger = standinIdentity('stranger');
    // WHEN
    const refused = await runAs(stranger, standin().url);
    const unreachable = await runAs(RETAINER, 'http://127.0.0.1:1');
    // THEN
    for (const { run, metrics } of [refused, unreachable]) {
      expect(run.deleted).toEqual([]);
      expect(run.failed).toEqual([{ index: '*', reason: expect.any(String) }]);
      expect(metrics[RetentionMetricName.Failures]).toBe(1);
    }
    expect(refused.run.failed[0].reason).toMatch(/HTTP 403/);
    expect(await indices()).toContain('logs-2026-09-01');
  });
});
