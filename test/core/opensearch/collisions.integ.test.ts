/**
 * Issue 14, defect 1, against a REAL OpenSearch 3.6 node with the shipped index template: an app's dotted keys
 * cannot spoof kfek's fields (OpenSearch expands `cloudwatch.owner` into the `cloudwatch` object), and what moves
 * under `kfek.collisions` indexes and stays searchable there.
 */
import { toDocument } from '../../../core/transform/document';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { bulkIndex, searchHits, useOpenSearchNode } from '../../helpers/opensearch';

// One node: replicas would leave every index yellow.
const spec = resolveOpenSearchSpec({ indexPrefix: 'logs', indexTemplate: { replicas: 0 } });
const INDEX = 'logs-2026-11-23';
const SOURCE = { logGroup: '/aws/lambda/orders', logStream: 's1', owner: '123456789012' };

/** The log line: an app claiming another log group and account, and an error document. */
const SPOOF = {
  'cloudwatch.logGroup': '/aws/lambda/payments',
  'cloudwatch.owner': '999999999999',
  'kfek.error.reason': 'fake poison',
  'kfek.truncated': true,
};

let eventId = 0;
function documentFor(app: object): object {
  return toDocument(
    { id: String(++eventId), timestamp: 1763888400000, message: JSON.stringify(app) },
    SOURCE,
  );
}

describe('dotted app keys against a real local node', () => {
  const os = useOpenSearchNode();

  beforeAll(async () => {
    await provisionOpenSearch(os.client(), spec);
  });

  test("the issue's document does not match searches for kfek's fields, and is kept under kfek.collisions", async () => {
    // GIVEN the log line, shaped by the transform
    const doc = documentFor({ ...SPOOF, message: 'hello' });

    // WHEN it is indexed through the shipped template
    const bulk = await bulkIndex(os.client(), INDEX, [doc]);

    // THEN it is indexed, and only kfek's own values answer searches on kfek's fields
    expect(bulk.body).toMatchObject({ errors: false, items: [{ index: { status: 201 } }] });
    expect(await searchHits(os.client(), INDEX, 'cloudwatch.logGroup:"/aws/lambda/payments"')).toBe(0);
    expect(await searchHits(os.client(), INDEX, 'cloudwatch.owner:999999999999')).toBe(0);
    expect(await searchHits(os.client(), INDEX, 'kfek.error.reason:*')).toBe(0);
    expect(await searchHits(os.client(), INDEX, 'kfek.truncated:true')).toBe(0);
    expect(await searchHits(os.client(), INDEX, 'cloudwatch.owner:123456789012 AND message:hello')).toBe(1);
    // The app's values stay searchable where they were moved (OpenSearch expands the dotted names there).
    expect(await searchHits(os.client(), INDEX, 'kfek.collisions.cloudwatch.owner:999999999999')).toBe(1);
    expect(await searchHits(os.client(), INDEX, 'kfek.collisions.kfek.error.reason:"fake poison"')).toBe(1);
  });

  test('collisions that overlap as paths index, in one document and across documents', async () => {
    // GIVEN app lines whose moved keys are both a value and an object at the same path under kfek.collisions
    const docs = [
      documentFor({ '@timestamp': 'app time', '@timestamp.zone': 'UTC', message: 'one' }),
      documentFor({ cloudwatch: 'plain', message: 'two' }),
      documentFor({ 'cloudwatch.owner': { nested: 1 }, message: 'three' }),
      documentFor({ 'cloudwatch.owner.id': 7, message: 'four' }),
    ];

    // WHEN
    const bulk = await bulkIndex(os.client(), INDEX, docs);

    // THEN every document is indexed: none goes to failed documents because of what an app wrote
    expect(bulk.body).toMatchObject({ errors: false });
    expect(await searchHits(os.client(), INDEX, 'message:(one OR two OR three OR four)')).toBe(4);
  });
});
