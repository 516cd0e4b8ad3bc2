/**
 * End-to-end on the direct path (issue 41): the whole local pipeline with kfek's own indexer in place of the
 * Firehose stand-in, real components only: moto, the real node provisioned by core/opensearch, the shipped transform
 * under the event-source loop, and the shipped lambda/indexer handler under a second one on the events stream. Events
 * of several log groups (one team's route) arrive as exactly one document each, in the route's indices, under the
 * id the ingest pipeline would have given them (the node runs no pipeline on this path); a raw record delivered
 * twice overwrites its documents by id.
 */
import { gzipSync } from 'node:zlib';
import { PutRecordCommand } from '@aws-sdk/client-kinesis';
import { resolveConfig } from '../../core/config';
import { documentIdFor } from '../../core/opensearch';
import type { OutgoingLogEvent } from '../../scripts/local/sender';
import { countDocuments } from '../../scripts/local/summary';
import { LocalStackRunner } from '../helpers/local-stack';
import { OPENSEARCH_START_TIMEOUT_MILLIS } from '../helpers/opensearch';

const CONTEXT = {
  kfek: {
    profiles: {
      direct: {
        sources: {
          logGroups: [
            { name: '/kfek/direct/orders', create: true },
            { name: '/kfek/direct/other', create: true },
          ],
        },
        streams: { raw: { shardCount: 2 }, events: { shardCount: 2 } },
        transform: { timeoutSeconds: 10, batchSize: 10, retryAttempts: 20, maxBatchingWindowSeconds: 0 },
        openSearch: { indexTemplate: { replicas: 0 } },
        routes: [
          {
            name: 'orders',
            match: { logGroup: '/kfek/direct/orders' },
            indexStem: 'direct-orders',
            staticFields: { team: 'orders' },
          },
        ],
      },
    },
  },
};
const SETTLE_TIMEOUT_MILLIS = 90_000;
const stack = new LocalStackRunner();

beforeAll(async () => {
  await stack.start(resolveConfig(CONTEXT, 'direct'), {
    workDirPrefix: 'kfek-direct-',
    delivery: 'direct',
    serializedMoto: true,
  });
}, OPENSEARCH_START_TIMEOUT_MILLIS);

afterAll(() => stack.stop(), 60_000);

interface Hit {
  readonly _index: string;
  readonly _id: string;
  readonly _routing?: string;
  readonly _source: {
    cloudwatch: { id: string; logGroup: string; logStream: string };
    kfek?: unknown;
    team?: string;
  };
}

async function hitsOf(logStreams: readonly string[]): Promise<Hit[]> {
  const { search, spec } = stack.get();
  await search.json('POST', `/${spec.delivery.searchPattern}/_refresh`);
  const answer = await search.json<{ hits: { hits: Hit[] } }>(
    'POST',
    `/${spec.delivery.searchPattern}/_search`,
    {
      size: 10_000,
      query: { terms: { 'cloudwatch.logStream': [...logStreams] } },
    },
  );
  return answer.hits.hits;
}

function eventsOf(runId: string, perGroup: number): OutgoingLogEvent[] {
  const base = Date.now() - 20 * 60_000;
  return ['/kfek/direct/orders', '/kfek/direct/other'].flatMap((logGroupName, g) =>
    Array.from({ length: perGroup }, (_, i) => ({
      logGroupName,
      logStreamName: `${runId}/${g}/${i % 2}`,
      timestamp: base + i * 1000 + g,
      message: JSON.stringify({ level: 'INFO', message: `${runId} ${g} ${i}`, n: 1.0 }),
    })),
  );
}

describe('the local pipeline with direct delivery, end to end', () => {
  test('N events arrive as exactly N documents, in the route\u2019s indices, under the pipeline\u2019s ids', async () => {
    // GIVEN
    const { pipeline } = stack.get();
    const runId = `direct-${Date.now()}`;
    const events = eventsOf(runId, 60);
    // WHEN
    await pipeline.send(events);
    await pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    // THEN
    const hits = await hitsOf([...new Set(events.map((e) => e.logStreamName))]);
    expect(hits).toHaveLength(events.length);
    const expected = (hit: Hit): object => {
      const cw = hit._source.cloudwatch;
      const id = documentIdFor(cw.logGroup, cw.logStream, cw.id);
      const routed = cw.logGroup === '/kfek/direct/orders';
      return {
        id,
        routing: id.slice(0, 2),
        index: routed ? 'direct-orders' : 'logs',
        kfek: routed ? { route: 'orders' } : undefined,
      };
    };
    const actual = (hit: Hit): object => ({
      id: hit._id,
      routing: hit._routing,
      index: hit._index.replace(/-\d{4}-\d{2}-\d{2}$/, ''),
      kfek: hit._source.kfek,
    });
    expect(hits.map(actual)).toEqual(hits.map(expected));
    expect(hits.filter((h) => h._index.startsWith('direct-orders-'))).toHaveLength(events.length / 2);
    expect(pipeline.delivery.snapshot().documentsFailed).toBe(0);
  });

  test('a raw record delivered twice (a retried batch) ends as one document per event', async () => {
    // GIVEN one subscription record put on the raw stream twice
    const { pipeline, search, spec } = stack.get();
    const runId = `direct-twice-${Date.now()}`;
    const envelope = {
      messageType: 'DATA_MESSAGE',
      owner: '123456789012',
      logGroup: '/kfek/direct/other',
      logStream: runId,
      subscriptionFilters: ['f'],
      logEvents: Array.from({ length: 5 }, (_, i) => ({
        id: `${runId}-${i}`,
        timestamp: Date.now() - 60_000 + i,
        message: `twice ${i}`,
      })),
    };
    const data = gzipSync(Buffer.from(JSON.stringify(envelope)));
    const before = pipeline.delivery.snapshot();
    // WHEN
    for (let copy = 0; copy < 2; copy++) {
      await pipeline.clients.kinesis.send(
        new PutRecordCommand({ StreamARN: pipeline.resources.rawStreamArn, Data: data, PartitionKey: runId }),
      );
    }
    await pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    // THEN the second copy overwrote the first, by id, in the same index
    expect(await countDocuments(search, spec.delivery.searchPattern, [runId])).toBe(5);
    expect(pipeline.delivery.snapshot().documentsOverwritten - before.documentsOverwritten).toBe(5);
  });
});
