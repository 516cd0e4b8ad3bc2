/**
 * The scheduled reconcile function's handler with the real reconcile service and transform core; CloudWatch Logs,
 * S3 and Kinesis are aws-sdk-client-mock doubles and OpenSearch a fetch double (no AWS account; Logs Insights'
 * `stats` does not run in moto). test/e2e/reconcile.test.ts runs the same service against moto and a real node.
 */
import {
  CloudWatchLogsClient,
  DescribeSubscriptionFiltersCommand,
  FilterLogEventsCommand,
  GetQueryResultsCommand,
  StartQueryCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import { KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { reconcileEnvironment } from '../../../core/contracts/reconcile-env';
import { documentIdFor } from '../../../core/opensearch/ingest-pipeline';
import { lambdaContext } from '../../helpers/lambda-context';

type Handler = (event: ScheduledEvent, context: Context) => Promise<{ totals: Record<string, number> }>;

const GROUP = '/kfek/production/app';
const logs = mockClient(CloudWatchLogsClient);
const kinesis = mockClient(KinesisClient);
const s3 = mockClient(S3Client);
const savedEnv = { ...process.env };
let handler: Handler;
let consoleLog: jest.SpyInstance;
let consoleSpies: jest.SpyInstance[] = [];
/** OpenSearch's answers: the handler's HTTP client takes `fetch` when its module loads, so this spy is made first. */
let fetchSpy: jest.SpyInstance;
/** What the fake OpenSearch answers per minute (epoch millis -> documents), and the document ids it holds. */
let openSearchMinutes: Map<number, number>;
let openSearchIds = new Set<string>();

/** Due at 10:07: judges 09:30 to 09:45 (every 15 minutes, lag 15). */
const DUE = '2026-11-27T10:07:00Z';
const SINCE = Date.parse('2026-11-27T09:30:00Z');

function scheduled(): ScheduledEvent {
  return {
    version: '0',
    id: 'e1',
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '123456789012',
    time: DUE,
    region: 'eu-west-1',
    resources: [],
    detail: {},
  };
}

/** EMF lines Powertools printed: each with its metrics and dimensions. */
function emf(): Record<string, unknown>[] {
  return (consoleLog.mock.calls as Array<[unknown]>)
    .map(([line]) => line)
    .filter((line): line is string => typeof line === 'string' && line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  Object.assign(
    process.env,
    reconcileEnvironment({
      logGroups: [{ name: GROUP, filterPattern: '' }],
      account: '123456789012',
      rawStreamArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-production-raw',
      bucket: 'kfek-failed',
      deadLetterPrefix: 'dead-letter/transform/',
      failedDocumentsPrefix: 'failed-documents/',
      openSearchUrl: 'https://search-kfek-production-abc.eu-west-1.es.amazonaws.com',
      indexPrefix: 'logs',
      indexRotation: 'OneDay',
      routeStems: {},
      everyMinutes: 15,
      lagMinutes: 15,
      heal: false,
      routes: [],
      metricsNamespace: 'kfek',
    }),
    {
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
      POWERTOOLS_DEV: 'true',
      POWERTOOLS_METRICS_DISABLED: 'false',
      POWERTOOLS_LOG_LEVEL: 'ERROR',
    },
  );
  fetchSpy = jest.spyOn(globalThis, 'fetch').mockImplementation((input, init) => {
    const url = input instanceof Request ? input.url : input.toString();
    const body = JSON.parse(typeof init?.body === 'string' ? init.body : '{}') as Record<string, unknown>;
    const json = (value: unknown): Promise<Response> =>
      Promise.resolve(
        new Response(JSON.stringify(value), { status: 200, headers: { 'content-type': 'application/json' } }),
      );
    if (url.includes('/_mget')) {
      return json({
        docs: (body.docs as { _index: string; _id: string }[]).map((d) => ({
          _index: d._index,
          _id: d._id,
          found: openSearchIds.has(d._id),
          _source: {},
        })),
      });
    }
    if ('aggs' in body) {
      return json({
        aggregations: {
          byMinute: {
            buckets: [...openSearchMinutes].map(([minute, n]) => ({
              key: { group: GROUP, minute },
              doc_count: n,
              joined: { value: 0 },
            })),
          },
        },
      });
    }
    return json({ hits: { hits: [] } });
  });
  ({ handler } = await import('../../../lambda/reconcile/handler'));
});

afterAll(() => {
  fetchSpy.mockRestore();
  process.env = savedEnv;
});

beforeEach(() => {
  logs.reset();
  kinesis.reset();
  s3.reset();
  consoleLog = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  consoleSpies = [
    consoleLog,
    jest.spyOn(console, 'info').mockImplementation(() => undefined),
    jest.spyOn(console, 'warn').mockImplementation(() => undefined),
  ];
  logs.on(DescribeSubscriptionFiltersCommand).resolves({
    subscriptionFilters: [
      {
        filterName: 'kfek-to-raw-stream',
        filterPattern: '',
        destinationArn: 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-production-raw',
      },
    ],
  });
  logs.on(StartQueryCommand).resolves({ queryId: 'q' });
  logs.on(GetQueryResultsCommand).resolves({
    status: 'Complete',
    results: [
      [
        { field: '@log', value: `123456789012:${GROUP}` },
        { field: 'minute', value: '2026-11-27 09:31:00.000' },
        { field: 'events', value: '2' },
      ],
    ],
  });
  s3.on(ListObjectsV2Command).resolves({ Contents: [] });
  openSearchMinutes = new Map([[SINCE + 60_000, 2]]);
  openSearchIds = new Set();
});

afterEach(() => {
  for (const spy of consoleSpies) spy.mockRestore();
});

describe('the scheduled reconcile handler', () => {
  test('judges the quarter hour that ended the lag ago with Logs Insights, and publishes 0 missing', async () => {
    // WHEN
    const result = await handler(
      scheduled(),
      lambdaContext(() => 600_000),
    );

    // THEN
    expect(logs.commandCalls(StartQueryCommand)[0].args[0].input).toMatchObject({
      logGroupNames: [GROUP],
      startTime: SINCE / 1000,
      endTime: SINCE / 1000 + 15 * 60 - 1,
    });
    expect(result.totals).toMatchObject({ searchable: 2, missing: 0 });
    const lines = emf();
    const perGroup = lines.filter((l) => l.LogGroup === GROUP);
    expect(perGroup.map((l) => [Object.keys(l).find((k) => k.endsWith('Events')), l.service])).toEqual([
      ['MissingEvents', 'reconcile'],
      ['HealedEvents', 'reconcile'],
    ]);
    expect(lines.find((l) => l.LogGroup === undefined && 'JudgedEvents' in l)).toMatchObject({
      MissingEvents: 0,
      HealedEvents: 0,
      KeptEvents: 0,
      JudgedEvents: 2,
    });
    expect(fetchSpy).toHaveBeenCalled();
    expect(consoleSpies).toHaveLength(3);
  });

  test('a lost event: read exactly, looked up, kept nowhere: MissingEvents 1 for its group', async () => {
    // GIVEN OpenSearch holds one of the minute's two events
    openSearchMinutes = new Map([[SINCE + 60_000, 1]]);
    openSearchIds = new Set([documentIdFor(GROUP, 's', '1')]);
    logs.on(FilterLogEventsCommand).resolves({
      events: [
        {
          eventId: '1',
          timestamp: SINCE + 61_000,
          message: 'found',
          logStreamName: 's',
          ingestionTime: SINCE + 61_500,
        },
        {
          eventId: '2',
          timestamp: SINCE + 62_000,
          message: 'lost',
          logStreamName: 's',
          ingestionTime: SINCE + 62_500,
        },
      ],
    });

    // WHEN
    const result = await handler(
      scheduled(),
      lambdaContext(() => 600_000),
    );

    // THEN
    expect(result.totals).toMatchObject({ searchable: 1, missing: 1 });
    const missing = emf().find((l) => l.LogGroup === GROUP && 'MissingEvents' in l);
    expect(missing?.MissingEvents).toBe(1);
    // heal is off in this environment: nothing was sent
    expect(kinesis.commandCalls(PutRecordsCommand)).toHaveLength(0);
  });
});
