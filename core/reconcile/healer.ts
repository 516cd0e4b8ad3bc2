/**
 * `kfek reconcile --heal`'s sender (core/reconcile/ports.ts `Healer`): the missing events of a log group go into
 * CloudWatch Logs subscription envelopes with their real ids (core/logs' `buildEnvelopes`) and onto the raw stream
 * through core/kinesis' sender (PutRecords in calls within the API's limits, refused entries retried with backoff), as
 * `kfek backfill` sends them: the transform makes the same documents with the same ids. Each envelope carries when
 * its events first reached the pipeline (envelopesByPeriod), so the documents land in the index of the period live
 * used: a second heal, or a live copy that was only late, overwrites them there. What Kinesis still refuses after every retry, or what does not fit a record, is reported as
 * not sent; it stays in CloudWatch Logs, so the next run finds it missing again.
 */
import type { KinesisPort } from '../kinesis/ports';
import { RecordSender } from '../kinesis/sender';
import { indexNameFor, type IndexRotation } from '../contracts/index-naming';
import { buildEnvelopes, type Envelopes } from '../logs/envelopes';
import { groupSource, type LogEvent, type ReconcileGroup } from './model';
import type { Clock, Healer, HealResult, RequestMeter } from './ports';

export interface HealerOptions {
  readonly kinesis: KinesisPort;
  /** The indices' rotation: events whose arrivals fall in different periods go in different envelopes. */
  readonly rotation: IndexRotation;
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
    async send(
      group: ReconcileGroup,
      events: readonly LogEvent[],
      arrivalOf: (event: LogEvent) => number,
    ): Promise<HealResult> {
      const { records, oversized } = envelopesByPeriod(group, events, arrivalOf, options.rotation);
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

/**
 * The envelopes of `events`, one set per rotation period of their arrivals (in the order the events come), each
 * envelope marked with the earliest arrival of its set (index-naming.ts `ENVELOPE_ARRIVAL_FIELD`): the ingest
 * pipeline names the index by the period alone, so every event lands in the period it first reached the pipeline
 * in, as live put it, and a second heal (or a live copy that was only late) overwrites it there.
 */
function envelopesByPeriod(
  group: ReconcileGroup,
  events: readonly LogEvent[],
  arrivalOf: (event: LogEvent) => number,
  rotation: IndexRotation,
): Envelopes {
  const byPeriod = new Map<string, { arrival: number; events: LogEvent[] }>();
  for (const event of events) {
    const arrival = arrivalOf(event);
    const period = indexNameFor('', rotation, new Date(arrival));
    const set = byPeriod.get(period);
    if (set === undefined) byPeriod.set(period, { arrival, events: [event] });
    else {
      set.events.push(event);
      set.arrival = Math.min(set.arrival, arrival);
    }
  }
  const out: Envelopes = { records: [], oversized: [] };
  for (const set of byPeriod.values()) {
    const built = buildEnvelopes(groupSource(group), set.events, { arrivalMillis: set.arrival });
    out.records.push(...built.records);
    out.oversized.push(...built.oversized);
  }
  return out;
}
