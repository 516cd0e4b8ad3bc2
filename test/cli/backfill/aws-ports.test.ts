/**
 * The CloudWatch Logs and Kinesis side of `kfek backfill` against aws-sdk-client-mock: the calls it makes, throttling
 * retried with backoff on an injected sleep, and the errors a user sees. (The end-to-end test runs them against moto.)
 */
import {
  CloudWatchLogsClient,
  DescribeLogGroupsCommand,
  DescribeSubscriptionFiltersCommand,
  FilterLogEventsCommand,
  ThrottlingException,
} from '@aws-sdk/client-cloudwatch-logs';
import {
  DescribeStreamSummaryCommand,
  KinesisClient,
  ResourceNotFoundException,
} from '@aws-sdk/client-kinesis';
import { mockClient } from 'aws-sdk-client-mock';
import 'aws-sdk-client-mock-jest';
import { streamInfoPort } from '../../../cli/backfill/aws-ports';
import { ThrottledError, UnknownLogGroupError } from '../../../core/aws/errors';
import { logsPort } from '../../../core/logs/aws';

const logs = mockClient(CloudWatchLogsClient);
const kinesis = mockClient(KinesisClient);
const client = new CloudWatchLogsClient({ region: 'us-east-1' });

beforeEach(() => {
  logs.reset();
  kinesis.reset();
});

const throttled = (): ThrottlingException =>
  new ThrottlingException({ message: 'Rate exceeded', $metadata: {} });

describe('logsPort', () => {
  test('FilterLogEvents: the window, the page limit, interleaved for moto, and the events with their real ids and ingestion times', async () => {
    logs.on(FilterLogEventsCommand).resolves({
      events: [
        {
          eventId: '38480917865042697267627490045603633139480491071049695232',
          timestamp: 5,
          message: 'm',
          logStreamName: 's',
          ingestionTime: 6,
        },
        { timestamp: 6, message: 'no id: not an event backfill can write' },
      ],
      nextToken: 't2',
    });
    const page = await logsPort(client).filterPage({
      logGroup: '/g',
      startTime: 1,
      endTime: 9,
      filterPattern: 'ERROR',
      nextToken: 't1',
    });
    expect(logs).toHaveReceivedCommandWith(FilterLogEventsCommand, {
      logGroupName: '/g',
      startTime: 1,
      endTime: 9,
      filterPattern: 'ERROR',
      limit: 10_000,
      nextToken: 't1',
      interleaved: true,
    });
    expect(page).toEqual({
      events: [
        {
          id: '38480917865042697267627490045603633139480491071049695232',
          timestamp: 5,
          message: 'm',
          logStream: 's',
          ingestionTime: 6,
        },
      ],
      nextToken: 't2',
    });
  });

  test('throttling is retried with capped exponential backoff, then reported with what to do', async () => {
    // GIVEN two throttled answers, then one
    logs
      .on(FilterLogEventsCommand)
      .rejectsOnce(throttled())
      .rejectsOnce(throttled())
      .resolves({ events: [] });
    const sleeps: number[] = [];
    const port = logsPort(client, {
      retry: {
        sleep: (ms) => {
          sleeps.push(ms);
          return Promise.resolve();
        },
        random: () => 1,
      },
    });
    // WHEN / THEN
    await expect(port.filterPage({ logGroup: '/g', startTime: 1, endTime: 2 })).resolves.toEqual({
      events: [],
    });
    expect(sleeps).toEqual([200, 400]);
    // and when it never stops
    logs.reset();
    logs.on(FilterLogEventsCommand).rejects(throttled());
    const error = await port
      .filterPage({ logGroup: '/g', startTime: 1, endTime: 2 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThrottledError);
    expect((error as Error).message).toMatch(/FilterLogEvents on \/g was throttled 10 times in a row/);
  });

  test('finds the log group among the prefix matches, with its owner from the ARN', async () => {
    logs
      .on(DescribeLogGroupsCommand)
      .resolvesOnce({
        logGroups: [
          { logGroupName: '/app-other', arn: 'arn:aws:logs:eu-west-1:111122223333:log-group:/app-other:*' },
        ],
        nextToken: 'n',
      })
      .resolvesOnce({
        logGroups: [
          {
            logGroupName: '/app',
            arn: 'arn:aws:logs:eu-west-1:111122223333:log-group:/app:*',
            storedBytes: 42,
            creationTime: 7,
          },
        ],
      });
    await expect(logsPort(client).describeGroup('/app')).resolves.toEqual({
      name: '/app',
      owner: '111122223333',
      storedBytes: 42,
      createdAt: new Date(7),
    });
    logs.reset();
    logs.on(DescribeLogGroupsCommand).resolves({ logGroups: [] });
    await expect(logsPort(client).describeGroup('/nope')).rejects.toBeInstanceOf(UnknownLogGroupError);
  });

  test('lists the subscription filters over every page', async () => {
    logs
      .on(DescribeSubscriptionFiltersCommand)
      .resolvesOnce({
        subscriptionFilters: [
          { filterName: 'a', destinationArn: 'arn:x', filterPattern: 'ERROR', creationTime: 3 },
        ],
        nextToken: 'n',
      })
      .resolvesOnce({ subscriptionFilters: [{ filterName: 'b', destinationArn: 'arn:y' }] });
    await expect(logsPort(client).subscriptions('/app')).resolves.toEqual([
      { filterName: 'a', destinationArn: 'arn:x', filterPattern: 'ERROR', createdAt: new Date(3) },
      { filterName: 'b', destinationArn: 'arn:y', filterPattern: '' },
    ]);
  });
});

describe('streamInfoPort', () => {
  test('counts open shards, and says what to do when the stream does not exist', async () => {
    const port = streamInfoPort(new KinesisClient({ region: 'us-east-1' }));
    kinesis
      .on(DescribeStreamSummaryCommand)
      .resolves({ StreamDescriptionSummary: { OpenShardCount: 3 } as never });
    await expect(
      port.openShards('arn:aws:kinesis:eu-west-1:111122223333:stream/kfek-sandbox-raw'),
    ).resolves.toBe(3);
    expect(kinesis).toHaveReceivedCommandWith(DescribeStreamSummaryCommand, {
      StreamName: 'kfek-sandbox-raw',
      StreamARN: 'arn:aws:kinesis:eu-west-1:111122223333:stream/kfek-sandbox-raw',
    });
    kinesis.reset();
    kinesis
      .on(DescribeStreamSummaryCommand)
      .rejects(new ResourceNotFoundException({ message: 'not found', $metadata: {} }));
    await expect(port.openShards('kfek-sandbox-raw')).rejects.toThrow(
      /the raw stream kfek-sandbox-raw does not exist in this account and region: deploy .* or name the stream with --raw-stream/,
    );
  });
});
