/**
 * `kfek reconcile --heal`'s sender (core/reconcile/ports.ts `Healer`): the missing events of a log group go into
 * CloudWatch Logs subscription envelopes with their real ids (core/logs' `buildEnvelopes`) and onto the raw stream
 * through core/kinesis' sender (PutRecords in calls within the API's limits, refused entries retried with backoff), exactly
 * as `kfek backfill` sends them: the transform makes the same documents with the same ids, so an event that was only
 * late overwrites itself. What Kinesis still refuses after every retry, or what does not fit a record, is reported as
 * not sent; it stays in CloudWatch Logs, so the next run finds it missing again.
 */
import type { KinesisPort } from '../kinesis/ports';
import { RecordSender } from '../kinesis/sender';
import { buildEnvelopes } from '../logs/envelopes';
import { groupSource, type LogEvent, type ReconcileGroup } from './model';
import type { Clock, Healer, HealResult, RequestMeter } from './ports';

export interface HealerOptions {
  readonly kinesis: KinesisPort;
  /** The raw stream's name or ARN. */
  readonly rawStream: string;
  readonly clock: Clock;
  readonly meter: RequestMeter;
  /** Records per second. @default - unpaced (refused entries are retried with backoff) */
  readonly ratePerSecond?: number;
}

export function rawStreamHealer(options: HealerOptions): Healer {
  const counted: KinesisPort = {
    ...options.kinesis,
    putRecords: (stream, records) => {
      options.meter.kinesis += 1;
      return options.kinesis.putRecords(stream, records);
    },
  };
  const sender = new RecordSender({
    kinesis: counted,
    now: options.clock.now,
    sleep: options.clock.sleep,
    maxAttempts: 20,
    ...(options.ratePerSecond !== undefined ? { ratePerSecond: options.ratePerSecond } : {}),
  });
  return {
    async send(group: ReconcileGroup, events: readonly LogEvent[]): Promise<HealResult> {
      const { records, oversized } = buildEnvelopes(groupSource(group), events);
      const result = await sender.send(options.rawStream, records);
      // An envelope holds consecutive events of one stream: the refused ones are those its time span covers (an event
      // at the boundary of two envelopes of which one was refused counts as not sent: the next run looks again).
      const notSent = [
        ...oversized.map((o) => o.event),
        ...(result.accepted.every((a) => a)
          ? []
          : events.filter((e) =>
              records.some(
                (r, i) =>
                  !result.accepted[i] &&
                  r.logStream === e.logStream &&
                  e.timestamp >= r.firstTimestamp &&
                  e.timestamp <= r.lastTimestamp,
              ),
            )),
      ];
      return { sent: events.length - notSent.length, notSent };
    },
  };
}
