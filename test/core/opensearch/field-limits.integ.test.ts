/**
 * Issue 14, defect 5, against a REAL OpenSearch 3.6 node with the shipped index template and transform: one app's
 * wide or deep documents must not get another app's ordinary documents refused for the rest of the day
 * (`Limit of total fields [1000] has been exceeded`, `depth ... exceeded the allowed limit of [20]`), and what is
 * kept past the field budget stays searchable (docs/field-limits.md). Also how the app's own JSON text, which the
 * transform copies into the document (core/transform/app-json.ts), is typed and searched.
 */
import { DocumentSerializer, toDocument } from '../../../core/transform/document';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { bulkIndex, bulkIndexTexts, searchHits, useOpenSearchNode } from '../../helpers/opensearch';

// One node: replicas would leave every index yellow. The default 1,000-field limit, as in the issue.
const spec = resolveOpenSearchSpec({ indexPrefix: 'logs', indexTemplate: { replicas: 0 } });

let eventId = 0;
function documentFor(logGroup: string, app: object): object {
  return toDocument(
    { id: String(++eventId), timestamp: 1763888400000, message: JSON.stringify(app) },
    { logGroup, logStream: 's1', owner: '123456789012' },
  );
}

/** `{ l1: { l2: ... { l<levels>: leaf } } }`. */
function nested(levels: number, leaf: object): object {
  let value: object = leaf;
  for (let level = levels; level >= 1; level -= 1) value = { [`l${level}`]: value };
  return value;
}

describe('field limits against a real local node', () => {
  const os = useOpenSearchNode();

  beforeAll(async () => {
    await provisionOpenSearch(os.client(), spec);
  });

  test("an app logging 960 distinct keys leaves the next app's ordinary document indexed, both searchable", async () => {
    // GIVEN the wide app line and an ordinary line of another app, in the same daily index
    const index = 'logs-2026-11-23';
    const wide = documentFor(
      '/aws/lambda/flags',
      Object.fromEntries(Array.from({ length: 960 }, (_, i) => [`flag${i}`, `value${i}`])),
    );
    // A Powertools-style structured line: the function context keys plus the order's own, 15 in all.
    const ordinary = documentFor('/aws/lambda/orders', {
      service: 'orders',
      cold_start: false,
      function_name: 'orders',
      function_memory_size: 512,
      function_arn: 'arn:aws:lambda:eu-west-1:123456789012:function:orders',
      function_request_id: 'req-1',
      xray_trace_id: '1-abc-def',
      location: 'pay:42',
      sampling_rate: 0,
      orderId: 'o-1',
      customerId: 'c-7',
      amountCents: 1250,
      currency: 'EUR',
      paymentMethod: 'card',
      status: 'paid',
      message: 'order paid',
    });

    // WHEN they are indexed one after the other
    const first = await bulkIndex(os.client(), index, [wide]);
    const second = await bulkIndex(os.client(), index, [ordinary]);

    // THEN neither is refused
    expect(first.body).toMatchObject({ errors: false, items: [{ index: { status: 201 } }] });
    expect(second.body).toMatchObject({ errors: false, items: [{ index: { status: 201 } }] });
    // The ordinary app's fields are mapped as usual (a number stays a number).
    expect(await searchHits(os.client(), index, 'orderId:o-1 AND amountCents:>=1000')).toBe(1);
    // The wide line's first keys are mapped; the rest are kept under kfek.overflow, searchable by path.
    expect(await searchHits(os.client(), index, 'flag0:value0')).toBe(1);
    expect(await searchHits(os.client(), index, 'kfek.overflow.flag959:value959')).toBe(1);
    expect(await searchHits(os.client(), index, 'kfek.overflow:value500')).toBe(1);
  });

  test('a 25-level document is indexed and searchable by its kept part and its deep leaf', async () => {
    // GIVEN an app line nested past OpenSearch's depth limit of 20, and a shallow object beside it
    const index = 'logs-2026-11-24';
    const deep = documentFor('/aws/lambda/deep', {
      requestId: 'r-25',
      http: { status: 503, method: 'GET' },
      ...nested(25, { leaf: 'bottom' }),
    });

    // WHEN
    const bulk = await bulkIndex(os.client(), index, [deep]);

    // THEN it is indexed; shallow fields keep their types; the deep part is one flat_object, searchable by path
    expect(bulk.body).toMatchObject({ errors: false, items: [{ index: { status: 201 } }] });
    expect(
      await searchHits(os.client(), index, 'requestId:r-25 AND http.status:>=500 AND http.method:GET'),
    ).toBe(1);
    const leafPath = `${Array.from({ length: 25 }, (_, i) => `l${i + 1}`).join('.')}.leaf`;
    expect(await searchHits(os.client(), index, `${leafPath}:bottom`)).toBe(1);
  });

  test("app members copied as the app wrote them index with the app's number types; a key written twice keeps its last value", async () => {
    // GIVEN the transform's own text for a line written with escapes and number forms JSON.stringify would change,
    // and for a line with a key written twice (which the transform stringifies from the parsed object)
    const index = 'logs-2026-11-25';
    const serializer = new DocumentSerializer({
      logGroup: '/aws/lambda/forms',
      logStream: 's1',
      owner: '123456789012',
    });
    const asWritten = serializer.json({
      id: 'e-1',
      timestamp: 1795564800000,
      message: '{"level":"INFO","message":"m1","ratio":1.0,"count":2,"path":"a\\/b","name":"caf\\u00e9"}\n',
    });
    const twice = serializer.json({
      id: 'e-2',
      timestamp: 1795564800001,
      message: '{"message":"m2","dup":1,"dup":2}',
    });
    // Numbers as written; escapes as JSON.stringify writes them (one form on every path, issue 22 item 3).
    expect(asWritten).toContain('"ratio":1.0,"count":2,"path":"a/b","name":"café"');

    // WHEN both are indexed as the transform wrote them, into a fresh daily index
    const bulk = await bulkIndexTexts(os.client(), index, [asWritten, twice]);

    // THEN both are indexed; 1.0 made a float field and 2 a long one, as the app meant; escaped values match
    // their plain text; the key written twice has its last value only
    expect(bulk.body).toMatchObject({ errors: false });
    const mapping = await os.client().request({ method: 'GET', path: `/${index}/_mapping` });
    const properties = (
      mapping.body as Record<string, { mappings: { properties: Record<string, { type: string }> } }>
    )[index].mappings.properties;
    expect(properties.ratio.type).toBe('float');
    expect(properties.count.type).toBe('long');
    expect(
      await searchHits(
        os.client(),
        index,
        'message:m1 AND ratio:1.0 AND count:2 AND path:"a/b" AND name:café',
      ),
    ).toBe(1);
    expect(await searchHits(os.client(), index, 'message:m2 AND dup:2')).toBe(1);
    expect(await searchHits(os.client(), index, 'dup:1')).toBe(0);
    // Why the transform never copies such text as written: the node refuses a document with a key twice.
    const refused = await bulkIndexTexts(os.client(), index, ['{"message":"m3","dup":1,"dup":2}']);
    expect(refused.body).toMatchObject({ errors: true, items: [{ index: { status: 400 } }] });
  });
});
