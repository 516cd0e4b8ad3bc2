/**
 * The local spec from cdk.json's profiles: the transport and the pipe's settings come from the config, so
 * `npm start -- --profile sandbox-pipes` runs the pipe stand-in with the settings the pipe is deployed with.
 */
import { loadConfig, localSpecFromConfig } from '../../../scripts/local/config-spec';

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

  test('a serverless profile names no ingest pipeline to the indexer; a direct domain profile names its own', () => {
    // GIVEN / WHEN
    const collection = localSpecFromConfig(loadConfig('sandbox-serverless'));
    const domain = localSpecFromConfig(loadConfig('sandbox-direct'));
    // THEN a collection has no ingest pipeline to read routes from (docs/serverless.md): the profile's routes apply
    expect(collection.delivery.ingestPipeline).toBeUndefined();
    expect(domain.delivery.ingestPipeline).toEqual(expect.any(String));
  });
});
