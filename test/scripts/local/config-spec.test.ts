/**
 * The local spec from cdk.json's profiles: the transport and the pipe's settings come from the config, so
 * `npm start -- --profile sandbox-pipes` runs the pipe stand-in with the settings the pipe is deployed with.
 */
import {
  loadConfig,
  localSpecFromConfig,
  openSearchSpecFromConfig,
} from '../../../scripts/local/config-spec';

describe('localSpecFromConfig', () => {
  test('the sandbox-pipes profile runs the pipe with its batch size, batching window, retries and record age', () => {
    // GIVEN
    const config = loadConfig('sandbox-pipes');
    // WHEN
    const spec = localSpecFromConfig(config);
    // THEN
    expect(config.transport).toBe('pipes');
    expect(spec.transport).toBe('pipes');
    expect(spec.pipe).toEqual({
      name: 'kfek-sandbox-pipes-pipe',
      deadLetterQueueName: 'kfek-sandbox-pipes-pipe-dead-letter',
    });
    expect(spec.eventSource).toEqual(
      expect.objectContaining({
        batchSize: 10,
        retryAttempts: config.transform.retryAttempts,
        maxBatchingWindowInMillis: config.transform.maxBatchingWindowSeconds * 1000,
        maxRecordAgeInMillis: config.transform.maxRecordAgeSeconds * 1000,
      }),
    );
    // A pipe writes each item as one record: the events stream carries plain JSON documents.
    expect(spec.delivery.aggregation).toBe(false);
  });

  test('the default profile keeps the Lambda transport and creates no pipe', () => {
    // GIVEN / WHEN
    const spec = localSpecFromConfig(loadConfig());
    // THEN
    expect(spec.transport).toBe('lambda');
    expect(spec.pipe).toBeUndefined();
  });

  test("a serverless profile's indexer reads the collection's record, never an ingest pipeline", () => {
    // GIVEN / WHEN
    const serverless = localSpecFromConfig(loadConfig('sandbox-serverless'));
    const direct = loadConfig('sandbox-direct');
    const domain = localSpecFromConfig(direct);
    // THEN
    expect(serverless.delivery.ingestPipeline).toBeUndefined();
    expect(serverless.delivery.routeRecord).toBe('.kfek-registry');
    expect(domain.delivery.ingestPipeline).toBe(openSearchSpecFromConfig(direct).names.ingestPipeline);
    expect(domain.delivery.routeRecord).toBeUndefined();
  });
});
