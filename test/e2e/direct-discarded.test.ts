/**
 * A batch the INDEXER's event source mapping gives up on (issue 41, direct delivery), end to end with real components
 * only: moto, the real node, the shipped transform and the shipped lambda/indexer handler under the local event
 * source mapping (`npm start -- --delivery direct`). The node refuses every bulk whole (a cluster-wide write block:
 * 403 for the request, no document's fault), so the indexer gives the records back, the event source retries and then
 * keeps the batch in its on-failure place: nothing acknowledged, nothing lost. Such a batch holds events-stream records,
 * not raw records, so `kfek replay --kind discarded-batch` (which re-sends discarded batches to the raw stream only)
 * lists it with the events stream it names and keeps it; `kfek reconcile --heal` brings its events back from
 * CloudWatch Logs, each searchable once (docs/guarantees.md, "What differs on the direct path").
 */
import { minuteOf } from '../../core/reconcile/engine';
import type { ReconcileRun } from '../../cli/reconcile/service';
import type { LocalPipeline } from '../../scripts/local/pipeline';
import { countDistinctEvents, countDocuments } from '../../scripts/local/summary';
import type { CliOutcome } from '../helpers/cli-run';
import { useDirectStack } from '../helpers/direct-stack';

const APP = '/kfek/direct-discarded/app';
const PROFILE = 'directdiscarded';
const STEP_TIMEOUT_MILLIS = 60_000;
// One retry: a batch that keeps failing reaches the on-failure place in seconds.
const stack = useDirectStack(PROFILE, {
  logGroup: APP,
  transform: { timeoutSeconds: 5, batchSize: 10, retryAttempts: 1, maxBatchingWindowSeconds: 0 },
});

const pipeline = (): LocalPipeline => stack.get().pipeline;

/** `npx kfek <command> <args>` reading npm start's folders and the raw stream. */
const kfek = (command: string, ...args: string[]): Promise<CliOutcome> =>
  stack.kfek(
    command,
    '--local-dir',
    stack.get().workDir,
    '--raw-stream',
    pipeline().resources.rawStreamArn,
    ...args,
  );

test(
  'a batch the indexer cannot deliver is kept by its event source, not acknowledged; reconcile --heal makes it searchable once',
  async () => {
    // GIVEN a node that refuses every write request whole while 12 events go through the pipeline
    const { search, spec, node } = stack.get();
    const base = minuteOf(Date.now()) - 20 * 60_000;
    const stream = `discarded-${Date.now()}`;
    const events = Array.from({ length: 12 }, (_, i) => ({
      logGroupName: APP,
      logStreamName: stream,
      timestamp: base + i * 1000,
      message: JSON.stringify({ level: 'INFO', message: `${stream} ${i}` }),
    }));
    const onFailureBefore = pipeline().delivery.snapshot();
    await search.json('PUT', '/_cluster/settings', { persistent: { 'cluster.blocks.read_only': true } });
    try {
      await pipeline().send(events);
      await pipeline().waitUntilSettled(STEP_TIMEOUT_MILLIS);
    } finally {
      await search.json('PUT', '/_cluster/settings', { persistent: { 'cluster.blocks.read_only': null } });
    }
    // THEN nothing was indexed, nothing kept as a refused document: the batch went to the on-failure place
    await search.json('POST', `/${spec.delivery.indexPattern}/_refresh`);
    expect(await countDocuments(search, spec.delivery.indexPattern, [stream])).toBe(0);
    expect(pipeline().delivery.snapshot().documentsFailed).toBe(onFailureBefore.documentsFailed);

    // WHEN replay is asked for discarded batches
    const replay = await kfek(
      'replay',
      '--local',
      '--kind',
      'discarded-batch',
      '--events-stream',
      pipeline().resources.eventsStreamArn,
    );
    // THEN it names the batch with the events stream, re-sends nothing and keeps it
    expect(replay.out).toMatch(/^discarded-batch +1 +1 /m);
    expect(replay.out).toMatch(/RetryAttemptsExhausted/);
    expect(replay.out).toContain(
      `names the stream ${pipeline().resources.eventsStreamArn}, not the raw stream`,
    );
    expect(replay.code).toBe(1);

    // WHEN reconcile heals the window (the events are kept nowhere it can re-send from: missing)
    const writtenAt = Date.now();
    while (Date.now() < writtenAt + 3000) await new Promise((resolve) => setTimeout(resolve, 100));
    const heal = await kfek(
      'reconcile',
      '--profile',
      PROFILE,
      '--log-group',
      APP,
      '--opensearch',
      node.url,
      '--bucket',
      pipeline().resources.deadLetterBucket,
      '--since',
      new Date(base - 60_000).toISOString(),
      '--lag',
      '2s',
      '--heal',
      '--heal-timeout',
      '60s',
      '--json',
    );
    await pipeline().waitUntilSettled(STEP_TIMEOUT_MILLIS);
    // THEN every event is searchable once
    expect(heal.err).not.toMatch(/kfek: /);
    expect((JSON.parse(heal.out) as ReconcileRun).heal).toMatchObject({ sent: 12, healed: 12, notSent: 0 });
    await search.json('POST', `/${spec.delivery.indexPattern}/_refresh`);
    expect(await countDistinctEvents(search, spec.delivery.indexPattern, [stream])).toBe(12);
    expect(await countDocuments(search, spec.delivery.indexPattern, [stream])).toBe(12);
  },
  4 * STEP_TIMEOUT_MILLIS,
);
