/**
 * Runs the shipped Serverless retention function (lambda/serverless-retention/handler.ts) in this process as one
 * principal of the stand-in: with the environment the Search stack writes, that principal's key as the function
 * role's credentials, and the EMF metrics it printed read back.
 */
import type { Context, ScheduledEvent } from 'aws-lambda';
import { RetentionMetricName } from '../../core/contracts/retention-env';
import type { OpenSearchHttpClient } from '../../core/opensearch/http';
import type { RetentionRun } from '../../core/opensearch/serverless-retention';
import type { StandinIdentity } from '../../scripts/serverless/standin';
import { signedAs } from './credentials-env';

const CONTEXT = { functionName: 'kfek-test-retention', awsRequestId: 'req-1' } as unknown as Context;

/** What one run of the handler returned and the metrics it published. */
export interface RetentionHandlerRun {
  readonly run: RetentionRun;
  readonly metrics: Record<string, number>;
}

/**
 * Runs the handler module once as `who`, with `env` (core/contracts/retention-env.ts `retentionEnvironment`) in
 * `region`, for a run due at `due` (ISO-8601, the schedule's event time). The process environment is restored after.
 */
export function runRetentionHandlerAs(
  who: StandinIdentity,
  env: Readonly<Record<string, string>>,
  region: string,
  due: string,
): Promise<RetentionHandlerRun> {
  return signedAs(who, async () => {
    Object.assign(process.env, env, { AWS_REGION: region });
    const lines: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    const log = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      lines.push(args.map(String).join(' '));
    });
    try {
      let handler: typeof import('../../lambda/serverless-retention/handler').handler | undefined;
      // A fresh module each run: the handler reads its environment and credentials once per container.
      await jest.isolateModulesAsync(async () => {
        ({ handler } = await import('../../lambda/serverless-retention/handler'));
      });
      if (handler === undefined) throw new Error('the handler module did not load');
      const run = await handler({ time: due } as ScheduledEvent, CONTEXT);
      return { run, metrics: emfMetrics(lines) };
    } finally {
      write.mockRestore();
      log.mockRestore();
    }
  });
}

/** The retention metrics among the EMF lines the handler printed. */
function emfMetrics(lines: readonly string[]): Record<string, number> {
  const metrics: Record<string, number> = {};
  for (const line of lines.flatMap((l) => l.split('\n'))) {
    if (!line.includes('"_aws"')) continue;
    const emf = JSON.parse(line) as Record<string, unknown>;
    for (const name of Object.values(RetentionMetricName)) {
      if (typeof emf[name] === 'number') metrics[name] = emf[name];
    }
  }
  return metrics;
}

/**
 * Creates each index of `names` with one document stamped `timestamp` (ISO-8601), in one `_bulk` through `client`
 * (an admin of the stand-in), and expects every item written.
 */
export async function seedIndices(
  client: OpenSearchHttpClient,
  names: readonly string[],
  timestamp: string,
): Promise<void> {
  const body = names
    .flatMap((index, n) => [
      JSON.stringify({ index: { _index: index, _id: `seed-${n}` } }),
      JSON.stringify({ '@timestamp': timestamp, message: `seed ${n}` }),
    ])
    .join('\n');
  const answer = await client.request({
    method: 'POST',
    path: '/_bulk',
    body: `${body}\n`,
    headers: { 'content-type': 'application/x-ndjson' },
  });
  expect(answer.status).toBe(200);
  expect((answer.body as { errors: boolean }).errors).toBe(false);
}
