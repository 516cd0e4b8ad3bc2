/**
 * Property-based tests (fast-check): for any message text, parsing never throws, every event gives
 * exactly one document in order, metadata and timestamps are intact, every record fits Kinesis,
 * and app data is never dropped.
 */
import fc from 'fast-check';
import { referenceParsed } from '../../helpers/reference-document';
import { DocumentSerializer } from '../../../core/transform/document';
import { parseMessage, stripOneNewline } from '../../../core/transform/parsers';
import { transformRecord } from '../../../core/transform/transform';
import { MAX_KINESIS_RECORD_BYTES } from '../../../core/contracts/aws-limits';
import type { LogDocument, SerializedDocument } from '../../../core/transform/types';
import { encodeEnvelope, makeEnvelope } from '../../helpers/cloudwatch';

/** Any UTF-16 code unit, lone surrogates included (they survive CloudWatch's JSON as \\udxxx escapes). */
const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c));

const anyText = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 100 }),
  fc.string({ unit: anyCodeUnit, maxLength: 200 }),
  fc.string({ unit: 'binary-ascii', maxLength: 200 }),
);

/** Text shaped like the layouts the parsers look for, with arbitrary parts, so near misses get exercised. */
const layoutish = fc
  .tuple(
    fc.constantFrom(
      'START RequestId: ',
      'END RequestId: ',
      'REPORT RequestId: r\tDuration: ',
      'INIT_START Runtime Version: ',
      '2024-10-21T14:28:15.158Z\t',
      '2024-10-21T14:28:15.158Z\tr-1\tINFO\t',
      '2024-10-21T14:28:15.158Z 06e46194-f277-454e-88d3-1dd7e3860eaa ',
      '[INFO]\t2020-04-09T17:35:02.42Z\t',
      '[ERROR]\t2020-04-09T17:35:02.42Z\t\t',
      '2022-12-24 08:24:38,929 DEBUG [',
      '2022-12-24 08:24:38,929 DEBUG [main] a.b - ',
      '{"type":"platform.report","record":',
      '{',
      '[',
    ),
    anyText,
    fc.constantFrom('', '\n', '\r\n', '\n\n', '}', ' ms', '\tStatus: timeout'),
  )
  .map(([a, b, c]) => a + b + c);

const jsonObjectText = fc
  .oneof(
    fc.object(),
    fc.dictionary(
      fc.constantFrom(
        '@timestamp',
        'cloudwatch',
        'kfek',
        'message',
        'level',
        'lambda',
        '__proto__',
        'x',
        // Dotted names OpenSearch expands into our namespaces (collisions), and look-alikes (not).
        'cloudwatch.owner',
        'kfek.error.reason',
        '@timestamp.x',
        'message.x',
        'lambda.requestId',
        '.cloudwatch',
        'kfekx',
      ),
      fc.jsonValue(),
    ),
  )
  .map((o) => JSON.stringify(o));

const anyMessage = fc.oneof(anyText, layoutish, jsonObjectText, fc.json());

const name = fc.string({ unit: 'binary', minLength: 1, maxLength: 512 });
/** CloudWatch timestamps: any millisecond a JavaScript Date can hold, weighted toward real ones. */
const timestamp = fc.oneof(
  fc.integer({ min: 1_500_000_000_000, max: 2_000_000_000_000 }),
  fc.integer({ min: -8.64e15, max: 8.64e15 }),
);

interface Case {
  readonly logGroup: string;
  readonly logStream: string;
  readonly owner: string;
  readonly events: Array<{ id: string; timestamp: number; message: string }>;
}

const envelopeCase = (message: fc.Arbitrary<string>, maxEvents: number): fc.Arbitrary<Case> =>
  fc.record({
    logGroup: name,
    logStream: name,
    owner: fc.stringMatching(/^\d{12}$/),
    events: fc.array(fc.record({ id: fc.stringMatching(/^\d{1,56}$/), timestamp, message }), {
      minLength: 0,
      maxLength: maxEvents,
    }),
  });

function run(c: Case): { serialized: readonly SerializedDocument[]; docs: LogDocument[] } {
  const outcome = transformRecord(
    encodeEnvelope(makeEnvelope({ logGroup: c.logGroup, logStream: c.logStream, owner: c.owner }, c.events)),
  );
  if (outcome.kind !== 'data') throw new Error(`expected data, got ${JSON.stringify(outcome)}`);
  return {
    serialized: outcome.documents,
    docs: outcome.documents.map((d) => JSON.parse(d.json) as LogDocument),
  };
}

function checkInvariants(c: Case): void {
  const { serialized, docs } = run(c);
  // Exactly one document per event, in order.
  expect(docs).toHaveLength(c.events.length);
  docs.forEach((doc, i) => {
    const event = c.events[i];
    const s = serialized[i];
    expect(doc.cloudwatch).toEqual({
      id: event.id,
      logGroup: c.logGroup,
      logStream: c.logStream,
      owner: c.owner,
    });
    expect(doc['@timestamp']).toBe(new Date(event.timestamp).toISOString());
    expect(typeof doc.message).toBe('string');
    expect(s.bytes).toBe(Buffer.byteLength(s.json, 'utf8'));
    expect(s.bytes + Buffer.byteLength(s.partitionKey, 'utf8')).toBeLessThanOrEqual(MAX_KINESIS_RECORD_BYTES);
    expect(s.partitionKey.length).toBeGreaterThan(0);
    expect(s.partitionKey.length).toBeLessThanOrEqual(256);
    if (!s.truncated && !event.message.startsWith('{')) {
      // Text keeps its content: the message is the text (minus one newline) or its part after a prefix.
      expect(stripOneNewline(event.message).endsWith(doc.message)).toBe(true);
    }
  });
}

describe('properties', () => {
  it('parseMessage never throws and always yields a string message', () => {
    fc.assert(
      fc.property(anyMessage, (text) => {
        const parsed = parseMessage(text);
        expect(typeof parsed.message).toBe('string');
      }),
      { numRuns: 2000 },
    );
  });

  it('every event becomes exactly one valid document, in order, with metadata intact, within the record limit', () => {
    expect.hasAssertions();
    fc.assert(fc.property(envelopeCase(anyMessage, 30), checkInvariants), { numRuns: 300 });
  });

  it('app fields of JSON object messages are never dropped: top level, or under kfek.collisions or kfek.overflow', () => {
    const reserved = new Set(['@timestamp', 'cloudwatch', 'kfek']);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.object(),
          fc.dictionary(
            fc.constantFrom('@timestamp', 'cloudwatch', 'kfek', 'message', 'level', '__proto__', 'a'),
            fc.jsonValue(),
          ),
        ),
        (object) => {
          const text = JSON.stringify(object);
          const app = JSON.parse(text) as Record<string, unknown>;
          const { docs } = run({
            logGroup: 'g',
            logStream: 's',
            owner: '123456789012',
            events: [{ id: '1', timestamp: 0, message: text }],
          });
          const doc = docs[0] as Record<string, unknown> & LogDocument;
          const collisions = (doc.kfek?.collisions ?? {}) as Record<string, unknown>;
          // Keys OpenSearch would refuse to map (an empty one, `a..b`) are kept under kfek.overflow, metadata names
          // (`_id`) under kfek.collisions.
          const overflow = (doc.kfek?.overflow ?? {}) as Record<string, unknown>;
          for (const key of Object.keys(app)) {
            const value = app[key];
            const kept =
              key === 'message' && typeof value === 'string'
                ? doc.message
                : reserved.has(key) || key === 'message'
                  ? Object.getOwnPropertyDescriptor(collisions, key)?.value
                  : (
                      Object.getOwnPropertyDescriptor(doc, key) ??
                      Object.getOwnPropertyDescriptor(overflow, key) ??
                      Object.getOwnPropertyDescriptor(collisions, key)
                    )?.value;
            expect(kept).toEqual(value);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the serializer writes the document the reference model builds (test/helpers/reference-document.ts)', () => {
    fc.assert(
      fc.property(
        name,
        name,
        fc.record(
          {
            id: fc.stringMatching(/^\d{1,56}$/),
            timestamp,
            message: anyMessage,
            extractedFields: fc.dictionary(
              fc.constantFrom('@aws.account', '@aws.region', 'other'),
              fc.string(),
            ),
          },
          { requiredKeys: ['id', 'timestamp', 'message'] },
        ),
        (logGroup, logStream, event) => {
          const source = { logGroup, logStream, owner: '123456789012' };
          // Same fields and values; key order may differ only where JavaScript objects put
          // integer-like keys first (the fast path keeps our fields first, as written).
          const fast = JSON.parse(new DocumentSerializer(source).json(event)) as unknown;
          expect(fast).toEqual(referenceParsed(event, source));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('huge messages (text, multi-byte, JSON) are cut to fit, never dropped', () => {
    expect.hasAssertions();
    const huge = fc
      .tuple(
        fc.oneof(
          anyText.filter((s) => s.length > 0),
          fc.constantFrom('a', 'é', '😀', '"', '\n'),
        ),
        fc.integer({ min: 1, max: 3 }),
      )
      .map(([unit, megabytes]) => unit.repeat(Math.ceil((megabytes * 1024 * 1024) / unit.length / 2)))
      .chain((big) =>
        fc.constantFrom(
          big,
          JSON.stringify({ message: big, n: 1 }),
          JSON.stringify({ blob: big, message: 'm' }),
        ),
      );
    fc.assert(fc.property(envelopeCase(huge, 2), checkInvariants), { numRuns: 12 });
  });
});
