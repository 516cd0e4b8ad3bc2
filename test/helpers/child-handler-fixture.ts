/**
 * A handler for test/scripts/local/child-handler.test.ts, loaded in a child process by ChildProcessHandler. The
 * first record's partition key picks the behaviour: `hang` never answers (to be killed), `throw` throws, anything
 * else answers with the child's pid, an environment variable and the remaining time it was given.
 */
import type { Context, KinesisStreamEvent } from 'aws-lambda';

export async function handler(event: KinesisStreamEvent, context: Context): Promise<unknown> {
  const key = event.Records[0]?.kinesis.partitionKey;
  if (key === 'hang') return new Promise(() => undefined);
  if (key === 'throw') throw new Error('the fixture handler threw');
  return {
    batchItemFailures: [],
    pid: process.pid,
    marker: process.env.KFEK_FIXTURE_MARKER,
    remaining: context.getRemainingTimeInMillis(),
    functionName: context.functionName,
  };
}
