/**
 * The one request-path builder (core/opensearch/request-path.ts), over generated names: every name it accepts is
 * one encoded segment that decodes back to exactly that name, survives the SigV4 signer's canonical form and the
 * URL parser unchanged, and is signed as AWS expects; every name that could address something else is refused.
 * The real node holds the same over live objects: request-path.integ.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { canonicalTarget } from '../../../core/aws-signing';
import { createHttpClient } from '../../../core/opensearch/http';
import {
  chunkNames,
  isAddressable,
  MAX_REQUEST_LINE_BYTES,
  MAX_TARGET_BYTES,
  mappingPath,
  name,
  type NameKind,
  nameProblem,
  RequestPathError,
  requestPath,
  rolePath,
  savedObjectPath,
} from '../../../core/opensearch/request-path';
import { generatedName } from '../../helpers/hostile-names';
import { referenceAuthorization, signedHeadersOf } from '../../helpers/sigv4-reference';

const KINDS: readonly NameKind[] = [
  'index',
  'index template',
  'ingest pipeline',
  'ISM policy',
  'security role',
  'role mapping',
  'saved object',
];

/** Hostile and legal names of every shape (test/helpers/hostile-names.ts). */
const hostileName = generatedName(8, [fc.string({ unit: 'binary', maxLength: 4 })]);
const anyName = fc.oneof(hostileName, fc.string({ unit: 'binary', minLength: 0, maxLength: 300 }));

/** The one data segment of `/_x/<segment>/_y`. */
function segmentOf(path: string): string {
  const parts = path.split('/');
  expect(parts).toHaveLength(4);
  return parts[2];
}

describe('requestPath', () => {
  test('an accepted name is exactly one segment that decodes back to the name, whatever the name', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KINDS), anyName, (kind, value) => {
        // GIVEN a name of any kind
        fc.pre(isAddressable(kind, value));

        // WHEN
        const path = requestPath(['_x', name(kind, value), '_y']);

        // THEN: one segment, only unreserved characters and escapes, decoded once it is the name again.
        const segment = segmentOf(path);
        expect(segment).toMatch(/^(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})+$/);
        expect(decodeURIComponent(segment)).toBe(value);
        expect(segment).not.toMatch(/^\.{1,2}$/);
        // The signer sends and signs this exact path; the URL parser (plain HTTP) keeps it too.
        expect(canonicalTarget(path).path).toBe(path);
        expect(new URL(`http://127.0.0.1${path}`).pathname).toBe(path);
      }),
      { numRuns: 3000 },
    );
  });

  test('fails when a name could address another object: every refusal is a RequestPathError naming the value', () => {
    fc.assert(
      fc.property(fc.constantFrom(...KINDS), anyName, (kind, value) => {
        // GIVEN a name with a separator, a dot segment, an escape of one, or an invisible character
        const dangerous =
          value === '' ||
          value === '.' ||
          value === '..' ||
          /[/\\,*?#\s\p{Cc}\p{Cf}]/u.test(value) ||
          /%(2[cCfFaA3eE5]|3[fF]|5[cC]|[01][0-9a-fA-F]|7[fF]|20|25)/.test(value);
        fc.pre(dangerous);

        // WHEN / THEN
        expect(() => requestPath(['_x', name(kind, value)])).toThrow(RequestPathError);
        expect(() => requestPath(['_x', name(kind, value)])).toThrow(JSON.stringify(value));
      }),
      { numRuns: 3000 },
    );
  });

  test.each([
    ['saved object', 'kfek-x/../../../../../_plugins/_security/api/rolesmapping/all_access', '"/"'],
    ['index', 'logs-a%2cvictim', '%2c'],
    ['index', 'logs-a,victim', '","'],
    ['security role', '..', 'dot segment'],
    ['index', 'Logs-a', 'lowercase'],
    ['index', '_logs', 'do not start'],
    ['index', `logs-${'a'.repeat(251)}`, '256 bytes'],
    ['role mapping', 'kfek_reader\u200b', 'U+200B'],
    ['ingest pipeline', 'kfek-logs-document-id\n', 'U+000A'],
    ['saved object', '', 'empty'],
    ['ISM policy', 'kfek-\ud800', 'surrogate'],
  ] as const)('fails when the %s is %j', (kind, value, reason) => {
    // GIVEN / WHEN / THEN
    expect(nameProblem(kind, value)).toContain(reason);
    expect(() => requestPath(['_x', name(kind, value)])).toThrow(
      /Refused to address the .*kfek does not touch it/,
    );
  });

  test('encodes names other layers would read differently (":", unicode, a harmless escape)', () => {
    expect(rolePath('kfek_team:a')).toBe('/_plugins/_security/api/roles/kfek_team%3Aa');
    expect(mappingPath('caf\u00e9')).toBe('/_plugins/_security/api/rolesmapping/caf%C3%A9');
    expect(savedObjectPath('index-pattern/kfek-%41')).toBe('/api/saved_objects/index-pattern/kfek-%2541');
    expect(requestPath(['_plugins', '_ism', 'policies'], { size: 1000, from: 0, x: undefined })).toBe(
      '/_plugins/_ism/policies?size=1000&from=0',
    );
  });

  test('fails when a saved-object key has no id, or an id with a "/"', () => {
    expect(() => savedObjectPath('index-pattern')).toThrow(RequestPathError);
    expect(() => savedObjectPath('index-pattern/kfek-x/../../_plugins')).toThrow(RequestPathError);
  });
});

describe('chunkNames', () => {
  test('a 200-character stem with 20 daily indices: every request line under 4 KiB, every name once, in order', () => {
    // GIVEN the longest stems the docs allow, as the provisioner and the doctor describe them
    const stem = `l${'o'.repeat(199)}`;
    const indices = Array.from({ length: 20 }, (_, d) => `${stem}-2026.11.${String(d + 1).padStart(2, '0')}`);

    // WHEN
    const targets = chunkNames('index', indices, (list) =>
      requestPath([list, '_settings', 'index.number_of_replicas'], { flat_settings: true }),
    );

    // THEN
    expect(targets.length).toBeGreaterThan(1);
    for (const t of targets)
      expect(`DELETE ${t} HTTP/1.1`.length).toBeLessThanOrEqual(MAX_REQUEST_LINE_BYTES);
    expect(targets.flatMap((t) => t.split('/')[1].split(','))).toEqual(indices);
  });

  test('splits by the bytes of the encoded line, not by count', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }), { maxLength: 200 }),
        fc.integer({ min: 300, max: MAX_TARGET_BYTES }),
        (raw, budget) => {
          // GIVEN addressable names, some of them multi-byte (encoded up to 12 bytes per character)
          const values = raw.map((r) => `k${r}`).filter((v) => isAddressable('security role', v));

          // WHEN
          const render = (list: ReturnType<typeof name>): string => requestPath(['_a', list, '_b']);
          const targets = chunkNames('security role', values, render, budget);

          // THEN
          for (const t of targets) expect(Buffer.byteLength(t)).toBeLessThanOrEqual(budget);
          const back = targets.flatMap((t) => t.split('/')[2].split(',').map(decodeURIComponent));
          expect(back).toEqual(values);
        },
      ),
      { numRuns: 300 },
    );
  });

  test('fails when one name alone cannot fit in a request line', () => {
    expect(() => chunkNames('index', ['a'.repeat(200)], (list) => requestPath([list, '_x']), 100)).toThrow(
      /request line would exceed 4096 bytes/,
    );
  });
});

describe('what the HTTP client sends for a built path', () => {
  let server: Server;
  let baseUrl: string;
  const received: { url: string; headers: Record<string, unknown>; body: string }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  test('arrives byte for byte as built, and is signed as AWS recomputes it (SigV4, es)', async () => {
    const credentials = {
      accessKeyId: 'AKIDEXAMPLE',
      secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
    };
    const client = createHttpClient({ baseUrl, auth: { kind: 'sigv4', region: 'eu-west-1', credentials } });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...KINDS), anyName, async (kind, value) => {
        // GIVEN an addressable name
        fc.pre(isAddressable(kind, value));
        const path = requestPath(['_x', name(kind, value), '_y'], { q: value });
        received.length = 0;

        // WHEN
        await client.request({ method: 'DELETE', path });

        // THEN
        const got = received[0];
        expect(got.url).toBe(path);
        const authorization = String(got.headers.authorization);
        const expected = referenceAuthorization(
          { method: 'DELETE', target: got.url, headers: got.headers as never, body: got.body },
          { ...credentials, service: 'es', region: 'eu-west-1' },
          signedHeadersOf(authorization),
        );
        expect(authorization).toBe(expected);
      }),
      { numRuns: 150 },
    );
  });
});
