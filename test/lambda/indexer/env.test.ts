/** The indexer's environment reader: the one writer's output read back, the defaults, and refusals that name the fix. */
import { indexerEnvironment } from '../../../core/contracts/indexer-env';
import { serializeRoutes } from '../../../core/contracts/transform-env';
import { IndexerEnvError } from '../../../lambda/indexer/errors';
import {
  DEFAULT_BULK_CONCURRENCY,
  DEFAULT_BULK_MAX_BYTES,
  readIndexerEnv,
} from '../../../lambda/indexer/env';

const written = indexerEnvironment({
  endpoint: 'https://search-x.eu-west-1.es.amazonaws.com',
  failedDocumentsBucket: 'backup',
  failedDocumentsPrefix: 'failed/',
  indexPrefix: 'logs',
  indexRotation: 'OneHour',
  indexShards: 80,
  routes: serializeRoutes([
    {
      name: 'audit',
      match: { logGroupPrefix: '/a' },
      staticFields: {},
      processing: { drop: [] },
      indexStem: 'logs-audit',
    },
    { name: 'pay', match: { logGroupPrefix: '/p' }, staticFields: {}, processing: { drop: [] } },
  ]),
});

describe('readIndexerEnv', () => {
  test('reads what indexerEnvironment writes, with the defaults for what it leaves out', () => {
    const env = readIndexerEnv({ ...written, AWS_REGION: 'eu-west-1' });
    expect(env).toMatchObject({
      endpoint: 'https://search-x.eu-west-1.es.amazonaws.com',
      failedDocumentsBucket: 'backup',
      failedDocumentsPrefix: 'failed/',
      bulkMaxBytes: DEFAULT_BULK_MAX_BYTES,
      concurrency: DEFAULT_BULK_CONCURRENCY,
      serviceName: 'indexer',
      region: 'eu-west-1',
      target: {
        prefix: 'logs',
        rotation: 'OneHour',
        shards: 80,
        nested: ['logs-audit'],
        table: { names: { audit: 'logs-audit', pay: 'pay' } },
      },
    });
  });

  test('reads the ingest pipeline to take kept routes from, and none when it is not written', () => {
    const named = indexerEnvironment({
      endpoint: 'https://h',
      failedDocumentsBucket: 'b',
      failedDocumentsPrefix: '',
      indexPrefix: 'logs',
      indexRotation: 'OneDay',
      indexShards: 1,
      ingestPipeline: 'kfek-logs-document-id',
    });
    expect(readIndexerEnv(named).ingestPipeline).toBe('kfek-logs-document-id');
    expect(readIndexerEnv(written).ingestPipeline).toBeUndefined();
  });

  test("reads a collection's record index to take kept routes from, and none when it is not written", () => {
    // GIVEN the environment the Pipeline stack writes for a collection
    const recorded = indexerEnvironment({
      endpoint: 'https://h',
      failedDocumentsBucket: 'b',
      failedDocumentsPrefix: '',
      indexPrefix: 'logs',
      indexRotation: 'OneDay',
      indexShards: 1,
      signingService: 'aoss',
      routeRecord: '.kfek-registry',
    });
    // WHEN / THEN
    expect(recorded.KFEK_ROUTE_RECORD).toBe('.kfek-registry');
    expect(readIndexerEnv(recorded)).toMatchObject({
      routeRecord: '.kfek-registry',
      ingestPipeline: undefined,
    });
    expect(readIndexerEnv(written).routeRecord).toBeUndefined();
  });

  test.each([
    ['OPENSEARCH_ENDPOINT', undefined, /OPENSEARCH_ENDPOINT is not set/],
    ['OPENSEARCH_ENDPOINT', 'https://host/path', /with no path/],
    ['INDEX_ROTATION', 'Daily', /one of NoRotation/],
    ['INDEX_SHARDS', '0', /a positive integer/],
    ['BULK_MAX_BYTES', '1.5', /a positive integer/],
    ['FAILED_DOCUMENTS_PREFIX', 'failed', /ending with "\/"/],
  ])('fails when %s is %j, naming the variable and what it expects', (name, value, message) => {
    const env = { ...written, [name]: value };
    expect(() => readIndexerEnv(env)).toThrow(message);
    expect(() => readIndexerEnv(env)).toThrow(IndexerEnvError);
  });

  test('fails when KFEK_ROUTES is not what the Pipeline stack writes', () => {
    expect(() => readIndexerEnv({ ...written, KFEK_ROUTES: '{"v":9}' })).toThrow(/KFEK_ROUTES is not valid/);
  });
});
