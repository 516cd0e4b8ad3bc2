/**
 * The events stream as a whole for the events-window replay: its shards over ListShards' pages, and Kinesis' clock
 * (their lineage order is core/kinesis/shard-window's).
 */
import { withRetries } from '../../core/aws/retry';
import type { KinesisPort, ShardInfo } from '../../core/kinesis/ports';
import { EventsWindowError } from './errors';

/**
 * Waits until Kinesis' clock is past `end` (a later Date header), asking it the time with ListShards every 200 ms:
 * at most about a second after the start, as the window ends with the start's second.
 */
export async function kinesisPast(
  end: Date,
  stream: string,
  ports: { readonly kinesis: KinesisPort; readonly sleep: (millis: number) => Promise<void> },
): Promise<void> {
  for (let probes = 0; ; probes += 1) {
    const time = ports.kinesis.serverTime?.();
    if (time === undefined || time.getTime() > end.getTime()) return;
    if (probes >= 50) {
      throw new EventsWindowError(
        `Kinesis' clock (its answers' Date header) stayed at ${time.toISOString()}, not past the window's end ` +
          `${end.toISOString()}, for 10 s: nothing was put; run the events-window again`,
      );
    }
    await ports.sleep(200);
    await ports.kinesis.listShards(stream);
  }
}

/** Every shard of the stream, open and closed, over ListShards' pages (transient failures retried). */
export async function listAllShards(
  port: KinesisPort,
  stream: string,
  pause: {
    readonly sleep: (millis: number) => Promise<void>;
    readonly random?: () => number;
    readonly endpoint?: string;
  },
): Promise<ShardInfo[]> {
  const shards: ShardInfo[] = [];
  let token: string | undefined;
  do {
    const page = await withRetries(
      `ListShards of ${stream}`,
      async () => {
        try {
          return await port.listShards(stream, token);
        } catch (error) {
          if ((error as { name?: unknown }).name !== 'ResourceNotFoundException') throw error;
          throw new EventsWindowError(
            `the events stream ${stream} does not exist (ListShards: ${(error as Error).message}): check ` +
              '--events-stream (a name or ARN), --region, or --profile (a deployment made before fixed names has ' +
              'a generated name: pass it with --events-stream)',
            { cause: error },
          );
        }
      },
      { ...(pause.endpoint !== undefined ? { endpoint: pause.endpoint } : {}) },
      { sleep: pause.sleep, ...(pause.random !== undefined ? { random: pause.random } : {}) },
    );
    shards.push(...page.shards);
    token = page.nextToken;
  } while (token !== undefined && token !== '');
  return shards;
}
