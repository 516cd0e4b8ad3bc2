import {
  type CloudWatchLogsClient,
  CreateLogStreamCommand,
  PutLogEventsCommand,
  ResourceAlreadyExistsException,
} from '@aws-sdk/client-cloudwatch-logs';
import { PutLogEventsBatcher } from '../../core/logs/put-batch';

/** One log event to write, addressed to its log group and stream. */
export interface OutgoingLogEvent {
  readonly logGroupName: string;
  readonly logStreamName: string;
  /** Epoch millis (the CloudWatch event time, later `@timestamp`). */
  readonly timestamp: number;
  readonly message: string;
}

/** When one event was handed to PutLogEvents. */
export interface SentLogEvent extends OutgoingLogEvent {
  /** `Date.now()` just before the PutLogEvents call that carried it started. */
  readonly putAt: number;
}

export interface SendOptions {
  /**
   * Events per PutLogEvents call at most. AWS allows 10,000 and 1 MiB; moto turns one call into one Kinesis
   * record, and a smaller call keeps each subscription record well under Kinesis' 1 MiB.
   * @default 500
   */
  readonly eventsPerCall?: number;
  /** Called after each call with the number of events written so far. */
  readonly onProgress?: (written: number, total: number) => void;
  /**
   * Called as soon as each call returns, with the events it wrote (the latency probe follows them from here, so
   * an event is looked for from the moment it was written, not from the end of the whole write).
   */
  readonly onSent?: (batch: readonly SentLogEvent[]) => void;
}

/**
 * Writes events with PutLogEvents, one log stream at a time, in chronological order per call (CloudWatch rejects
 * a call whose events are out of order). Creates the log streams first. Returns every event with its put time,
 * which the latency probe measures from.
 */
export async function sendLogEvents(
  logs: CloudWatchLogsClient,
  events: readonly OutgoingLogEvent[],
  options: SendOptions = {},
): Promise<SentLogEvent[]> {
  const eventsPerCall = options.eventsPerCall ?? 500;
  const byStream = new Map<string, OutgoingLogEvent[]>();
  for (const event of events) {
    const key = `${event.logGroupName}\u0000${event.logStreamName}`;
    const list = byStream.get(key) ?? [];
    list.push(event);
    byStream.set(key, list);
  }
  for (const list of byStream.values()) {
    try {
      await logs.send(
        new CreateLogStreamCommand({
          logGroupName: list[0].logGroupName,
          logStreamName: list[0].logStreamName,
        }),
      );
    } catch (error) {
      if (!(error instanceof ResourceAlreadyExistsException)) throw error;
    }
  }
  // Interleave the streams call by call, so every log group sees traffic early (as in real life). Each queue is
  // read with a cursor: `shift()` on a queue of tens of thousands of events moves all the others every time, which
  // made the writer itself a CPU hog beside the pipeline it feeds (2.3 s of a 100,000-event bench:e2e run).
  let live = [...byStream.values()].map((list) => {
    const sorted = [...list].sort((a, b) => a.timestamp - b.timestamp);
    let next = 0;
    return new PutLogEventsBatcher(() => (next < sorted.length ? sorted[next++] : undefined));
  });
  const sent: SentLogEvent[] = [];
  while (live.length > 0) {
    const unfinished: typeof live = [];
    for (const batcher of live) {
      const batch = batcher.take(eventsPerCall);
      if (batch.length === 0) continue;
      unfinished.push(batcher);
      const putAt = Date.now();
      await logs.send(
        new PutLogEventsCommand({
          logGroupName: batch[0].logGroupName,
          logStreamName: batch[0].logStreamName,
          logEvents: batch.map((e) => ({ timestamp: e.timestamp, message: e.message })),
        }),
      );
      const written = batch.map((event): SentLogEvent => ({ ...event, putAt }));
      sent.push(...written);
      options.onSent?.(written);
      options.onProgress?.(sent.length, events.length);
    }
    live = unfinished;
  }
  return sent;
}
