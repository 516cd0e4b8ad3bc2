/**
 * Shared setup of the fault suites (test/e2e/faults/*.test.ts): one moto and one real OpenSearch node per suite
 * file, the resources and index template from the config model, and the local pipeline (the real transform handler
 * under the event-source loop, the Firehose stand-in). A suite picks how the Firehose stand-in reaches the node
 * (directly, or through a fault proxy), its retry duration and the transport (the pipe stand-in instead of the
 * event-source loop); or, with `collection`, puts the OpenSearch Serverless conformance stand-in in front of the node
 * as `npm start` does for a serverless profile (scripts/local/local-collection.ts). Nothing here is mocked.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { resolveConfig, type Transport } from '../../../core/config';
import { createHttpClient, provisionOpenSearch } from '../../../core/opensearch';
import type { DeadLetterObject } from '../../../lambda/transform/dead-letter-object';
import { localSpecFromConfig, openSearchSpecFromConfig } from '../../../scripts/local/config-spec';
import { readFailedDocuments } from '../../../scripts/local/failed-documents';
import {
  COLLECTION_SIGNING_SERVICE,
  collectionSearchHttp,
  provisionLocalCollection,
  startLocalCollection,
} from '../../../scripts/local/local-collection';
import type { FailedDocumentRecord } from '../../../core/delivery/failed-documents';
import { LocalPipeline, localFolders } from '../../../scripts/local/pipeline';
import { SearchHttp } from '../../../scripts/local/search-http';
import { sleep } from '../../../scripts/local/shard-reader';
import type { OutgoingLogEvent } from '../../../scripts/local/sender';
import type { LocalPipelineSpec } from '../../../scripts/local/spec';
import { countDocuments } from '../../../scripts/local/summary';
import { startMoto, type MotoServer } from '../../../scripts/moto-server';
import { freePort, startOpenSearch, type RunningOpenSearch } from '../../../scripts/opensearch-node';
import type { RunningStandin } from '../../../scripts/serverless/standin';
import { createIndexAhead, NODE_START_MILLIS, TEST_NODE } from '../../helpers/opensearch';
import { type KeptDocument, keptDocuments } from './kept-documents';

export const LOG_GROUP = '/kfek/faults/app';
export const SETTLE_TIMEOUT_MILLIS = 90_000;
/**
 * A node start on a loaded 2-core machine (several suites at once) has taken over 120 s; a restart is as slow.
 * The jest timeouts of the suites' beforeAll and of a restarting test are above this.
 */
export const NODE_START_TIMEOUT_MILLIS = NODE_START_MILLIS;

export interface FaultSuiteOptions {
  /** Firehose's RetryOptions.DurationInSeconds for the stand-in. */
  readonly retryDurationSeconds: number;
  /**
   * The URL the delivery uses, from the URL of what answers for OpenSearch: the node, or the collection's stand-in
   * (a proxy in front of it). @default - the node, or the stand-in
   */
  readonly deliveryUrl?: (frontUrl: string) => Promise<string>;
  /** Per-request timeout of the stand-in's `_bulk` calls (a hung node costs this much per attempt). */
  readonly bulkTimeoutInMillis: number;
  /** Where the transform handler runs (`'child'`: a forked process a test can SIGKILL). @default 'in-process' */
  readonly transformProcess?: 'in-process' | 'child';
  /**
   * The transport: Lambda's event source mapping, or the EventBridge pipe with the `sandbox-pipes` profile's
   * batch size (10) and the default 3 retries (so a failing batch reaches the dead-letter queue within seconds).
   * @default 'lambda'
   */
  readonly transport?: Transport;
  /**
   * How documents reach the node: the Firehose stand-in, or kfek's own indexer (the shipped lambda/indexer
   * handler; its refused documents go to moto's S3 under LOCAL_FAILED_DOCUMENTS_PREFIX). @default 'firehose'
   */
  readonly delivery?: 'firehose' | 'direct';
  /**
   * An OpenSearch Serverless collection instead of a domain: the profile gets `openSearch.kind: serverless` (so
   * delivery `direct`), the conformance stand-in (scripts/serverless/standin.ts) goes in front of the node and is
   * provisioned as a collection (core/opensearch/serverless-provision.ts), and the shipped indexer signs for `aoss`
   * with the local key, as `npm start -- --profile sandbox-serverless` runs it. @default false
   */
  readonly collection?: boolean;
}

export interface FaultSuite {
  readonly moto: MotoServer;
  readonly pipeline: LocalPipeline;
  readonly spec: LocalPipelineSpec;
  readonly workDir: string;
  /** A client straight to the node (assertions; never through a proxy). */
  readonly search: SearchHttp;
  /** The collection's stand-in (its `refusals`), when the suite runs on a collection. */
  readonly collection?: RunningStandin;
  node(): RunningOpenSearch;
  /** SIGKILLs the node's process group (connections refused from now on); keeps its data folder. */
  killNode(): Promise<void>;
  /** Starts the node again on the same port and data folder. */
  restartNode(): Promise<void>;
  /** The number of this suite's documents of some log streams in OpenSearch. */
  count(logStreams: readonly string[]): Promise<number>;
  /** The events (field `i` of {@link runEvents}) found more than once, with each copy's `_index` and `_id`. */
  duplicates(logStreams: readonly string[]): Promise<string[]>;
  /** Failed-document records whose data contains `marker`. */
  failedDocuments(marker: string): Promise<FailedDocumentRecord[]>;
  /** Every document the direct indexer kept in moto's S3 (Firehose's layout), parsed as `kfek replay` parses it. */
  keptDocuments(): Promise<KeptDocument[]>;
  /** The objects of the dead-letter bucket (poison records the transform kept). */
  deadLetters(): Promise<DeadLetterObject[]>;
  stop(): Promise<void>;
}

/** `n` JSON log events in `streams` streams of {@link LOG_GROUP}, distinct timestamps, all carrying `runId`. */
export function runEvents(runId: string, n: number, streams = 2): OutgoingLogEvent[] {
  const base = Date.now() - 30 * 60_000;
  return Array.from({ length: n }, (_, i) => ({
    logGroupName: LOG_GROUP,
    logStreamName: `${runId}/${i % streams}`,
    timestamp: base + i,
    message: JSON.stringify({ level: 'INFO', message: `${runId} event ${i}`, i }),
  }));
}

/** A CloudWatch Logs subscription record (gzip `DATA_MESSAGE`) of `n` events of one log stream of {@link LOG_GROUP}. */
export function envelope(logStream: string, n: number): Buffer {
  const base = Date.now() - 10 * 60_000;
  return gzipSync(
    JSON.stringify({
      messageType: 'DATA_MESSAGE',
      owner: '123456789012',
      logGroup: LOG_GROUP,
      logStream,
      subscriptionFilters: ['kfek-to-raw-stream'],
      logEvents: Array.from({ length: n }, (_, i) => ({
        id: `${base + i}${String(i).padStart(6, '0')}`,
        timestamp: base + i,
        message: JSON.stringify({ level: 'INFO', message: `${logStream} ${i}` }),
      })),
    }),
  );
}

/**
 * Polls `condition` every 100 ms until it holds: the fault tests wait for what a fault must cause, never for a fixed
 * time, so a busy machine only makes them slower. Fails naming `what` after {@link SETTLE_TIMEOUT_MILLIS}.
 */
export async function waitUntil(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MILLIS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${SETTLE_TIMEOUT_MILLIS} ms: ${what}`);
    await sleep(100);
  }
}

/** The suite a test runs on; throws when beforeAll could not start it. */
export function started(suite: FaultSuite | undefined): FaultSuite {
  if (suite === undefined) throw new Error('the fault suite did not start (see beforeAll)');
  return suite;
}

export function streamsOf(events: readonly OutgoingLogEvent[]): string[] {
  return [...new Set(events.map((e) => e.logStreamName))];
}

export async function startFaultSuite(options: FaultSuiteOptions): Promise<FaultSuite> {
  const workDir = mkdtempSync(path.join(tmpdir(), 'kfek-faults-'));
  // The node runs as `nobody` when tests run as root: its data folder's parents must be traversable.
  chmodSync(workDir, 0o755);
  const dataDir = path.join(workDir, 'opensearch-data');
  const httpPort = await freePort();
  const config = resolveConfig(
    {
      kfek: {
        profiles: {
          faults: {
            sources: { logGroups: [{ name: LOG_GROUP, create: true }] },
            streams: { raw: { shardCount: 1 }, events: { shardCount: 1 } },
            transform:
              options.transport === 'pipes'
                ? { timeoutSeconds: 5, batchSize: 10, retryAttempts: 3, maxBatchingWindowSeconds: 0 }
                : { timeoutSeconds: 5, batchSize: 20, retryAttempts: 1000, maxBatchingWindowSeconds: 0 },
            ...(options.transport === undefined ? {} : { transport: options.transport }),
            delivery: {
              retryDurationSeconds: options.retryDurationSeconds,
              ...(options.collection === true ? { mode: 'direct' } : {}),
            },
            openSearch: {
              indexTemplate: { replicas: 0 },
              ...(options.collection === true ? { kind: 'serverless', auditLogs: false } : {}),
            },
          },
        },
      },
    },
    'faults',
  );
  const spec = localSpecFromConfig(config);
  let node: RunningOpenSearch | undefined;
  let moto: MotoServer | undefined;
  let collection: RunningStandin | undefined;
  const stopAll = async (): Promise<void> => {
    const results = await Promise.allSettled([collection?.close(), moto?.stop(), node?.stop()]);
    rmSync(workDir, { recursive: true, force: true });
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  };
  try {
    const [startedMoto, startedNode] = await Promise.allSettled([
      // One request at a time, as `npm start` runs it: the pipeline reads and writes the same streams at once, and
      // threaded moto's unlocked shard dicts then fail requests (HTML 500 pages) or give two records one sequence
      // number. No suite here puts a proxy between the SDK and moto, which would need the threaded server.
      startMoto({ serialized: true }),
      startOpenSearch({
        httpPort,
        dataDir,
        ...TEST_NODE,
      }),
    ]);
    if (startedMoto.status === 'fulfilled') moto = startedMoto.value;
    if (startedNode.status === 'fulfilled') node = startedNode.value;
    if (startedMoto.status === 'rejected') throw startedMoto.reason;
    if (startedNode.status === 'rejected') throw startedNode.reason;
  } catch (error) {
    await stopAll();
    throw error;
  }
  const runningMoto = moto as MotoServer;
  const nodeUrl = (node as RunningOpenSearch).url;
  const search = new SearchHttp(createHttpClient({ baseUrl: nodeUrl, maxAttempts: 1 }));
  let pipeline: LocalPipeline;
  try {
    if (options.collection === true) {
      collection = await startLocalCollection(nodeUrl, spec.region);
      await provisionLocalCollection(config, collection.url, spec.region, () => undefined);
    } else {
      await provisionOpenSearch(createHttpClient({ baseUrl: nodeUrl }), openSearchSpecFromConfig(config));
    }
    // Test setup, straight to the node (so not a request kfek sends to a collection): the index the template makes.
    await createIndexAhead(nodeUrl, spec.delivery.indexFor(new Date()));
    const frontUrl = collection?.url ?? nodeUrl;
    const deliveryUrl = options.deliveryUrl === undefined ? frontUrl : await options.deliveryUrl(frontUrl);
    pipeline = await LocalPipeline.start({
      spec,
      ...(collection === undefined
        ? { delivery: options.delivery }
        : { delivery: 'direct', direct: { signingService: COLLECTION_SIGNING_SERVICE } }),
      awsEndpoint: runningMoto.endpoint,
      // The stand-in leaves retrying to its Firehose policy (one attempt per call), with a short timeout so a hung
      // node costs seconds, not the 30 s default, per attempt. (The indexer takes only the URL.)
      search:
        collection === undefined
          ? new SearchHttp(
              createHttpClient({
                baseUrl: deliveryUrl,
                maxAttempts: 1,
                timeoutMillis: options.bulkTimeoutInMillis,
              }),
            )
          : collectionSearchHttp(deliveryUrl, spec.region),
      workDir,
      deliveryBufferIntervalInMillis: 300,
      transformLogLevel: 'CRITICAL',
      transformProcess: options.transformProcess,
      // The child is not under jest's setup: it drops the SDK's Node-version notice itself (a run prints no warnings).
      transformChildPreload: [path.join(__dirname, '..', '..', 'helpers', 'drop-node-version-warning.ts')],
    });
  } catch (error) {
    await stopAll();
    throw error;
  }
  return {
    moto: runningMoto,
    pipeline,
    spec,
    workDir,
    search,
    ...(collection === undefined ? {} : { collection }),
    node: () => node as RunningOpenSearch,
    async killNode() {
      const current = node as RunningOpenSearch;
      process.kill(-current.pid, 'SIGKILL');
      // stop() waits for the exit and removes the node's temp dir; the data folder is outside it.
      await current.stop();
    },
    async restartNode() {
      node = await startOpenSearch({
        httpPort,
        dataDir,
        ...TEST_NODE,
      });
    },
    async count(logStreams) {
      await search.json('POST', `/${spec.delivery.indexPattern}/_refresh`);
      return countDocuments(search, spec.delivery.indexPattern, logStreams);
    },
    async duplicates(logStreams) {
      await search.json('POST', `/${spec.delivery.indexPattern}/_refresh`);
      const answer = await search.json<{
        hits: { hits: Array<{ _index: string; _id: string; _source: { i: number } }> };
      }>('POST', `/${spec.delivery.indexPattern}/_search`, {
        size: 10_000,
        query: { terms: { 'cloudwatch.logStream': [...logStreams] } },
      });
      const copies = new Map<number, string[]>();
      for (const hit of answer.hits.hits) {
        copies.set(hit._source.i, [...(copies.get(hit._source.i) ?? []), `${hit._index}/${hit._id}`]);
      }
      return [...copies].filter(([, c]) => c.length > 1).map(([i, c]) => `${i}: ${c.join(' ')}`);
    },
    async failedDocuments(marker) {
      return (await readFailedDocuments(localFolders(workDir).failedDocuments)).filter((r) =>
        Buffer.from(r.rawData, 'base64').toString('utf8').includes(marker),
      );
    },
    keptDocuments: () => keptDocuments(pipeline),
    async deadLetters() {
      const objects: DeadLetterObject[] = [];
      for (const key of await pipeline.deadLetterKeys()) {
        const out = await pipeline.clients.s3.send(
          new GetObjectCommand({ Bucket: pipeline.resources.deadLetterBucket, Key: key }),
        );
        const body = await (out.Body as { transformToString(): Promise<string> }).transformToString();
        objects.push(JSON.parse(body) as DeadLetterObject);
      }
      return objects;
    },
    async stop() {
      try {
        await pipeline.stop();
      } finally {
        await stopAll();
      }
    },
  };
}

/**
 * Registers the file's beforeAll (start one suite) and afterAll (stop it) and returns the accessor the tests use
 * (it throws when the suite did not start, pointing at beforeAll).
 */
export function useFaultSuite(options: FaultSuiteOptions): () => FaultSuite {
  let suite: FaultSuite | undefined;
  beforeAll(async () => {
    suite = await startFaultSuite(options);
  }, NODE_START_TIMEOUT_MILLIS + 60_000);
  afterAll(async () => {
    await suite?.stop();
  }, 60_000);
  return () => {
    if (suite === undefined) throw new Error('the fault suite did not start (see beforeAll)');
    return suite;
  };
}
