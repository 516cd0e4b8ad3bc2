/**
 * The faults kfek's own indexer (issue 41, direct delivery) must survive, each the GIVEN and WHEN of one test that
 * returns what the run left for the test to assert (EVERY_EVENT_ONCE, mixedBulkKept), run on a domain (direct-delivery.test.ts) and on a Serverless collection through the conformance stand-in
 * (serverless-delivery.test.ts, issue 42): the same scenario and the same promises on both, so a difference between
 * the two is a difference of the destination, never of the test. Every wait is on a condition.
 */
import { PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { type SearchFaultProxy, startSearchFaultProxy } from '../../helpers/search-fault-proxy';
import type { OutgoingLogEvent } from '../../../scripts/local/sender';
import {
  type FaultSuite,
  NODE_START_TIMEOUT_MILLIS,
  runEvents,
  SETTLE_TIMEOUT_MILLIS,
  started,
  startFaultSuite,
  streamsOf,
  waitUntil,
} from './fault-suite';

/** The suite of one direct-delivery fault file and the fault proxy in front of what answers for OpenSearch. */
export interface DirectFaultSuite {
  readonly suite: () => FaultSuite;
  readonly proxy: () => SearchFaultProxy;
}

/**
 * Registers the file's beforeAll (one fault suite with kfek's indexer writing through a fault proxy: in front of the
 * node, or with `collection`, in front of the Serverless stand-in, passing the client's `host` on so the stand-in
 * still checks the `aoss` signature) and afterAll (both stopped).
 */
export function useDirectFaultSuite(options: { readonly collection: boolean }): DirectFaultSuite {
  let suite: FaultSuite | undefined;
  let proxy: SearchFaultProxy | undefined;
  beforeAll(async () => {
    suite = await startFaultSuite({
      retryDurationSeconds: 900,
      bulkTimeoutInMillis: 2000,
      delivery: 'direct',
      collection: options.collection,
      deliveryUrl: async (frontUrl) => {
        proxy = await startSearchFaultProxy(frontUrl, { keepHost: options.collection });
        return proxy.url;
      },
    });
  }, NODE_START_TIMEOUT_MILLIS + 60_000);
  afterAll(async () => {
    await suite?.stop();
    await proxy?.close();
  }, 60_000);
  return {
    suite: () => started(suite),
    proxy: () => {
      if (proxy === undefined) throw new Error('the fault proxy did not start (see beforeAll)');
      return proxy;
    },
  };
}

/** What a fault run left: events not searchable, events stored more than once, and the run's documents kept as refused. */
export interface RunOutcome {
  readonly lost: number;
  readonly duplicates: readonly string[];
  readonly kept: readonly string[];
}

/** The promise of every fault: nothing lost, nothing stored twice, nothing of a good run kept as refused. */
export const EVERY_EVENT_ONCE: RunOutcome = { lost: 0, duplicates: [], kept: [] };

async function outcomeOf(
  suite: FaultSuite,
  runId: string,
  events: readonly OutgoingLogEvent[],
): Promise<RunOutcome> {
  return {
    lost: events.length - (await suite.count(streamsOf(events))),
    duplicates: await suite.duplicates(streamsOf(events)),
    kept: (await suite.keptDocuments()).filter((k) => k.data.includes(runId)).map((k) => k.data),
  };
}

/** The node SIGKILLed mid-run and restarted (the indexer retries meanwhile); what the run left. */
export async function nodeKilledMidRun(suite: FaultSuite, runId: string): Promise<RunOutcome> {
  const events = runEvents(runId, 120);
  await suite.pipeline.send(events.slice(0, 60));
  await suite.pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
  const retriesBefore = suite.pipeline.delivery.snapshot().documentRetries;
  // The node is SIGKILLed, the rest is sent, the indexer gives its records back, and the node comes back.
  await suite.killNode();
  await suite.pipeline.send(events.slice(60));
  await waitUntil(
    'the indexer retried against the dead node (was the fault armed?)',
    () => suite.pipeline.delivery.snapshot().documentRetries > retriesBefore,
  );
  await suite.restartNode();
  await suite.pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
  return outcomeOf(suite, runId, events);
}

/**
 * The node's processes stopped (SIGSTOP: it accepts connections and never answers) while a run is delivered, until
 * the indexer has been handed a document twice (a bulk that timed out, its records given back and read again), then
 * continued; what the run left. A bulk the node took while hung and finished later, and its retry, must be one
 * document per event, each sent with its own id.
 */
export async function nodeHungMidRun(suite: FaultSuite, runId: string): Promise<RunOutcome> {
  const events = runEvents(runId, 80);
  const handedBefore = suite.pipeline.delivery.snapshot().userRecords;
  const group = -suite.node().pid;
  process.kill(group, 'SIGSTOP');
  try {
    await suite.pipeline.send(events);
    await waitUntil(
      'the indexer was handed more documents than were sent (was the fault armed?)',
      () => suite.pipeline.delivery.snapshot().userRecords > handedBefore + events.length,
    );
  } finally {
    process.kill(group, 'SIGCONT');
  }
  await suite.pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
  return outcomeOf(suite, runId, events);
}

/** What {@link bulkStorm} must leave: every event once, the 8 bulks rejected, and sent again. */
export const STORM_RETRIED = { ...EVERY_EVENT_ONCE, rejectedBulks: 8, retried: true } as const;

/** `proxy` answers the next 8 bulks with a whole-request 429; what the run left, the bulks rejected and whether retried. */
export async function bulkStorm(
  suite: FaultSuite,
  proxy: SearchFaultProxy,
  runId: string,
): Promise<RunOutcome & { readonly rejectedBulks: number; readonly retried: boolean }> {
  const events = runEvents(runId, 200);
  const retriesBefore = suite.pipeline.delivery.snapshot().documentRetries;
  const rejectedBefore = proxy.stats.rejectedBulkCalls;
  proxy.rejectBulk(8);
  await suite.pipeline.send(events);
  await suite.pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
  return {
    ...(await outcomeOf(suite, runId, events)),
    rejectedBulks: proxy.stats.rejectedBulkCalls - rejectedBefore,
    retried: suite.pipeline.delivery.snapshot().documentRetries > retriesBefore,
  };
}

/** What a mixed bulk left: the documents searchable, the refused kept (by message, with the reason), the counters. */
export interface MixedBulkOutcome {
  readonly searchable: number;
  readonly kept: readonly {
    readonly message: string;
    readonly reason: string;
    readonly firehoseLayout: boolean;
  }[];
  readonly refusedCounted: number;
  readonly givenUpOn: number;
}

/**
 * What {@link mixedBulk} must leave: the two good documents searchable, the conflict and the wide one kept with the
 * node's reasons in Firehose's layout (`AmazonOpenSearchService-failed/`, as `kfek replay` reads it), none given up on.
 */
export function mixedBulkKept(runId: string): MixedBulkOutcome {
  return {
    searchable: 2,
    kept: [
      {
        message: `${runId} conflict`,
        reason: expect.stringMatching(/object mapping for \[kfek\]/) as string,
        firehoseLayout: true,
      },
      {
        message: `${runId} wide`,
        reason: expect.stringMatching(/total fields/) as string,
        firehoseLayout: true,
      },
    ],
    refusedCounted: 2,
    givenUpOn: 0,
  };
}

/** A mixed bulk (a mapping conflict, a document over the index's field limit, good documents) on the events stream. */
export async function mixedBulk(suite: FaultSuite, runId: string): Promise<MixedBulkOutcome> {
  // Documents put straight on the events stream, as the transform (or a replay) writes them.
  const cw = (i: number): Record<string, string> => ({
    id: `${runId}-${i}`,
    logGroup: '/kfek/faults/app',
    logStream: runId,
  });
  const wide: Record<string, unknown> = { message: `${runId} wide`, cloudwatch: cw(2) };
  for (let f = 0; f < 3000; f++) wide[`f${f}`] = f;
  const docs = [
    { message: `${runId} good 0`, cloudwatch: cw(0) },
    // `kfek` is an object in every index (a wrong-typed leaf would be ignored: ignore_malformed).
    { message: `${runId} conflict`, kfek: 'forged', cloudwatch: cw(1) },
    wide,
    { message: `${runId} good 3`, cloudwatch: cw(3) },
  ];
  const before = suite.pipeline.delivery.snapshot();
  const onFailureBefore = suite.pipeline.eventSource.snapshot().recordsSentToOnFailure;
  await suite.pipeline.clients.kinesis.send(
    new PutRecordsCommand({
      StreamARN: suite.pipeline.resources.eventsStreamArn,
      Records: docs.map((d, i) => ({ Data: Buffer.from(JSON.stringify(d)), PartitionKey: String(i) })),
    }),
  );
  await suite.pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
  const kept = (await suite.keptDocuments())
    .filter((k) => k.data.includes(runId))
    .map((k) => ({
      message: (JSON.parse(k.data) as { message: string }).message,
      reason: k.reason,
      firehoseLayout: k.key.includes('/AmazonOpenSearchService-failed/'),
    }))
    .sort((a, b) => a.message.localeCompare(b.message));
  return {
    searchable: await suite.count([runId]),
    kept,
    refusedCounted: suite.pipeline.delivery.snapshot().documentsFailed - before.documentsFailed,
    givenUpOn: suite.pipeline.eventSource.snapshot().recordsSentToOnFailure - onFailureBefore,
  };
}
