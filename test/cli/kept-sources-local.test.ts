/**
 * `npm start`'s reconcile (and replay) read the failed documents of both deliveries (issue 41, item 5): the Firehose
 * stand-in keeps them in the work folder, the direct path's indexer in moto's bucket under the profile's prefix. A
 * refusal kept in either place is kept, not missing. Runs against a real moto server.
 */
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openContext } from '../../cli/context';
import { keptSources } from '../../cli/kept-sources';
import { LOCAL_LAYOUT } from '../../cli/replay/folder-store';
import { configFromCdkJson } from '../../core/config';
import {
  failedDocumentsBody,
  failedDocumentsKey,
  type FailedDocumentRecord,
} from '../../core/delivery/failed-documents';
import { collectKept } from '../../core/kept/collect';
import { LOCAL_CREDENTIALS } from '../../scripts/local/aws-clients';
import { useLocalMoto } from '../helpers/local-moto';

const REGION = 'eu-west-1';
const BUCKET = 'kfek-local-dead-letter';
const moto = useLocalMoto(REGION);
const QUIET = { write: (): boolean => true };
const config = configFromCdkJson(join(__dirname, '..', '..', 'cdk.json'), undefined);

function refused(id: string, at: number): FailedDocumentRecord {
  return {
    attemptsMade: 1,
    arrivalTimestamp: at,
    errorCode: '400',
    errorMessage: '{"type":"mapper_parsing_exception"}',
    attemptEndingTimestamp: at,
    rawData: Buffer.from(JSON.stringify({ message: id })).toString('base64'),
    subsequenceNumber: 0,
    esDocumentId: id,
    esIndexName: 'logs-2026.11.29',
    esTypeName: '',
  };
}

let scratch: string;
const saved = { ...process.env };
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'kfek-kept-local-'));
  process.env.AWS_ACCESS_KEY_ID = LOCAL_CREDENTIALS.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = LOCAL_CREDENTIALS.secretAccessKey;
});
afterAll(() => {
  process.env = saved;
  rmSync(scratch, { recursive: true, force: true });
});

describe('keptSources with a work folder and a bucket', () => {
  test('counts the failed documents of both deliveries: the folder and the bucket under the profile prefix', async () => {
    // GIVEN the Firehose stand-in's refusal in the folder and the direct indexer's in moto's bucket
    const at = Date.UTC(2026, 10, 29, 13, 0, 0);
    const folderFile = join(
      scratch,
      LOCAL_LAYOUT.failedDocuments,
      'AmazonOpenSearchService-failed',
      'a.json',
    );
    mkdirSync(dirname(folderFile), { recursive: true });
    writeFileSync(folderFile, failedDocumentsBody([refused('from-firehose', at)]));
    const s3 = moto.clients().s3;
    await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: failedDocumentsKey(config.delivery.failedDocumentsPrefix, new Date(at), 'indexer-1'),
        Body: failedDocumentsBody([refused('from-direct-1', at), refused('from-direct-2', at)]),
      }),
    );
    // An object beside them that is no failed document (the transform's dead letter) is not read as one.
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: `${config.transform.deadLetterPrefix}x`, Body: 'x' }),
    );
    const context = openContext(
      'reconcile',
      {},
      { stdout: QUIET, stderr: QUIET, env: { AWS_ENDPOINT_URL: moto.endpoint(), AWS_REGION: REGION } },
    );
    try {
      // WHEN
      const sources = keptSources(context, config, { localDir: scratch, bucket: BUCKET, maxMessages: 0 });
      const { items, problems } = await collectKept(sources, ['failed-document']);
      // THEN
      expect(problems).toEqual([]);
      expect(items.every((item) => item.kind === 'failed-document')).toBe(true);
      const where = items.map((item) => item.container.location);
      expect(
        where.filter((l) => l.startsWith(`s3://${BUCKET}/${config.delivery.failedDocumentsPrefix}`)),
      ).toHaveLength(2);
      expect(where.filter((l) => l === folderFile)).toHaveLength(1);
    } finally {
      context.close();
    }
  });
});
