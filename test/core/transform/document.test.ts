/**
 * Document shaping: the schema rules for `@timestamp`, `message`, `cloudwatch`, app fields and collisions.
 */
import { referenceParsed } from '../../helpers/reference-document';
import fc from 'fast-check';
import { APP_FIELD_BUDGET } from '../../../core/contracts/field-budget';
import { COLLISIONS_KEY } from '../../../core/transform/collisions';
import { DocumentSerializer, toDocument } from '../../../core/transform/document';
import { CloudWatchLogEvent } from '../../../core/transform/decode';
import { appKey, appValue } from '../contracts/field-budget-cases';

const SOURCE = {
  logGroup: '/aws/lambda/orders',
  logStream: '2026/11/23/[$LATEST]abc',
  owner: '123456789012',
};

function event(message: string, extra: Partial<CloudWatchLogEvent> = {}): CloudWatchLogEvent {
  return {
    id: '38480917865042697267627490045603633139480491071049695232',
    timestamp: 1700000000123,
    message,
    ...extra,
  };
}

describe('toDocument', () => {
  it('plain text: ISO UTC millisecond @timestamp, message without its trailing newline, cloudwatch metadata', () => {
    expect(toDocument(event('hello world\n'), SOURCE)).toEqual({
      '@timestamp': '2023-11-14T22:13:20.123Z',
      message: 'hello world',
      cloudwatch: { id: '38480917865042697267627490045603633139480491071049695232', ...SOURCE },
    });
  });

  it('adds account and region from extractedFields (centralization), and nothing else from there', () => {
    const doc = toDocument(
      event('x', {
        extractedFields: { '@aws.account': '999888777666', '@aws.region': 'us-west-2', other: 'y' },
      }),
      SOURCE,
    );
    expect(doc.cloudwatch).toEqual({
      id: '38480917865042697267627490045603633139480491071049695232',
      ...SOURCE,
      account: '999888777666',
      region: 'us-west-2',
    });
  });

  it('puts a JSON object message at the top level, nested objects nested, message from its string message', () => {
    const doc = toDocument(
      event('{"level":"INFO","message":"paid","order":{"id":"A1","lines":[1,2]}}\n'),
      SOURCE,
    );
    expect(doc).toEqual({
      '@timestamp': '2023-11-14T22:13:20.123Z',
      message: 'paid',
      cloudwatch: expect.objectContaining({ logGroup: SOURCE.logGroup }),
      level: 'INFO',
      order: { id: 'A1', lines: [1, 2] },
    });
  });

  it('keeps the original text as message when the object has no string message field', () => {
    const doc = toDocument(event('{"level":"INFO","msg":"paid"}'), SOURCE);
    expect(doc.message).toBe('{"level":"INFO","msg":"paid"}');
    expect(doc.msg).toBe('paid');
  });

  it.each(['[1,2]', '42', '"text"', 'true', '{"a":', '{"a":1}{"b":2}'])('keeps %j as text', (text) => {
    const doc = toDocument(event(text), SOURCE);
    expect(doc.message).toBe(text);
    expect(Object.keys(doc).sort()).toEqual(['@timestamp', 'cloudwatch', 'message']);
  });

  it('moves app fields that collide with ours under kfek.collisions, never dropping or letting them overwrite', () => {
    const app = {
      '@timestamp': 'app time',
      cloudwatch: { id: 'forged' },
      kfek: { truncated: true },
      message: { structured: true },
      level: 'WARN',
    };
    const doc = toDocument(event(JSON.stringify(app)), SOURCE);
    expect(doc['@timestamp']).toBe('2023-11-14T22:13:20.123Z');
    expect(doc.cloudwatch.id).toBe('38480917865042697267627490045603633139480491071049695232');
    expect(doc.message).toBe(JSON.stringify(app));
    expect(doc.level).toBe('WARN');
    expect(doc.kfek).toEqual({
      [COLLISIONS_KEY]: {
        '@timestamp': 'app time',
        cloudwatch: { id: 'forged' },
        kfek: { truncated: true },
        message: { structured: true },
      },
    });
  });

  it('moves dotted keys that OpenSearch would expand into our namespaces under kfek.collisions (issue 14)', () => {
    // GIVEN the spoofing log line: OpenSearch expands a dotted name into a path
    const app = {
      'cloudwatch.logGroup': '/aws/lambda/payments',
      'cloudwatch.owner': '999999999999',
      'kfek.error.reason': 'fake poison',
      'kfek.truncated': true,
      '@timestamp.foo': 1,
      'message.x': 'y',
      'cloudwatch.': 'trailing dot, which OpenSearch drops',
      user: 'u-1',
    };

    // WHEN
    const doc = toDocument(event(JSON.stringify(app)), SOURCE) as Record<string, unknown>;

    // THEN every key whose first path segment is ours moved, under its own name; the rest stays
    expect(doc.user).toBe('u-1');
    expect(doc.kfek).toEqual({ [COLLISIONS_KEY]: { ...app, user: undefined } });
    expect(Object.keys(doc).sort()).toEqual(['@timestamp', 'cloudwatch', 'kfek', 'message', 'user']);
  });

  it('moves a dotted key into a derived field (lambda.requestId beside a platform event) under kfek.collisions', () => {
    const doc = toDocument(
      event('{"type":"platform.start","record":{"requestId":"r-1"},"lambda.requestId":"spoof"}'),
      SOURCE,
    );
    expect(doc.lambda).toEqual({ type: 'platform.start', requestId: 'r-1' });
    expect(doc.kfek).toEqual({ collisions: { 'lambda.requestId': 'spoof' } });
  });

  it.each([
    // Nested keys: the path starts with the parent's name, so it can never reach our namespaces.
    ['a nested dotted key', { a: { 'cloudwatch.owner': 'x', 'kfek.error': 'y' } }],
    // Only an exact first segment addresses ours: OpenSearch does not trim, nor fold case.
    ['a look-alike first segment', { ' cloudwatch.owner': 'x', 'Cloudwatch.owner': 'x', 'kfekx.y': 1 }],
    ['a derived name when nothing was derived', { 'lambda.requestId': 'r', 'level.code': 3 }],
  ])('keeps %s as an app field', (_, app) => {
    const doc = toDocument(event(JSON.stringify(app)), SOURCE) as Record<string, unknown>;
    expect(doc.kfek).toBeUndefined();
    expect(doc).toMatchObject(app);
  });

  it.each([
    // OpenSearch refuses empty path segments and the whole document with them ("failed to parse"): they address
    // nothing of ours, and are kept where they cannot get the document refused.
    ['a leading dot or an empty segment', { '.cloudwatch': 1, 'x..cloudwatch': 2, '.kfek.error': 3, '': 4 }],
    // A dotted key that opens an object past the mapped depth, where the template has a flat_object: refused too.
    ['a nested dotted key past the mapped depth', { a: { 'kfek.error.reason': 'y' }, 'b.c.d.e': 1 }],
  ])('keeps %s under kfek.overflow, not kfek.collisions', (_, app) => {
    const doc = toDocument(event(JSON.stringify({ ...app, user: 'u-1' })), SOURCE) as Record<string, unknown>;
    expect(doc.kfek).toEqual({ overflow: app });
    expect(doc.user).toBe('u-1');
  });

  it('keeps an app field named like a derived one (lambda on a platform JSON event) under kfek.collisions', () => {
    const doc = toDocument(
      event('{"type":"platform.start","record":{"requestId":"r-1"},"lambda":"app value"}'),
      SOURCE,
    );
    expect(doc.lambda).toEqual({ type: 'platform.start', requestId: 'r-1' });
    expect(doc.kfek).toEqual({ collisions: { lambda: 'app value' } });
    expect(doc.type).toBe('platform.start');
  });

  it('keeps a __proto__ key as data, without touching the prototype', () => {
    const doc = toDocument(event('{"__proto__":{"polluted":true},"a":1}'), SOURCE);
    expect(Object.getPrototypeOf(doc)).toBe(Object.prototype);
    expect((doc as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(doc, '__proto__')?.value).toEqual({ polluted: true });
    expect(JSON.parse(JSON.stringify(doc))).toMatchObject({ a: 1 });
    expect(JSON.stringify(doc)).toContain('"__proto__":{"polluted":true}');
  });

  it('recognised text layouts give level, lambda.requestId, thread and logger', () => {
    expect(
      toDocument(event('2022-12-24 08:24:38,929 ERROR [main] com.example.App - failed\n'), SOURCE),
    ).toMatchObject({
      message: 'failed',
      level: 'ERROR',
      thread: 'main',
      logger: 'com.example.App',
    });
    expect(toDocument(event('[ERROR]\t2022-12-24T08:24:38.929Z\tr-1\tfailed\n'), SOURCE)).toMatchObject({
      message: 'failed',
      level: 'ERROR',
      lambda: { requestId: 'r-1' },
    });
  });

  it('message removes exactly one trailing newline', () => {
    expect(toDocument(event('two\n\n'), SOURCE).message).toBe('two\n');
    expect(toDocument(event(''), SOURCE).message).toBe('');
  });
});

describe('the field budget (issue 14 defect 5, docs/field-limits.md)', () => {
  const wide = (count: number): Record<string, string> =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`flag${i}`, `v${i}`]));

  it('maps the first app keys up to the budget and keeps the rest, in order, under kfek.overflow', () => {
    // GIVEN a line with 150 distinct keys
    const doc = toDocument(event(JSON.stringify({ ...wide(150), message: 'wide' })), SOURCE) as Record<
      string,
      unknown
    >;
    // THEN
    expect(doc.message).toBe('wide');
    expect(doc.flag0).toBe('v0');
    expect(doc[`flag${APP_FIELD_BUDGET - 1}`]).toBe(`v${APP_FIELD_BUDGET - 1}`);
    expect(doc[`flag${APP_FIELD_BUDGET}`]).toBeUndefined();
    const overflow = (doc.kfek as { overflow: Record<string, string> }).overflow;
    expect(Object.keys(overflow)).toEqual(
      Array.from({ length: 150 - APP_FIELD_BUDGET }, (_, i) => `flag${APP_FIELD_BUDGET + i}`),
    );
  });

  it('moves a key that does not fit, and every later key, even when a later one would fit', () => {
    // GIVEN a small field, an object too wide for what is left, then a small field again
    const counts = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`user${i}`, i]));
    const doc = toDocument(event(JSON.stringify({ requestId: 'r-1', counts, after: 'x' })), SOURCE) as Record<
      string,
      unknown
    >;
    // THEN
    expect(doc.requestId).toBe('r-1');
    expect(doc.counts).toBeUndefined();
    expect(doc.kfek).toEqual({ overflow: { counts, after: 'x' } });
  });

  it('keeps collisions and overflow side by side under kfek, and a narrow line unchanged', () => {
    const doc = toDocument(
      event(JSON.stringify({ ...wide(APP_FIELD_BUDGET + 1), 'cloudwatch.owner': 'x' })),
      SOURCE,
    );
    expect(doc.kfek).toEqual({
      collisions: { 'cloudwatch.owner': 'x' },
      overflow: { [`flag${APP_FIELD_BUDGET}`]: `v${APP_FIELD_BUDGET}` },
    });
    expect(toDocument(event(JSON.stringify(wide(APP_FIELD_BUDGET))), SOURCE).kfek).toBeUndefined();
  });

  // Issue 22, item 1: shapes the former count undercounted, so that one line added hundreds of fields.
  const keys = (prefix: string, count: number): Record<string, number> =>
    Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}${i}`, i]));

  it.each([
    ['an array after an array element', { rows: [[], [keys('k', 300)]] }],
    [
      'array elements whose later element hides an earlier one',
      { items: [{ a: keys('k', 300) }, { a: {} }] },
    ],
    [
      'arrays of arrays of objects, union of their keys',
      { m: [[{ ...keys('x', 60) }], [[{ ...keys('y', 60) }]]] },
    ],
  ])('counts %s as OpenSearch maps it, and moves it to kfek.overflow', (_, app) => {
    // WHEN a line holding the shape beside an ordinary field is shaped, on both paths
    const message = JSON.stringify({ requestId: 'r-1', ...app });
    const doc = toDocument(event(message), SOURCE) as Record<string, unknown>;

    // THEN the shape is kept whole under kfek.overflow
    expect(doc.requestId).toBe('r-1');
    expect(doc.kfek).toEqual({ overflow: app });
    expect(JSON.parse(new DocumentSerializer(SOURCE).json(event(message)))).toEqual(
      JSON.parse(JSON.stringify(doc)),
    );
  });

  it('counts a dotted key as every object on its path: 33 keys of three fields each fit, the 34th does not', () => {
    // GIVEN 99 keys `g<i>.h.k`: each maps g<i>, g<i>.h and g<i>.h.k
    const app = Object.fromEntries(Array.from({ length: 99 }, (_, i) => [`g${i}.h.k`, i]));

    // WHEN
    const doc = toDocument(event(JSON.stringify(app)), SOURCE) as Record<string, unknown>;

    // THEN the first 33 keys (99 fields) are mapped, the rest kept under kfek.overflow in order
    const overflow = (doc.kfek as { overflow: Record<string, number> }).overflow;
    expect(Object.keys(doc).filter((key) => key.startsWith('g'))).toHaveLength(33);
    expect(Object.keys(overflow)).toEqual(Object.keys(app).slice(33));
  });

  it('the serializer decides as the reference model for lines of any shape near the budget', () => {
    fc.assert(
      fc.property(
        fc.dictionary(appKey, appValue, { maxKeys: 8 }),
        fc.nat({ max: 110 }),
        fc.boolean(),
        (shaped, count, wideFirst) => {
          const app = wideFirst ? { ...wide(count), ...shaped } : { ...shaped, ...wide(count) };
          const message = JSON.stringify(app);
          expect(JSON.parse(new DocumentSerializer(SOURCE).json(event(message)))).toEqual(
            referenceParsed(event(message), SOURCE),
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("the serializer writes the reference model's document for a line over the budget", () => {
    const message = JSON.stringify({ ...wide(APP_FIELD_BUDGET + 20), nested: { a: { b: { c: 1 } } } });
    expect(JSON.parse(new DocumentSerializer(SOURCE).json(event(message)))).toEqual(
      referenceParsed(event(message), SOURCE),
    );
  });
});
