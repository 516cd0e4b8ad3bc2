/**
 * `kfek send`: writes generated log events to a log group with PutLogEvents, at a given rate.
 */
import {
  type CloudWatchLogsClient,
  CreateLogStreamCommand,
  type InputLogEvent,
  PutLogEventsCommand,
  type RejectedLogEventsInfo,
} from '@aws-sdk/client-cloudwatch-logs';
import { errorName } from '../core/aws/errors';
import { type RetryOptions, withRetries } from '../core/aws/retry';
import { sleep as realSleep } from '../core/clock';
import { LogEventGenerator } from '../core/log-generator';
import { MAX_EVENTS_PER_CALL, PutLogEventsBatcher } from '../core/logs/put-batch';
import { UsageError } from './errors';

export interface SendOptions {
  readonly logGroupName: string;
  /** @default `kfek-cli/<runId>` */
  readonly logStreamName?: string;
  readonly count: number;
  /**
   * Events per second at most.
   * @default - as fast as PutLogEvents takes them
   */
  readonly ratePerSecond?: number;
  readonly runId: string;
  /** Generator seed. @default 1 */
  readonly seed?: number;
  /** @default 10000 (the API's limit); tests lower it to see several calls */
  readonly maxEventsPerCall?: number;
  /** For messages about connection failures. */
  readonly endpoint?: string;
  readonly retry?: RetryOptions;
  /** Called after every call with the events written so far. */
  readonly onProgress?: (written: number, total: number, note: string) => void;
  /** Injected by tests. @default Date.now */
  readonly now?: () => number;
  /** Injected by tests. @default setTimeout */
  readonly sleep?: (millis: number) => Promise<void>;
}

export interface SendResult {
  readonly runId: string;
  readonly logGroupName: string;
  readonly logStreamName: string;
  /** Events accepted by CloudWatch Logs. */
  readonly sent: number;
  /** Events CloudWatch Logs refused (too old, too new or expired: a clock problem). */
  readonly rejected: number;
  readonly calls: number;
  /** Attempts that were retried after throttling or a server error. */
  readonly retries: number;
  readonly durationInMillis: number;
  /** Timestamp of the first and last event (epoch milliseconds). */
  readonly firstTimestamp?: number;
  readonly lastTimestamp?: number;
}

/** The default log stream of a run. */
export function defaultLogStreamName(runId: string): string {
  return `kfek-cli/${runId}`;
}

/** Number of events PutLogEvents refused, from its `rejectedLogEventsInfo`. */
export function countRejected(info: RejectedLogEventsInfo | undefined, batchSize: number): number {
  if (info === undefined) return 0;
  // The two *EndIndex fields name the last refused event (inclusive); tooNew names the first.
  const oldEnd = Math.max(info.tooOldLogEventEndIndex ?? -1, info.expiredLogEventEndIndex ?? -1);
  const newStart = info.tooNewLogEventStartIndex ?? batchSize;
  return Math.min(batchSize, oldEnd + 1 + Math.max(0, batchSize - newStart));
}

/** Checks the numbers a user typed. */
export function validateSendOptions(options: Pick<SendOptions, 'count' | 'ratePerSecond'>): void {
  if (!Number.isInteger(options.count) || options.count < 1) {
    throw new UsageError(`--count is ${options.count}; expected a whole number >= 1`);
  }
  const rate = options.ratePerSecond;
  if (rate !== undefined && !(rate > 0 && Number.isFinite(rate))) {
    throw new UsageError(`--rate is ${rate}; expected events per second > 0, e.g. 50 or 50/s`);
  }
}

/**
 * Creates the log stream (an existing one is fine) and writes `count` events in calls of at most 10,000
 * events and 1 MiB, pacing them to `ratePerSecond`. Throttling and 5xx answers are retried with backoff.
 */
export async function sendLogEvents(client: CloudWatchLogsClient, options: SendOptions): Promise<SendResult> {
  validateSendOptions(options);
  const now = options.now ?? Date.now;
  const pause = options.sleep ?? realSleep;
  const logStreamName = options.logStreamName ?? defaultLogStreamName(options.runId);
  const context = { logGroupName: options.logGroupName, endpoint: options.endpoint };
  let retries = 0;
  const retry: RetryOptions = {
    sleep: pause,
    ...options.retry,
    onRetry: (attempt, error, delay) => {
      retries += 1;
      options.retry?.onRetry?.(attempt, error, delay);
      options.onProgress?.(sent, options.count, `retrying in ${delay} ms (${errorName(error) || 'error'})`);
    },
  };

  await createLogStream(client, options.logGroupName, logStreamName, context, retry);
  const generator = new LogEventGenerator({ runId: options.runId, seed: options.seed });
  const maxEvents = Math.min(options.maxEventsPerCall ?? MAX_EVENTS_PER_CALL, MAX_EVENTS_PER_CALL);
  const startedAt = now();
  const pace = { rate: options.ratePerSecond, maxEvents, startedAt, now, pause };
  const batches = new PutLogEventsBatcher(() => toInputEvent(generator.next(now())));
  let sent = 0;
  let rejected = 0;
  let calls = 0;
  let firstTimestamp: number | undefined;
  let lastTimestamp: number | undefined;

  while (sent + rejected < options.count) {
    const allowed = await eventsDue(pace, sent + rejected, options.count);
    const batch = batches.take(Math.min(allowed, maxEvents));
    const response = await withRetries(
      'PutLogEvents',
      () =>
        client.send(
          new PutLogEventsCommand({ logGroupName: options.logGroupName, logStreamName, logEvents: batch }),
        ),
      context,
      retry,
    );
    calls += 1;
    const refused = countRejected(response.rejectedLogEventsInfo, batch.length);
    rejected += refused;
    sent += batch.length - refused;
    firstTimestamp ??= batch[0].timestamp;
    lastTimestamp = batch[batch.length - 1].timestamp;
    options.onProgress?.(sent + rejected, options.count, refused > 0 ? `${rejected} rejected` : '');
  }

  return {
    runId: options.runId,
    logGroupName: options.logGroupName,
    logStreamName,
    sent,
    rejected,
    calls,
    retries,
    durationInMillis: now() - startedAt,
    firstTimestamp,
    lastTimestamp,
  };
}

async function createLogStream(
  client: CloudWatchLogsClient,
  logGroupName: string,
  logStreamName: string,
  context: { readonly logGroupName: string; readonly endpoint: string | undefined },
  retry: RetryOptions,
): Promise<void> {
  await withRetries(
    'CreateLogStream',
    async () => {
      try {
        await client.send(new CreateLogStreamCommand({ logGroupName, logStreamName }));
      } catch (error) {
        // An existing stream is fine: a second send of the same run id appends to it.
        if ((error as { name?: unknown }).name !== 'ResourceAlreadyExistsException') throw error;
      }
    },
    context,
    retry,
  );
}

interface Pace {
  /** Events per second; undefined: as fast as PutLogEvents takes them. */
  readonly rate: number | undefined;
  readonly maxEvents: number;
  readonly startedAt: number;
  readonly now: () => number;
  readonly pause: (millis: number) => Promise<void>;
}

/**
 * How many events the next call may carry once `done` of `count` are written, after waiting until they are due.
 * With a rate, it waits until a batch of about a fifth of a second's worth is due, so 1,000/s becomes five calls
 * of 200 rather than a thousand calls of one.
 */
async function eventsDue(pace: Pace, done: number, count: number): Promise<number> {
  const { rate, maxEvents, startedAt, now } = pace;
  const remaining = count - done;
  if (rate === undefined) return remaining;
  const minBatch = Math.max(1, Math.min(maxEvents, Math.ceil(rate / 5)));
  const target = Math.min(remaining, minBatch);
  const wait = startedAt + ((done + target - 1) * 1000) / rate - now();
  if (wait > 0) await pace.pause(Math.ceil(wait));
  const allowed = Math.min(remaining, Math.floor(((now() - startedAt) * rate) / 1000) + 1 - done);
  return Math.max(allowed, target);
}

function toInputEvent(event: { readonly timestamp: number; readonly message: string }): InputLogEvent {
  return { timestamp: event.timestamp, message: event.message };
}
