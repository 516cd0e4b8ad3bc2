/**
 * Issue 22, item 2: an app's top-level keys named like OpenSearch metadata (`_id`, `_routing`, `_if_seq_no`,
 * `_doc_count`, ...) must never reach the document's top level, where the ingest pipeline takes them as the request's
 * metadata or the mapper as the document's. They are moved aside like every other collision, under
 * `kfek.collisions`, on every path: the fast path that copies the app's text, the general path (collisions, the
 * field budget, truncation), events with `extractedFields`, and the EventBridge Pipes enrichment.
 * test/core/opensearch/metadata-names.integ.test.ts proves each name on the real node.
 */
import { referenceParsed } from '../../helpers/reference-document';
import { METADATA_FIELD_NAMES } from '../../../core/transform/collisions';
import { DocumentSerializer } from '../../../core/transform/document';
import { processPipesBatch, type PipesKinesisRecord } from '../../../lambda/transform/pipes-batch';
import { toErrorDocument, transformRecord } from '../../../core/transform/transform';
import type { CloudWatchLogEvent } from '../../../core/transform/decode';
import { encodeEnvelope, makeEnvelope, makeKinesisEvent } from '../../helpers/cloudwatch';
import { completeWrite } from '../../helpers/write-results';

const SOURCE = { logGroup: '/aws/lambda/orders', logStream: 's1', owner: '123456789012' };

/** Every name the issue lists, with a value of the type OpenSearch would read it as. */
const ISSUE_NAMES: Readonly<Record<string, unknown>> = {
  _id: 'app-id',
  _index: 'other-index',
  _routing: 'r1',
  _version: 7,
  _version_type: 'external',
  _if_seq_no: 5,
  _if_primary_term: 1,
  _source: { a: 1 },
  _seq_no: 3,
  _primary_term: 2,
  _type: '_doc',
  _field_names: 'f',
  _ignored: 'i',
  _nested_path: 'n',
  _data_stream_timestamp: 'd',
  _doc_count: 5,
  _tier: 'hot',
  _size: 10,
  _parent: 'p',
  _uid: 'u',
};

function event(app: object, extra: Partial<CloudWatchLogEvent> = {}): CloudWatchLogEvent {
  return { id: '1', timestamp: 1763888400000, message: JSON.stringify(app), ...extra };
}

type Doc = Record<string, unknown> & { kfek?: { collisions?: Record<string, unknown> } };

/** The document of one event on each path a document can take through the transform. */
const PATHS: ReadonlyArray<[string, (app: object) => Doc]> = [
  [
    'the fast path (app text copied)',
    (app) => JSON.parse(new DocumentSerializer(SOURCE).json(event(app))) as Doc,
  ],
  ['the reference model', (app) => referenceParsed(event(app), SOURCE) as Doc],
  [
    'an event with extractedFields',
    (app) =>
      JSON.parse(
        new DocumentSerializer(SOURCE).json(
          event(app, { extractedFields: { '@aws.account': '999888777666' } }),
        ),
      ) as Doc,
  ],
  [
    'the Kinesis transform (transformRecord)',
    (app) => {
      const outcome = transformRecord(encodeEnvelope(makeEnvelope({}, [{ message: JSON.stringify(app) }])));
      if (outcome.kind !== 'data') throw new Error(outcome.kind);
      return JSON.parse(outcome.documents[0].json) as Doc;
    },
  ],
];

describe('OpenSearch metadata names in app fields (issue 22, item 2)', () => {
  test('the list holds every name of the issue', () => {
    expect([...METADATA_FIELD_NAMES].sort()).toEqual(expect.arrayContaining(Object.keys(ISSUE_NAMES).sort()));
  });

  describe.each(PATHS)('on %s', (_path, documentOf) => {
    test.each(Object.entries(ISSUE_NAMES))(
      '%s is moved under kfek.collisions with its value',
      (name, value) => {
        // GIVEN an app line carrying the name beside ordinary fields
        const doc = documentOf({ message: 'hello', [name]: value, user: 'u-1' });

        // THEN it is not at the top level, its value is kept under its own name, the rest is untouched
        expect(Object.getOwnPropertyDescriptor(doc, name)).toBeUndefined();
        expect(doc.kfek?.collisions).toEqual({ [name]: value });
        expect(doc.message).toBe('hello');
        expect(doc.user).toBe('u-1');
      },
    );

    test('every name at once, and dotted forms of them, in written order', () => {
      const app = { ...ISSUE_NAMES, '_id.x': 1, '_routing.': 'trailing dot', '_source.a.b': 2, message: 'm' };
      const doc = documentOf(app);
      const { message: _message, ...moved } = app;
      expect(doc.kfek?.collisions).toEqual(moved);
      expect(Object.keys(doc.kfek?.collisions ?? {})).toEqual(Object.keys(moved));
      expect(Object.keys(doc).filter((key) => key.startsWith('_'))).toEqual([]);
    });

    test('other underscore names stay app fields (Embedded Metric Format _aws, _foo), as do nested metadata names', () => {
      const app = {
        _aws: { Timestamp: 1 },
        _foo: 'bar',
        _ingest: 'x',
        _idx: 1,
        a: { _id: 'nested', _routing: 'r' },
      };
      const doc = documentOf(app);
      expect(doc).toMatchObject(app);
      expect(doc.kfek).toBeUndefined();
    });
  });

  test('on the EventBridge Pipes path, every item keeps the names under kfek.collisions', async () => {
    // GIVEN one Pipes record whose event carries every name
    const app = { ...ISSUE_NAMES, message: 'piped' };
    const records: PipesKinesisRecord[] = makeKinesisEvent([
      encodeEnvelope(makeEnvelope({}, [{ message: JSON.stringify(app) }])),
    ]).Records.map(({ kinesis, ...rest }) => ({ ...kinesis, ...rest }));

    // WHEN the enrichment transforms it
    const { items } = await processPipesBatch(records, {
      transform: transformRecord,
      errorDocument: toErrorDocument,
      writer: { write: (docs) => Promise.resolve(completeWrite(docs)) },
      deadLetters: { put: () => Promise.reject(new Error('no poison expected')) },
      deadLetterBucket: 'bucket',
      logger: { warn: () => undefined, error: () => undefined },
      remainingMs: () => 30_000,
    });

    // THEN
    expect(items).toHaveLength(1);
    const item = items[0] as Doc;
    expect(Object.keys(item).filter((key) => key.startsWith('_'))).toEqual([]);
    const { message: _message, ...moved } = app;
    expect(item.kfek?.collisions).toEqual(moved);
    expect(item.message).toBe('piped');
  });
});
