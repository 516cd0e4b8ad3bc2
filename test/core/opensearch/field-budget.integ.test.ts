/**
 * Issue 22, item 1, against a REAL OpenSearch 3.6 node with the shipped index template and ingest pipeline: the
 * field budget (core/contracts/field-budget.ts) counts a document's app fields exactly as the node maps them, so a
 * document the transform writes never adds more than APP_FIELD_BUDGET fields to the shared daily index.
 *
 * The node's own figure is taken two ways: the limit (a fresh index whose `index.mapping.total_fields.limit` is one
 * below the template's fields plus the count refuses the document with `Limit of total fields`, one more accepts
 * it), and the mapping it then holds (`GET _mapping`, every property counted). Before the fix the count stopped at
 * an array inside an array, let a later array element hide an earlier one's keys, did not expand dotted keys and
 * took a flat_object as two fields, null as one: one line could add ~900 fields to the day's index.
 */
import fc from 'fast-check';
import { APP_FIELD_BUDGET, planAppFields } from '../../../core/contracts/field-budget';
import { seededRandom } from '../../../core/log-generator';
import type { OpenSearchHttpClient } from '../../../core/opensearch/http';
import { provisionOpenSearch } from '../../../core/opensearch/provision';
import { resolveOpenSearchSpec } from '../../../core/opensearch/spec';
import { DocumentSerializer } from '../../../core/transform/document';
import { bulkIndexTexts, useOpenSearchNode } from '../../helpers/opensearch';
import { appKey, appValue, MEASURED_CASES } from '../contracts/field-budget-cases';

// One node: replicas would leave every index yellow. The default 1,000-field limit.
const spec = resolveOpenSearchSpec({ indexPrefix: 'logs', indexTemplate: { replicas: 0 } });
const SOURCE = { logGroup: '/aws/lambda/shapes', logStream: 's1', owner: '123456789012' };
const LIMIT_EXCEEDED = /Limit of total fields \[\d+\] has been exceeded/;

/** Generous: every run creates indices on two busy cores. */
jest.setTimeout(600_000);

interface MappingNode {
  readonly properties?: Record<string, MappingNode>;
  readonly fields?: Record<string, MappingNode>;
}

/** The fields of a mapping as the total-fields limit counts them: objects, leaves and multi-fields alike. */
function mappedFieldCount(properties: Record<string, MappingNode> = {}): number {
  let count = 0;
  for (const node of Object.values(properties)) {
    count += 1 + mappedFieldCount(node.properties) + mappedFieldCount(node.fields);
  }
  return count;
}

let indexNumber = 0;
let eventNumber = 0;

/** What the transform writes for an app line (the Kinesis handler's text). */
function transformed(app: object): string {
  return new DocumentSerializer(SOURCE).json({
    id: String(++eventNumber),
    timestamp: 1795424400000,
    message: JSON.stringify(app),
  });
}

/** An app line at the top level with no guard at all (what the field budget exists to prevent). */
function unguarded(app: object): string {
  const id = String(++eventNumber);
  return JSON.stringify({
    '@timestamp': '2026-11-23T09:00:00.000Z',
    message: 'm',
    cloudwatch: { id, ...SOURCE },
    ...app,
  });
}

describe('the field budget against a real local node (issue 22, item 1)', () => {
  const os = useOpenSearchNode();
  let templateFields = 0;
  let refusedIndex: string | undefined;

  // Indices are deleted in batches, one cluster state update for many: each update is slow on two busy cores. The
  // last batch goes with the node.
  let created: string[] = [];
  async function deleteCreated(): Promise<void> {
    if (created.length > 0) await os.client().request({ method: 'DELETE', path: `/${created.join(',')}` });
    created = [];
  }

  async function createIndex(limit: number): Promise<{ index: string; status: number; text: string }> {
    if (created.length >= 40) await deleteCreated();
    const index = `logs-budget-${++indexNumber}`;
    const response = await os.client().request({
      method: 'PUT',
      path: `/${index}`,
      body: { settings: { 'index.mapping.total_fields.limit': limit } },
    });
    if (response.status === 200) created.push(index);
    return { index, status: response.status, text: response.text };
  }

  async function mappedFields(client: OpenSearchHttpClient, index: string): Promise<number> {
    const response = await client.request({ method: 'GET', path: `/${index}/_mapping` });
    const body = response.body as Record<string, { mappings: { properties?: Record<string, MappingNode> } }>;
    return mappedFieldCount(body[index].mappings.properties);
  }

  /** One document into `index`: the bulk item's status and error reason. */
  async function indexOne(index: string, text: string): Promise<{ status: number; reason: string }> {
    const bulk = await bulkIndexTexts(os.client(), index, [text]);
    type BulkError = { reason?: string; caused_by?: { reason?: string } };
    const item = (bulk.body as { items: Array<{ index: { status: number; error?: BulkError } }> }).items[0];
    const error = item.index.error;
    return { status: item.index.status, reason: `${error?.reason ?? ''} ${error?.caused_by?.reason ?? ''}` };
  }

  /**
   * The node's figure for one document: refused one field below `fields` (when it maps any), accepted at it, and
   * the mapping then holds the template's fields plus exactly `fields`.
   */
  async function expectNodeMaps(text: string, fields: number): Promise<void> {
    const client = os.client();
    const { index, status } = await createIndex(templateFields + Math.max(fields - 1, 0));
    expect(status).toBe(200);
    if (fields > 0) {
      const below = await indexOne(index, text);
      expect([below.status, below.reason]).toEqual([400, expect.stringMatching(LIMIT_EXCEEDED)]);
      const raised = await client.request({
        method: 'PUT',
        path: `/${index}/_settings`,
        body: { 'index.mapping.total_fields.limit': templateFields + fields },
      });
      expect(raised.status).toBe(200);
    }
    const at = await indexOne(index, text);
    expect(at).toEqual({ status: 201, reason: ' ' });
    expect(await mappedFields(client, index)).toBe(templateFields + fields);
  }

  beforeAll(async () => {
    await provisionOpenSearch(os.client(), spec);
    const { index, status, text } = await createIndex(10_000);
    if (status !== 200) throw new Error(`could not create an index from the template: ${text}`);
    templateFields = await mappedFields(os.client(), index);
  });

  test('the mapping count is the limit count: the template alone fits its own count and not one less', async () => {
    const below = await createIndex(templateFields - 1);
    expect([below.status, below.text]).toEqual([400, expect.stringMatching(LIMIT_EXCEEDED)]);
    const at = await createIndex(templateFields);
    expect(at.status).toBe(200);
  });

  test.each(MEASURED_CASES.filter(([, , measured]) => measured !== 'refused'))(
    '%s: %j maps %s fields',
    async (_, app, measured) => {
      // The unguarded document maps exactly the measured fields, and the budget counts the same.
      await expectNodeMaps(unguarded(app), measured as number);
      expect(planAppFields(app).fields).toBe(measured);
    },
  );

  test.each(MEASURED_CASES.filter(([, , measured]) => measured === 'refused'))(
    '%s: %j is refused by the node whatever the limit; the transform keeps it where it is indexed',
    async (_, app) => {
      // One index for these: what the transform's documents map there does not matter.
      refusedIndex ??= (await createIndex(templateFields + 1000)).index;
      const raw = await indexOne(refusedIndex, unguarded(app));
      expect([raw.status, raw.reason]).toEqual([400, expect.not.stringMatching(LIMIT_EXCEEDED)]);
      expect(await indexOne(refusedIndex, transformed(app))).toEqual({ status: 201, reason: ' ' });
    },
  );

  test('for generated documents the count is what the node maps, and never above the budget', async () => {
    await fc.assert(
      fc.asyncProperty(appLine, async (app) => {
        const plan = planAppFields(app);
        expect(plan.fields).toBeLessThanOrEqual(APP_FIELD_BUDGET);
        await expectNodeMaps(transformed(app), plan.fields);
      }),
      { numRuns: 30 },
    );
  });

  test('documents of any shape the transform writes never meet the field limit of an index with room for one budget', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(appKey, appValue, { maxKeys: 30 }), async (app) => {
        const { index } = await createIndex(templateFields + APP_FIELD_BUDGET);
        const result = await indexOne(index, transformed(app));
        // A document can still be refused for what it holds (`[1, "x"]` maps a number and a keyword at one
        // path), never for the fields it adds; indexed or not, it added at most what the budget counted.
        expect(result.reason).not.toMatch(LIMIT_EXCEEDED);
        const added = (await mappedFields(os.client(), index)) - templateFields;
        expect(added).toBeLessThanOrEqual(planAppFields(app).fields);
      }),
      { numRuns: 20 },
    );
  });

  test("the issue's lines leave another app's next document indexed in the shared daily index", async () => {
    // GIVEN one line of each shape the former count missed, each ~900 fields as OpenSearch maps them
    const index = 'logs-2026-11-23';
    const wide = (prefix: string, count: number): Record<string, number> =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, i]));
    const lines = [
      { requestId: 'r-1', rows: [[], [wide('row', 900)]] },
      { requestId: 'r-2', items: [{ attrs: wide('attr', 900) }, { attrs: {} }] },
      { requestId: 'r-3', ...Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`g${i}.h.k`, i])) },
    ];
    const ordinary = { service: 'orders', orderId: 'o-1', amountCents: 1250, message: 'order paid' };

    // WHEN the transform's documents are indexed one after the other, then another app's ordinary line
    const results = [];
    for (const line of [...lines, ordinary]) results.push(await indexOne(index, transformed(line)));

    // THEN none is refused, and the hostile lines added at most one budget each
    expect(results).toEqual(results.map(() => ({ status: 201, reason: ' ' })));
    expect(await mappedFields(os.client(), index)).toBeLessThanOrEqual(
      templateFields + 3 * APP_FIELD_BUDGET + 4,
    );
    // What was kept past the budget is searchable under kfek.overflow.
    const search = await os.client().request({
      method: 'POST',
      path: `/${index}/_search`,
      body: {
        query: { query_string: { query: 'kfek.overflow.rows.row899:899 OR kfek.overflow.g299.h.k:299' } },
      },
    });
    expect((search.body as { hits: { total: { value: number } } }).hits.total.value).toBe(2);
  });
});

/** A tree of the paths one app writes: a leaf, or an object with named children. */
interface Shape {
  readonly children?: Readonly<Record<string, Shape>>;
}

const shape: fc.Arbitrary<Shape> = fc.letrec<{ shape: Shape }>((tie) => ({
  shape: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant<Shape>({}),
    fc
      .dictionary(fc.constantFrom('a', 'b', 'c', 'd'), tie('shape'), { maxKeys: 4 })
      .map((children): Shape => ({ children })),
  ),
})).shape;

/**
 * App lines written every way OpenSearch maps to the same fields: objects split over array elements (and arrays in
 * arrays), dotted keys for nested objects (also past the mapped depth, which the node refuses and the transform
 * moves aside), trailing dots, nulls and empty arrays, and sometimes many more keys than the budget. Every leaf is
 * a string, so no path is mapped as two types: only the way a path is written varies.
 */
const appLine: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), shape, { minKeys: 1, maxKeys: 4 }),
    fc.oneof(
      { weight: 3, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 130 }) },
    ),
    fc.integer(),
  )
  .map(([children, extra, seed]) => {
    const random = seededRandom(seed);
    const extras = Object.fromEntries(Array.from({ length: extra }, (_, i) => [`w${i}`, 'v']));
    const line = members(children, 0, random);
    // The wide part before or after the shaped keys, so overflow starts in either.
    return random() < 0.5 ? { ...extras, ...line } : { ...line, ...extras };
  });

/** The members of an object at `depth` (0 for the line) holding `children`. */
function members(
  children: Readonly<Record<string, Shape>>,
  depth: number,
  random: () => number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, child] of Object.entries(children)) member(out, name, child, depth + 1, random);
  return out;
}

/** Writes the path `key` (at `depth`) into `out`, as a nested value or as dotted keys for its children. */
function member(
  out: Record<string, unknown>,
  key: string,
  node: Shape,
  depth: number,
  random: () => number,
): void {
  const children = node.children;
  if (children !== undefined && Object.keys(children).length > 0 && random() < 0.3) {
    // Some children as dotted keys, the others nested under the key itself (both map the same object).
    const nested: Record<string, Shape> = {};
    for (const [name, child] of Object.entries(children)) {
      if (random() < 0.7) member(out, `${key}.${name}`, child, depth + 1, random);
      else nested[name] = child;
    }
    if (Object.keys(nested).length > 0) out[key] = render({ children: nested }, depth, random);
    return;
  }
  out[random() < 0.05 ? `${key}.` : key] = render(node, depth, random);
}

function render(node: Shape, depth: number, random: () => number): unknown {
  const roll = random();
  if (roll < 0.05) return null;
  if (roll < 0.08) return [];
  const children = node.children;
  if (children === undefined) {
    if (roll < 0.7) return 'v';
    if (roll < 0.8) return ['v', 'w'];
    if (roll < 0.9) return [['v']];
    return [null, 'v'];
  }
  // Split the children over one to three objects; an array of them maps their union.
  const parts = random() < 0.7 ? 1 : 2 + Math.floor(random() * 2);
  const groups: Array<Record<string, Shape>> = Array.from({ length: parts }, () => ({}));
  for (const [name, child] of Object.entries(children)) {
    groups[Math.floor(random() * parts)][name] = child;
    if (parts > 1 && random() < 0.2) groups[Math.floor(random() * parts)][name] = child;
  }
  const objects = groups.map((group) => members(group, depth, random));
  if (parts === 1) {
    const wrap = random();
    if (wrap < 0.6) return objects[0];
    if (wrap < 0.8) return [objects[0]];
    if (wrap < 0.9) return [[objects[0]]];
    return [[], [objects[0]]];
  }
  return random() < 0.5 ? objects : [objects[0], objects.slice(1)];
}
