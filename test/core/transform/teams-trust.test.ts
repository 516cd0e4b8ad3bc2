/**
 * What a team is promised holds on every line (issue 29, docs/teams-and-routes.md): masking decides on what is
 * stored, not on what was written; no input makes masking throw or poison a record; route, masking, drops and joins are
 * decided per event; static fields win at every path; joins lose no line. Each class is held on both transports
 * (test/helpers/transports.ts), with generated inputs where the class is open-ended.
 */
import fc from 'fast-check';
import { gunzipSync } from 'node:zlib';
import { Masker, maskMessage } from '../../../core/transform/masking';
import { RouteTable } from '../../../core/transform/routing';
import { transformRecord } from '../../../core/transform/transform';
import { MASK_DETECTORS, type RouteProcessing, type TransformRoute } from '../../../core/contracts/routes';
import { encodeEnvelope, makeEnvelope, makeLogEvents } from '../../helpers/cloudwatch';
import { deliver, TRANSPORTS } from '../../helpers/transports';

// Test values, none real: Luhn-valid test cards, AWS's documented example keys, a JWT of {"alg":"HS256"}.
const CARDS = ['4111111111111111', '5500 0000 0000 0004', '3782-822463-10005', '6011111111111117'];
const KEY_ID = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const SECRET_NO_SYMBOL = 'wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY12';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const ALL_DETECTORS = { detectors: [...MASK_DETECTORS], custom: [] };
const uncounted = (): void => {};

function route(processing: RouteProcessing, extra: Partial<TransformRoute> = {}): TransformRoute {
  return { name: 'team', match: { logGroupPrefix: '/app/' }, staticFields: {}, processing, ...extra };
}

function record(messages: readonly string[], logGroup = '/app/api', extra: object = {}): string {
  return encodeEnvelope(
    makeEnvelope(
      { logGroup, ...extra },
      messages.map((message) => ({ message })),
    ),
  );
}

/** Every string value of a document, at any depth (keys aside). */
function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** True when no detector finds anything in any string of the documents (markers find nothing). */
function nothingDetectable(documents: readonly unknown[]): boolean {
  const masker = new Masker(ALL_DETECTORS);
  return documents.every((doc) => strings(doc).every((s) => masker.mask(s, uncounted) === undefined));
}

/** `text` as a JSON string literal with each character written as itself or as an escape, as `pick` says. */
function escaped(text: string, pick: (i: number) => number): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const code = c.charCodeAt(0).toString(16).padStart(4, '0');
    switch (pick(i) % 4) {
      case 0:
        out += JSON.stringify(c).slice(1, -1);
        break;
      case 1:
        out += `\\u${code}`;
        break;
      case 2:
        out += `\\u${code.toUpperCase()}`;
        break;
      default:
        out += c === '/' ? '\\/' : JSON.stringify(c).slice(1, -1);
    }
  }
  return `${out}"`;
}

const secret = fc.oneof(
  fc
    .tuple(fc.stringMatching(/^[a-z][a-z.]{0,8}[a-z]$/), fc.stringMatching(/^[a-z]{1,8}$/))
    .map(([a, b]) => `${a}@${b}.org`),
  fc.constantFrom(...CARDS, KEY_ID, SECRET, JWT, '10.20.30.40', '192.168.0.1', '2001:db8::8a2e:370:7334'),
  fc.stringMatching(/^[A-Z0-9]{16}$/).map((tail) => `AKIA${tail}`),
);

describe('masking decides on the decoded value', () => {
  const routes = new RouteTable([route({ mask: ALL_DETECTORS, drop: [] })]);
  const withCustom = new RouteTable([
    route({ mask: { ...ALL_DETECTORS, custom: [{ name: 'never', pattern: 'QQ[0-9]{30}QQ' }] }, drop: [] }),
  ]);

  it.each(TRANSPORTS)(
    'property (%s): a secret written with any JSON escapes, at any depth, is masked',
    async (t) => {
      await fc.assert(
        fc.asyncProperty(
          secret,
          fc.array(fc.nat(), { minLength: 60, maxLength: 60 }),
          fc.integer({ min: 0, max: 3 }),
          fc.stringMatching(/^[a-z ]{0,12}$/),
          async (value, picks, depth, filler) => {
            let json = `{"v":${escaped(`${filler} ${value} ${filler}`, (i) => picks[i % picks.length])}}`;
            for (let d = 0; d < depth; d++) json = d % 2 === 0 ? `{"n${d}":[${json}]}` : `{"n${d}":${json}}`;
            const { documents, texts } = await deliver(t, [record([json])], routes);
            expect(documents).toHaveLength(1);
            expect(texts.join('')).not.toContain(value);
            expect(nothingDetectable(documents)).toBe(true);
            // The same documents whatever else the route configures (a custom pattern that finds nothing here).
            expect((await deliver(t, [record([json])], withCustom)).texts).toEqual(texts);
          },
        ),
        { numRuns: 150 },
      );
    },
  );

  it.each([
    ['carol\\u0040example.org', 'carol@example.org'],
    ['wJalrXUtnFEMI\\/K7MDENG\\/bPxRfiCYEXAMPLEKEY', SECRET],
    ['wJalrXUtnFEMI\\u002BK7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI+K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['4111\\u003111111111111', '4111111111111111'],
    ['10\\u002e0.0.1', '10.0.0.1'],
  ])('masks %s, the same with or without a custom pattern on the route', async (written, decoded) => {
    const plain = new RouteTable([route({ mask: ALL_DETECTORS, drop: [] })]);
    const withCustom = new RouteTable([
      route({ mask: { ...ALL_DETECTORS, custom: [{ name: 'never', pattern: 'QQ\\d{30}QQ' }] }, drop: [] }),
    ]);
    const data = record([`{"v":"${written}","w":"x"}`]);
    for (const t of TRANSPORTS) {
      const a = await deliver(t, [data], plain);
      const b = await deliver(t, [data], withCustom);
      expect(a.texts.join('')).not.toContain(decoded);
      expect(a.texts).toEqual(b.texts);
    }
  });

  it.each([
    ['{"SecretAccessKey":"%s"}'],
    ['{"creds":{"aws_secret_access_key":"%s"}}'],
    ['{"a":[{"b":{"AWS_SECRET_ACCESS_KEY":"%s"}}]}'],
    ['{"config":{"secretAccessKey":"%s","region":"eu-west-1"}}'],
    ['{"k":{"secret-key":["%s"]}}'],
  ])('masks a secret key named by its key at any depth, with no / or + in it: %s', async (shape) => {
    const message = shape.replace('%s', SECRET_NO_SYMBOL);
    for (const t of TRANSPORTS) {
      const { texts } = await deliver(t, [record([message])], routes);
      expect(texts.join('')).not.toContain(SECRET_NO_SYMBOL);
      expect(texts.join('')).toContain('[masked:awsSecretKey]');
    }
  });

  it('leaves a 40-character id under an ordinary key alone', async () => {
    const { documents } = await deliver('kinesis', [record([`{"traceId":"${SECRET_NO_SYMBOL}"}`])], routes);
    expect(documents[0].traceId).toBe(SECRET_NO_SYMBOL);
  });

  it.each([
    [`GET /cb?auth=Bearer%20${JWT}&x=1`, JWT],
    [`key%3D${KEY_ID}%26next`, KEY_ID],
    ['to=carol%40example.org', 'carol%40example.org'],
    ['q=%204111111111111111', '4111111111111111'],
    ['ip=%2010.0.0.1', '10.0.0.1'],
    [`s=%2F${SECRET}`, SECRET],
  ])('masks a token after a URL-encoded separator: %s', async (line, value) => {
    for (const t of TRANSPORTS) {
      const { texts } = await deliver(t, [record([line])], routes);
      expect(texts.join('')).not.toContain(value);
    }
  });

  it.each([
    'Foo::Bar',
    'std::vector<int>',
    'ActiveRecord::Base',
    'Data::Dumper loaded',
    'a::b',
    'x = y :: z',
    'at 12:30:45',
    'mac 00:1a:2b:3c:4d:5e',
  ])('does not take "%s" for an IPv6 address', (text) => {
    expect(maskMessage(text, new Masker({ detectors: ['ipv6'], custom: [] }), uncounted)).toBeUndefined();
  });

  it.each(['::1', 'fe80::1%eth0', '2001:db8::1', 'dead:beef:cafe::1', '[2001:db8::8a2e:370:7334]:443'])(
    'still masks the IPv6 address in "%s"',
    (text) => {
      expect(maskMessage(text, new Masker({ detectors: ['ipv6'], custom: [] }), uncounted)).toContain(
        '[masked:ipv6]',
      );
    },
  );

  it('finds a card number that an order number sits beside', () => {
    const masker = new Masker({ detectors: ['creditCard'], custom: [] });
    expect(maskMessage('order 12 4111 1111 1111 1111 ok', masker, uncounted)).toBe(
      'order 12 [masked:creditCard] ok',
    );
    // A long id is no card.
    expect(maskMessage('id 41111111111111111111111', masker, uncounted)).toBeUndefined();
  });
});

describe('no line makes masking throw or poisons a record', () => {
  const routes = new RouteTable([route({ mask: ALL_DETECTORS, drop: [] })]);
  const hostile = [
    '{"path":"C:\\Windows\\system32","user":"carol@example.org"}',
    '{"a":"tab\there \\n","user":"carol@example.org"}',
    '{"u":"\\u12","mail":"carol@example.org"}',
    '{"u":"\\uZZZZ carol@example.org"}',
    '{"unterminated":"carol@example.org',
    '{"a":1} carol@example.org',
  ];

  it.each(TRANSPORTS)('(%s) delivers every event of the envelope, masked as text', async (t) => {
    const messages = ['{"ok":"first"}', ...hostile, 'last carol@example.org'];
    const { documents, texts, deadLetters } = await deliver(t, [record(messages)], routes);
    expect(deadLetters).toEqual([]);
    expect(documents).toHaveLength(messages.length);
    expect(texts.join('')).not.toContain('carol@example.org');
    expect(nothingDetectable(documents)).toBe(true);
  });

  it('property: any text in a JSON-looking message gives one document, never a poison record', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), secret, (junk, value) => {
        const outcome = transformRecord(record([`{"a":"${junk}","b":"${value}"}`, 'next']), { routes });
        expect(outcome.kind).toBe('data');
        if (outcome.kind !== 'data') return;
        expect(outcome.documents).toHaveLength(2);
        expect(outcome.documents.map((d) => d.json).join('')).not.toContain(value);
      }),
      { numRuns: 300 },
    );
  });
});

describe('nothing logged or kept quotes what a detector matches', () => {
  const routes = new RouteTable([route({ mask: ALL_DETECTORS, drop: [] })]);

  it.each(TRANSPORTS)(
    "(%s) a poison record's reason, log line and error document quote none of it",
    async (t) => {
      const notJson = Buffer.from('carol@example.org is not an envelope').toString('base64');
      const badType = encodeEnvelope({ messageType: 'carol@example.org', logEvents: [] });
      const { documents, deadLetters, logs } = await deliver(t, [notJson, badType], routes);
      expect(deadLetters).toHaveLength(2);
      for (const { reason } of deadLetters) expect(reason).not.toContain('carol');
      for (const line of logs) expect(line).not.toContain('carol');
      for (const doc of documents) expect(JSON.stringify(doc)).not.toContain('carol');
    },
  );

  it.each(TRANSPORTS)('(%s) a dead letter that could be decoded is kept masked', async (t) => {
    // More events than a record may hold: poison, but decodable.
    const logEvents = makeLogEvents(20_001, (i) => (i === 7 ? 'mail carol@example.org' : `line ${i}`));
    const data = encodeEnvelope(makeEnvelope({ logGroup: '/app/api', logEvents }));
    const { deadLetters } = await deliver(t, [data], routes);
    expect(deadLetters).toHaveLength(1);
    const kept = gunzipSync(Buffer.from(deadLetters[0].data, 'base64')).toString('utf8');
    expect(kept).not.toContain('carol@example.org');
    expect(kept).toContain('mail [masked:email]');
    expect((JSON.parse(kept) as { logEvents: unknown[] }).logEvents).toHaveLength(20_001);
  });
});

describe('per-event decisions in a centralized log stream', () => {
  const A = '111111111111';
  const B = '222222222222';
  const byAccount = (name: string, account: string, processing: RouteProcessing): TransformRoute =>
    route(processing, { name, match: { logGroup: '/central', account: [account] } });
  const routes = new RouteTable([
    byAccount('a', A, { mask: { detectors: ['email'], custom: [] }, drop: [], multiline: { mode: 'java' } }),
    byAccount('b', B, { drop: [] }),
  ]);
  const event = (account: string, message: string) => ({
    message,
    extractedFields: { '@aws.account': account, '@aws.region': 'eu-west-1' },
  });

  it.each(TRANSPORTS)("(%s) a line joins only its own account's event, under its own route", async (t) => {
    const data = encodeEnvelope(
      makeEnvelope({ logGroup: '/central' }, [
        event(A, 'ERROR in a'),
        event(B, 'ERROR in b'),
        event(A, '\tat a.A.run(carol@example.org)'),
        event(B, '\tat b.B.run(B.java:1)'),
      ]),
    );
    const { documents } = await deliver(t, [data], routes);
    const byRoute = (name: string) => documents.filter((d) => d.kfek?.route === name);
    expect(byRoute('a').map((d) => d.message)).toEqual(['ERROR in a\n\tat a.A.run([masked:email])']);
    // Route b has no multi-line rule: its continuation-looking line stays its own document, unmasked.
    expect(byRoute('b').map((d) => d.message)).toEqual(['ERROR in b', '\tat b.B.run(B.java:1)']);
    expect(byRoute('a')[0].cloudwatch.account).toBe(A);
  });
});

describe('static fields win at every path', () => {
  const routes = new RouteTable([
    route({ drop: [] }, { staticFields: { 'service.tier': 'gold', team: 'payments' } }),
  ]);

  it.each([
    ['{"service.tier":"free"}'],
    ['{"service":{"tier":"free"}}'],
    ['{"service":"web"}'],
    ['{"service.tier.level":3}'],
    ['{"team":{"name":"other"}}'],
    ['{"team.name":"other"}'],
  ])('%s keeps the static value; the app value goes to kfek.collisions', async (message) => {
    for (const t of TRANSPORTS) {
      const { documents } = await deliver(t, [record([message])], routes);
      const doc = documents[0];
      expect(doc['service.tier']).toBe('gold');
      expect(doc.team).toBe('payments');
      // Nothing else at those paths: no `service` object or value beside the static dotted field.
      expect(Object.keys(doc).filter((k) => k === 'service' || k.startsWith('service.'))).toEqual([
        'service.tier',
      ]);
      expect(Object.keys(doc).filter((k) => k.startsWith('team'))).toEqual(['team']);
      expect(doc.kfek?.collisions).toBeDefined();
    }
  });

  it('leaves an app field beside a static one alone', async () => {
    const { documents } = await deliver('kinesis', [record(['{"service.name":"api"}'])], routes);
    expect(documents[0]['service.name']).toBe('api');
    expect(documents[0].kfek?.collisions).toBeUndefined();
  });
});

describe('drops see the document', () => {
  const debug = new RouteTable([
    route({ drop: [{ name: 'debug', field: 'level', fieldPattern: '^DEBUG$' }] }),
  ]);
  it.each([
    ['Node.js', '2026-11-23T09:00:00.000Z\t6f1c1d7b-4c3b-4e6b-9a2e-2f8e0d1c0a11\tDEBUG\tcache miss'],
    ['Python', '[DEBUG]\t2026-11-23T09:00:00.000Z\t6f1c1d7b-4c3b-4e6b-9a2e-2f8e0d1c0a11\tcache miss'],
    ['Log4J', '2026-11-23 09:00:00,000 DEBUG [main] com.example.Cache - cache miss'],
    ['JSON', '{"level":"DEBUG","message":"cache miss"}'],
  ])('a rule on level drops a %s DEBUG line', async (_, line) => {
    for (const t of TRANSPORTS) {
      const { documents } = await deliver(t, [record([line, 'INFO kept'], '/app/svc')], debug);
      expect(documents.map((d) => d.message)).toEqual(['INFO kept']);
    }
  });

  it.each([['{"http.status":200}'], ['{"http":{"status":200}}'], ['{"http":{"status":[200,201]}}']])(
    'a rule on http.status sees %s',
    async (line) => {
      const routes = new RouteTable([
        route({ drop: [{ name: 'ok', field: 'http.status', fieldPattern: '^200$' }] }),
      ]);
      const { documents } = await deliver('kinesis', [record([line, '{"http.status":500}'])], routes);
      expect(documents).toHaveLength(1);
      expect(documents[0]['http.status']).toBe(500);
    },
  );

  it('a rule on a static field or a derived one reads the value the document has, not the app', async () => {
    const routes = new RouteTable([
      route(
        { drop: [{ name: 'spoof', field: 'team', fieldPattern: '^other$' }] },
        { staticFields: { team: 'payments' } },
      ),
    ]);
    const { documents } = await deliver('kinesis', [record(['{"team":"other"}'])], routes);
    expect(documents).toHaveLength(1);
  });
});

describe('joins lose no line', () => {
  const java = new RouteTable([route({ drop: [], multiline: { mode: 'java' } })]);
  const maskingJava = new RouteTable([
    route({
      mask: { detectors: [], custom: [{ name: 'n', pattern: '\\d' }] },
      drop: [],
      multiline: { mode: 'java' },
    }),
  ]);

  it.each(TRANSPORTS)(
    '(%s) a trace longer than a record is split into parts that hold every line',
    async (t) => {
      const frames = Array.from({ length: 400 }, (_, i) => `\tat com.example.Frame${i}.run(Frame.java:${i})`);
      const { documents } = await deliver(t, [record(['ERROR boom', ...frames, 'INFO after'])], java, {
        maxRecordBytes: 4096,
      });
      const parts = documents.filter((d) => d.message !== 'INFO after');
      expect(parts.length).toBeGreaterThan(1);
      expect(parts.every((d) => d.kfek?.truncated === undefined)).toBe(true);
      expect(parts.flatMap((d) => d.message.split('\n'))).toEqual(['ERROR boom', ...frames]);
      expect(parts.map((d) => d.kfek?.part)).toEqual(parts.map((_, i) => i + 1));
      const firstId = parts[0].cloudwatch.id;
      expect(parts.every((d) => d.kfek?.partOf === firstId)).toBe(true);
      expect(new Set(parts.map((d) => d.cloudwatch.id)).size).toBe(parts.length);
      const joined = parts.reduce((n, d) => n + 1 + Number(d.kfek?.joined ?? 0), 0);
      expect(joined).toBe(1 + frames.length);
    },
  );

  it('a join whose masking makes it longer than a record is split, not cut', async () => {
    const frames = Array.from({ length: 60 }, (_, i) => `\tat f${i}(F.java:${i}${i}${i}${i})`);
    const { documents } = await deliver('kinesis', [record(['ERROR 1', ...frames])], maskingJava, {
      maxRecordBytes: 4096,
    });
    expect(documents.every((d) => d.kfek?.truncated === undefined)).toBe(true);
    expect(documents.flatMap((d) => d.message.split('\n'))).toHaveLength(61);
  });

  it('joins a Python traceback whose last line is a bare exception type with a newline', async () => {
    const python = new RouteTable([route({ drop: [], multiline: { mode: 'python' } })]);
    const { documents } = await deliver(
      'kinesis',
      [
        record([
          'ERROR stopped\n',
          'Traceback (most recent call last):\n',
          '  File "app.py", line 3, in <module>\n',
          'KeyboardInterrupt\n',
          'INFO next\n',
        ]),
      ],
      python,
    );
    expect(documents.map((d) => d.kfek?.joined ?? 0)).toEqual([3, 0]);
  });
});
