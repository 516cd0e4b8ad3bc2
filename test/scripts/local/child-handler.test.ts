/**
 * ChildProcessHandler: the handler in a forked child, answers and errors carried over IPC, and a child killed
 * mid-invocation (SIGKILL) failing that invocation with a typed error and replaced by a new process for the next.
 * Real child processes; the handler is a fixture (test/helpers/child-handler-fixture.ts).
 */
import * as path from 'node:path';
import type { Context, KinesisStreamEvent } from 'aws-lambda';
import { ChildProcessHandler } from '../../../scripts/local/child-handler';
import { TransformProcessError } from '../../../scripts/local/errors';

const FIXTURE = path.join(__dirname, '..', '..', 'helpers', 'child-handler-fixture.ts');

function eventWithKey(partitionKey: string): KinesisStreamEvent {
  return {
    Records: [
      {
        kinesis: {
          kinesisSchemaVersion: '1.0',
          partitionKey,
          sequenceNumber: '1',
          data: '',
          approximateArrivalTimestamp: 0,
        },
        eventSource: 'aws:kinesis',
        eventVersion: '1.0',
        eventID: 'shardId-000000000000:1',
        eventName: 'aws:kinesis:record',
        invokeIdentityArn: 'arn:aws:iam::123456789012:role/r',
        awsRegion: 'eu-west-1',
        eventSourceARN: 'arn:aws:kinesis:eu-west-1:123456789012:stream/raw',
      },
    ],
  };
}

function context(remainingMillis: number): Context {
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: 'fixture-fn',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:fixture-fn',
    memoryLimitInMB: '512',
    awsRequestId: 'r1',
    logGroupName: '/aws/lambda/fixture-fn',
    logStreamName: 's',
    getRemainingTimeInMillis: () => remainingMillis,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

let child: ChildProcessHandler | undefined;

afterEach(async () => {
  await child?.stop();
  child = undefined;
});

test('answers from a child process with its environment and the context', async () => {
  child = new ChildProcessHandler({ modulePath: FIXTURE, env: { KFEK_FIXTURE_MARKER: 'from-parent' } });
  const answer = (await child.handler(eventWithKey('ok'), context(5000))) as unknown as Record<
    string,
    unknown
  >;
  expect(answer).toMatchObject({ batchItemFailures: [], marker: 'from-parent', functionName: 'fixture-fn' });
  expect(answer.pid).toBe(child.pid());
  expect(answer.pid).not.toBe(process.pid);
  expect(answer.remaining).toBeGreaterThan(0);
  expect(answer.remaining).toBeLessThanOrEqual(5000);
}, 30_000);

test('a handler error is a rejected invocation; the same child serves the next', async () => {
  child = new ChildProcessHandler({ modulePath: FIXTURE, env: {} });
  await expect(child.handler(eventWithKey('throw'), context(5000))).rejects.toThrow(
    'the fixture handler threw',
  );
  await child.handler(eventWithKey('ok'), context(5000));
  expect(child.processesStarted()).toBe(1);
}, 30_000);

test('a child SIGKILLed mid-invocation fails it with a typed error; the next runs in a fresh process', async () => {
  child = new ChildProcessHandler({ modulePath: FIXTURE, env: {} });
  const running = child;
  let armed = true;
  running.onInvocationStarted((pid) => {
    if (!armed) return;
    armed = false;
    process.kill(pid, 'SIGKILL');
  });
  const killed = running.handler(eventWithKey('hang'), context(5000));
  await expect(killed).rejects.toThrow(TransformProcessError);
  await expect(killed).rejects.toThrow(/exited \(SIGKILL\) during the invocation/);
  const answer = (await running.handler(eventWithKey('ok'), context(5000))) as unknown as { pid: number };
  expect(answer.pid).toBe(running.pid());
  expect(running.processesStarted()).toBe(2);
}, 30_000);

test('a module without the handler export fails the invocation with a clear error', async () => {
  child = new ChildProcessHandler({ modulePath: FIXTURE, exportName: 'missing', env: {} });
  await expect(child.handler(eventWithKey('ok'), context(5000))).rejects.toThrow(
    /does not export a function `missing`/,
  );
}, 30_000);
