/**
 * End-to-end: `kfek replay` against the pipeline of `npm start`, with real components only (moto for CloudWatch
 * Logs, Kinesis, S3 and SQS; a real OpenSearch node; the real transform handler under the local event-source loop;
 * the local Firehose stand-in). Each test makes events fail into one of the places kfek keeps them, runs
 * `kfek replay` in-process (cli/main.ts `run`, exactly what `npx kfek replay` runs) and checks that every event is
 * searchable exactly once.
 *
 * What cannot happen here and is stood in for, each said at its test: OpenSearch refusing documents is a write
 * block on the day's index (403, final for Firehose); a Kinesis outage for one run's documents is the
 * fault-injecting proxy failing just those PutRecords entries; the pipe's dead-letter message (Pipes does not run
 * in moto) is written by the test in the shape of Lambda's batch metadata; a dead letter whose data is a valid
 * envelope (a transform bug since fixed) is written by the test in the transform's own format.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PutRecordCommand } from '@aws-sdk/client-kinesis';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { CreateQueueCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { run } from '../../cli/main';
import { resolveConfig } from '../../core/config';
import { LOCAL_CREDENTIALS } from '../../scripts/local/aws-clients';
import { localSqsClient } from '../../scripts/local/sqs-client';
import { readFailedDocuments } from '../../scripts/local/failed-documents';
import { type LocalPipeline, localFolders } from '../../scripts/local/pipeline';
import type { OutgoingLogEvent } from '../../scripts/local/sender';
import { countDistinctEvents, countDocuments } from '../../scripts/local/summary';
import { encodeEnvelope, makeEnvelope } from '../helpers/cloudwatch';
import { createStream } from '../helpers/kinesis-stream';
import { LocalStackRunner } from '../helpers/local-stack';
import { OPENSEARCH_START_TIMEOUT_MILLIS } from '../helpers/opensearch';

const LOG_GROUP = '/kfek/replay/app';
/** One shard each and one retry, so a failing batch reaches the on-failure folder in seconds. */
const REPLAY_CONTEXT = {
  kfek: {
    profiles: {
      replay: {
        sources: { logGroups: [{ name: LOG_GROUP, create: true }] },
        streams: { raw: { shardCount: 1 }, events: { shardCount: 1 } },
        transform: { timeoutSeconds: 3, batchSize: 10, retryAttempts: 1, maxBatchingWindowSeconds: 0 },
        delivery: { retryDurationSeconds: 2 },
        openSearch: { indexTemplate: { replicas: 0 } },
      },
    },
  },
};
const SETTLE_TIMEOUT_MILLIS = 60_000;

const stack = new LocalStackRunner();
let sqs: SQSClient | undefined;

beforeAll(async () => {
  const { moto, spec } = await stack.start(resolveConfig(REPLAY_CONTEXT, 'replay'), {
    workDirPrefix: 'kfek-replay-',
    deliveryBufferIntervalInMillis: 300,
  });
  sqs = localSqsClient(moto.endpoint, spec.region);
}, OPENSEARCH_START_TIMEOUT_MILLIS);

afterAll(async () => {
  sqs?.destroy();
  await stack.stop();
}, 60_000);

const running = (): LocalPipeline => stack.get().pipeline;

/** `npx kfek replay <args>` in-process against moto; stdout, stderr and the exit code. */
async function replay(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await run(
    ['replay', '--endpoint', stack.get().moto.endpoint, '--region', stack.get().spec.region, ...args],
    {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      env: {
        AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      },
    },
  );
  return { code, stdout, stderr };
}

let runCounter = 0;
function events(label: string, n: number): { stream: string; events: OutgoingLogEvent[] } {
  runCounter += 1;
  const stream = `replay-${label}-${runCounter}-${Date.now()}`;
  const base = Date.now() - 60_000;
  return {
    stream,
    events: Array.from({ length: n }, (_, i) => ({
      logGroupName: LOG_GROUP,
      logStreamName: stream,
      timestamp: base + i,
      message: JSON.stringify({ level: 'INFO', message: `${stream} event ${i}` }),
    })),
  };
}

/** Distinct events and documents of one log stream, after a refresh. */
async function searchable(stream: string): Promise<{ events: number; documents: number }> {
  await stack.get().search.json('POST', `/${stack.get().spec.delivery.indexPattern}/_refresh`);
  return {
    events: await countDistinctEvents(stack.get().search, stack.get().spec.delivery.indexPattern, [stream]),
    documents: await countDocuments(stack.get().search, stack.get().spec.delivery.indexPattern, [stream]),
  };
}

async function settle(): Promise<void> {
  await running().waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
}

describe('kfek replay against the local pipeline', () => {
  test('failed documents: OpenSearch refused 40, replay makes all 40 searchable, a second replay adds none', async () => {
    // GIVEN today's index refusing writes (403 cluster_block_exception: final for Firehose, like a mapping
    // conflict), so every document of the run goes to the failed-documents folder
    const index = stack.get().spec.delivery.indexFor(new Date());
    await stack
      .get()
      .search.json('PUT', `/${index}`)
      .catch(() => undefined);
    await stack.get().search.json('PUT', `/${index}/_settings`, { 'index.blocks.write': true });
    const { stream, events: sent } = events('failed-docs', 40);
    try {
      await running().send(sent);
      await settle();
    } finally {
      await stack.get().search.json('PUT', `/${index}/_settings`, { 'index.blocks.write': null });
    }
    const failed = await readFailedDocuments(localFolders(stack.get().workDir).failedDocuments);
    expect(failed.filter((f) => Buffer.from(f.rawData, 'base64').toString().includes(stream))).toHaveLength(
      40,
    );
    expect(await searchable(stream)).toEqual({ events: 0, documents: 0 });

    // WHEN the documents are replayed to the events stream
    const first = await replay(
      '--local',
      '--local-dir',
      stack.get().workDir,
      '--kind',
      'failed-document',
      '--reason',
      '403',
      '--events-stream',
      running().resources.eventsStreamArn,
      '--rate',
      '200',
    );
    await settle();

    // THEN every event is searchable once, and the output says what went where
    expect(first.stderr).not.toMatch(/kfek: /);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^failed-document +40 +40 /m);
    expect(first.stdout).toContain(
      `re-sent 40 document(s) of 40 item(s) to the events stream ${running().resources.eventsStreamArn}`,
    );
    expect(first.stdout).toContain('nothing was deleted');
    expect(await searchable(stream)).toEqual({ events: 40, documents: 40 });

    // WHEN replayed again: the documents overwrite themselves (ids from log group, stream and event id)
    const second = await replay(
      '--local',
      '--local-dir',
      stack.get().workDir,
      '--kind',
      'failed-document',
      '--events-stream',
      running().resources.eventsStreamArn,
    );
    await settle();
    expect(second.code).toBe(0);
    expect(await searchable(stream)).toEqual({ events: 40, documents: 40 });
  }, 120_000);

  let discarded: { stream: string; file: string } | undefined;

  test('discarded batch: the event source gave up on 30 events, replay puts the kept records back on the raw stream', async () => {
    // GIVEN every PutRecords entry of this run failing (a Kinesis outage for it alone), so the event source
    // retries once and then writes the batch, records included, to its on-failure folder
    const { stream, events: sent } = events('discarded', 30);
    const before = new Set(listOnFailure());
    stack.get().proxy.failEntries((data) => data.includes(stream));
    try {
      await running().send(sent);
      await settle();
    } finally {
      stack.get().proxy.clear();
    }
    const files = listOnFailure().filter((f) => !before.has(f));
    expect(files).toHaveLength(1);
    discarded = { stream, file: files[0] };
    expect(await searchable(stream)).toEqual({ events: 0, documents: 0 });

    // WHEN
    const result = await replay(
      '--local',
      '--local-dir',
      stack.get().workDir,
      '--kind',
      'discarded-batch',
      '--since',
      '10m',
      '--raw-stream',
      running().resources.rawStreamArn,
    );
    await settle();

    // THEN
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/re-sent \d+ raw record\(s\) of \d+ item\(s\) to the raw stream /);
    expect(await searchable(stream)).toEqual({ events: 30, documents: 30 });
  }, 120_000);

  test('pipe dead-letter message (metadata only): replay reads the batch back from the raw stream by sequence number', async () => {
    // GIVEN the discarded batch above described only by shard and sequence numbers, as the pipe's dead-letter
    // queue keeps it, and its documents gone from OpenSearch
    if (discarded === undefined) throw new Error('needs the discarded batch of the previous test');
    const { stream, file } = discarded;
    const onFailure = JSON.parse(readFileSync(file, 'utf8')) as { KinesisBatchInfo: Record<string, unknown> };
    const queueUrl = (await sqs!.send(new CreateQueueCommand({ QueueName: `kfek-replay-dlq-${Date.now()}` })))
      .QueueUrl!;
    await sqs!.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify({ context: onFailure.KinesisBatchInfo }),
      }),
    );
    await stack
      .get()
      .search.json('POST', `/${stack.get().spec.delivery.indexPattern}/_delete_by_query?refresh=true`, {
        query: { term: { 'cloudwatch.logStream': stream } },
      });
    expect(await searchable(stream)).toEqual({ events: 0, documents: 0 });

    // WHEN replayed from the queue, deleting the message once re-sent
    const listed = await replay('--queue-url', queueUrl, '--dry-run');
    const result = await replay(
      '--queue-url',
      queueUrl,
      '--raw-stream',
      running().resources.rawStreamArn,
      '--delete-after',
    );
    await settle();

    // THEN
    expect(listed.stdout).toMatch(/^pipes-dlq +1 +\d+ \(1 range in its stream\)/m);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/deleted 1 re-sent object\(s\)\/message\(s\)/);
    expect(await searchable(stream)).toEqual({ events: 30, documents: 30 });
    const after = await replay('--queue-url', queueUrl, '--dry-run');
    expect(after.stdout).toMatch(/^pipes-dlq +0 +0 /m);
  }, 120_000);

  test('dead letters: the real reason is listed, and a record a fixed transform can read comes back searchable', async () => {
    // GIVEN a poison record the transform dead-letters now, and a dead letter in the transform's format whose data
    // is a valid envelope (what a transform bug, since fixed, would have left)
    const s3 = running().clients.s3;
    const kinesis = running().clients.kinesis;
    await kinesis.send(
      new PutRecordCommand({
        StreamARN: running().resources.rawStreamArn,
        Data: Buffer.from('not gzip at all'),
        PartitionKey: 'poison',
      }),
    );
    await settle();
    const { stream } = events('dead-letter', 0);
    const envelope = makeEnvelope(
      { logGroup: LOG_GROUP, logStream: stream },
      Array.from({ length: 5 }, (_, i) => ({
        id: `${Date.now()}${i}`,
        timestamp: Date.now() - i,
        message: `fixed ${i}`,
      })),
    );
    await s3.send(
      new PutObjectCommand({
        Bucket: running().resources.deadLetterBucket,
        Key: `${stack.get().spec.deadLetterPrefix}year=2026/month=11/day=23/hour=10/raw/shardId-000000000000/1.json`,
        Body: JSON.stringify({
          version: 1,
          reason: 'a transform bug, fixed since',
          receivedAt: new Date().toISOString(),
          source: { partitionKey: 'pk-fixed' },
          data: encodeEnvelope(envelope),
        }),
      }),
    );

    // WHEN listed, then the fixed one is replayed
    const listed = await replay(
      '--bucket',
      running().resources.deadLetterBucket,
      '--kind',
      'dead-letter',
      '--dry-run',
    );
    const result = await replay(
      '--bucket',
      running().resources.deadLetterBucket,
      '--kind',
      'dead-letter',
      '--reason',
      'fixed since',
      '--raw-stream',
      running().resources.rawStreamArn,
    );
    await settle();

    // THEN
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^dead-letter +2 +2 /m);
    // The reason says what JSON.parse said, without quoting the record (issue 29).
    expect(listed.stdout).toMatch(/dead-letter: 1 x not JSON: Unexpected token 'o' \(not valid JSON\)/);
    expect(result.stdout).toMatch(/chosen: 1 of 2 item\(s\)/);
    expect(result.stdout).toMatch(/re-sent 1 raw record\(s\) of 1 item\(s\) to the raw stream /);
    expect(await searchable(stream)).toEqual({ events: 5, documents: 5 });
  }, 120_000);
});

describe('kfek replay and kept objects it must not send', () => {
  test('a foreign stream, a broken .gz and records Kinesis refuses are named and kept; the good ones come back once', async () => {
    // GIVEN kept data in npm start's layout, written by the test: two good dead letters (envelopes of one log
    // stream), a dead letter with a 257-character partition key and one over 1 MiB, an on-failure record naming
    // another stream by its sequence numbers (a stream holding a valid envelope, so a read of it would show in
    // OpenSearch), and a failed-documents object that starts like gzip and is not
    const dir = mkdtempSync(path.join(tmpdir(), 'kfek-replay-bad-kept-'));
    const kinesis = running().clients.kinesis;
    const good = events('kept-good', 0).stream;
    const longKey = events('kept-long-key', 0).stream;
    const foreign = events('kept-foreign', 0).stream;
    let eventId = Date.now() * 1000;
    const envelopeOf = (logStream: string, n: number): string =>
      encodeEnvelope(
        makeEnvelope(
          { logGroup: LOG_GROUP, logStream },
          Array.from({ length: n }, (_, i) => ({
            id: String((eventId += 1)),
            timestamp: Date.now() - i,
            message: `kept ${i}`,
          })),
        ),
      );
    const foreignArn = await createStream(kinesis, `kfek-replay-foreign-${Date.now()}`);
    const put = await kinesis.send(
      new PutRecordCommand({
        StreamARN: foreignArn,
        Data: Buffer.from(envelopeOf(foreign, 3), 'base64'),
        PartitionKey: 'p',
      }),
    );
    const write = (sub: string, name: string, body: string | Uint8Array): void => {
      mkdirSync(path.join(dir, sub), { recursive: true });
      writeFileSync(path.join(dir, sub, name), body);
    };
    const deadLetter = (data: string, partitionKey: string): string =>
      JSON.stringify({
        version: 1,
        reason: 'kept by the test',
        receivedAt: new Date().toISOString(),
        source: { partitionKey },
        data,
      });
    write('dead-letter', 'good-1.json', deadLetter(envelopeOf(good, 4), 'pk-1'));
    write('dead-letter', 'good-2.json', deadLetter(envelopeOf(good, 6), 'pk-2'));
    write('dead-letter', 'long-key.json', deadLetter(envelopeOf(longKey, 2), 'k'.repeat(257)));
    write('dead-letter', 'big.json', deadLetter(Buffer.alloc(1024 * 1024, 'x').toString('base64'), 'big'));
    write(
      'event-source-on-failure',
      'foreign.json',
      JSON.stringify({
        requestContext: { condition: 'RetryAttemptsExhausted' },
        timestamp: new Date().toISOString(),
        KinesisBatchInfo: {
          shardId: put.ShardId,
          startSequenceNumber: put.SequenceNumber,
          endSequenceNumber: put.SequenceNumber,
          batchSize: 1,
          streamArn: foreignArn,
        },
      }),
    );
    write('failed-documents', 'broken.gz', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xde, 0xad, 0xbe, 0xef]));
    const args = [
      '--local',
      '--local-dir',
      dir,
      '--raw-stream',
      running().resources.rawStreamArn,
      '--events-stream',
      running().resources.eventsStreamArn,
    ];

    // WHEN listed, then replayed deleting what was re-sent
    const listed = await replay(...args, '--dry-run');
    const result = await replay(...args, '--delete-after');
    await settle();

    // THEN both runs name every bad object and what is wrong with it, and exit 1
    for (const run of [listed, result]) {
      expect(run.stderr).not.toMatch(/kfek: /);
      expect(run.code).toBe(1);
      expect(run.stdout).toMatch(
        /^skipped: dead-letter .*long-key\.json: its partition key has 257 characters/m,
      );
      expect(run.stdout).toMatch(
        /^skipped: dead-letter .*big\.json: its data and partition key are \d+ bytes/m,
      );
      expect(run.stdout).toContain(`foreign.json names the stream ${foreignArn}, not the raw stream`);
      expect(run.stdout).toMatch(/^unreadable: .*broken\.gz starts like gzip but does not inflate/m);
    }
    expect(listed.stdout).toMatch(/would re-send 2 raw record\(s\) to the raw stream/);
    expect(result.stdout).toMatch(/re-sent 2 raw record\(s\) of 2 item\(s\) to the raw stream /);
    // ... the good dead letters' events are searchable once, nothing of the others (the foreign stream was not read)
    expect(await searchable(good)).toEqual({ events: 10, documents: 10 });
    expect(await searchable(longKey)).toEqual({ events: 0, documents: 0 });
    expect(await searchable(foreign)).toEqual({ events: 0, documents: 0 });
    // ... and only the re-sent objects were deleted
    expect(readdirSync(path.join(dir, 'dead-letter')).sort()).toEqual(['big.json', 'long-key.json']);
    expect(readdirSync(path.join(dir, 'event-source-on-failure'))).toEqual(['foreign.json']);
    expect(readdirSync(path.join(dir, 'failed-documents'))).toEqual(['broken.gz']);
    rmSync(dir, { recursive: true, force: true });
  }, 120_000);
});

function listOnFailure(): string[] {
  const dir = localFolders(stack.get().workDir).onFailure;
  try {
    return readdirSync(dir).map((f) => path.join(dir, f));
  } catch {
    return [];
  }
}
