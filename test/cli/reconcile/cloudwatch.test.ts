/**
 * The Logs Insights way of counting (AWS only: moto's Logs Insights has no `stats`), with a mocked CloudWatch Logs
 * client: the query, how groups and minutes are split so no answer passes 10,000 rows, and how rows become counts.
 * The FilterLogEvents way runs against moto in test/e2e/reconcile.test.ts.
 */
import {
  CloudWatchLogsClient,
  GetQueryResultsCommand,
  StartQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { COUNT_QUERY, insightsCounts, parseBin } from '../../../core/reconcile/cloudwatch-side';
import type { ReconcileGroup } from '../../../core/reconcile/model';
import { RequestMeter } from '../../../core/reconcile/ports';

const logs = mockClient(CloudWatchLogsClient);
const client = new CloudWatchLogsClient({ region: 'us-east-1' });
const T0 = Date.UTC(2026, 10, 27, 10, 0, 0);
const clock = { now: () => T0, sleep: () => Promise.resolve() };

const group = (name: string): ReconcileGroup => ({
  logGroup: name,
  owner: '123456789012',
  filterPattern: '',
  subscriptionFilters: [],
});

const row = (log: string, minute: string, events: number) => [
  { field: '@log', value: log },
  { field: 'minute', value: minute },
  { field: 'events', value: String(events) },
  { field: '@ptr', value: 'x' },
];

beforeEach(() => logs.reset());

describe('insightsCounts', () => {
  test('one query for up to 50 groups: counts per group and minute, bins outside the window dropped', async () => {
    // GIVEN
    logs.on(StartQueryCommand).resolves({ queryId: 'q1' });
    logs
      .on(GetQueryResultsCommand)
      .resolvesOnce({ status: 'Running' })
      .resolves({
        status: 'Complete',
        results: [
          row('123456789012:/app/a', '2026-11-27 10:00:00.000', 5),
          row('123456789012:/app/b', '2026-11-27 10:01:00.000', 7),
          row('123456789012:/app/a', '2026-11-27 10:02:00.000', 1),
        ],
      });
    const meter = new RequestMeter();

    // WHEN
    const counts = await insightsCounts(client, [group('/app/a'), group('/app/b')], T0, T0 + 2 * 60_000, {
      clock,
      meter,
    });

    // THEN
    expect(logs).toHaveReceivedCommandWith(StartQueryCommand, {
      logGroupNames: ['/app/a', '/app/b'],
      queryString: COUNT_QUERY,
      startTime: T0 / 1000,
      endTime: T0 / 1000 + 119,
    });
    expect(counts.get('/app/a')).toEqual(new Map([[T0, 5]]));
    expect(counts.get('/app/b')).toEqual(new Map([[T0 + 60_000, 7]]));
    expect(meter.cloudWatch).toBe(3);
  });

  test('splits 120 groups into three queries and each query into minutes that stay under 10,000 rows', async () => {
    logs.on(StartQueryCommand).resolves({ queryId: 'q' });
    logs.on(GetQueryResultsCommand).resolves({ status: 'Complete', results: [] });
    const groups = Array.from({ length: 120 }, (_, i) => group(`/app/${i}`));

    // WHEN a day is counted
    await insightsCounts(client, groups, T0, T0 + 24 * 60 * 60_000, { clock, meter: new RequestMeter() });

    // THEN 50 + 50 + 20 groups; 200, 200 and 500 minutes per query
    const calls = logs.commandCalls(StartQueryCommand).map((c) => c.args[0].input);
    expect(calls.map((c) => c.logGroupNames?.length)).toEqual([
      ...Array<number>(8).fill(50),
      ...Array<number>(8).fill(50),
      ...Array<number>(3).fill(20),
    ]);
    for (const c of calls) {
      const minutes = ((c.endTime ?? 0) + 1 - (c.startTime ?? 0)) / 60;
      expect(minutes * (c.logGroupNames?.length ?? 0)).toBeLessThanOrEqual(10_000);
    }
  });

  test('parseBin reads what bin(1m) answers', () => {
    expect(parseBin('2026-11-27 10:01:00.000')).toBe(T0 + 60_000);
    expect(parseBin('2026-11-27T10:01:00Z')).toBe(T0 + 60_000);
    expect(parseBin('not a time')).toBeUndefined();
  });
});
