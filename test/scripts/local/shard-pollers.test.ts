/**
 * The lifecycle both local loops share (scripts/local/shard-pollers.ts), against a real moto server: one poller
 * per shard, one abort for all, the first failure kept and rethrown, and caught-up tracking over every shard.
 * The loop under test is a minimal subclass whose poll body the test scripts; the Kinesis side is real.
 */
import { createStream } from '../../helpers/kinesis-stream';
import { LocalRunError } from '../../../scripts/local/errors';
import { ShardPollingLoop } from '../../../scripts/local/shard-pollers';
import type { ShardReader } from '../../../scripts/local/shard-reader';
import { useLocalMoto } from '../../helpers/local-moto';

const REGION = 'eu-west-1';
const moto = useLocalMoto(REGION);
let streamCounter = 0;

class ProbeError extends LocalRunError {
  constructor(message: string) {
    super(message);
    this.name = 'ProbeError';
  }
}

type PollBody = (reader: ShardReader, signal: AbortSignal, loop: ProbeLoop) => Promise<void>;

/** Runs `body` on every shard and records which shards it saw. */
class ProbeLoop extends ShardPollingLoop {
  readonly shardsPolled: string[] = [];

  constructor(
    streamArn: string,
    private readonly body: PollBody,
    now?: () => number,
  ) {
    super(
      { kinesis: moto.clients().kinesis, streamArn, now },
      { errorClass: ProbeError, loopName: 'probe loop' },
    );
  }

  /** The shared read step and idle wait, as the loops use them. */
  async readAndWait(reader: ShardReader): Promise<boolean | undefined> {
    const read = await this.readShard(reader, 10, 'probe');
    return read === undefined ? undefined : this.waitIdle(reader, read);
  }

  markIdle(shardId: string, since: number | undefined): void {
    this.setIdleSince(shardId, since);
  }

  protected async pollShard(reader: ShardReader): Promise<void> {
    this.shardsPolled.push(reader.shardId);
    await this.body(reader, this.signal, this);
  }
}

/** Resolves once `signal` is aborted. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

async function streamWithShards(shardCount: number): Promise<string> {
  streamCounter += 1;
  const name = `pollers-${streamCounter}`;
  return createStream(moto.clients().kinesis, name, shardCount);
}

test('starts one poller per shard, and stop() aborts them all and waits for them to return', async () => {
  // GIVEN
  const arn = await streamWithShards(3);
  const returned: string[] = [];
  const loop = new ProbeLoop(arn, async (reader, signal) => {
    await aborted(signal);
    returned.push(reader.shardId);
  });
  // WHEN
  await loop.start();
  await new Promise((r) => setTimeout(r, 50));
  // THEN
  expect(new Set(loop.shardsPolled).size).toBe(3);
  await loop.stop();
  expect(returned.sort()).toEqual([...loop.shardsPolled].sort());
  expect(loop.failure()).toBeUndefined();
});

test("fails when started twice, with the loop's own error class and name", async () => {
  const loop = new ProbeLoop(await streamWithShards(1), (_reader, signal) => aborted(signal));
  await loop.start();
  const second = loop.start();
  await expect(second).rejects.toThrow(ProbeError);
  await expect(second).rejects.toThrow('the probe loop is already running');
  await loop.stop();
});

test('fails when the stream does not exist', async () => {
  const loop = new ProbeLoop(`arn:aws:kinesis:${REGION}:123456789012:stream/no-such-stream`, () =>
    Promise.resolve(),
  );
  await expect(loop.start()).rejects.toThrow();
  expect(loop.shardsPolled).toEqual([]);
});

test('a poller failure stops every other poller, is kept, and stop() rethrows the same error', async () => {
  // GIVEN: one shard's poller fails, the others wait for the abort
  const arn = await streamWithShards(2);
  const boom = new Error('shard reader broke');
  let othersAborted = 0;
  let first = true;
  const loop = new ProbeLoop(arn, async (_reader, signal) => {
    if (first) {
      first = false;
      await new Promise((r) => setTimeout(r, 20));
      throw boom;
    }
    await aborted(signal);
    othersAborted += 1;
  });
  // WHEN
  await loop.start();
  for (let i = 0; i < 100 && loop.failure() === undefined; i++) await new Promise((r) => setTimeout(r, 20));
  // THEN
  expect(loop.failure()).toBe(boom);
  expect(othersAborted).toBe(1);
  await expect(loop.stop()).rejects.toBe(boom);
});

test("a poller that rejects with a non-Error is reported as the loop's error class", async () => {
  const loop = new ProbeLoop(await streamWithShards(1), () =>
    // A non-Error rejection on purpose: the lifecycle must wrap it.
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
    Promise.reject('plain string'),
  );
  await loop.start();
  await expect(loop.stop()).rejects.toThrow(new ProbeError('plain string'));
  expect(loop.failure()).toBeInstanceOf(ProbeError);
});

test('is caught up only when every shard is idle, since the oldest idle read', async () => {
  // GIVEN
  const loop = new ProbeLoop(await streamWithShards(2), (_reader, signal) => aborted(signal));
  expect(loop.caughtUpSince()).toBeUndefined();
  await loop.start();
  await new Promise((r) => setTimeout(r, 50));
  const [a, b] = loop.shardsPolled;
  // THEN: positioned but not yet idle
  expect(loop.isCaughtUp()).toBe(false);
  loop.markIdle(a, 2000);
  expect(loop.caughtUpSince()).toBeUndefined();
  loop.markIdle(b, 1000);
  expect(loop.caughtUpSince()).toBe(1000);
  loop.markIdle(b, undefined);
  expect(loop.isCaughtUp()).toBe(false);
  await loop.stop();
});

test("the shared read step times reads with the loop's injected clock: an idle shard is idle since the fake time", async () => {
  // GIVEN a loop whose clock is a fake standing at a fixed time, on a stream with nothing in it
  const fakeNow = 1_700_000_000_123;
  let waited: boolean | undefined;
  const loop = new ProbeLoop(
    await streamWithShards(1),
    async (reader, signal, self) => {
      waited = await self.readAndWait(reader);
      await aborted(signal);
    },
    () => fakeNow,
  );
  // WHEN it polls once and finds the tip of the stream
  await loop.start();
  const deadline = Date.now() + 30_000;
  while (!loop.isCaughtUp() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await loop.stop();
  // THEN the idle time is the fake clock's, not the wall clock's, and the open shard was waited on
  expect(loop.caughtUpSince()).toBe(fakeNow);
  expect(waited).toBe(true);
});
