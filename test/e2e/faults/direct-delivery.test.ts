/**
 * Fault tests of kfek's own indexer (issue 41, direct delivery), end to end on the REAL node and moto: the shipped
 * lambda/indexer handler under the event-source mapping's stand-in reads moto's events stream and writes to the
 * node through a fault proxy (test/helpers/search-fault-proxy.ts); refused documents go to moto's S3 in Firehose's
 * layout. The node killed mid-run, the node hung mid-run, a 429 storm, and a mixed bulk (a mapping conflict, a
 * document over the index's field limit, good documents) lose nothing and store nothing twice (direct-scenarios.ts,
 * which the same faults on a Serverless collection run too: serverless-delivery.test.ts). Every wait is on a
 * condition.
 */
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
import { NODE_START_TIMEOUT_MILLIS, SETTLE_TIMEOUT_MILLIS } from './fault-suite';

const { suite: running, proxy } = useDirectFaultSuite({ collection: false });

describe('direct delivery faults on the real node', () => {
  test(
    'the node killed mid-run and restarted: every event is searchable once, none kept as failed',
    async () => {
      expect(await nodeKilledMidRun(running(), `direct-killed-${Date.now()}`)).toEqual(EVERY_EVENT_ONCE);
    },
    NODE_START_TIMEOUT_MILLIS + 2 * SETTLE_TIMEOUT_MILLIS,
  );

  test(
    'the node hung (accepts, never answers) mid-run: the batch given back after its time and read again, every event searchable once',
    async () => {
      expect(await nodeHungMidRun(running(), `direct-hung-${Date.now()}`)).toEqual(EVERY_EVENT_ONCE);
    },
    2 * SETTLE_TIMEOUT_MILLIS,
  );

  test(
    'a 429 storm (every bulk rejected for a while): retried with backoff, every event searchable once',
    async () => {
      expect(await bulkStorm(running(), proxy(), `direct-429-${Date.now()}`)).toEqual(STORM_RETRIED);
    },
    2 * SETTLE_TIMEOUT_MILLIS,
  );

  test(
    'a mixed bulk (a mapping conflict, a document over the field limit, good ones): the refused kept with the reason, the rest indexed',
    async () => {
      const runId = `direct-mixed-${Date.now()}`;
      expect(await mixedBulk(running(), runId)).toEqual(mixedBulkKept(runId));
    },
    2 * SETTLE_TIMEOUT_MILLIS,
  );
});
