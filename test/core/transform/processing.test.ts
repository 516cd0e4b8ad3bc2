/**
 * Per-route processing in the transform (issue 24 part 3, docs/teams-and-routes.md): masking, drop rules and
 * multi-line join, unit- and property-tested, and through `transformRecord` with the counts the metrics publish.
 */
import fc from 'fast-check';
import { createDropMatcher, pathValues, valueText } from '../../../core/transform/drop-rules';
import { maskJsonStrings } from '../../../core/transform/json-strings';
import { luhnValid, Masker, maskMessage } from '../../../core/transform/masking';
import { groupLines, joinEvents } from '../../../core/transform/multiline';
import { createContinuation } from '../../../core/contracts/multiline';
import type { CloudWatchLogEvent } from '../../../core/transform/decode';
import type { MultilineSettings } from '../../../core/contracts/routes';
import { RouteTable } from '../../../core/transform/routing';
import { transformRecord } from '../../../core/transform/transform';
import type { LogDocument } from '../../../core/transform/types';
import { MASK_DETECTORS, type RouteProcessing, type TransformRoute } from '../../../core/contracts/routes';
import { encodeEnvelope, makeEnvelope } from '../../helpers/cloudwatch';

const ALL = new Masker({ detectors: [...MASK_DETECTORS], custom: [{ name: 'iban', pattern: 'DE\\d{20}' }] });
const uncounted = (): void => {};

/** A masker's text masking, counting nowhere. */
function mask(masker: Masker, text: string): string | undefined {
  return masker.mask(text, uncounted);
}

/** A JSON text masked value by value, or undefined when nothing was masked. */
function maskJson(text: string, masker: Masker): string | undefined {
  const result = maskJsonStrings(text, (value, key) => masker.mask(value, uncounted, key));
  return result.kind === 'masked' ? result.text : undefined;
}

/** The events of one sequence joined under one rule, as documents would hold them. */
function joinContinuations(events: readonly CloudWatchLogEvent[], settings: MultilineSettings) {
  const continuation = createContinuation(settings);
  return joinEvents(
    events,
    () => ({ key: 'k', continuation }),
    () => Number.POSITIVE_INFINITY,
  ).map((g) => ({
    event: g.joined === undefined ? g.first : { ...g.first, message: groupLines(g).join('\n') },
    joined: g.joined?.length ?? 0,
  }));
}

/** What a drop rule sees of an event with these app fields (no derived or static fields). */
function subject(message: string, fields: Record<string, unknown> | undefined) {
  return {
    message,
    values: (path: string) => {
      const out: unknown[] = [];
      pathValues(fields, path.split('.'), 0, out);
      return out;
    },
  };
}

// Test values, none real: a Luhn-valid test card, AWS's documented example keys, a JWT of {"alg":"HS256"}.
const CARD = '4111 1111 1111 1111';
const KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';

describe('masking', () => {
  it.each([
    ['email', 'mail jane.doe+tag@example.co.uk now', 'mail [masked:email] now'],
    ['creditCard', `card ${CARD} ok`, 'card [masked:creditCard] ok'],
    ['creditCard with dashes', 'card 5500-0000-0000-0004.', 'card [masked:creditCard].'],
    ['awsAccessKeyId', `key=${KEY_ID}`, 'key=[masked:awsAccessKeyId]'],
    [
      'awsSecretKey named',
      `aws_secret_access_key = ${SECRET}`,
      'aws_secret_access_key = [masked:awsSecretKey]',
    ],
    ['awsSecretKey bare', `token ${SECRET} end`, 'token [masked:awsSecretKey] end'],
    ['jwt', `Bearer ${JWT}`, 'Bearer [masked:jwt]'],
    ['ipv4', 'from 10.1.22.254 to 192.168.0.1', 'from [masked:ipv4] to [masked:ipv4]'],
    ['ipv6', 'from 2001:db8::8a2e:370:7334 ok', 'from [masked:ipv6] ok'],
    ['custom', 'iban DE89370400440532013000', 'iban [masked:iban]'],
  ])('masks %s', (_, text, expected) => {
    expect(mask(ALL, text)).toBe(expected);
  });

  it.each([
    ['a number that fails the Luhn check', 'order 4111 1111 1111 1112'],
    ['a SHA-1 in hex (no upper case)', 'commit 2fd4e1c67a2d28fced849ee1bb76e7391b93eb12'],
    ['a time of day', 'at 12:30:45 today'],
    ['a version number', 'v1.2.3 released'],
    ['plain text', 'order accepted for customer 42'],
  ])('leaves %s alone', (_, text) => {
    expect(mask(ALL, text)).toBeUndefined();
  });

  it('checks card numbers with Luhn', () => {
    expect(luhnValid(CARD)).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
  });

  it('masks the string values of a JSON message, never its keys, numbers or structure', () => {
    const text =
      '{"user":"jane@example.com","jane@example.com":1,"n":4111111111111111,"nested":{"ip":"10.0.0.1"}}';
    const masked = maskJson(text, ALL);
    expect(masked).toBe(
      '{"user":"[masked:email]","jane@example.com":1,"n":4111111111111111,"nested":{"ip":"[masked:ipv4]"}}',
    );
  });

  it('masks a value written with escapes, and writes it back as JSON', () => {
    expect(maskJson('{"u":"jane\\u0040example.com \\"quoted\\""}', ALL)).toBe(
      '{"u":"[masked:email] \\"quoted\\""}',
    );
  });

  it('tells its tally what it masked, by detector', () => {
    const masker = new Masker({ detectors: ['email', 'ipv4'], custom: [] });
    const counts: Record<string, number> = {};
    masker.mask('a@b.io c@d.io 10.0.0.1', (d, n) => (counts[d] = (counts[d] ?? 0) + n));
    expect(counts).toEqual({ email: 2, ipv4: 1 });
  });

  it('property: no generated secret survives, wherever it sits in the text', () => {
    const secret = fc.oneof(
      fc
        .tuple(fc.stringMatching(/^[a-z]{1,10}$/), fc.stringMatching(/^[a-z]{1,10}$/))
        .map(([a, b]) => `${a}@${b}.com`),
      fc.constantFrom(CARD, '5500000000000004', '378282246310005', KEY_ID, SECRET, JWT),
    );
    const filler = fc.stringMatching(/^[a-z ,;]{0,30}$/);
    fc.assert(
      fc.property(filler, secret, filler, (before, value, after) => {
        const text = `${before} ${value} ${after}`;
        const masked = maskMessage(text, ALL, uncounted) ?? text;
        expect(masked).not.toContain(value);
        expect(masked).toContain('[masked:');
        // As a JSON string value too.
        const json = JSON.stringify({ message: text, nested: { v: value } });
        const maskedJson = maskMessage(json, ALL, uncounted) ?? json;
        expect(maskedJson).not.toContain(value);
        expect(Object.keys(JSON.parse(maskedJson) as object)).toEqual(['message', 'nested']);
      }),
      { numRuns: 500 },
    );
  });

  it('property: text with nothing to find is left exactly as it was', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z ,;!?()-]{0,200}$/), (text) => {
        expect(mask(ALL, text)).toBeUndefined();
      }),
    );
  });
});

describe('drop rules', () => {
  const drop = createDropMatcher([
    { name: 'health', messagePattern: '^GET /health' },
    { name: 'debug', field: 'level', fieldPattern: '^DEBUG$' },
    { name: 'slow-ok', messagePattern: 'done', field: 'http.status', fieldPattern: '^200$' },
  ]);
  it('names the first rule an event meets; every condition of a rule must hold', () => {
    expect(drop?.(subject('GET /health 200', undefined))).toBe('health');
    expect(drop?.(subject('x', { level: 'DEBUG' }))).toBe('debug');
    expect(drop?.(subject('done', { http: { status: 200 } }))).toBe('slow-ok');
    expect(drop?.(subject('done', { http: { status: 500 } }))).toBeUndefined();
    expect(drop?.(subject('GET /orders', { level: 'INFO' }))).toBeUndefined();
  });
  it('reads dotted paths, numbers and booleans as their JSON text, objects as nothing', () => {
    const text = (fields: Record<string, unknown>, path: string) =>
      subject('', fields).values(path).map(valueText)[0];
    expect(text({ a: { b: true } }, 'a.b')).toBe('true');
    expect(text({ a: { b: {} } }, 'a.b')).toBeUndefined();
    expect(text({ a: 1 }, 'a.b')).toBeUndefined();
  });
  it('compiles nothing for no rules', () => {
    expect(createDropMatcher([])).toBeUndefined();
  });
});

describe('multi-line join', () => {
  const events = (lines: string[]) =>
    lines.map((message, i) => ({ id: `id-${i}`, timestamp: 1000 + i, message }));

  it('joins a Java stack trace into the line before it, keeping its id and timestamp', () => {
    const joined = joinContinuations(
      events([
        'ERROR failed\n',
        'java.lang.IllegalStateException: boom\n',
        '\tat com.example.A.run(A.java:10)\n',
        'Caused by: java.io.IOException: disk\n',
        '\t... 3 more\n',
        'INFO next\n',
      ]),
      { mode: 'java' },
    );
    expect(joined.map((j) => [j.event.id, j.joined])).toEqual([
      ['id-0', 0],
      ['id-1', 3],
      ['id-5', 0],
    ]);
    expect(joined[1].event.message).toBe(
      'java.lang.IllegalStateException: boom\n\tat com.example.A.run(A.java:10)\nCaused by: java.io.IOException: disk\n\t... 3 more',
    );
    expect(joined[1].event.timestamp).toBe(1001);
  });

  it('joins a Python traceback, header to exception line', () => {
    const joined = joinContinuations(
      events([
        'ERROR handler failed',
        'Traceback (most recent call last):',
        '  File "app.py", line 3, in <module>',
        '    main()',
        'ValueError: bad input',
        'INFO next',
      ]),
      { mode: 'python' },
    );
    expect(joined.map((j) => j.joined)).toEqual([4, 0]);
  });

  it('joins by a configured pattern; a continuation with nothing before it stays its own event', () => {
    const joined = joinContinuations(events(['+ cont', 'head', '+ more']), {
      mode: 'pattern',
      pattern: '^\\+ ',
    });
    expect(joined.map((j) => j.event.message)).toEqual(['+ cont', 'head\n+ more']);
  });

  it('property: every line is kept once, in order; each output keeps the id of its first line', () => {
    const line = fc.oneof(
      fc.stringMatching(/^[A-Z][a-z ]{0,10}$/),
      fc.constant('\tat x.Y.z(Y.java:1)'),
      fc.constant('Caused by: e'),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 30 }), (lines) => {
        const input = events(lines);
        const joined = joinContinuations(input, { mode: 'java' });
        expect(joined.flatMap((j) => j.event.message.split('\n'))).toEqual(
          lines.flatMap((l) => l.split('\n')),
        );
        expect(joined.reduce((n, j) => n + 1 + j.joined, 0)).toBe(lines.length);
        for (const j of joined)
          expect(input.some((e) => e.id === j.event.id && e.timestamp === j.event.timestamp)).toBe(true);
      }),
    );
  });
});

describe('processing through transformRecord', () => {
  const route = (processing: RouteProcessing): TransformRoute => ({
    name: 'team',
    match: { logGroupPrefix: '/app/' },
    staticFields: {},
    processing,
  });

  it('masks, drops and joins, counting each, and the original reaches no document', () => {
    const routes = new RouteTable([
      route({
        mask: { detectors: ['email'], custom: [] },
        drop: [{ name: 'health', messagePattern: '^GET /health' }],
        multiline: { mode: 'java' },
      }),
    ]);
    const envelope = makeEnvelope({ logGroup: '/app/api' }, [
      { message: '{"message":"signup","email":"jane@example.com"}' },
      { message: 'GET /health' },
      { message: 'ERROR mail to jane@example.com failed' },
      { message: '\tat a.B.c(B.java:1)' },
      { message: '{"message": "not json jane@example.com' },
    ]);
    const outcome = transformRecord(encodeEnvelope(envelope), { routes });
    if (outcome.kind !== 'data') throw new Error(outcome.kind);
    expect(outcome.processing).toEqual({ maskedValues: 3, droppedByRule: { health: 1 }, joinedLines: 1 });
    const docs = outcome.documents.map((d) => JSON.parse(d.json) as LogDocument & Record<string, unknown>);
    expect(docs).toHaveLength(3);
    expect(docs[0]).toMatchObject({ message: 'signup', email: '[masked:email]', kfek: { route: 'team' } });
    expect(docs[1]).toMatchObject({
      message: 'ERROR mail to [masked:email] failed\n\tat a.B.c(B.java:1)',
      kfek: { route: 'team', joined: 1 },
    });
    expect(docs[2].message).toBe('{"message": "not json [masked:email]');
    expect(outcome.documents.map((d) => d.json).join('')).not.toContain('jane@example.com');
  });

  it('leaves a route without processing, and events of no route, untouched', () => {
    const routes = new RouteTable([route({ drop: [] })]);
    const outcome = transformRecord(
      encodeEnvelope(makeEnvelope({ logGroup: '/other' }, [{ message: 'jane@example.com' }])),
      { routes },
    );
    if (outcome.kind !== 'data') throw new Error(outcome.kind);
    expect(outcome.processing).toBeUndefined();
    expect((JSON.parse(outcome.documents[0].json) as LogDocument).message).toBe('jane@example.com');
  });
});
