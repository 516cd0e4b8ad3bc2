/**
 * Drops counted and logged per rule (issue 40): the Kinesis handler with a route that drops by two rules publishes the
 * total `DroppedEvents` the dashboard reads, one `DroppedEventsByRule` line per rule with the rule's name in the
 * `DropRule` dimension, and one log line with the drops by rule. Kinesis and S3 are aws-sdk-client-mock doubles.
 */
import { KinesisClient, PutRecordsCommand, type PutRecordsCommandInput } from '@aws-sdk/client-kinesis';
import { S3Client } from '@aws-sdk/client-s3';
import type { Context, KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { DROP_RULE_DIMENSION, DROPPED_BY_RULE_METRIC, MetricName } from '../../../core/contracts/metrics';
import { serializeRoutes, TransformEnvVar } from '../../../core/contracts/transform-env';
import { encodeEnvelope, makeEnvelope, makeKinesisEvent } from '../../helpers/cloudwatch';
import { lambdaContext } from '../../helpers/lambda-context';

type Handler = (event: KinesisStreamEvent, context: Context) => Promise<KinesisStreamBatchResponse>;

const kinesis = mockClient(KinesisClient);
mockClient(S3Client);
const savedEnv = { ...process.env };
let handler: Handler;
let consoleLog: jest.SpyInstance;
let consoleInfo: jest.SpyInstance;

/** The EMF objects Powertools printed, one per line. */
function emfLines(): Array<Record<string, unknown>> {
  return (consoleLog.mock.calls as Array<[unknown]>)
    .map(([line]) => line)
    .filter((line): line is string => typeof line === 'string' && line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  process.env.EVENTS_STREAM_ARN = 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events';
  process.env.DEAD_LETTER_BUCKET = 'kfek-dead-letter';
  process.env.AWS_REGION = 'eu-west-1';
  process.env.POWERTOOLS_DEV = 'true';
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  process.env[TransformEnvVar.Routes] = serializeRoutes([
    {
      name: 'api',
      match: { logGroupPrefix: '/app/' },
      staticFields: {},
      processing: {
        drop: [
          { name: 'health', messagePattern: '^GET /health' },
          { name: 'debug', messagePattern: '^DEBUG' },
        ],
        multiline: { mode: 'java' },
      },
    },
  ]);
  ({ handler } = (await import('../../../lambda/transform/handler')) as { handler: Handler });
});

afterAll(() => {
  process.env = savedEnv;
});

beforeEach(() => {
  kinesis.reset();
  kinesis.on(PutRecordsCommand).callsFake((input: PutRecordsCommandInput) =>
    Promise.resolve({
      FailedRecordCount: 0,
      Records: input.Records!.map(() => ({ SequenceNumber: '1', ShardId: 'shardId-000000000000' })),
    }),
  );
  consoleLog = jest.spyOn(console, 'log').mockImplementation(() => undefined);
  consoleInfo = jest.spyOn(console, 'info').mockImplementation(() => undefined);
  for (const level of ['warn', 'error', 'debug'] as const) {
    jest.spyOn(console, level).mockImplementation(() => undefined);
  }
});

afterEach(() => {
  jest.restoreAllMocks();
});

test('counts and logs the drops of each rule, beside the total the dashboard reads', async () => {
  // GIVEN two records: health checks, a debug line and a dropped trace of two lines, and a kept line
  const event = makeKinesisEvent([
    encodeEnvelope(
      makeEnvelope({ logGroup: '/app/api' }, [
        { message: 'GET /health 200' },
        { message: 'DEBUG cache miss' },
        { message: 'INFO kept' },
      ]),
    ),
    encodeEnvelope(
      makeEnvelope({ logGroup: '/app/api', logStream: 'other' }, [
        { message: 'GET /health failed' },
        { message: '\tat a.Health.check(Health.java:1)' },
      ]),
    ),
  ]);

  // WHEN
  await handler(
    event,
    lambdaContext(() => 60_000),
  );

  // THEN the total counts documents dropped, as before; each rule has its own line with its name as a dimension
  const lines = emfLines();
  const total = lines.find((l) => MetricName.DroppedEvents in l);
  expect(total).toMatchObject({ DroppedEvents: 3, JoinedLines: 1, EventsOut: 1, service: 'transform' });
  const byRule = lines.filter((l) => DROPPED_BY_RULE_METRIC in l);
  expect(byRule.map((l) => [l[DROP_RULE_DIMENSION], l[DROPPED_BY_RULE_METRIC]])).toEqual([
    ['health', 2],
    ['debug', 1],
  ]);
  for (const line of byRule) {
    expect(JSON.stringify(line._aws)).toContain(`["service","${DROP_RULE_DIMENSION}"]`);
  }
  const logged = (consoleInfo.mock.calls as Array<[unknown]>)
    .map(([line]) => String(line))
    .filter((line) => line.includes('Events kept out by drop rules'));
  expect(logged).toHaveLength(1);
  expect(JSON.parse(logged[0])).toMatchObject({ droppedByRule: { health: 2, debug: 1 } });
});

test('writes no per-rule line when nothing was dropped', async () => {
  // GIVEN
  const event = makeKinesisEvent([
    encodeEnvelope(makeEnvelope({ logGroup: '/app/api' }, [{ message: 'INFO' }])),
  ]);

  // WHEN
  await handler(
    event,
    lambdaContext(() => 60_000),
  );

  // THEN
  expect(emfLines().filter((l) => DROPPED_BY_RULE_METRIC in l)).toEqual([]);
  expect(emfLines().find((l) => MetricName.DroppedEvents in l)).toMatchObject({ DroppedEvents: 0 });
});
