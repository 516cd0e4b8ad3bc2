/**
 * The HTTP client against a real HTTP server on 127.0.0.1 (started and stopped here). The SigV4 tests recompute
 * the signature of what the server actually received (test/helpers/sigv4-reference.ts) and compare, so a mismatch between what was signed and what fetch sent
 * (host header, path encoding, query order, body) fails here rather than as a 403 from AWS.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpClient, OpenSearchConnectionError } from '../../../core/opensearch/http';
import { referenceAuthorization, signedHeadersOf } from '../../helpers/sigv4-reference';

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

let server: Server;
let baseUrl: string;
const received: Received[] = [];
/** Status codes to answer with, in order; 200 with a JSON echo when empty. */
const script: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      });
      const status = script.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
      res.end(JSON.stringify({ status, path: req.url }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received.length = 0;
  script.length = 0;
});

const credentials = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
};

describe('createHttpClient', () => {
  test('sends JSON and parses JSON answers', async () => {
    const client = createHttpClient({ baseUrl });
    const response = await client.request({ method: 'PUT', path: '/_index_template/t', body: { a: 1 } });
    expect(response).toMatchObject({ status: 200, body: { status: 200, path: '/_index_template/t' } });
    expect(received[0]).toMatchObject({
      method: 'PUT',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
  });

  test('keeps a base path (Dashboards lives under /_dashboards) and the query string', async () => {
    const client = createHttpClient({ baseUrl: `${baseUrl}/_dashboards` });
    await client.request({
      method: 'POST',
      path: '/api/saved_objects/_bulk_create?overwrite=true',
      body: [],
    });
    expect(received[0].url).toBe('/_dashboards/api/saved_objects/_bulk_create?overwrite=true');
  });

  test('basic auth sends the Authorization header', async () => {
    const client = createHttpClient({
      baseUrl,
      auth: { kind: 'basic', username: 'kfek-admin', password: 'p@ss:word' },
    });
    await client.request({ method: 'GET', path: '/' });
    expect(received[0].headers.authorization).toBe(
      `Basic ${Buffer.from('kfek-admin:p@ss:word').toString('base64')}`,
    );
  });

  test('retries 503 and 429 with backoff, then returns the success', async () => {
    script.push(503, 429);
    const client = createHttpClient({ baseUrl, initialBackoffMillis: 1 });
    const response = await client.request({ method: 'GET', path: '/' });
    expect(response.status).toBe(200);
    expect(received).toHaveLength(3);
  });

  test('returns the last retryable answer when attempts run out, and does not retry a 400', async () => {
    script.push(503, 503, 400);
    const client = createHttpClient({ baseUrl, maxAttempts: 2, initialBackoffMillis: 1 });
    expect((await client.request({ method: 'GET', path: '/' })).status).toBe(503);
    expect((await client.request({ method: 'GET', path: '/' })).status).toBe(400);
    expect(received).toHaveLength(3);
  });

  test('fails with a connection error after the attempts when nothing listens', async () => {
    const client = createHttpClient({
      baseUrl: 'http://127.0.0.1:1',
      maxAttempts: 2,
      initialBackoffMillis: 1,
    });
    await expect(client.request({ method: 'GET', path: '/' })).rejects.toBeInstanceOf(
      OpenSearchConnectionError,
    );
  });

  test.each([
    ['/_plugins/_ism/add/logs-*?b=2&a=1', '/_plugins/_ism/add/logs-%2A?b=2&a=1'],
    // A path with an escape: SigV4 (non-S3) signs it encoded twice, /my%2520index; signing the decoded path once
    // encoded (/my%20index), as this client once did, is refused by AWS.
    ['/my%20index/_doc/a:b?q=level:ERROR', '/my%20index/_doc/a%3Ab?q=level%3AERROR'],
    ['/caf\u00e9/_search?q=a+b&x=', '/caf%C3%A9/_search?q=a%20b&x='],
  ])(
    'SigV4: what is sent for %j is signed as AWS expects (service es, the region, the body)',
    async (path, sent) => {
      // GIVEN
      const client = createHttpClient({ baseUrl, auth: { kind: 'sigv4', region: 'eu-west-1', credentials } });

      // WHEN
      await client.request({ method: 'POST', path, body: { policy_id: 'kfek-logs-retention' } });

      // THEN: recomputed independently from what the server received.
      const got = received[0];
      expect(got.url).toBe(sent);
      const authorization = String(got.headers.authorization);
      expect(authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/es\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
      );
      const expected = referenceAuthorization(
        { method: got.method, target: got.url, headers: got.headers, body: got.body },
        { ...credentials, service: 'es', region: 'eu-west-1' },
        signedHeadersOf(authorization),
      );
      expect(authorization).toBe(expected);
    },
  );
});
