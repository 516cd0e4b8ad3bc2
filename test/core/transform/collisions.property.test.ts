/**
 * Property (issue 14, defect 1): an app's JSON log line can never put a value where OpenSearch would
 * find it under kfek's namespaces (`@timestamp`, `message`, `cloudwatch.*`, `kfek.*` other than
 * `kfek.collisions.*` and `kfek.overflow.*`) or OpenSearch's metadata (`_id`, `_routing`, ...; issue 22, item 2),
 * whatever dotted names it uses, and no app value is dropped.
 */
import { referenceParsed } from '../../helpers/reference-document';
import fc from 'fast-check';
import { DocumentSerializer } from '../../../core/transform/document';
import { CloudWatchLogEvent } from '../../../core/transform/decode';

const SOURCE = { logGroup: '/aws/lambda/orders', logStream: 's1', owner: '123456789012' };

/**
 * The leaf paths OpenSearch indexes for an object, independent of the code under test: every key,
 * at every depth, is split on dots as Java's `String.split` does (trailing empty segments dropped),
 * and the segments are appended to the parent's path.
 */
function indexedPaths(value: unknown, prefix: readonly string[], out: Array<[string, unknown]>): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    out.push([prefix.join('.'), value]);
    return;
  }
  for (const key of Object.keys(value)) {
    const segments = key.split('.');
    while (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
    indexedPaths((value as Record<string, unknown>)[key], [...prefix, ...segments], out);
  }
}

/** OpenSearch's metadata names (issue 22, item 2): the ingest pipeline or the mapper reads them at the top level. */
const METADATA = new Set(
  (
    '_id _index _routing _version _version_type _if_seq_no _if_primary_term _source _seq_no _primary_term _type ' +
    '_field_names _ignored _nested_path _data_stream_timestamp _doc_count _tier _size _parent _uid'
  ).split(' '),
);

function inOurNamespaces(path: string): boolean {
  const head = path.split('.')[0];
  if (head === 'kfek') {
    // kfek.collisions and kfek.overflow hold app values by design.
    return !/^kfek\.(collisions|overflow)(\.|$)/.test(path);
  }
  return head === '@timestamp' || head === 'message' || head === 'cloudwatch' || METADATA.has(head);
}

/** Keys built to hit our namespaces with and without dots, plus near misses. */
const key = fc
  .tuple(
    fc.constantFrom('', '', '', '.', ' ', 'x.', 'K'),
    fc.constantFrom(
      '',
      ...'@timestamp cloudwatch kfek message level a __proto__ _id _routing _if_seq_no _source _aws'.split(
        ' ',
      ),
    ),
    fc.constantFrom('', '', '.', '.owner', '.logGroup', '.error.reason', '.collisions.x', '..x', 'x'),
  )
  .map(([a, b, c]) => a + b + c);

const appObject = fc.dictionary(
  key,
  fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.dictionary(key, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 })),
  { maxKeys: 8 },
);

describe('collision properties', () => {
  it('no app value is reachable under our namespaces except kfek.collisions, and none is dropped', () => {
    fc.assert(
      fc.property(appObject, fc.boolean(), (object, fast) => {
        // GIVEN an app log line (through JSON, as CloudWatch delivers it)
        const text = JSON.stringify(object);
        const app = JSON.parse(text) as Record<string, unknown>;
        const event: CloudWatchLogEvent = { id: '1', timestamp: 1700000000123, message: text };

        // WHEN the transform shapes it, on either path
        const doc = JSON.parse(
          fast ? new DocumentSerializer(SOURCE).json(event) : JSON.stringify(referenceParsed(event, SOURCE)),
        ) as Record<string, unknown>;

        // THEN what OpenSearch finds under our namespaces is exactly what kfek wrote
        const paths: Array<[string, unknown]> = [];
        indexedPaths(doc, [], paths);
        const ours = paths.filter(([path]) => inOurNamespaces(path));
        const message = typeof app.message === 'string' ? app.message : text;
        expect(Object.fromEntries(ours)).toEqual({
          '@timestamp': '2023-11-14T22:13:20.123Z',
          message,
          'cloudwatch.id': '1',
          'cloudwatch.logGroup': SOURCE.logGroup,
          'cloudwatch.logStream': SOURCE.logStream,
          'cloudwatch.owner': SOURCE.owner,
        });
        expect(ours).toHaveLength(6);
        // AND every app field is kept: as the message, in kfek.collisions, or else at the top level
        const collisions = ((doc.kfek as Record<string, unknown> | undefined)?.collisions ?? {}) as Record<
          string,
          unknown
        >;
        // Keys OpenSearch would refuse to map (`.x`, `a..b`, an empty key) are kept under kfek.overflow.
        const overflow = ((doc.kfek as Record<string, unknown> | undefined)?.overflow ?? {}) as Record<
          string,
          unknown
        >;
        for (const k of Object.keys(app)) {
          if (k === 'message' && typeof app.message === 'string') continue;
          const kept =
            Object.getOwnPropertyDescriptor(collisions, k) ??
            Object.getOwnPropertyDescriptor(overflow, k) ??
            Object.getOwnPropertyDescriptor(doc, k);
          expect(kept?.value).toEqual(app[k]);
        }
      }),
      { numRuns: 1000 },
    );
  });
});
