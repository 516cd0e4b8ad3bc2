/** The indexer's signing service setting (issue 42): `aoss` for a Serverless collection, unset (`es`) for a domain. */
import { IndexerEnvVar, indexerEnvironment, type IndexerSettings } from '../../../core/contracts/indexer-env';

const SETTINGS: IndexerSettings = {
  endpoint: 'https://abc123.us-east-1.aoss.amazonaws.com',
  failedDocumentsBucket: 'bucket',
  failedDocumentsPrefix: 'failed-documents/',
  indexPrefix: 'logs',
  indexRotation: 'OneDay',
  indexShards: 1,
};

describe('indexerEnvironment: the signing service', () => {
  test('a collection signs for aoss', () => {
    // WHEN
    const env = indexerEnvironment({ ...SETTINGS, signingService: 'aoss' });
    // THEN
    expect(env[IndexerEnvVar.SigningService]).toBe('aoss');
  });

  test('a domain leaves it unset, so existing environments do not change', () => {
    // WHEN
    const env = indexerEnvironment(SETTINGS);
    // THEN
    expect(Object.keys(env)).not.toContain(IndexerEnvVar.SigningService);
  });
});
