/**
 * The direct path's planning without a node (the equivalence test on the real node holds it to the pipeline):
 * refusals of what the pipeline cannot take, the arrival rule for every rotation against indexNameFor, the source
 * edits that keep every other byte, and bulk bodies cut by bytes.
 */
import fc from 'fast-check';
import { indexNameFor, type IndexRotation } from '../../../core/contracts/index-naming';
import { actionLine, bulkBodies } from '../../../core/delivery/bulk-body';
import {
  type DeliveryTarget,
  type IndexedDocumentPlan,
  METADATA_REFUSAL,
  planDocument,
} from '../../../core/delivery/document-plan';
import { javaValueOf } from '../../../core/delivery/java-text';
import { documentIdFor, routingFor } from '../../../core/opensearch/ingest-pipeline';
import { profileRouteTable } from '../../../core/opensearch/route-table';

const target = (rotation: IndexRotation = 'OneDay'): DeliveryTarget => ({
  prefix: 'logs',
  rotation,
  shards: 1,
  table: profileRouteTable([{ route: 'payments', indexStem: 'pay' }]),
});
const AT = Date.parse('2026-11-25T09:30:00.000Z');
const CW = '"cloudwatch":{"id":"e1","logGroup":"/g","logStream":"s"}';

function indexed(text: string, rotation: IndexRotation = 'OneDay'): IndexedDocumentPlan {
  const plan = planDocument(target(rotation), text, AT, { random: () => 'zz-random' });
  if (plan.kind !== 'index') throw new Error(`refused: ${JSON.stringify(plan)}`);
  return plan;
}

describe('planDocument', () => {
  test('a routed document: its stem, the arrival period, the id and routing, kfek edited, every other byte kept', () => {
    // GIVEN a document the transform wrote three days before the record reached the events stream
    const arrival = AT - 3 * 86_400_000;
    const text = `{"message":"m","n":1.0,"big":1e2,${CW},"kfek":{"arrival":${arrival},"route":"payments","stem":"pay","joined":2}}`;
    // WHEN
    const plan = indexed(text);
    // THEN
    expect(plan).toEqual({
      kind: 'index',
      index: 'pay-2026-11-22',
      id: documentIdFor('/g', 's', 'e1'),
      routing: routingFor(documentIdFor('/g', 's', 'e1')),
      source: `{"message":"m","n":1.0,"big":1e2,${CW},"kfek":{"joined":2,"route":"payments"}}`,
    });
  });

  test('kfek is removed when the arrival was all it held; an unknown route is kept as unknownRoute', () => {
    expect(indexed(`{${CW},"kfek":{"arrival":${AT}}}`).source).toBe(`{${CW}}`);
    const plan = indexed(`{${CW},"kfek":{"route":"billing","stem":"pay"}}`);
    expect(plan.index).toBe('logs-2026-11-25');
    expect(plan.source).toBe(`{${CW},"kfek":{"unknownRoute":"billing"}}`);
  });

  test('a document without an event id gets no _id and a routing from the random value', () => {
    expect(indexed('{"message":"m","cloudwatch":{"id":""}}')).toMatchObject({ id: undefined, routing: 'zz' });
  });

  test('a raw line break between tokens never reaches the bulk body', () => {
    expect(indexed(`{\n"message":"a\\nb",\r\n${CW}}`).source).not.toMatch(/[\r\n]/);
  });

  test.each([
    ['_if_seq_no', `{"_if_seq_no":1,${CW}}`, METADATA_REFUSAL],
    ['_if_primary_term', `{"_if_primary_term":"x",${CW}}`, METADATA_REFUSAL],
    ['not an object', '[1,2]', 'the document is not a JSON object'],
    ['not JSON', '{"a":', 'failed to parse the document'],
  ])('fails when the document carries %s: refused alone with the reason', (_what, text, reason) => {
    const plan = planDocument(target(), text, AT);
    expect(plan).toMatchObject({ kind: 'refuse', status: 400, index: 'logs-2026-11-25' });
    expect(plan.kind === 'refuse' && plan.error.reason).toContain(reason);
  });

  test.each(['OneHour', 'OneDay', 'OneWeek', 'OneMonth', 'NoRotation'] as const)(
    '%s: property: the index is the arrival period when earlier than the record\u2019s, else the record\u2019s',
    (rotation) => {
      fc.assert(
        fc.property(
          fc.integer({ min: Date.parse('2000-01-01'), max: Date.parse('2099-12-31') }),
          fc.integer({ min: -40 * 86_400_000, max: 2 * 86_400_000 }),
          (record, offset) => {
            const arrival = record + offset;
            const plan = planDocument(
              { ...target(rotation), table: profileRouteTable([]) },
              `{${CW},"kfek":{"arrival":${arrival}}}`,
              record,
            );
            const own = indexNameFor('logs', rotation, new Date(record));
            const early = indexNameFor('logs', rotation, new Date(arrival));
            expect(plan).toMatchObject({ index: early < own ? early : own });
          },
        ),
        { numRuns: 300 },
      );
    },
  );
});

describe('javaValueOf', () => {
  test.each([
    [42, '42'],
    [1.5, '1.5'],
    [1e20, '1.0E20'],
    [null, 'null'],
    [true, 'true'],
    [['a', 1], '[a, 1]'],
    [{ route: 'x' }, '{route=x}'],
  ])('%j prints as Painless prints it: %s', (value, text) => {
    expect(javaValueOf(value)).toBe(text);
  });
});

describe('bulkBodies', () => {
  const plans = Array.from({ length: 50 }, (_, i) =>
    indexed(`{"message":"${'x'.repeat(i * 10)}","cloudwatch":{"id":"${i}","logGroup":"/g","logStream":"s"}}`),
  );

  test('property: every body is under the byte limit (or holds one document), and all documents are sent in order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20_000 }), (maxBytes) => {
        const bodies = bulkBodies(plans, (p) => p, maxBytes);
        expect(bodies.flatMap((b) => b.items)).toEqual(plans);
        for (const body of bodies) {
          expect(body.bytes).toBe(Buffer.byteLength(body.body));
          expect(body.items.length === 1 || body.bytes <= maxBytes).toBe(true);
          expect(body.body.split('\n')).toHaveLength(2 * body.items.length + 1);
        }
      }),
    );
  });

  test('each action carries _index, _id and routing; a document without an id carries no _id', () => {
    expect(JSON.parse(actionLine(plans[0]))).toEqual({
      index: { _index: 'logs-2026-11-25', _id: plans[0].id, routing: plans[0].routing },
    });
    expect(JSON.parse(actionLine({ ...plans[0], id: undefined }))).toEqual({
      index: { _index: 'logs-2026-11-25', routing: plans[0].routing },
    });
  });
});
