/**
 * The fault tests of kfek's own indexer on an OpenSearch Serverless collection (issue 42, item 4: "the fault tests
 * run against [the conformance stand-in] as they run against the domain"). The shipped lambda/indexer handler, signing
 * for `aoss` with no routing as `npm start -- --profile sandbox-serverless` runs it, writes through the stand-in
 * (scripts/serverless/standin.ts, provisioned by core/opensearch/serverless-provision.ts) to the real node; moto holds
 * the streams and the failed-documents bucket. The faults of test/e2e/faults/direct-delivery.test.ts
 * (direct-scenarios.ts), on a collection:
 *
 * - the node SIGSTOPped mid-run (it accepts and never answers, behind the stand-in too): the indexer's bulks time out,
 *   its records are given back and read again, and each event is stored once when the node goes on;
 * - the node SIGKILLed mid-run and restarted: the stand-in answers 502 (a collection's front end answers 5xx while its
 *   compute is unreachable) and the indexer retries; nothing lost, nothing stored twice (a SEARCH collection keeps the
 *   `_id` the indexer sends);
 * - a 429 storm from a fault proxy IN FRONT of the stand-in, where a collection throttles: its endpoint is a managed
 *   front end (the nodes behind it are the service's, never reached by a client), so a throttled request is answered
 *   there, before any node sees it; the proxy passes the client's `host` on so the stand-in still checks the `aoss`
 *   signature;
 * - a mixed bulk (a mapping conflict, a document over the field limit, good ones): the refused kept in moto's S3 in
 *   Firehose's layout with the node's reasons, readable by core/kept/parse as `kfek replay` reads them.
 *
 * What a collection does differently that matters here: it refuses `refresh`, `routing` and the domain-only APIs
 * (`_nodes`, `_cluster`, ...), so each test also checks that the stand-in refused nothing, and the last one that every
 * request the indexer sent through all the faults was a `_bulk` or its read of kfek's recorded route pairs. Every wait
 * is on a condition.
 */
import { registryIndex } from '../../../core/opensearch/registry';
import { routeRecordPath } from '../../../core/opensearch/route-record';
import { OPENSEARCH_SPEC_DEFAULTS } from '../../../core/opensearch/spec';
import type { RunningStandin } from '../../../scripts/serverless/standin';
import { NODE_START_TIMEOUT_MILLIS, runEvents, SETTLE_TIMEOUT_MILLIS, streamsOf } from './fault-suite';
import {
  bulkStorm,
  EVERY_EVENT_ONCE,
  mixedBulk,
  mixedBulkKept,
  nodeHungMidRun,
  nodeKilledMidRun,
  STORM_RETRIED,
  useDirectFaultSuite,
} from './direct-scenarios';

/** The suite on a collection, and the fault proxy standing for the collection's front end (where it throttles). */
const { suite: running, proxy } = useDirectFaultSuite({ collection: true });
const standin = (): RunningStandin => {
  const { collection } = running();
  if (collection === undefined) throw new Error('the suite runs on a domain, not on a collection');
  return collection;
};

describe('direct delivery faults on a Serverless collection (the conformance stand-in before the real node)', () => {
  test(
    'the node killed mid-run and restarted: the stand-in answers 5xx, every event is searchable once, none kept',
    async () => {
      expect(await nodeKilledMidRun(running(), `aoss-killed-${Date.now()}`)).toEqual(EVERY_EVENT_ONCE);
      // AND no retry sent what a collection refuses
      expect(standin().refusals).toEqual([]);
    },
    NODE_START_TIMEOUT_MILLIS + 2 * SETTLE_TIMEOUT_MILLIS,
  );

  test(
    'the node hung behind the stand-in (accepts, never answers): the batch given back after its time and read again, every event searchable once',
    async () => {
      expect(await nodeHungMidRun(running(), `aoss-hung-${Date.now()}`)).toEqual(EVERY_EVENT_ONCE);
      expect(standin().refusals).toEqual([]);
    },
    2 * SETTLE_TIMEOUT_MILLIS,
  );

  test(
    "a 429 storm at the collection's front end: retried with backoff, every event searchable once",
    async () => {
      expect(await bulkStorm(running(), proxy(), `aoss-429-${Date.now()}`)).toEqual(STORM_RETRIED);
      expect(standin().refusals).toEqual([]);
    },
    2 * SETTLE_TIMEOUT_MILLIS,
  );

  test(
    'a mixed bulk (a mapping conflict, a document over the field limit, good ones): the refused kept with the reason, the rest indexed',
    async () => {
      const runId = `aoss-mixed-${Date.now()}`;
      expect(await mixedBulk(running(), runId)).toEqual(mixedBulkKept(runId));
      expect(standin().refusals).toEqual([]);
    },
    2 * SETTLE_TIMEOUT_MILLIS,
  );

  test(
    'a writer the data access policy does not yet let in (403 while it propagates): the records are given again until it does, every event once, none kept',
    async () => {
      // GIVEN the collection refuses the indexer's next 3 bulks as a whole with 403, as it does until a new data
      // access policy is in force (the provisioner retries 401/403 for the same reason)
      const runId = `aoss-403-${Date.now()}`;
      const events = runEvents(runId, 60);
      const rejectedBefore = proxy().stats.rejectedBulkCalls;
      proxy().rejectBulk(3, 403);
      // WHEN
      await running().pipeline.send(events);
      await running().pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
      // THEN a 403 is no document's fault: nothing was kept as refused; the records were given again and indexed once
      expect(proxy().stats.rejectedBulkCalls - rejectedBefore).toBe(3);
      expect((await running().keptDocuments()).filter((k) => k.data.includes(runId))).toEqual([]);
      expect(await running().duplicates(streamsOf(events))).toEqual([]);
      expect(await running().count(streamsOf(events))).toBe(events.length);
      expect(running().pipeline.eventSource.snapshot().recordsSentToOnFailure).toBe(0);
      expect(standin().refusals).toEqual([]);
    },
    2 * SETTLE_TIMEOUT_MILLIS,
  );

  test('through every fault above, the indexer sent the collection only _bulk requests and its route-record read, none refused', () => {
    // GIVEN the requests the collection's front end saw during the tests above (they run in order, in this file)
    const { requests } = proxy().stats;
    // THEN there were some, each a `_bulk` (no `_refresh`, `_nodes`, `_cluster`, `_ingest`, no query `routing` or
    // `refresh`) or the read of the route pairs kfek's provisioner recorded (KFEK_ROUTE_RECORD, lambda/indexer/
    // routes.ts), and the stand-in, which refuses a bulk action carrying `routing`, refused none
    const bulk = /^POST \/_bulk(\?pipeline=_none)?$/;
    const routeRecord = `GET ${routeRecordPath(registryIndex(OPENSEARCH_SPEC_DEFAULTS.name))}`;
    expect(requests.filter((r) => bulk.test(r)).length).toBeGreaterThan(0);
    expect(requests.filter((r) => !bulk.test(r) && r !== routeRecord)).toEqual([]);
    expect(standin().refusals).toEqual([]);
  });
});
