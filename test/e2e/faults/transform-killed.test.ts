/**
 * Fault test, end to end: the transform function's process SIGKILLed mid-batch. The handler runs in a forked child
 * (LocalPipeline's `transformProcess: 'child'`); the event-source loop counts the dead invocation as a function
 * error and retries the batch from its checkpoint in a new process, like Lambda after a crashed execution
 * environment. Part of a killed invocation's output may already be in the events stream; the index's default
 * pipeline gives a re-sent event the same `_id`. Proves: N events in, N searchable exactly once, nothing failed.
 * One moto and one real node for the file (see fault-suite.ts).
 */
import { readdir } from 'node:fs/promises';
import { localFolders } from '../../../scripts/local/pipeline';
import { runEvents, SETTLE_TIMEOUT_MILLIS, streamsOf, useFaultSuite, waitUntil } from './fault-suite';

const running = useFaultSuite({
  retryDurationSeconds: 900,
  bulkTimeoutInMillis: 5000,
  transformProcess: 'child',
});

async function onFailureFiles(): Promise<string[]> {
  return readdir(localFolders(running().workDir).onFailure).catch(() => []);
}

test(
  'the transform process SIGKILLed mid-batch, twice: retried from the checkpoint in a new process, every event searchable once',
  async () => {
    const child = running().pipeline.transformChild;
    if (child === undefined) throw new Error('the suite must run the transform in a child process');
    // GIVEN a warm transform process that has indexed a first part of the run
    const runId = `transform-killed-${Date.now()}`;
    const events = runEvents(runId, 300, 3);
    await running().pipeline.send(events.slice(0, 60), { eventsPerCall: 10 });
    await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    const before = running().pipeline.eventSource.snapshot();
    const processesBefore = child.processesStarted();
    // WHEN the next two invocations' processes are SIGKILLed: the first as soon as it has the batch, the second
    // (the retry, in a fresh process) a moment later, while it is decoding and writing
    const killDelays = [0, 25];
    child.onInvocationStarted((pid) => {
      const delay = killDelays.shift();
      if (delay === undefined) return;
      setTimeout(() => {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Already gone (it finished and was replaced): nothing to kill.
        }
      }, delay);
    });
    await running().pipeline.send(events.slice(60), { eventsPerCall: 10 });
    await waitUntil(
      'the transform was invoked twice after the kills were armed',
      () => killDelays.length === 0,
    );
    await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    // THEN the dead invocations were function errors, retried in new processes, and nothing was given up on
    const after = running().pipeline.eventSource.snapshot();
    expect(after.functionErrors - before.functionErrors).toBeGreaterThanOrEqual(1);
    expect(after.recordsRetried - before.recordsRetried).toBeGreaterThan(0);
    expect(child.processesStarted() - processesBefore).toBe(2);
    expect(after.recordsSentToOnFailure).toBe(0);
    expect(await onFailureFiles()).toEqual([]);
    expect(running().pipeline.delivery.snapshot().documentsFailed).toBe(0);
    expect(await running().failedDocuments(runId)).toEqual([]);
    expect(await running().duplicates(streamsOf(events))).toEqual([]);
    expect(await running().count(streamsOf(events))).toBe(events.length);
  },
  3 * SETTLE_TIMEOUT_MILLIS,
);
