/**
 * `delivery.mode` and `delivery.direct` (issue 41): read with defaults, every bad value refused with its path, the
 * value and the fix, and the rule that ties the indexer's record age to Firehose's delivery bound.
 */
import { ConfigValidationError, DEFAULTS, resolveConfig } from '../../core/config';

const resolve = (overrides: unknown): ReturnType<typeof resolveConfig> =>
  resolveConfig({ kfek: { profiles: { test: overrides } } }, 'test');

/** The problems resolving `overrides` as profile `test` reports (fails the test when there are none). */
function problemsOf(overrides: unknown): string[] {
  try {
    resolve(overrides);
  } catch (error) {
    if (error instanceof ConfigValidationError) return [...error.problems];
    throw error;
  }
  throw new Error(`expected a ConfigValidationError for ${JSON.stringify(overrides)}`);
}

describe('delivery.mode', () => {
  test('is firehose by default, with the indexer settings read and the optional ones unset', () => {
    // WHEN
    const config = resolve({});
    // THEN
    expect(config.delivery.mode).toBe('firehose');
    expect(config.delivery.direct).toEqual(DEFAULTS.delivery.direct);
    expect(config.delivery.direct.bulkMaxBytes).toBeUndefined();
    expect(config.delivery.direct.concurrency).toBeUndefined();
  });

  test('direct takes the indexer settings a profile gives, the optional ones included', () => {
    // WHEN
    const config = resolve({
      delivery: {
        mode: 'direct',
        direct: { batchSize: 500, parallelizationFactor: 4, bulkMaxBytes: 4_194_304, concurrency: 2 },
      },
    });
    // THEN
    expect(config.delivery.mode).toBe('direct');
    expect(config.delivery.direct).toMatchObject({
      batchSize: 500,
      parallelizationFactor: 4,
      bulkMaxBytes: 4_194_304,
      concurrency: 2,
      maxRecordAgeSeconds: 3600,
    });
  });

  test('direct works with the pipes transport (the indexer reads the events stream the pipe writes)', () => {
    // WHEN
    const config = resolve({ transport: 'pipes', delivery: { mode: 'direct' } });
    // THEN
    expect(config.transport).toBe('pipes');
    expect(config.delivery.mode).toBe('direct');
    expect(config.delivery.aggregation).toBe(false);
  });

  test.each([['kinesis'], ['Direct'], [1], [null]])('fails when delivery.mode is %j', (mode) => {
    // WHEN
    const problems = problemsOf({ delivery: { mode } });
    // THEN
    expect(problems).toEqual([
      expect.stringMatching(/^delivery\.mode is .*expected one of "firehose", "direct"/),
    ]);
    expect(problems[0]).toContain(JSON.stringify(mode));
  });
});

describe('delivery.direct', () => {
  test.each([
    ['batchSize', 0, 'an integer from 1 to 10000'],
    ['batchSize', 10_001, 'an integer from 1 to 10000'],
    ['maxBatchingWindowSeconds', 301, 'an integer from 0 to 300'],
    ['parallelizationFactor', 11, 'an integer from 1 to 10'],
    ['retryAttempts', -1, 'an integer from 0 to 10000'],
    ['maxRecordAgeSeconds', 604_801, 'an integer from 60 to 604800'],
    ['memoryMb', 64, 'an integer from 128 to 10240'],
    ['timeoutSeconds', 901, 'an integer from 1 to 900'],
    ['bulkMaxBytes', 20 * 1024 * 1024, 'an integer from 1024 to 10485760'],
    ['concurrency', 0, 'an integer from 1 to 64'],
    ['batchSize', '100', 'an integer from 1 to 10000'],
  ])('fails when delivery.direct.%s is %j', (key, value, expected) => {
    // WHEN
    const problems = problemsOf({ delivery: { mode: 'direct', direct: { [key]: value } } });
    // THEN
    expect(problems).toEqual([expect.stringContaining(`delivery.direct.${key} is ${JSON.stringify(value)}`)]);
    expect(problems[0]).toContain(expected);
  });

  test('fails when delivery.direct names a setting that does not exist', () => {
    // WHEN
    const problems = problemsOf({ delivery: { direct: { bulkSize: 5 } } });
    // THEN
    expect(problems).toEqual([
      expect.stringMatching(
        /^unknown setting delivery\.direct\.bulkSize; known settings here: .*bulkMaxBytes/,
      ),
    ]);
  });

  test("fails when the indexer's record age is shorter than Firehose's delivery bound, naming the bound", () => {
    // GIVEN Firehose retries for 900 s with a 10 s buffer: it may hold a record for 970 s.
    const delivery = { retryDurationSeconds: 900, bufferingIntervalSeconds: 10 };
    // WHEN
    const problems = problemsOf({
      delivery: { ...delivery, mode: 'direct', direct: { maxRecordAgeSeconds: 600 } },
    });
    // THEN
    expect(problems).toEqual([
      expect.stringMatching(
        /^delivery\.direct\.maxRecordAgeSeconds \(600\) must cover .*\(970 s\).*Use 970 or more/,
      ),
    ]);
    // The same settings with Firehose delivering are no problem: the indexer does not run.
    expect(resolve({ delivery: { ...delivery, direct: { maxRecordAgeSeconds: 600 } } }).delivery.mode).toBe(
      'firehose',
    );
  });
});
