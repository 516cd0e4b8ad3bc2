/**
 * End-to-end: `kfek replay --kind events-window` brings back what a recreated delivery stream never read, with real
 * components only: moto (Kinesis), a real OpenSearch node with kfek's index template and id pipeline, and the local
 * Firehose stand-in (scripts/local/delivery-loop.ts) as the delivery stream, old and new.
 *
 * The stand-in reads the events stream from TRIM_HORIZON, which is what a delivery stream created with the stream
 * sees. A delivery stream created later starts at its own creation time (Firehose has no TRIM_HORIZON for a Kinesis
 * source), so the new one here is the same loop on a client whose GetShardIterator TRIM_HORIZON is turned into
 * AT_TIMESTAMP at its creation: what the test calls "recreating the Pipeline stack".
 *
 * Records are written as the transform writes them: KPL aggregated, documents carrying log group, stream and event
 * id, so the node's pipeline derives each `_id` and a re-delivered document overwrites itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { type KinesisClient, MergeShardsCommand, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { run } from '../../cli/main';
import { resolveConfig } from '../../core/config';
import { physicalNamesFor } from '../../core/contracts/physical-names';
import { createHttpClient, provisionOpenSearch } from '../../core/opensearch';
import { encodeAggregatedRecord, type EncodableDocument } from '../../core/transform/kpl-aggregation';
import { LOCAL_CREDENTIALS, type LocalAwsClients, localAwsClients } from '../../scripts/local/aws-clients';
import { localSpecFromConfig, openSearchSpecFromConfig } from '../../scripts/local/config-spec';
import { DeliveryLoop } from '../../scripts/local/delivery-loop';
import { localSearchHttp, type SearchHttp } from '../../scripts/local/search-http';
import { countDistinctEvents, countDocuments } from '../../scripts/local/summary';
import { createStream, readStreamRecords } from '../helpers/kinesis-stream';
import { useLocalMoto } from '../helpers/local-moto';
import { useOpenSearchNode } from '../helpers/opensearch';

const LOG_GROUP = '/kfek/window/app';
const CONFIG = resolveConfig(
  {
    kfek: {
      profiles: {
        window: {
          sources: { logGroups: [{ name: LOG_GROUP, create: true }] },
          streams: { events: { shardCount: 2 } },
          openSearch: { indexTemplate: { replicas: 0 } },
        },
      },
    },
  },
  'window',
);
const SPEC = localSpecFromConfig(CONFIG);
/** Documents per aggregated record. */
const PER_RECORD = 10;
/** Every wait of a step ends by this, on a busy machine too. */
const STEP_TIMEOUT_MILLIS = 60_000;

let search: SearchHttp;
let workDir: string;
const loops: DeliveryLoop[] = [];
const extraClients: LocalAwsClients[] = [];

/** The command's SDK clients take credentials from the process' environment (its `env` gives region and endpoint). */
const CREDENTIALS_ENV = {
  AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
};
const savedEnv = Object.fromEntries(Object.keys(CREDENTIALS_ENV).map((k) => [k, process.env[k]]));

// Declared before the servers' hooks: Jest runs afterAll hooks in the order they are declared, and the delivery
// loops must stop while moto and the node still run.
afterAll(async () => {
  const results = await Promise.allSettled(loops.map((loop) => loop.stop()));
  extraClients.forEach((c) => c.destroy());
  if (workDir !== undefined) rmSync(workDir, { recursive: true, force: true });
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}, 60_000);

const moto = useLocalMoto(SPEC.region);
const node = useOpenSearchNode();

beforeAll(async () => {
  Object.assign(process.env, CREDENTIALS_ENV);
  workDir = mkdtempSync(path.join(tmpdir(), 'kfek-window-'));
  await provisionOpenSearch(createHttpClient({ baseUrl: node.node().url }), openSearchSpecFromConfig(CONFIG));
  search = localSearchHttp(node.node().url);
}, 60_000);

/** Polls `condition` every 100 ms; fails naming `what` when it does not hold within the step's time. */
async function waitFor(what: string, condition: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + STEP_TIMEOUT_MILLIS;
  while (!(await condition())) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${STEP_TIMEOUT_MILLIS} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * A delivery stream (the Firehose stand-in) on `streamArn`. With `createdAt`, it starts reading at that time, as a
 * delivery stream created after the stream does; without, from the stream's oldest record.
 */
async function deliveryStream(streamArn: string, createdAt?: Date): Promise<DeliveryLoop> {
  let kinesis: KinesisClient = moto.clients().kinesis;
  if (createdAt !== undefined) {
    const own = localAwsClients(moto.endpoint(), SPEC.region);
    extraClients.push(own);
    own.kinesis.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { ShardIteratorType?: string };
        return next(
          input.ShardIteratorType === 'TRIM_HORIZON'
            ? { ...args, input: { ...input, ShardIteratorType: 'AT_TIMESTAMP', Timestamp: createdAt } }
            : args,
        );
      },
      { step: 'initialize', name: 'deliveryStreamStartsAtItsCreation' },
    );
    kinesis = own.kinesis;
  }
  const loop = new DeliveryLoop({
    kinesis,
    streamArn,
    search,
    indexFor: SPEC.delivery.indexFor,
    failedDocumentsDir: path.join(workDir, `failed-${loops.length}`),
    bufferIntervalInMillis: 200,
    pollIntervalInMillis: 50,
  });
  loops.push(loop);
  await loop.start();
  return loop;
}

/** Writes `events` events of log stream `logStream` as the transform does: KPL aggregated, PER_RECORD per record. */
async function writeEvents(streamArn: string, logStream: string, events: number): Promise<number> {
  const base = Date.now() - 60_000;
  const documents: EncodableDocument[] = Array.from({ length: events }, (_, i) => {
    const json = JSON.stringify({
      '@timestamp': new Date(base + i).toISOString(),
      message: `${logStream} event ${i}`,
      level: 'INFO',
      cloudwatch: { id: String(i), logGroup: LOG_GROUP, logStream, owner: '123456789012' },
    });
    return { json, bytes: Buffer.byteLength(json) };
  });
  const records = [];
  for (let at = 0; at < events; at += PER_RECORD) {
    const indices = Array.from({ length: Math.min(PER_RECORD, events - at) }, (_, k) => at + k);
    const partitionKey = `${logStream}-${at}`;
    records.push({
      Data: encodeAggregatedRecord(partitionKey, documents, indices),
      PartitionKey: partitionKey,
    });
  }
  const out = await moto
    .clients()
    .kinesis.send(new PutRecordsCommand({ StreamARN: streamArn, Records: records }));
  expect(out.FailedRecordCount ?? 0).toBe(0);
  return records.length;
}

/** Documents of one log stream; 0 while the day's index is still being created. */
async function documentsOf(logStream: string): Promise<number> {
  return countDocuments(search, SPEC.delivery.indexPattern, [logStream]).catch(() => 0);
}

/** Distinct events and documents of one log stream, after a refresh. */
async function indexed(logStream: string): Promise<{ events: number; documents: number }> {
  return {
    events: await countDistinctEvents(search, SPEC.delivery.indexPattern, [logStream]),
    documents: await countDocuments(search, SPEC.delivery.indexPattern, [logStream]),
  };
}

/** `npx kfek replay <args>` in-process against moto. */
async function replay(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(['replay', '--endpoint', moto.endpoint(), '--region', SPEC.region, ...args], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: CREDENTIALS_ENV,
  });
  return { code, stdout, stderr };
}

/** `kfek replay --kind events-window` on `streamArn` from `since`, with more options. */
async function replayWindow(
  streamArn: string,
  since: Date,
  ...more: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  return replay(
    '--kind',
    'events-window',
    '--events-stream',
    streamArn,
    '--since',
    since.toISOString(),
    ...more,
  );
}

/** Waits until `loop` has handled everything written to its stream before now. */
async function delivered(loop: DeliveryLoop, what: string): Promise<void> {
  const since = Date.now();
  await waitFor(what, () => {
    const failure = loop.failure();
    if (failure !== undefined) throw failure;
    return (loop.caughtUpSince() ?? 0) > since;
  });
}

describe('kfek replay --kind events-window', () => {
  test('after the delivery stream is recreated, the events it never read are indexed once, and indexed ones are not doubled', async () => {
    // GIVEN the events stream, and the first delivery stream, created with it, indexing run A
    const run = `window-${Date.now()}`;
    const [a, b, c] = ['a', 'b', 'c'].map((part) => `${run}-${part}`);
    const streamArn = await createStream(moto.clients().kinesis, `${run}-events`, 2);
    const before = new Date(Date.now() - 1000);
    const old = await deliveryStream(streamArn);
    const recordsA = await writeEvents(streamArn, a, 200);
    await waitFor('run A indexed by the first delivery stream', async () => (await documentsOf(a)) === 200);
    // WHEN the Pipeline stack is destroyed (its delivery stream with it), the transform's run B lands on the events
    // stream meanwhile, and the redeployed stack's delivery stream starts at its creation, then indexes run C
    await old.stop();
    const recordsB = await writeEvents(streamArn, b, 150);
    // One millisecond on: moto's AT_TIMESTAMP includes a record stamped at that very millisecond.
    const recreated = await deliveryStream(streamArn, new Date(Date.now() + 1));
    const recordsC = await writeEvents(streamArn, c, 50);
    await waitFor('run C indexed by the new delivery stream', async () => (await documentsOf(c)) === 50);
    await delivered(recreated, 'the new delivery stream to catch up');
    // THEN run B is lost: no delivery stream ever read it
    expect(await indexed(b)).toEqual({ events: 0, documents: 0 });

    // WHEN the window is listed, then replayed
    const records = recordsA + recordsB + recordsC;
    const listed = await replayWindow(streamArn, before, '--dry-run');
    const replayed = await replayWindow(streamArn, before);
    await delivered(recreated, 'the replayed records to be delivered');

    // THEN every event of A, B and C is searchable exactly once (a run across midnight UTC would put a copy in the
    // next day's index: Firehose names the index by arrival, docs/guarantees.md)
    expect(listed.stderr).not.toMatch(/kfek: /);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`^dry run: would re-put ${records} record\\(s\\) \\(`, 'm'));
    expect(replayed.stderr).not.toMatch(/kfek: /);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toMatch(
      new RegExp(`^re-put ${records} record\\(s\\) \\(.*\\) to the events stream ${streamArn} in `, 'm'),
    );
    expect(replayed.stdout).toMatch(/^shardId-000000000000 +open +\d+ /m);
    expect(replayed.stdout).toMatch(/^shardId-000000000001 +open +\d+ /m);
    expect(await indexed(a)).toEqual({ events: 200, documents: 200 });
    expect(await indexed(b)).toEqual({ events: 150, documents: 150 });
    expect(await indexed(c)).toEqual({ events: 50, documents: 50 });

    // WHEN replayed again up to the first replay's start: the same records, not the first replay's copies
    const end = /^events window of \S+, records that arrived from \S+ to (\S+):$/m.exec(replayed.stdout)?.[1];
    expect(end).toBeDefined();
    const again = await replayWindow(streamArn, before, '--until', end!);
    await delivered(recreated, 'the second replay to be delivered');
    // THEN
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^re-put ${records} record\\(s\\)`, 'm'));
    expect(await indexed(a)).toEqual({ events: 200, documents: 200 });
    expect(await indexed(b)).toEqual({ events: 150, documents: 150 });
    expect(await indexed(c)).toEqual({ events: 50, documents: 50 });
  }, 240_000);

  test("--profile reads the profile's events stream by its fixed name, every shard after a reshard, closed parents first", async () => {
    // GIVEN the sandbox profile's events stream, two shards merged into one, then more records. (moto differs from
    // AWS here: it copies the parents' records into the child and still puts some new records on the closed
    // parents; the test compares with what the stream holds, whatever shard it is on.)
    const run = `window-merge-${Date.now()}`;
    const streamName = physicalNamesFor('kfek-sandbox').eventsStream;
    const streamArn = await createStream(moto.clients().kinesis, streamName, 2);
    const before = new Date(Date.now() - 1000);
    await writeEvents(streamArn, `${run}-1`, 100);
    await moto.clients().kinesis.send(
      new MergeShardsCommand({
        StreamARN: streamArn,
        ShardToMerge: 'shardId-000000000000',
        AdjacentShardToMerge: 'shardId-000000000001',
      }),
    );
    await writeEvents(streamArn, `${run}-2`, 40);
    const held = await readStreamRecords(moto.clients().kinesis, streamName);
    // WHEN
    const listed = await replay(
      '--kind',
      'events-window',
      '--profile',
      'sandbox',
      '--since',
      before.toISOString(),
      '--dry-run',
      '--json',
    );
    // THEN both closed parents are read, before the child, each to its last record
    expect(listed.stderr).not.toMatch(/kfek: /);
    expect(listed.code).toBe(0);
    const report = JSON.parse(listed.stdout) as {
      stream: string;
      records: number;
      shards: { shardId: string; closed: boolean; records: number }[];
    };
    expect(report.shards.map((s) => [s.shardId, s.closed, s.records])).toEqual(
      [
        ['shardId-000000000000', true],
        ['shardId-000000000001', true],
        ['shardId-000000000002', false],
      ].map(([id, closed]) => [id, closed, held.filter((r) => r.shardId === id).length]),
    );
    expect(report.stream).toBe('kfek-sandbox-events');
    expect(report.records).toBe(held.length);
  }, 60_000);
});
