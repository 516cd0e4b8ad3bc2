/**
 * A healed event lands in the index live would have used: its envelope carries when the event first reached the
 * pipeline (CloudWatch Logs' ingestion time; a trace's first line's for its lines), which the transform writes as the
 * documents' arrival when earlier than the record's own, and the ingest pipeline names the index by that period. So
 * an event that was only late, healed after midnight UTC (or after the hour, with OneHour), and a second heal of it,
 * overwrite one document instead of landing twice.
 */
import { indexNameFor, type IndexRotation } from '../../../core/contracts/index-naming';
import type { KinesisPort } from '../../../core/kinesis/ports';
import { buildEnvelopes } from '../../../core/logs/envelopes';
import { documentIdFor } from '../../../core/opensearch/ingest-pipeline';
import { rawStreamHealer } from '../../../core/reconcile/healer';
import { groupSource, type LogEvent } from '../../../core/reconcile/model';
import { RequestMeter } from '../../../core/reconcile/ports';
import { transformRecord } from '../../../core/transform/transform';
import { GROUP, T0, World, event } from '../../helpers/reconcile-fakes';
import { MINUTE_MILLIS, reconcile } from '../../../core/reconcile/engine';

/** 2026-11-27T23:59:58.000Z */
const BEFORE_MIDNIGHT = Date.UTC(2026, 10, 27, 23, 59, 58);

/** Where the pipeline puts the document of `data` read from the raw stream at `arrivedAt`: its index and id. */
function landing(
  data: Uint8Array,
  arrivedAt: number,
  rotation: IndexRotation,
): { index: string; id: string }[] {
  const outcome = transformRecord(Buffer.from(data), { approximateArrivalTimestamp: arrivedAt / 1000 });
  if (outcome.kind !== 'data') throw new Error(`not data: ${outcome.kind}`);
  return outcome.documents.map((d) => {
    const doc = JSON.parse(d.json) as {
      cloudwatch: { logGroup: string; logStream: string; id: string };
      kfek?: { arrival?: number };
    };
    // The ingest pipeline's rule (ingest-pipeline.ts ARRIVAL_SUFFIX_SCRIPT): the period of kfek.arrival, when earlier
    // than the period Firehose delivers in (here: the record's arrival).
    const arrival = Math.min(doc.kfek?.arrival ?? arrivedAt, arrivedAt);
    return {
      index: indexNameFor('logs', rotation, new Date(arrival)),
      id: documentIdFor(doc.cloudwatch.logGroup, doc.cloudwatch.logStream, doc.cloudwatch.id),
    };
  });
}

/** The records a heal of `events` puts on the raw stream. */
async function healRecords(events: readonly LogEvent[], rotation: IndexRotation): Promise<Uint8Array[]> {
  const sent: Uint8Array[] = [];
  const kinesis = {
    putRecords: (_: string, records: readonly { data: Uint8Array }[]) => {
      sent.push(...records.map((r) => r.data));
      return Promise.resolve(records.map(() => undefined));
    },
  } as unknown as KinesisPort;
  const healer = rawStreamHealer({
    kinesis,
    rawStream: 'raw',
    rotation,
    clock: { now: () => 0, sleep: () => Promise.resolve() },
    meter: new RequestMeter(),
  });
  await healer.send(GROUP, events, (e) => e.ingestionTime ?? e.timestamp);
  return sent;
}

describe('heal arrival', () => {
  test.each([
    ['OneDay', 'midnight UTC', BEFORE_MIDNIGHT, 30_000],
    ['OneHour', 'the hour', Date.UTC(2026, 10, 27, 9, 59, 58), 30_000],
    ['OneDay', 'midnight UTC, healed hours later', BEFORE_MIDNIGHT, 5 * 3_600_000],
  ] as const)(
    "a late-only event healed across %s (%s) lands in its live copy's index, and a second heal changes nothing",
    async (rotation, _, takenIn, healedAfter) => {
      // GIVEN an event CloudWatch Logs took in before the boundary, whose live record reached the raw stream a
      // second later and was delivered late
      const late: LogEvent = {
        id: '1',
        timestamp: takenIn - 500,
        message: 'late',
        logStream: 's1',
        ingestionTime: takenIn,
      };
      const live = buildEnvelopes(groupSource(GROUP), [late]).records[0];
      const liveCopy = landing(live.data, takenIn + 1000, rotation);

      // WHEN it is healed after the boundary, twice
      const first = (await healRecords([late], rotation)).flatMap((d) =>
        landing(d, takenIn + healedAfter, rotation),
      );
      const second = (await healRecords([late], rotation)).flatMap((d) =>
        landing(d, takenIn + healedAfter + 60_000, rotation),
      );

      // THEN one index, one id: each copy overwrites the one before
      expect(first).toEqual(liveCopy);
      expect(second).toEqual(liveCopy);
      expect(new Set([...liveCopy, ...first, ...second].map((l) => `${l.index}/${l.id}`)).size).toBe(1);
    },
  );

  test('events taken in on both sides of midnight land each in its own day, as live put them', async () => {
    const events: LogEvent[] = [
      { id: '1', timestamp: BEFORE_MIDNIGHT, message: 'a', logStream: 's1', ingestionTime: BEFORE_MIDNIGHT },
      {
        id: '2',
        timestamp: BEFORE_MIDNIGHT + 3000,
        message: 'b',
        logStream: 's1',
        ingestionTime: BEFORE_MIDNIGHT + 3000,
      },
    ];
    const landed = (await healRecords(events, 'OneDay')).flatMap((d) =>
      landing(d, BEFORE_MIDNIGHT + 3_600_000, 'OneDay'),
    );
    expect(landed.map((l) => l.index).sort()).toEqual(['logs-2026-11-27', 'logs-2026-11-28']);
  });

  test("an envelope arrival later than the record's, or no time at all, is ignored", () => {
    const event1: LogEvent = { id: '1', timestamp: T0, message: 'a', logStream: 's1' };
    for (const arrival of [T0 + 3_600_000, -1, 1e300]) {
      const record = buildEnvelopes(groupSource(GROUP), [event1], { arrivalMillis: arrival }).records[0];
      const outcome = transformRecord(Buffer.from(record.data), { approximateArrivalTimestamp: T0 / 1000 });
      expect(
        outcome.kind === 'data' &&
          (JSON.parse(outcome.documents[0].json) as { kfek: { arrival: number } }).kfek.arrival,
      ).toBe(T0);
    }
  });

  test("a trace's lines are healed with their first line's arrival, so the trace stays one envelope", async () => {
    // GIVEN a lost trace whose first line CloudWatch Logs took in before its continuation lines
    const world = new World();
    const head = { ...event('m0', 60 * 3, 'Exception'), ingestionTime: T0 + 60 * 3 * 1000 + 100 };
    const line = { ...event('m1', 60 * 3 + 1, '  at x'), ingestionTime: T0 + 60 * 3 * 1000 + 900 };
    world.write(GROUP, [head, line], false);

    // WHEN
    await reconcile(
      {
        groups: [GROUP],
        since: T0,
        until: T0 + 10 * MINUTE_MILLIS,
        lagInMillis: 0,
        heal: { timeoutInMillis: 10_000 },
      },
      world.ports(),
    );

    // THEN
    expect(world.healArrivals).toEqual(
      new Map([
        ['m0', head.ingestionTime],
        ['m1', head.ingestionTime],
      ]),
    );
  });
});
