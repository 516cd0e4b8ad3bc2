import { RangeExpiredError, ReplayError } from '../../../cli/replay/errors';
import { readRange } from '../../../cli/replay/read-range';
import { FakeClock, FakeKinesis } from '../../helpers/replay-fakes';

const STREAM = 'kfek-raw';
const SHARD = 'shardId-000000000000';

function setup(): { kinesis: FakeKinesis; clock: FakeClock } {
  const kinesis = new FakeKinesis();
  // sequence numbers 1000, 1010, ..., 1050
  kinesis.addShard(STREAM, SHARD, ['a', 'b', 'c', 'd', 'e', 'f']);
  return { kinesis, clock: new FakeClock() };
}

const range = (start: string, end: string) => ({
  shardId: SHARD,
  startSequenceNumber: start,
  endSequenceNumber: end,
});

describe('readRange', () => {
  test('reads exactly the batch, over several GetRecords pages, with partition keys', async () => {
    // GIVEN
    const { kinesis, clock } = setup();
    // WHEN
    const records = await readRange(kinesis, STREAM, range('1010', '1040'), 'loc', { sleep: clock.sleep });
    // THEN
    expect(records.map((r) => Buffer.from(r.data).toString())).toEqual(['b', 'c', 'd', 'e']);
    expect(records.map((r) => r.partitionKey)).toEqual(['pk-1', 'pk-2', 'pk-3', 'pk-4']);
  });

  test('fails as expired when the retention trimmed the head of the batch', async () => {
    const { kinesis, clock } = setup();
    kinesis.trimBefore(STREAM, SHARD, '1020');
    const read = readRange(kinesis, STREAM, range('1010', '1040'), 's3://b/aws/lambda/x', {
      sleep: clock.sleep,
    });
    await expect(read).rejects.toThrow(RangeExpiredError);
    await expect(read).rejects.toThrow(
      /s3:\/\/b\/aws\/lambda\/x: the stream no longer holds these records .*1020/,
    );
  });

  test('fails as expired when the shard holds nothing any more', async () => {
    const { kinesis, clock } = setup();
    kinesis.trimBefore(STREAM, SHARD, '9999');
    await expect(
      readRange(kinesis, STREAM, range('1010', '1040'), 'loc', { sleep: clock.sleep }),
    ).rejects.toThrow(/holds nothing at 1010 any more/);
  });

  test('fails as expired when the shard (or stream) is gone', async () => {
    const { kinesis, clock } = setup();
    const read = readRange(kinesis, STREAM, { ...range('1', '2'), shardId: 'shardId-000000000009' }, 'loc', {
      sleep: clock.sleep,
    });
    await expect(read).rejects.toThrow(RangeExpiredError);
    await expect(read).rejects.toThrow(/ResourceNotFoundException/);
  });

  test('fails (not expired) when the shard ends before the batch does: the wrong stream', async () => {
    const { kinesis, clock } = setup();
    const read = readRange(kinesis, STREAM, range('1040', '2000'), 'loc', { sleep: clock.sleep });
    await expect(read).rejects.toThrow(ReplayError);
    await expect(read).rejects.not.toThrow(RangeExpiredError);
    await expect(read).rejects.toThrow(/ends before the batch's last record 2000; 2 record\(s\) read/);
  });

  test('sequence numbers compare as numbers, not text', async () => {
    const kinesis = new FakeKinesis();
    kinesis.shards.set(`${STREAM}/${SHARD}`, [
      { data: Buffer.from('x'), partitionKey: 'k', sequenceNumber: '9' },
      { data: Buffer.from('y'), partitionKey: 'k', sequenceNumber: '10' },
      { data: Buffer.from('z'), partitionKey: 'k', sequenceNumber: '11' },
    ]);
    const records = await readRange(kinesis, STREAM, range('9', '10'), 'loc', {
      sleep: new FakeClock().sleep,
    });
    expect(records.map((r) => Buffer.from(r.data).toString())).toEqual(['x', 'y']);
  });

  test('retries reads Kinesis throttles, paced as every shard reader (the SDK used to be left to it)', async () => {
    // GIVEN the first three GetRecords calls are throttled
    const { kinesis, clock } = setup();
    kinesis.throttleReads = 3;
    // WHEN
    const records = await readRange(kinesis, STREAM, range('1010', '1040'), 'loc', {
      now: clock.now,
      sleep: clock.sleep,
      random: () => 0.5,
    });
    // THEN the batch whole, after backoffs of 375, 750 and 1500 ms
    expect(records.map((r) => Buffer.from(r.data).toString())).toEqual(['b', 'c', 'd', 'e']);
    expect(clock.sleeps).toEqual(expect.arrayContaining([375, 750, 1500]));
  });
});
