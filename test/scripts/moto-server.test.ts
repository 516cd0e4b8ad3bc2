/**
 * moto's server run one request at a time (`startMoto({ serialized: true })`, what the local runner uses): reads
 * of a Kinesis shard while other calls append to it never fail. With the threaded `moto_server` the same load makes
 * GetRecords fail with "OrderedDict mutated during iteration" (19 of 30 reads when issue 12 was filed) and gives two
 * records one sequence number (1998 distinct of 2000 here): `KFEK_TEST_THREADED_MOTO=true` runs this test against
 * the threaded server to see it fail.
 */
import {
  CreateStreamCommand,
  DescribeStreamSummaryCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
  PutRecordsCommand,
} from '@aws-sdk/client-kinesis';
import { localAwsClients, type LocalAwsClients } from '../../scripts/local/aws-clients';
import { sampleCpu } from '../../scripts/local/cpu-usage';
import { startMoto, type MotoServer } from '../../scripts/moto-server';

let moto: MotoServer;
let clients: LocalAwsClients;

beforeAll(async () => {
  moto = await startMoto({ serialized: process.env.KFEK_TEST_THREADED_MOTO !== 'true' });
  clients = localAwsClients(moto.endpoint, 'us-east-1');
}, 60_000);

afterAll(async () => {
  clients?.destroy();
  await moto?.stop();
});

test('GetRecords during concurrent PutRecords on the same shard never fails, and every record gets its own sequence number', async () => {
  // GIVEN a one-shard stream
  const StreamName = 'concurrent';
  await clients.kinesis.send(new CreateStreamCommand({ StreamName, ShardCount: 1 }));
  const { StreamDescriptionSummary } = await clients.kinesis.send(
    new DescribeStreamSummaryCommand({ StreamName }),
  );
  const StreamARN = StreamDescriptionSummary?.StreamARN;
  const data = new Uint8Array(1400).fill(120);
  // WHEN 8 calls of 250 entries are written while a reader polls the shard from the start, all at once
  const writes = Array.from({ length: 8 }, (_, call) =>
    clients.kinesis.send(
      new PutRecordsCommand({
        StreamARN,
        Records: Array.from({ length: 250 }, (_, i) => ({ Data: data, PartitionKey: `${call}-${i}` })),
      }),
    ),
  );
  let readErrors = 0;
  const read = async (): Promise<void> => {
    for (let i = 0; i < 30; i += 1) {
      try {
        const { ShardIterator } = await clients.kinesis.send(
          new GetShardIteratorCommand({
            StreamARN,
            ShardId: 'shardId-000000000000',
            ShardIteratorType: 'TRIM_HORIZON',
          }),
        );
        await clients.kinesis.send(new GetRecordsCommand({ StreamARN, ShardIterator, Limit: 10_000 }));
      } catch {
        readErrors += 1;
      }
    }
  };
  const answers = await Promise.all([...writes, read(), read()]);
  // THEN
  expect(readErrors).toBe(0);
  const sequenceNumbers = answers.flatMap((a) =>
    a !== undefined && 'Records' in a ? (a.Records ?? []).map((r) => r.SequenceNumber) : [],
  );
  expect(sequenceNumbers).toHaveLength(2000);
  expect(new Set(sequenceNumbers).size).toBe(2000);
}, 120_000);

test("the server's pid is the live process that serves the endpoint (the local run counts its CPU by it)", () => {
  expect(() => process.kill(moto.pid, 0)).not.toThrow();
});

(process.platform === 'linux' ? describe : describe.skip)('on Linux', () => {
  test("/proc shows the server's pid as this process's child", () => {
    expect(sampleCpu()?.processes.get(moto.pid)?.ppid).toBe(process.pid);
  });
});
