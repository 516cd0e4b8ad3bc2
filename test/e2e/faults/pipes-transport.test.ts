/**
 * One full run of the `pipes` transport (issue 14): log events through moto's subscription filter into the raw
 * stream, the pipe stand-in (scripts/local/pipes-loop.ts) invoking the shipped enrichment (lambda/transform/pipes.ts)
 * and writing its answers to the events stream, the Firehose stand-in, a real OpenSearch node. It includes a
 * CloudWatch envelope of 600 events (more than a Kinesis target takes per invocation, so the enrichment writes the
 * batch to the events stream itself and answers `[]`) and a poison record (dead-lettered to S3, an error document
 * indexed in its place). Then a batch the enrichment cannot finish: bisected, its last record dead-lettered to the
 * pipe's SQS queue, and brought back by `kfek replay`. Nothing is mocked.
 */
import { PutRecordCommand, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { DeleteBucketCommand, DeleteObjectCommand } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { run } from '../../../cli/main';
import { LOCAL_CREDENTIALS } from '../../../scripts/local/aws-clients';
import type { PipeDeadLetterMessage } from '../../../scripts/local/pipes-dead-letter';
import type { PipesStats } from '../../../scripts/local/pipes-loop';
import { createLocalResources } from '../../../scripts/local/resources';
import { formatSummary } from '../../../scripts/local/summary';
import {
  envelope,
  runEvents,
  SETTLE_TIMEOUT_MILLIS,
  streamsOf,
  useFaultSuite,
  waitUntil,
} from './fault-suite';

const running = useFaultSuite({ retryDurationSeconds: 60, bulkTimeoutInMillis: 10_000, transport: 'pipes' });

describe('the pipes transport end to end (pipe stand-in, real enrichment, real node)', () => {
  test('N events in give N searchable once; the oversize envelope written by the enrichment, the poison record kept', async () => {
    // GIVEN the pipe stand-in (not the event-source loop) carrying the raw stream
    const { pipeline } = running();
    const pipe = pipeline.pipe;
    if (pipe === undefined) throw new Error('the fault suite did not start the pipes transport');
    const runId = `pipes-${Date.now()}`;
    const startedAt = Date.now();
    const probe = pipeline.newLatencyProbe(20);
    probe.start();

    // WHEN 300 events (50 per PutLogEvents call, so answers of at most 500 items) and one poison record go in
    const small = runEvents(`${runId}-small`, 300, 3);
    const sentSmall = await pipeline.send(small, { eventsPerCall: 50 });
    const poison = Buffer.from(`not a CloudWatch envelope ${runId}`);
    await pipeline.clients.kinesis.send(
      new PutRecordCommand({ StreamARN: pipeline.resources.rawStreamArn, Data: poison, PartitionKey: runId }),
    );
    probe.follow(sentSmall);
    await pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);
    const afterSmall = pipe.loop.snapshot();
    const recordsAfterSmall = pipeline.delivery.snapshot().recordsRead;
    // ... then one envelope of 600 events (one PutLogEvents call: one raw record, one batch)
    const big = runEvents(`${runId}-big`, 600, 1);
    const sentBig = await pipeline.send(big, { eventsPerCall: 1000 });
    await pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);

    // THEN every event is searchable exactly once
    const summary = await pipeline.summarize(runId, [...sentSmall, ...sentBig], probe, startedAt);
    expect(summary.eventsWritten).toBe(900);
    expect(summary.eventsSearchable).toBe(900);
    expect(summary.documentsSearchable).toBe(900);
    // (one set at a time: `duplicates` tells events apart by their field `i`, which each set numbers from 0)
    expect(await running().duplicates(streamsOf(small))).toEqual([]);
    expect(await running().duplicates(streamsOf(big))).toEqual([]);
    expect(summary.delivery.documentsFailed).toBe(0);
    // ... the small batches went through the target (300 documents and the poison record's error document)
    expect(afterSmall).toEqual(
      expect.objectContaining({
        targetRecords: 301,
        emptyAnswers: 0,
        deadLetterMessages: 0,
        functionErrors: 0,
      }),
    );
    // ... the 600-event envelope was written by the enrichment itself: the answer was `[]`, the target skipped,
    // and the events stream got 600 records the target did not write
    const stats = summary.pipe as PipesStats;
    expect(stats.emptyAnswers - afterSmall.emptyAnswers).toBe(1);
    expect(stats.targetRecords).toBe(afterSmall.targetRecords);
    expect(summary.delivery.recordsRead - recordsAfterSmall).toBe(600);
    expect(summary.delivery.recordsRead - stats.targetRecords).toBe(600);
    // ... nothing failed in the pipe: no retries, nothing in its dead-letter queue
    expect(stats).toEqual(
      expect.objectContaining({
        functionErrors: 0,
        targetFailures: 0,
        deadLetterMessages: 0,
        recordsExpired: 0,
      }),
    );
    const queued = await pipe.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: pipe.queue.url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
    );
    expect(queued.Messages ?? []).toEqual([]);
    // ... the poison record is kept whole in the dead-letter bucket with its reason, and its error document
    // (pointing at that object) is searchable
    const kept = (await running().deadLetters()).filter((o) => o.data === poison.toString('base64'));
    expect(kept).toHaveLength(1);
    expect(kept[0].reason.length).toBeGreaterThan(0);
    const errors = await running().search.json<{
      hits: { hits: Array<{ _source: { kfek: { error: { data: string; deadLetter?: { key: string } } } } }> };
    }>('POST', `/${running().spec.delivery.indexPattern}/_search`, {
      size: 100,
      query: { exists: { field: 'kfek.error.reason' } },
    });
    const mine = errors.hits.hits.filter((h) => h._source.kfek.error.data === poison.toString('base64'));
    expect(mine).toHaveLength(1);
    expect(mine[0]._source.kfek.error.deadLetter?.key).toEqual(expect.any(String));
    expect(summary.deadLettered).toBe(1);
    // ... and the summary says so
    const text = formatSummary(summary);
    expect(text).toContain('OK: every event is searchable once');
    expect(text).toContain('batches given up (pipe DLQ)        0 record(s) in 0 message(s)');
    expect(text).toMatch(/pipe: +301 records by the target in \d+ PutRecords, 1 empty answers/);
    expect(text).toContain('600 records written by the enrichment itself');
  }, 120_000);

  test('a record the enrichment cannot finish is isolated by bisection, dead-lettered to the queue, and replayed', async () => {
    // GIVEN the dead-letter bucket gone, so the enrichment fails any batch holding a poison record (it cannot keep
    // it: PipesDeadLetterError)
    const { pipeline } = running();
    const pipe = pipeline.pipe as NonNullable<typeof pipeline.pipe>;
    const { s3, kinesis } = pipeline.clients;
    const bucket = pipeline.resources.deadLetterBucket;
    for (const key of await pipeline.deadLetterKeys()) {
      await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    }
    await s3.send(new DeleteBucketCommand({ Bucket: bucket }));
    const runId = `pipes-dlq-${Date.now()}`;
    const poison = Buffer.from(`not an envelope ${runId}`);
    const before = pipe.loop.snapshot();
    const overwrittenBefore = pipeline.delivery.snapshot().documentsOverwritten;
    // WHEN good, poison, good records go to the raw stream, in that order, in one PutRecords call: the pipe reads
    // them as one batch however busy the machine is (with a call per record, a read between two calls split them
    // into [a] and [poison, b], one bisection fewer; moto, run one request at a time, stores a call whole)
    const put = await kinesis.send(
      new PutRecordsCommand({
        StreamARN: pipeline.resources.rawStreamArn,
        Records: [envelope(`${runId}/a`, 10), poison, envelope(`${runId}/b`, 10)].map((data) => ({
          Data: data,
          PartitionKey: runId,
        })),
      }),
    );
    expect(put.FailedRecordCount ?? 0).toBe(0);
    await waitUntil(
      'the pipe dead-lettered the batch it cannot finish',
      () => pipe.loop.snapshot().deadLetterMessages > before.deadLetterMessages,
    );
    await pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);

    // THEN the good records got through, each once (no copy overwrote its document by id); the poison record
    // alone is in the queue, with the reason
    expect(await running().count([`${runId}/a`, `${runId}/b`])).toBe(20);
    expect(pipeline.delivery.snapshot().documentsOverwritten).toBe(overwrittenBefore);
    const after = pipe.loop.snapshot();
    // One batch [a, poison, b]: it fails, [a, poison] fails, [a] passes, [poison] fails twice more (4 > 3
    // retries), [b] passes
    expect(after.invocations - before.invocations).toBe(6);
    expect(after.functionErrors - before.functionErrors).toBe(4);
    expect(after.bisections - before.bisections).toBe(2);
    expect(after.recordsSentToOnFailure - before.recordsSentToOnFailure).toBe(1);
    const received = await pipe.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: pipe.queue.url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
    );
    const messages = (received.Messages ?? []).map(
      (m) => JSON.parse(m.Body ?? '{}') as PipeDeadLetterMessage,
    );
    expect(messages).toHaveLength(1);
    expect(messages[0].requestContext.condition).toBe('RetryAttemptsExhausted');
    expect(messages[0].responseContext.functionError).toBe('Unhandled');
    expect(messages[0].KinesisBatchInfo.batchSize).toBe(1);
    expect(messages[0].kfekReason).toMatch(/Could not store poison record .* in the dead-letter bucket/);

    // WHEN the bucket is back and `kfek replay` re-sends the queued batch from the raw stream
    await createLocalResources(pipeline.clients, running().spec);
    let stdout = '';
    let stderr = '';
    const credentials = {
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    };
    // The CLI's SDK clients take credentials from process.env (the default provider chain), not from `io.env`;
    // with the enrichment in this process they are there already, with it in a child they are not.
    const saved = { ...process.env };
    Object.assign(process.env, credentials);
    let code: number;
    try {
      code = await run(
        [
          'replay',
          '--endpoint',
          running().moto.endpoint,
          '--region',
          running().spec.region,
          '--queue-url',
          pipe.queue.url,
          '--raw-stream',
          pipeline.resources.rawStreamArn,
          '--delete-after',
        ],
        {
          stdout: { write: (text: string) => (stdout += text) },
          stderr: { write: (text: string) => (stderr += text) },
          env: credentials,
        },
      );
    } finally {
      for (const key of Object.keys(credentials)) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
    await pipeline.waitUntilSettled(SETTLE_TIMEOUT_MILLIS);

    // THEN the poison record is kept in the bucket now, and the queue is empty (a failed replay shows its stderr)
    expect(code === 0 ? { code } : { code, stderr }).toEqual({ code: 0 });
    expect(stdout).toMatch(/deleted 1 re-sent/);
    expect((await running().deadLetters()).filter((o) => o.data === poison.toString('base64'))).toHaveLength(
      1,
    );
    const left = await pipe.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: pipe.queue.url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
    );
    expect(left.Messages ?? []).toEqual([]);
  }, 120_000);
});
