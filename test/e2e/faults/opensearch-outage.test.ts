/**
 * Fault tests, end to end: the real OpenSearch node killed (SIGKILL, then connections refused) and restarted on
 * the same port and data, and the node hung (SIGSTOP: connections accepted, never answered) mid-run. The local
 * Firehose stand-in must retry like Firehose within its retry duration (RetryOptions.DurationInSeconds, here
 * longer than a node restart) and lose nothing: N events in, N documents searchable, none failed.
 * One moto and one node for the file (see fault-suite.ts).
 */
import {
  type FaultSuite,
  NODE_START_TIMEOUT_MILLIS,
  runEvents,
  SETTLE_TIMEOUT_MILLIS,
  startFaultSuite,
  streamsOf,
  waitUntil,
} from './fault-suite';

let suite: FaultSuite | undefined;

beforeAll(async () => {
  // A retry duration longer than a node restart on a loaded machine: nothing may fail.
  suite = await startFaultSuite({ retryDurationSeconds: 900, bulkTimeoutInMillis: 2000 });
}, NODE_START_TIMEOUT_MILLIS + 60_000);

afterAll(async () => {
  await suite?.stop();
}, 60_000);

function running(): FaultSuite {
  if (suite === undefined) throw new Error('the fault suite did not start (see beforeAll)');
  return suite;
}

/**
 * Waits until the Firehose stand-in has retried at least once more than `before`: condition, not time, so a slow
 * machine only takes longer (bounded by the settle timeout).
 */
async function waitForRetries(before: number): Promise<void> {
  await waitUntil(
    'the delivery loop retried (was the fault armed?)',
    () => running().pipeline.delivery.snapshot().documentRetries > before,
  );
}

describe('OpenSearch node faults', () => {
  test(
    'the node killed mid-run and restarted: every event is searchable once, none failed',
    async () => {
      // GIVEN a run half indexed before the node dies
      const runId = `killed-${Date.now()}`;
      const events = runEvents(runId, 120);
      const before = running().pipeline.delivery.snapshot();
      await running().pipeline.send(events.slice(0, 60));
      await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
      // WHEN the node is SIGKILLed (its port refuses connections), the rest is sent, and the node comes back
      await running().killNode();
      await running().pipeline.send(events.slice(60));
      await waitForRetries(before.documentRetries);
      await running().restartNode();
      await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
      // THEN
      const after = running().pipeline.delivery.snapshot();
      expect(after.documentsFailed - before.documentsFailed).toBe(0);
      expect(await running().failedDocuments(runId)).toEqual([]);
      // Every event searchable, and (the index's default pipeline gives a copy the same id) exactly once.
      expect(await running().duplicates(streamsOf(events))).toEqual([]);
      expect(await running().count(streamsOf(events))).toBe(events.length);
    },
    NODE_START_TIMEOUT_MILLIS + 2 * SETTLE_TIMEOUT_MILLIS,
  );

  test(
    'the node hung (accepts, never answers) mid-run: retried after each timeout, every event searchable once',
    async () => {
      // GIVEN
      const runId = `hung-${Date.now()}`;
      const events = runEvents(runId, 80);
      const before = running().pipeline.delivery.snapshot();
      // WHEN the node's processes are stopped while a run is delivered, then continued
      const group = -running().node().pid;
      process.kill(group, 'SIGSTOP');
      try {
        await running().pipeline.send(events);
        await waitForRetries(before.documentRetries);
        // ... and one more timed-out attempt retried while hung (a second bulk the node holds)
        await waitForRetries(running().pipeline.delivery.snapshot().documentRetries);
      } finally {
        process.kill(group, 'SIGCONT');
      }
      await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
      // THEN a bulk the node took while hung and finished later, and its retry, are one document per event (the
      // index's default pipeline sets the id from the event)
      expect(await running().count(streamsOf(events))).toBe(events.length);
      const after = running().pipeline.delivery.snapshot();
      expect(after.documentsFailed - before.documentsFailed).toBe(0);
    },
    2 * SETTLE_TIMEOUT_MILLIS,
  );
});
