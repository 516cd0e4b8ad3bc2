/**
 * Kept objects that must not hurt a replay (issue 22 item 5): one that names a stream other than the raw stream is
 * never read, re-sent or deleted; a record Kinesis would refuse is left out and named, and the rest still goes; a
 * broken object is reported by its key in a dry run as in a real one.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { KeptSources } from '../../../core/kept/collect';
import { replayCommand } from '../../../cli/replay/command';
import { formatReplayReport } from '../../../cli/replay/format';
import { runReplay, type ReplayPlan, type ReplayPorts } from '../../../cli/replay/run';
import {
  deadLetterObject,
  FakeClock,
  FakeKinesis,
  replayPlan,
  failedDocumentLine,
  MemoryStore,
  onFailureRecord,
} from '../../helpers/replay-fakes';

const ACCOUNT = '123456789012';
const RAW_NAME = 'kfek-sandbox-raw';
const RAW = `arn:aws:kinesis:eu-west-1:${ACCOUNT}:stream/${RAW_NAME}`;
/** Another account's stream, with the raw stream's very name. */
const FOREIGN = `arn:aws:kinesis:eu-west-1:999999999999:stream/${RAW_NAME}`;
const EVENTS = 'kfek-sandbox-events';
const SHARD = 'shardId-000000000000';
const AT = '2026-11-23T10:00:00Z';

function world(): { store: MemoryStore; kinesis: FakeKinesis; ports: ReplayPorts; lookups: string[] } {
  const store = new MemoryStore('kfek-failed');
  const kinesis = new FakeKinesis();
  kinesis.addShard(RAW, SHARD, ['raw-0', 'raw-1']);
  kinesis.addShard(FOREIGN, SHARD, ['secret-0', 'secret-1']);
  const sources: KeptSources = {
    deadLetter: { store, prefix: 'dead-letter/' },
    discardedBatches: { store, prefix: 'aws/lambda/' },
    failedDocuments: { store, prefix: 'failed-documents/' },
    maxMessages: 10,
  };
  const clock = new FakeClock();
  const lookups: string[] = [];
  const ports: ReplayPorts = {
    sources,
    kinesis,
    // DescribeStreamSummary: the stream of this name in the caller's account and region.
    streamArnOf: (stream) => {
      lookups.push(stream);
      return Promise.resolve(`arn:aws:kinesis:eu-west-1:${ACCOUNT}:stream/${stream}`);
    },
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0,
  };
  return { store, kinesis, ports, lookups };
}

/** Every kind kept in a bucket, deleting what was re-sent. */
const plan = (overrides: Partial<ReplayPlan> = {}): ReplayPlan =>
  replayPlan(
    { raw: RAW, events: EVENTS },
    { kinds: ['dead-letter', 'discarded-batch', 'failed-document'], deleteAfter: true, ...overrides },
  );

describe('kfek replay and the stream a kept object names', () => {
  test('an object naming another stream is reported with that stream, never read, re-sent or deleted', async () => {
    // GIVEN an on-failure record naming another account's stream (metadata only), and one of the raw stream
    const { store, kinesis, ports } = world();
    store.put('aws/lambda/u/shardId-000000000000/2026/11/23/foreign', onFailureRecord(FOREIGN));
    store.put('aws/lambda/u/shardId-000000000000/2026/11/23/own', onFailureRecord(RAW));
    // WHEN
    const report = await runReplay(plan(), ports);
    // THEN only the raw stream was read, and only its records went back
    expect(kinesis.reads).toEqual([RAW]);
    expect(kinesis.texts(RAW)).toEqual(['raw-0', 'raw-1']);
    expect(report.skipped).toEqual([
      {
        location: 's3://kfek-failed/aws/lambda/u/shardId-000000000000/2026/11/23/foreign',
        kind: 'discarded-batch',
        message: expect.stringContaining(`names the stream ${FOREIGN}, not the raw stream ${RAW}`) as string,
      },
    ]);
    expect(store.deleted).toEqual(['aws/lambda/u/shardId-000000000000/2026/11/23/own']);
    expect(formatReplayReport(report, 'x')).toMatch(
      /^skipped: discarded-batch s3:\/\/kfek-failed\/aws\/lambda\/.*\/foreign names the stream arn:aws:kinesis:eu-west-1:999999999999:stream\/kfek-sandbox-raw, .*not read, not re-sent and is kept$/m,
    );
  });

  test("records that came from another stream are not put on the raw stream, even with the raw stream's name", async () => {
    // GIVEN the raw stream given by name (as --profile finds it), and kept records whose source has that name in
    // another account: a dead letter and an on-failure record with the invocation's records
    const { store, kinesis, ports, lookups } = world();
    store.put(
      'dead-letter/a.json',
      deadLetterObject('theirs', 'r', AT, { partitionKey: 'k', streamArn: FOREIGN }),
    );
    store.put('dead-letter/b.json', deadLetterObject('ours', 'r', AT, { partitionKey: 'k', streamArn: RAW }));
    store.put('aws/lambda/x', onFailureRecord(FOREIGN, [{ data: 'theirs-too', key: 'k' }]));
    // WHEN
    const report = await runReplay(plan({ targets: { raw: RAW_NAME, events: EVENTS } }), ports);
    // THEN each name was looked up once (a discarded batch may be the events stream's), and only the raw stream's
    // own record went
    expect(lookups).toEqual([RAW_NAME, EVENTS]);
    expect(kinesis.texts(RAW_NAME)).toEqual(['ours']);
    expect(report.skipped.map((s) => s.location)).toEqual([
      's3://kfek-failed/dead-letter/a.json',
      's3://kfek-failed/aws/lambda/x',
    ]);
    expect(store.deleted).toEqual(['dead-letter/b.json']);
  });

  test('a dry run reports the same and reads nothing', async () => {
    const { store, kinesis, ports } = world();
    store.put('aws/lambda/foreign', onFailureRecord(FOREIGN));
    const report = await runReplay(plan({ dryRun: true }), ports);
    expect(kinesis.reads).toEqual([]);
    expect(report.skipped).toHaveLength(1);
    expect(report.sendable).toEqual({ items: 0, rawRecords: 0, documents: 0 });
    expect(formatReplayReport(report, 'x')).toMatch(
      /dry run: would leave out: 1 skipped \(listed above\); what they hold stays where it is and was not deleted$/,
    );
  });
});

describe('kfek replay and records Kinesis would refuse', () => {
  test('an over-long partition key and over-1 MiB data are named by object and left out; the rest is sent', async () => {
    // GIVEN good dead letters around one with a 257-character key and one whose data and key pass 1 MiB
    const { store, kinesis, ports } = world();
    store.put('dead-letter/1-good.json', deadLetterObject('one', 'r', AT));
    store.put('dead-letter/2-key.json', deadLetterObject('two', 'r', AT, { partitionKey: 'k'.repeat(257) }));
    store.put(
      'dead-letter/3-big.json',
      deadLetterObject(Buffer.alloc(1024 * 1024), 'r', AT, { partitionKey: 'k' }),
    );
    store.put('dead-letter/4-good.json', deadLetterObject('four', 'r', AT));
    // WHEN
    const report = await runReplay(plan({ kinds: ['dead-letter'] }), ports);
    // THEN
    expect(kinesis.texts(RAW)).toEqual(['one', 'four']);
    expect(report.skipped.map((s) => s.message)).toEqual([
      's3://kfek-failed/dead-letter/2-key.json: its partition key has 257 characters (Kinesis takes 1 to 256); not re-sent, kept',
      's3://kfek-failed/dead-letter/3-big.json: its data and partition key are 1048577 bytes (Kinesis takes at most 1048576, 1 MiB); not re-sent, kept',
    ]);
    expect(store.deleted.sort()).toEqual(['dead-letter/1-good.json', 'dead-letter/4-good.json']);
    expect(formatReplayReport(report, 'x')).toMatch(/^left out: 2 skipped \(listed above\);/m);
  });

  test("a batch's bad record is named by its place in the object; its other records go, and the object stays", async () => {
    const { store, kinesis, ports } = world();
    const key = 'ü'.repeat(256); // 256 characters, 512 bytes: fits
    store.put(
      'aws/lambda/batch',
      onFailureRecord(RAW, [
        { data: 'a', key },
        { data: 'b', key: `${key}x` },
        { data: 'c', key: 'k' },
      ]),
    );
    const report = await runReplay(plan({ kinds: ['discarded-batch'] }), ports);
    expect(kinesis.texts(RAW)).toEqual(['a', 'c']);
    expect(report.skipped.map((s) => s.message)).toEqual([
      expect.stringMatching(
        /^s3:\/\/kfek-failed\/aws\/lambda\/batch: record 2 of 3: its partition key has 257/,
      ),
    ]);
    expect(store.deleted).toEqual([]);
  });

  test('a document over 1 MiB among failed documents is left out and its object kept', async () => {
    const { store, kinesis, ports } = world();
    const big = { message: 'x'.repeat(1024 * 1024) };
    store.put(
      'failed-documents/f1',
      gzipSync(`${failedDocumentLine({ n: 1 }, '400', 1)}\n${failedDocumentLine(big, '400', 2)}\n`),
    );
    const report = await runReplay(plan({ kinds: ['failed-document'] }), ports);
    expect(kinesis.texts(EVENTS)).toEqual(['{"n":1}']);
    expect(report.skipped).toHaveLength(1);
    expect(store.deleted).toEqual([]);
  });
});

describe('kfek replay and broken kept objects', () => {
  test.each([true, false])(
    'an object that starts like gzip but is not is reported by key (dry run: %s), and the rest goes',
    async (dryRun) => {
      // GIVEN a broken object beside a good one
      const { store, kinesis, ports } = world();
      store.put('failed-documents/broken.gz', Buffer.from([0x1f, 0x8b, 0x08, 0x00, 1, 2, 3, 4, 5]));
      store.put('failed-documents/good', `${failedDocumentLine({ n: 1 }, '400', 1)}\n`);
      // WHEN
      const report = await runReplay(plan({ kinds: ['failed-document'], dryRun }), ports);
      // THEN
      expect(report.problems.map((p) => p.message)).toEqual([
        expect.stringMatching(
          /^s3:\/\/kfek-failed\/failed-documents\/broken\.gz starts like gzip but does not inflate \(.+\): it was left where it is/,
        ),
      ]);
      expect(kinesis.texts(EVENTS)).toEqual(dryRun ? [] : ['{"n":1}']);
      expect(store.objects.has('failed-documents/broken.gz')).toBe(true);
      expect(store.deleted).toEqual(dryRun ? [] : ['failed-documents/good']);
    },
  );

  test('a range that ends before it starts is unreadable, not an empty batch to delete', async () => {
    const { store, ports } = world();
    const text = onFailureRecord(RAW).replace('"endSequenceNumber":"1010"', '"endSequenceNumber":"990"');
    store.put('aws/lambda/backwards', text);
    const report = await runReplay(plan({ kinds: ['discarded-batch'] }), ports);
    expect(report.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/backwards has a sequence-number range that is not one \("1000" to "990"\)/),
    ]);
    expect(store.deleted).toEqual([]);
  });

  test('a problem in one object does not keep another whose key it starts with from being deleted', async () => {
    const { store, ports } = world();
    store.put('dead-letter/a.json', deadLetterObject('one', 'r', AT));
    store.put('dead-letter/a.json.bak', 'not json');
    const report = await runReplay(plan({ kinds: ['dead-letter'] }), ports);
    expect(report.problems).toHaveLength(1);
    expect(store.deleted).toEqual(['dead-letter/a.json']);
  });
});

describe('kfek replay exits non-zero when it left anything out', () => {
  test("a dry run of npm start's folder with a foreign object and a broken one says so and exits 1", async () => {
    // GIVEN npm start's folders with a good dead letter, an on-failure record naming another stream and a broken
    // failed-documents object
    const dir = mkdtempSync(path.join(tmpdir(), 'kfek-replay-screen-'));
    try {
      for (const sub of ['dead-letter', 'event-source-on-failure', 'failed-documents']) {
        mkdirSync(path.join(dir, sub));
      }
      writeFileSync(path.join(dir, 'dead-letter', 'a.json'), deadLetterObject('ours', 'r', AT));
      writeFileSync(path.join(dir, 'event-source-on-failure', 'b.json'), onFailureRecord(FOREIGN));
      writeFileSync(path.join(dir, 'failed-documents', 'c.gz'), Buffer.from([0x1f, 0x8b, 0, 0]));
      let stdout = '';
      // WHEN (the raw stream given by ARN: no AWS call is needed to tell the streams apart)
      const code = await replayCommand(['--local', '--local-dir', dir, '--raw-stream', RAW, '--dry-run'], {
        stdout: { write: (text: string) => (stdout += text) },
        stderr: { write: () => true },
        env: { AWS_REGION: 'eu-west-1' },
      });
      // THEN
      expect(code).toBe(1);
      expect(stdout).toMatch(
        /^skipped: discarded-batch .*b\.json names the stream arn:aws:kinesis:eu-west-1:999999999999:/m,
      );
      expect(stdout).toMatch(/^unreadable: .*c\.gz starts like gzip but does not inflate/m);
      expect(stdout).toMatch(/would re-send 1 raw record\(s\) to the raw stream/);
      expect(stdout).toMatch(/^dry run: would leave out: 1 skipped, 1 unreadable \(listed above\)/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
