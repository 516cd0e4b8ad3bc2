/**
 * A batch the direct path's indexer gave up on (issue 41) holds events-stream records: `kfek replay --kind
 * discarded-batch` puts it back on THIS profile's events stream (read back by sequence number when only the range
 * was kept), records and partition keys as they were, and says so in a dry run. A batch naming any other stream,
 * the events stream's name in another account included, or both streams at once, is listed and kept.
 */
import { formatReplayReport } from '../../../cli/replay/format';
import { runReplay, type ReplayPorts } from '../../../cli/replay/run';
import { FakeClock, FakeKinesis, MemoryStore, onFailureRecord, replayPlan } from '../../helpers/replay-fakes';

const ACCOUNT = '123456789012';
const arnOf = (name: string, account = ACCOUNT): string =>
  `arn:aws:kinesis:eu-west-1:${account}:stream/${name}`;
const RAW = 'kfek-sandbox-raw';
const EVENTS = 'kfek-sandbox-events';
const EVENTS_ARN = arnOf(EVENTS);
const SHARD = 'shardId-000000000000';

function world(): { store: MemoryStore; kinesis: FakeKinesis; ports: ReplayPorts } {
  const store = new MemoryStore('kfek-failed');
  const kinesis = new FakeKinesis();
  kinesis.addShard(RAW, SHARD, ['raw-0', 'raw-1']);
  kinesis.addShard(EVENTS, SHARD, ['{"doc":0}', '{"doc":1}']);
  const clock = new FakeClock();
  const ports: ReplayPorts = {
    sources: { discardedBatches: { store, prefix: 'aws/lambda/' }, maxMessages: 10 },
    kinesis,
    // DescribeStreamSummary: the stream of this name in the caller's account and region.
    streamArnOf: (stream) => Promise.resolve(arnOf(stream)),
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0,
  };
  return { store, kinesis, ports };
}

const plan = replayPlan({ raw: RAW, events: EVENTS }, { kinds: ['discarded-batch'], deleteAfter: true });

describe('kfek replay of a batch the indexer gave up on', () => {
  test('a range naming the events stream is read back from it and re-sent to it, then deleted', async () => {
    // GIVEN the indexer's on-failure record (metadata only) and the transform's, both streams given by name
    const { store, kinesis, ports } = world();
    store.put('aws/lambda/indexer', onFailureRecord(EVENTS_ARN));
    store.put('aws/lambda/transform', onFailureRecord(arnOf(RAW)));
    // WHEN
    const report = await runReplay(plan, ports);
    // THEN each batch went back to the stream it came from, records and partition keys as they were
    expect(kinesis.reads.sort()).toEqual([EVENTS, RAW]);
    expect(kinesis.put.get(EVENTS)).toEqual([
      { data: Buffer.from('{"doc":0}'), partitionKey: 'pk-0' },
      { data: Buffer.from('{"doc":1}'), partitionKey: 'pk-1' },
    ]);
    expect(kinesis.texts(RAW)).toEqual(['raw-0', 'raw-1']);
    expect(report.skipped).toEqual([]);
    expect(report.sent).toEqual([
      { target: 'raw', stream: RAW, records: 2, items: 1 },
      { target: 'events', stream: EVENTS, records: 2, items: 1 },
    ]);
    expect(store.deleted.sort()).toEqual(['aws/lambda/indexer', 'aws/lambda/transform']);
  });

  test("a batch carrying the invocation's records puts exactly those on the events stream", async () => {
    const { kinesis, ports, store } = world();
    store.put('aws/lambda/b', onFailureRecord(EVENTS_ARN, [{ data: '{"kept":1}', key: 'k1' }]));
    await runReplay(replayPlan({ events: EVENTS_ARN }, { kinds: ['discarded-batch'] }), ports);
    expect(kinesis.reads).toEqual([]);
    expect(kinesis.put.get(EVENTS_ARN)).toEqual([{ data: Buffer.from('{"kept":1}'), partitionKey: 'k1' }]);
  });

  test('a dry run says which stream each batch goes to and sends nothing', async () => {
    const { kinesis, ports, store } = world();
    store.put('aws/lambda/indexer', onFailureRecord(EVENTS_ARN));
    store.put('aws/lambda/transform', onFailureRecord(arnOf(RAW)));
    const report = await runReplay({ ...plan, dryRun: true }, ports);
    const text = formatReplayReport(report, 'x');
    expect(text).toContain('batch s3://kfek-failed/aws/lambda/indexer -> the events stream');
    expect(text).toContain('batch s3://kfek-failed/aws/lambda/transform -> the raw stream');
    expect(text).toContain(
      'would re-send 2 raw record(s) to the raw stream and 2 document(s) to the events stream',
    );
    expect(kinesis.reads).toEqual([]);
    expect(kinesis.calls).toEqual([]);
  });

  test.each([
    ["another account's stream of the events stream's name", [arnOf(EVENTS, '999999999999')]],
    ['another region', ['arn:aws:kinesis:us-east-1:123456789012:stream/kfek-sandbox-events']],
    ['another stream name', [arnOf('kfek-other-events')]],
    ['both the raw and the events stream', [arnOf(RAW), EVENTS_ARN]],
  ])('fails when a batch names %s: listed, not read, not re-sent, kept', async (_what, streams) => {
    // GIVEN a batch whose records name the streams (metadata naming the first)
    const { kinesis, ports, store } = world();
    const body = JSON.parse(onFailureRecord(streams[0], [{ data: 'x', key: 'k' }])) as {
      payload: { Records: { eventSourceARN: string }[] };
    };
    body.payload.Records[0].eventSourceARN = streams[streams.length - 1];
    store.put('aws/lambda/b', JSON.stringify(body));
    // WHEN
    const report = await runReplay(plan, ports);
    // THEN
    expect(report.skipped).toHaveLength(1);
    expect(report.skipped[0].message).toMatch(
      new RegExp(`names the stream .*, not the raw stream ${arnOf(RAW)} nor the events stream ${EVENTS_ARN}`),
    );
    expect(kinesis.reads).toEqual([]);
    expect(kinesis.calls).toEqual([]);
    expect(store.deleted).toEqual([]);
  });

  test('fails when a batch names the events stream and no events stream is given: listed and kept', async () => {
    const { kinesis, ports, store } = world();
    store.put('aws/lambda/b', onFailureRecord(EVENTS_ARN));
    const report = await runReplay(replayPlan({ raw: RAW }, { kinds: ['discarded-batch'] }), ports);
    expect(report.skipped[0].message).toContain('nor the events stream (none given)');
    expect(kinesis.reads).toEqual([]);
    expect(store.deleted).toEqual([]);
  });

  test('fails when the range is past the events stream retention: not re-sent, kept', async () => {
    const { kinesis, ports, store } = world();
    kinesis.trimBefore(EVENTS, SHARD, '1010');
    store.put('aws/lambda/b', onFailureRecord(EVENTS_ARN));
    const report = await runReplay(plan, ports);
    expect(report.unreplayed[0].message).toMatch(/the stream no longer holds these records .*retentionHours/);
    expect(store.deleted).toEqual([]);
  });
});
