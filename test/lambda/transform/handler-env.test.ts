import {
  InvalidEnvironmentVariableError,
  MissingEnvironmentVariableError,
  readCommonEnv,
  readTransformEnv,
} from '../../../lambda/transform/env';

const ARN = 'arn:aws:kinesis:eu-west-1:123456789012:stream/kfek-events';

test('reads the handler settings with their defaults', () => {
  expect(readTransformEnv({ EVENTS_STREAM_ARN: ARN, DEAD_LETTER_BUCKET: 'kfek-dlq' })).toEqual({
    eventsStreamArn: ARN,
    deadLetterBucket: 'kfek-dlq',
    deadLetterPrefix: 'dead-letter/transform/',
    metricsNamespace: 'kfek',
    serviceName: 'transform',
    s3ForcePathStyle: false,
    aggregation: true,
    routes: [],
  });
});

test('EVENTS_AGGREGATION=false turns aggregation off', () => {
  // GIVEN
  const env = { EVENTS_STREAM_ARN: ARN, DEAD_LETTER_BUCKET: 'kfek-dlq', EVENTS_AGGREGATION: 'false' };
  // WHEN
  const read = readTransformEnv(env);
  // THEN
  expect(read.aggregation).toBe(false);
});

test('fails when EVENTS_AGGREGATION is neither true nor false, naming the variable', () => {
  // GIVEN
  const env = { EVENTS_STREAM_ARN: ARN, DEAD_LETTER_BUCKET: 'kfek-dlq', EVENTS_AGGREGATION: 'yes' };
  // WHEN
  const read = () => readTransformEnv(env);
  // THEN
  expect(read).toThrow(InvalidEnvironmentVariableError);
  expect(read).toThrow(/EVENTS_AGGREGATION is "yes"; expected "true" or "false"/);
});

test('honours overrides and adds the trailing slash to the prefix', () => {
  const env = readTransformEnv({
    EVENTS_STREAM_ARN: ARN,
    DEAD_LETTER_BUCKET: 'kfek-dlq',
    DEAD_LETTER_PREFIX: 'poison',
    POWERTOOLS_METRICS_NAMESPACE: 'acme',
    AWS_ENDPOINT_URL: 'http://127.0.0.1:5000',
  });
  expect(env).toMatchObject({
    deadLetterPrefix: 'poison/',
    metricsNamespace: 'acme',
    s3ForcePathStyle: true,
  });
  expect(readCommonEnv({ AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:5000' }).s3ForcePathStyle).toBe(true);
});

test.each(['EVENTS_STREAM_ARN', 'DEAD_LETTER_BUCKET'])('fails when %s is missing, naming it', (variable) => {
  const env: Record<string, string> = { EVENTS_STREAM_ARN: ARN, DEAD_LETTER_BUCKET: 'kfek-dlq' };
  env[variable] = '  ';
  const read = () => readTransformEnv(env);
  expect(read).toThrow(MissingEnvironmentVariableError);
  expect(read).toThrow(new RegExp(`Environment variable ${variable} is required`));
});

test('fails when EVENTS_STREAM_ARN is a stream name instead of an ARN', () => {
  expect(() =>
    readTransformEnv({ EVENTS_STREAM_ARN: 'kfek-events', DEAD_LETTER_BUCKET: 'kfek-dlq' }),
  ).toThrow(InvalidEnvironmentVariableError);
});

test('fails at import when the handler is deployed without its configuration', () => {
  const saved = { ...process.env };
  delete process.env.EVENTS_STREAM_ARN;
  try {
    jest.isolateModules(() => {
      expect(() => {
        jest.requireActual<object>('../../../lambda/transform/handler');
      }).toThrow(/EVENTS_STREAM_ARN/);
    });
  } finally {
    process.env = saved;
  }
});

test('SOURCE_REGIONS lists the regions cloudwatch.region may name', () => {
  expect(readCommonEnv({ SOURCE_REGIONS: 'eu-west-1, us-east-1' }).sourceRegions).toEqual([
    'eu-west-1',
    'us-east-1',
  ]);
  expect(readCommonEnv({}).sourceRegions).toBeUndefined();
});

test('fails when SOURCE_REGIONS holds something that is not a region, naming the variable', () => {
  // WHEN
  const read = () => readCommonEnv({ SOURCE_REGIONS: 'eu-west-1,EU_WEST' });
  // THEN
  expect(read).toThrow(/SOURCE_REGIONS is "eu-west-1,EU_WEST"; expected AWS regions separated by commas/);
});

test('KFEK_ROUTES gives the routes; one the config would refuse fails the start, saying why', () => {
  // GIVEN
  const route = {
    name: 'payments',
    match: { logGroupPrefix: '/app/payments/' },
    staticFields: {},
    processing: { drop: [] },
  };
  // WHEN / THEN
  expect(readCommonEnv({ KFEK_ROUTES: JSON.stringify({ v: 1, routes: [route] }) }).routes).toEqual([
    expect.objectContaining({ name: 'payments' }),
  ]);
  expect(() =>
    readCommonEnv({ KFEK_ROUTES: JSON.stringify({ v: 1, routes: [{ ...route, name: 'Pay' }] }) }),
  ).toThrow(/KFEK_ROUTES is not valid/);
});
