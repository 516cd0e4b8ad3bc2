/**
 * Day-2 operations on the direct path (issue 41: "Reconcile, heal, replay, backfill and events-window work the same
 * on both"), end to end with real components only: moto, the real node provisioned by core/opensearch, the shipped
 * transform under the event-source loop and the SHIPPED lambda/indexer handler under a second one on the events
 * stream (what `npm start -- --delivery direct` runs). The indexer keeps refused documents in moto's bucket, in
 * Firehose's layout, as it does in AWS; every command runs in-process as `npx kfek` runs it. Each test ends with
 * every event searchable exactly once. The Firehose side of each is tested in replay.test.ts, backfill.test.ts,
 * reconcile.test.ts and replay-events-window.test.ts.
 */
import { CreateLogGroupCommand, PutSubscriptionFilterCommand } from '@aws-sdk/client-cloudwatch-logs';
import { minuteOf } from '../../core/reconcile/engine';
import type { EventVerdict } from '../../core/reconcile/model';
import type { ReconcileRun } from '../../cli/reconcile/service';
import type { LocalPipeline } from '../../scripts/local/pipeline';
import type { OutgoingLogEvent } from '../../scripts/local/sender';
import { countDistinctEvents, countDocuments } from '../../scripts/local/summary';
import type { CliOutcome } from '../helpers/cli-run';
import { useDirectStack } from '../helpers/direct-stack';
import { testTempDir } from '../helpers/temp-dirs';

const APP = '/kfek/direct-ops/app';
/** Subscribed by the test only after its history was written (the backfill's case). */
const HISTORY = '/kfek/direct-ops/history';
const PROFILE = 'directops';
const STEP_TIMEOUT_MILLIS = 60_000;
const stack = useDirectStack(PROFILE, {
  logGroup: APP,
  transform: { timeoutSeconds: 10, batchSize: 10, retryAttempts: 20, maxBatchingWindowSeconds: 0 },
});
const kfek = stack.kfek;

const pipeline = (): LocalPipeline => stack.get().pipeline;
const settle = (): Promise<void> => pipeline().waitUntilSettled(STEP_TIMEOUT_MILLIS);

/** `n` events of one stream of `group`, one per `stepMillis` from `base`, each message from `message`. */
function eventsOf(
  group: string,
  stream: string,
  n: number,
  base: number,
  stepMillis = 1000,
  message = (i: number): string => JSON.stringify({ level: 'INFO', message: `${stream} ${i}` }),
): OutgoingLogEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    logGroupName: group,
    logStreamName: stream,
    timestamp: base + i * stepMillis,
    message: message(i),
  }));
}

/** Distinct events and documents of some log streams, after a refresh. */
async function searchable(...streams: string[]): Promise<{ events: number; documents: number }> {
  const { search, spec } = stack.get();
  await search.json('POST', `/${spec.delivery.indexPattern}/_refresh`);
  return {
    events: await countDistinctEvents(search, spec.delivery.indexPattern, streams),
    documents: await countDocuments(search, spec.delivery.indexPattern, streams),
  };
}

const keyOf = (e: OutgoingLogEvent): string => `${e.logGroupName}|${e.logStreamName}|${e.timestamp}`;

describe('day-2 operations on the direct path', () => {
  test(
    'kfek replay: documents the node refused (kept by the indexer in the bucket) come back searchable once',
    async () => {
      // GIVEN today's index refusing writes (403 per document: final, so the indexer keeps every one in the bucket)
      const { search, spec } = stack.get();
      const index = spec.delivery.indexFor(new Date());
      await search.json('PUT', `/${index}/_settings`, { 'index.blocks.write': true });
      const stream = `refused-${Date.now()}`;
      const failedBefore = pipeline().delivery.snapshot().documentsFailed;
      try {
        await pipeline().send(eventsOf(APP, stream, 40, Date.now() - 60_000));
        await settle();
      } finally {
        await search.json('PUT', `/${index}/_settings`, { 'index.blocks.write': null });
      }
      expect(pipeline().delivery.snapshot().documentsFailed - failedBefore).toBe(40);
      expect(await searchable(stream)).toEqual({ events: 0, documents: 0 });
      const replay = (): Promise<CliOutcome> =>
        kfek(
          'replay',
          '--bucket',
          pipeline().resources.deadLetterBucket,
          '--kind',
          'failed-document',
          '--reason',
          '403',
          '--events-stream',
          pipeline().resources.eventsStreamArn,
        );

      // WHEN they are replayed to the events stream, then replayed again
      const first = await replay();
      await settle();
      const afterFirst = await searchable(stream);
      const second = await replay();
      await settle();

      // THEN every event is searchable once, and the second replay overwrote (by id, in the arrival's index)
      expect(first.err).not.toMatch(/kfek: /);
      expect(first.code).toBe(0);
      expect(first.out).toMatch(/^failed-document +40 +40 /m);
      expect(afterFirst).toEqual({ events: 40, documents: 40 });
      expect(second.code).toBe(0);
      expect(await searchable(stream)).toEqual({ events: 40, documents: 40 });
    },
    3 * STEP_TIMEOUT_MILLIS,
  );

  test(
    'kfek backfill: history from before the subscription plus live events in its window, each searchable once',
    async () => {
      // GIVEN 300 events written before the log group had a subscription, then the subscription and 30 live events
      const { clients, resources } = pipeline();
      const { spec } = stack.get();
      const now = Date.now();
      await clients.logs.send(new CreateLogGroupCommand({ logGroupName: HISTORY }));
      await pipeline().send(eventsOf(HISTORY, 'history', 300, now - 30 * 60_000, 3000));
      await clients.logs.send(
        new PutSubscriptionFilterCommand({
          logGroupName: HISTORY,
          filterName: 'kfek-to-raw-stream',
          filterPattern: '',
          destinationArn: resources.rawStreamArn,
          roleArn: `arn:aws:iam::${spec.accountId}:role/kfek-local-cwl-to-kinesis`,
        }),
      );
      await pipeline().send(eventsOf(HISTORY, 'live', 30, now - 60_000));
      // WHEN the window is backfilled (the live events then come twice: by the subscription and by the backfill)
      const job = await kfek(
        'backfill',
        '--log-group',
        HISTORY,
        '--since',
        '2h',
        '--until',
        new Date().toISOString(),
        '--raw-stream',
        resources.rawStreamArn,
        '--state-dir',
        testTempDir('kfek-direct-backfill-'),
        '--json',
      );
      await settle();
      // THEN
      expect(job.err).not.toMatch(/kfek: /);
      expect(job.code).toBe(0);
      expect(JSON.parse(job.out)).toMatchObject({ counts: { written: 330, failed: 0 } });
      expect(await searchable('history', 'live')).toEqual({ events: 330, documents: 330 });
    },
    3 * STEP_TIMEOUT_MILLIS,
  );

  test(
    'kfek reconcile: events deleted from the index are missing, refused ones kept in the bucket; --heal heals',
    async () => {
      // GIVEN events of minutes 0-2 (40 to 38 minutes old), all indexed; then one stream's documents deleted
      const { search, spec } = stack.get();
      const base = minuteOf(Date.now()) - 40 * 60_000;
      const healthy = eventsOf(APP, 'kept-ok', 30, base, 4000);
      const lost = eventsOf(APP, 'deleted', 10, base + 60_000, 5000);
      await pipeline().send([...healthy, ...lost]);
      // and documents the node refuses (a field mapped as an object, then sent as text), in their own batches
      const shape = (value: unknown) => () =>
        JSON.stringify({ level: 'INFO', message: 'shape', directShape: value });
      await pipeline().send(eventsOf(APP, 'refused', 1, base + 120_000, 1000, shape({ a: 1 })));
      await settle();
      const refused = eventsOf(APP, 'refused', 3, base + 121_000, 1000, shape('flat'));
      await pipeline().send(refused);
      await settle();
      // (refreshed first: a delete by query sees only what a refresh has made searchable)
      await search.json('POST', `/${spec.delivery.indexPattern}/_refresh`);
      await search.json('POST', `/${spec.delivery.indexPattern}/_delete_by_query?refresh=true`, {
        query: { term: { 'cloudwatch.logStream': 'deleted' } },
      });
      // Reconcile judges events CloudWatch Logs took in longer ago than the lag: wait until all of these are.
      const writtenAt = Date.now();
      while (Date.now() < writtenAt + 4000) await new Promise((resolve) => setTimeout(resolve, 100));
      const reconcile = async (...more: string[]): Promise<{ code: number; report: ReconcileRun }> => {
        const out = await kfek(
          'reconcile',
          '--profile',
          PROFILE,
          '--log-group',
          APP,
          '--opensearch',
          stack.get().node.url,
          '--raw-stream',
          pipeline().resources.rawStreamArn,
          '--bucket',
          pipeline().resources.deadLetterBucket,
          '--local-dir',
          stack.get().workDir,
          '--since',
          new Date(base - 60_000).toISOString(),
          '--lag',
          '2s',
          '--json',
          ...more,
        );
        expect(out.err).not.toMatch(/kfek: /);
        return { code: out.code, report: JSON.parse(out.out) as ReconcileRun };
      };
      const verdicts = (report: ReconcileRun, state: EventVerdict['state']): EventVerdict[] =>
        report.groups.flatMap((g) => g.events.filter((v) => v.state === state));
      const keys = (report: ReconcileRun, state: EventVerdict['state']): string[] =>
        verdicts(report, state)
          .map((v) => `${APP}|${v.logStream}|${v.timestamp}`)
          .sort();

      // WHEN reconcile runs, then with --heal, then again
      const first = await reconcile();
      const second = await reconcile('--heal', '--heal-timeout', '60s');
      await settle();
      const third = await reconcile();

      // THEN the first run found exactly the deleted events missing, and the refused ones kept in the bucket
      expect(first.code).toBe(1);
      expect(keys(first.report, 'missing')).toEqual(lost.map(keyOf).sort());
      expect(keys(first.report, 'kept')).toEqual(refused.map(keyOf).sort());
      const bucket = `s3://${pipeline().resources.deadLetterBucket}/failed-documents/`;
      expect(verdicts(first.report, 'kept').every((v) => v.kept?.location.startsWith(bucket) === true)).toBe(
        true,
      );
      // the heal sent them through the raw stream, the transform and the indexer
      expect(second.code).toBe(0);
      expect(second.report.heal).toMatchObject({ sent: 10, healed: 10, notSent: 0 });
      // and nothing is missing now, each healed event stored once
      expect(third.code).toBe(0);
      expect(third.report.totals).toMatchObject({ missing: 0, healed: 0, pending: 0, kept: 3 });
      expect(await searchable('deleted')).toEqual({ events: 10, documents: 10 });
    },
    4 * STEP_TIMEOUT_MILLIS,
  );

  test(
    'kfek replay --kind events-window: the events stream put back whole overwrites every document, none twice',
    async () => {
      // GIVEN everything this file indexed
      const streams = ['history', 'live', 'kept-ok', 'deleted'];
      const before = await searchable(...streams);
      const overwrittenBefore = pipeline().delivery.snapshot().documentsOverwritten;
      // WHEN the events stream's records since the file's start are put back (records with a new arrival in the
      // events stream, each document carrying its raw record's arrival)
      const window = await kfek(
        'replay',
        '--kind',
        'events-window',
        '--events-stream',
        pipeline().resources.eventsStreamArn,
        '--since',
        new Date(Date.now() - 60 * 60_000).toISOString(),
      );
      await settle();
      // THEN the indexer overwrote each in the index of its first copy
      expect(window.err).not.toMatch(/kfek: /);
      expect(window.code).toBe(0);
      expect(before.events).toBe(before.documents);
      expect(await searchable(...streams)).toEqual(before);
      expect(pipeline().delivery.snapshot().documentsOverwritten - overwrittenBefore).toBeGreaterThanOrEqual(
        before.documents,
      );
    },
    3 * STEP_TIMEOUT_MILLIS,
  );
});
