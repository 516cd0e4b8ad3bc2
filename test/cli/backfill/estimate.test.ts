/**
 * `--dry-run`'s sampled estimate and its price: exact for small windows, within a few percent when it extrapolates,
 * bounded in calls, and the cost arithmetic from kfek's cost model.
 */
import { estimateCost, estimateDuration } from '../../../cli/backfill/cost';
import { estimateGroup } from '../../../core/logs/window-estimate';
import { ASSUMPTIONS, PRICES } from '../../../core/contracts/cost-model';
import { FakeLogs, historicEvents } from '../../helpers/backfill-fakes';
import type { GroupSource } from '../../../core/logs/model';

const GROUP = '/kfek/test/app';
const SOURCE: GroupSource = { logGroup: GROUP, owner: '123456789012', subscriptionFilters: ['f'] };
const START = Date.UTC(2026, 10, 16, 0, 0, 0);
const WEEK = 7 * 86_400_000;
const window = { since: new Date(START), until: new Date(START + WEEK) };

describe('estimateGroup', () => {
  test('a window the sample reads whole is counted exactly', async () => {
    const events = historicEvents(3_000, { start: START + 1_000, stepInMillis: 180_000, streams: 5 });
    const logs = new FakeLogs().addGroup(GROUP, events);
    const estimate = await estimateGroup(logs, SOURCE, window);
    expect(estimate.events).toBe(3_000);
    expect(estimate.exactSlices).toBe(10);
    expect(estimate.messageBytes).toBe(events.reduce((s, e) => s + Buffer.byteLength(e.message), 0));
    expect(estimate.firstEventAt?.getTime()).toBe(START + 1_000);
    expect(estimate.calls).toBe(11);
  });

  test('extrapolates a large window from 1,000 events a slice, within a few percent', async () => {
    // GIVEN 200,000 events of varying size spread over the last three days of a week's window
    const message = (i: number): string =>
      JSON.stringify({
        level: i % 10 === 0 ? 'ERROR' : 'INFO',
        message: `event ${i}`,
        pad: 'x'.repeat(i % 300),
      });
    const events = historicEvents(200_000, {
      start: START + 4 * 86_400_000,
      stepInMillis: (3 * 86_400_000) / 200_000,
      streams: 20,
      message,
    });
    const logs = new FakeLogs().addGroup(GROUP, events);
    // WHEN
    const estimate = await estimateGroup(logs, SOURCE, window);
    // THEN within 5% of the events and bytes, from 11 calls of at most 1,000 events, starting at the first event
    expect(Math.abs(estimate.events - 200_000) / 200_000).toBeLessThan(0.05);
    const bytes = events.reduce((sum, e) => sum + Buffer.byteLength(e.message), 0);
    expect(Math.abs(estimate.messageBytes - bytes) / bytes).toBeLessThan(0.05);
    expect(estimate.calls).toBe(11);
    expect(logs.calls.every((c) => c.limit === 1_000)).toBe(true);
    expect(estimate.firstEventAt?.getTime()).toBe(START + 4 * 86_400_000);
    expect(estimate.exactSlices).toBe(0);
    expect(estimate.gzipBytes).toBeGreaterThan(0);
    expect(estimate.gzipBytes).toBeLessThan(estimate.messageBytes);
  });

  test('an empty window costs one call', async () => {
    const logs = new FakeLogs().addGroup(GROUP, historicEvents(10, { start: START - 10_000 }));
    const estimate = await estimateGroup(logs, SOURCE, window);
    expect(estimate).toMatchObject({ events: 0, messageBytes: 0, records: 0, calls: 1 });
    expect(estimate.firstEventAt).toBeUndefined();
  });

  test('reads past the empty pages AWS may answer with a token; a sample that saw nothing estimates nothing', async () => {
    const logs = new FakeLogs().addGroup(
      GROUP,
      historicEvents(50_000, { start: START, stepInMillis: WEEK / 50_000 }),
    );
    logs.emptyPagesFirst = 1;
    const estimate = await estimateGroup(logs, SOURCE, window);
    expect(Math.abs(estimate.events - 50_000) / 50_000).toBeLessThan(0.05);
    expect(estimate.calls).toBe(22);
    logs.emptyPagesFirst = 5;
    const blind = await estimateGroup(logs, SOURCE, window, { maxCallsPerSlice: 2 });
    // Nothing was seen at all: the sample says nothing, and the estimate does not pretend otherwise.
    expect(blind.sampledEvents).toBe(0);
    expect(blind.events).toBe(0);
  });
});

describe('estimateCost', () => {
  const volume = {
    events: 10_000_000,
    messageBytes: 3_000_000_000,
    gzipBytes: 600_000_000,
    records: 10_000,
    filterCalls: 1_011,
  };
  const facts = { aggregation: true, batchSize: 100, replicas: 1 };

  test('prices each part with the cost model of docs/costs.md', () => {
    const cost = estimateCost(volume, facts);
    const line = (item: string) => cost.lines.find((l) => l.item === item)!;
    expect(line('CloudWatch Logs FilterLogEvents').usd).toBe(0);
    // 60 KB records: 3 PUT units each.
    expect(line('Kinesis raw stream PUT units').usd).toBeCloseTo(
      (10_000 * 3 * PRICES.kinesisPerMillionPutUnits) / 1e6,
      10,
    );
    const gbSeconds =
      (ASSUMPTIONS.lambdaMbPerVcpu / 1024 / ASSUMPTIONS.transformEventsPerVcpuSecond) *
      ASSUMPTIONS.lambdaWallOverCpu;
    expect(line('transform Lambda').usd).toBeCloseTo(
      10_000_000 * gbSeconds * PRICES.lambdaArmPerGbSecond + (100 * PRICES.lambdaPerMillionRequests) / 1e6,
      8,
    );
    // Documents of 300 + 250 bytes, stored twice (one replica) with the sizing factor.
    const storedGb = ((10_000_000 * 550) / 2 ** 30) * 2 * ASSUMPTIONS.storageOverheadFactor;
    expect(line('OpenSearch storage')).toMatchObject({ monthly: true });
    expect(line('OpenSearch storage').usd).toBeCloseTo(storedGb * PRICES.openSearchGp3PerGbMonth, 6);
    // Aggregated, Firehose bills about the documents' bytes (5 KB rounding per 1 MiB record is small).
    const firehoseGb = (10_000_000 * 550) / 2 ** 30;
    expect(line('Firehose ingestion').usd / PRICES.firehosePerGb).toBeGreaterThan(firehoseGb);
    expect(line('Firehose ingestion').usd / PRICES.firehosePerGb).toBeLessThan(firehoseGb * 1.05);
    expect(cost.once).toBeCloseTo(
      cost.lines.filter((l) => l.monthly !== true).reduce((s, l) => s + l.usd, 0),
      10,
    );
    expect(cost.pricesDate).toBe('2026-11-23');
  });

  test('without aggregation Firehose bills 5 KB a document', () => {
    const cost = estimateCost(volume, { ...facts, aggregation: false });
    const firehose = cost.lines.find((l) => l.item === 'Firehose ingestion')!;
    expect(firehose.usd).toBeCloseTo(((10_000_000 * 5 * 1024) / 2 ** 30) * PRICES.firehosePerGb, 6);
  });

  test('how long: at the rate, at least the reading pace, and the share of the stream it takes', () => {
    const d = estimateDuration(volume, 2_000, 2);
    expect(d.atRateInMillis).toBe(5_000_000);
    expect(d.readingInMillis).toBeCloseTo((1_011 / 4) * 1000, 6);
    // 2,000 events/s x 60 bytes of gzip = 120 KB/s of 2 MiB/s.
    expect(d.shareOfStreamWriteLimit).toBeCloseTo(120_000 / (2 * 1_048_576), 6);
  });
});
