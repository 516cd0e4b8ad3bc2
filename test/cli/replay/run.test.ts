import type { KeptSources } from '../../../core/kept/collect';
import { MissingTargetError } from '../../../cli/replay/errors';
import { formatReplayReport } from '../../../cli/replay/format';
import { runReplay, type ReplayPlan, type ReplayPorts } from '../../../cli/replay/run';
import {
  deadLetterObject as deadLetter,
  FakeClock,
  FakeKinesis,
  replayPlan,
  failedDocumentLine as failedDocument,
  MemoryQueue,
  MemoryStore,
} from '../../helpers/replay-fakes';

const RAW = 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-raw';
const EVENTS = 'kfek-events';
const SHARD = 'shardId-000000000000';

/** A bucket with two dead letters, one failed-documents object of two lines, and a metadata-only discarded batch. */
function world(): {
  store: MemoryStore;
  queue: MemoryQueue;
  kinesis: FakeKinesis;
  sources: KeptSources;
  ports: ReplayPorts;
} {
  const store = new MemoryStore('kfek-failed')
    .put('dead-letter/transform/a.json', deadLetter('A', 'not gzip', '2026-11-23T08:00:00Z'))
    .put('dead-letter/transform/b.json', deadLetter('B', 'not an envelope', '2026-11-23T09:00:00Z'))
    .put(
      'failed-documents/AmazonOpenSearchService-failed/2026/11/23/10/f1',
      `${failedDocument({ n: 1 }, '400', Date.UTC(2026, 10, 23, 10))}\n${failedDocument({ n: 2 }, '403', Date.UTC(2026, 10, 23, 10, 5))}\n`,
    )
    .put(
      'aws/lambda/uuid/shardId-000000000000/2026/11/23/2026-11-23T11.00.00-x',
      JSON.stringify({
        requestContext: { condition: 'RetryAttemptsExhausted' },
        timestamp: '2026-11-23T11:00:00Z',
        KinesisBatchInfo: {
          shardId: SHARD,
          startSequenceNumber: '1010',
          endSequenceNumber: '1020',
          batchSize: 2,
        },
      }),
    );
  const kinesis = new FakeKinesis();
  kinesis.addShard(RAW, SHARD, ['r0', 'r1', 'r2', 'r3']);
  const queue = new MemoryQueue().add(
    { context: { shardId: SHARD, startSequenceNumber: '1030', endSequenceNumber: '1030', streamArn: RAW } },
    new Date('2026-11-23T12:00:00Z'),
  );
  const sources: KeptSources = {
    deadLetter: { store, prefix: 'dead-letter/transform/' },
    discardedBatches: { store, prefix: 'aws/lambda/' },
    failedDocuments: { store, prefix: 'failed-documents/' },
    queue,
    maxMessages: 100,
  };
  const clock = new FakeClock();
  const ports = { sources, kinesis, now: clock.now, sleep: clock.sleep, random: () => 0 };
  return { store, queue, kinesis, sources, ports };
}

const plan = (overrides: Partial<ReplayPlan> = {}): ReplayPlan =>
  replayPlan({ raw: RAW, events: EVENTS }, overrides);

describe('runReplay', () => {
  test('a dry run lists counts, sizes, reasons and time range, and sends and deletes nothing', async () => {
    // GIVEN
    const { kinesis, ports, store } = world();
    // WHEN
    const report = await runReplay(plan({ dryRun: true }), ports);
    // THEN
    expect(kinesis.calls).toEqual([]);
    expect(store.deleted).toEqual([]);
    expect(report.kept.map((k) => [k.kind, k.items, k.records, k.ranges])).toEqual([
      ['dead-letter', 2, 2, 0],
      ['discarded-batch', 1, 2, 1],
      ['failed-document', 2, 2, 0],
      ['pipes-dlq', 1, 0, 1],
    ]);
    const dead = report.kept[0];
    expect(dead.first).toEqual(new Date('2026-11-23T08:00:00Z'));
    expect(dead.last).toEqual(new Date('2026-11-23T09:00:00Z'));
    expect(dead.reasons).toEqual([
      { reason: 'not an envelope', count: 1 },
      { reason: 'not gzip', count: 1 },
    ]);
    const text = formatReplayReport(report, 's3://kfek-failed');
    expect(text).toMatch(/^dead-letter +2 +2 +\d+ B +2026-11-23T08:00:00.000Z +2026-11-23T09:00:00.000Z$/m);
    expect(text).toMatch(/^discarded-batch +1 +2 \(1 range in its stream\)/m);
    expect(text).toMatch(
      /dry run: would re-send 4 raw record\(s\) to the raw stream and 2 document\(s\) to the events stream; nothing was sent or deleted/,
    );
  });

  test('re-sends raw records to the raw stream and documents to the events stream, reading ranges back', async () => {
    const { kinesis, ports, store, queue } = world();
    const report = await runReplay(plan(), ports);
    // dead letters (oldest first), the discarded batch's range 1010-1020, the pipe's 1030
    expect(kinesis.texts(RAW)).toEqual(['A', 'B', 'r1', 'r2', 'r3']);
    expect(
      kinesis.put
        .get(RAW)!
        .slice(0, 2)
        .map((r) => r.partitionKey),
    ).toEqual(['pk-A', 'pk-B']);
    expect(kinesis.texts(EVENTS).map((t) => JSON.parse(t) as unknown)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(report.sent).toEqual([
      { target: 'raw', stream: RAW, records: 5, items: 4 },
      { target: 'events', stream: EVENTS, records: 2, items: 2 },
    ]);
    expect(report.unreplayed).toEqual([]);
    // nothing is deleted by default
    expect(store.deleted).toEqual([]);
    expect(queue.deleted).toEqual([]);
    expect(formatReplayReport(report, 'x')).toMatch(
      /nothing was deleted \(--delete-after deletes what was fully re-sent\)/,
    );
  });

  test('filters by kind, time range, reason and limit', async () => {
    const { kinesis, ports } = world();
    await runReplay(
      plan({
        kinds: ['dead-letter', 'failed-document'],
        filter: { since: new Date('2026-11-23T08:30:00Z'), reason: '40', limit: 1 },
      }),
      ports,
    );
    expect(kinesis.texts(RAW)).toEqual([]);
    expect(kinesis.texts(EVENTS)).toEqual(['{"n":1}']);
  });

  test('an expired range is reported, the rest is still re-sent, and the exit says so', async () => {
    const { kinesis, ports } = world();
    kinesis.trimBefore(RAW, SHARD, '1030');
    const report = await runReplay(plan({ kinds: ['discarded-batch', 'pipes-dlq'] }), ports);
    expect(kinesis.texts(RAW)).toEqual(['r3']);
    expect(report.unreplayed).toHaveLength(1);
    expect(report.unreplayed[0].message).toMatch(
      /aws\/lambda\/.*no longer holds these records.*expired with the stream's retention/,
    );
  });

  test('--delete-after deletes only what was wholly re-sent', async () => {
    // GIVEN a filter that takes one of the two documents of the failed-documents object
    const { ports, store, queue } = world();
    // WHEN
    const report = await runReplay(plan({ deleteAfter: true, filter: { reason: 'not' } }), ports);
    // THEN the two dead letters went (and are deleted); nothing else was chosen, so nothing else is deleted
    expect(store.deleted.sort()).toEqual(['dead-letter/transform/a.json', 'dead-letter/transform/b.json']);
    expect(report.deleted).toHaveLength(2);
    // WHEN everything is replayed with --delete-after
    const all = await runReplay(plan({ deleteAfter: true }), ports);
    expect(all.deleted).toHaveLength(3);
    expect(queue.deleted).toEqual(['r-1']);
    expect([...store.objects.keys()]).toEqual([]);
  });

  test('--delete-after keeps what Kinesis refused', async () => {
    const { kinesis, ports, store } = world();
    kinesis.failNextEntries = 10_000;
    const report = await runReplay(plan({ kinds: ['dead-letter'], deleteAfter: true }), ports);
    expect(store.deleted).toEqual([]);
    expect(report.unreplayed.map((u) => u.message)).toEqual([
      expect.stringMatching(
        /could not be put on .*ProvisionedThroughputExceededException.*nothing was deleted/,
      ),
      expect.stringMatching(/could not be put/),
    ]);
  });

  test('fails when documents are chosen and no events stream is given', async () => {
    const { ports } = world();
    await expect(runReplay(plan({ targets: { raw: RAW } }), ports)).rejects.toThrow(MissingTargetError);
  });

  test('unreadable objects are reported and never deleted', async () => {
    const { ports, store } = world();
    store.put('dead-letter/transform/broken.json', 'not json');
    const report = await runReplay(plan({ kinds: ['dead-letter'], deleteAfter: true }), ports);
    expect(report.problems.map((p) => p.location)).toEqual([
      's3://kfek-failed/dead-letter/transform/broken.json',
    ]);
    expect(store.objects.has('dead-letter/transform/broken.json')).toBe(true);
    expect(formatReplayReport(report, 'x')).toMatch(
      /^unreadable: s3:\/\/kfek-failed\/dead-letter\/transform\/broken.json is not JSON/m,
    );
  });
});
