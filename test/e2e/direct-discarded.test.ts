/**
 * A batch the INDEXER's event source mapping gives up on (issue 41, direct delivery), end to end with real components
 * only: moto, the real node, the shipped transform and the shipped lambda/indexer handler under the local event
 * source mapping (`npm start -- --delivery direct`). The node refuses every bulk whole (a cluster-wide write block:
 * 403 for the request, no document's fault), so the indexer gives the records back, the event source retries and then
 * keeps the batch in its on-failure place: nothing acknowledged, nothing lost. Such a batch holds events-stream records,
 * not raw records, and names the events stream, so `kfek replay --kind discarded-batch` puts its records back on the
 * events stream (read back by sequence number while the stream holds them); the indexer delivers them again and
 * every event is searchable exactly once (ids overwrite). `kfek reconcile --heal` (which calls them missing) is the
 * other way back (docs/guarantees.md, "What differs on the direct path").
 */
import { minuteOf } from '../../core/reconcile/engine';
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
  'a batch the indexer cannot deliver is kept by its event source, not acknowledged; kfek replay re-sends it to the events stream and every event becomes searchable exactly once',
  async () => {
    // GIVEN a node that refuses every write request whole while 12 events go through the pipeline
    const { search, spec } = stack.get();
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

    // WHEN replay is asked for discarded batches, in a dry run and then for real
    const replay = (...args: string[]): Promise<CliOutcome> =>
      kfek(
        'replay',
        '--local',
        '--kind',
        'discarded-batch',
        '--events-stream',
        pipeline().resources.eventsStreamArn,
        ...args,
      );
    const dryRun = await replay('--dry-run');
    // THEN it names the batch and says it goes back to the events stream
    expect(dryRun.out).toMatch(/^discarded-batch +1 +\d+ /m);
    expect(dryRun.out).toMatch(/RetryAttemptsExhausted/);
    expect(dryRun.out).toMatch(/^batch .* -> the events stream$/m);
    expect(dryRun.code).toBe(0);
    const resent = await replay('--delete-after');
    await pipeline().waitUntilSettled(STEP_TIMEOUT_MILLIS);
    // THEN the indexer delivered the re-sent records: every event searchable exactly once, the batch deleted
    expect(resent.err).not.toMatch(/kfek: /);
    expect(resent.out).toMatch(/re-sent \d+ document\(s\) of 1 item\(s\) to the events stream /);
    expect(resent.code).toBe(0);
    await search.json('POST', `/${spec.delivery.indexPattern}/_refresh`);
    expect(await countDistinctEvents(search, spec.delivery.indexPattern, [stream])).toBe(12);
    expect(await countDocuments(search, spec.delivery.indexPattern, [stream])).toBe(12);
    expect((await replay('--dry-run')).out).toMatch(/^discarded-batch +0 +0 /m);
  },
  4 * STEP_TIMEOUT_MILLIS,
);
