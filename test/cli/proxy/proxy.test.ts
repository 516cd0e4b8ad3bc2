/**
 * `kfek proxy` against a real upstream HTTP server on 127.0.0.1 that checks every request's SigV4 signature the
 * way the domain does: it recomputes the signature from what arrived on the wire (method, raw path, query, the
 * headers named in SignedHeaders, body bytes) with the test's static credentials, independently of the signer
 * (test/helpers/sigv4-reference.ts). Nothing of the proxy is mocked.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { AwsCredentialIdentity } from '@smithy/types';
import { run } from '../../../cli/main';
import {
  createSigningProxy,
  getCallerIdentity,
  mappableArn,
  ProxyPortInUseError,
  rewriteLocation,
  type SigningProxy,
} from '../../../cli/proxy';
import { startMoto, type MotoServer } from '../../../scripts/moto-server';
import { freeClosedPort, send, waitFor } from '../../helpers/raw-http';
import { referenceAuthorization } from '../../helpers/sigv4-reference';

const REGION = 'eu-west-1';
const CREDENTIALS: AwsCredentialIdentity = {
  accessKeyId: 'AKIDEXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  sessionToken: 'session-token-example',
};

interface Received {
  readonly method: string;
  /** The request target exactly as it arrived (raw path and query). */
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
}

type Reply = (req: Received, res: http.ServerResponse) => void;

interface Upstream {
  readonly origin: string;
  readonly host: string;
  readonly received: Received[];
  reply: Reply;
  close(): Promise<void>;
}

const okJson: Reply = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
};

async function startUpstream(tlsOptions?: { key: string; cert: string }): Promise<Upstream> {
  const received: Received[] = [];
  const upstream: { reply: Reply } = { reply: okJson };
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
      };
      received.push(r);
      upstream.reply(r, res);
    });
  };
  const server =
    tlsOptions === undefined ? http.createServer(onRequest) : https.createServer(tlsOptions, onRequest);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${tlsOptions === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    received,
    get reply() {
      return upstream.reply;
    },
    set reply(r: Reply) {
      upstream.reply = r;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Recomputes the SigV4 signature of a received request, as the service does, and says whether it matches. Only
 * the headers listed in SignedHeaders take part, with the values that arrived.
 */
function signatureIsValid(r: Received, credentials: AwsCredentialIdentity = CREDENTIALS): boolean {
  const auth = String(r.headers.authorization ?? '');
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (m === null) return false;
  const [, accessKeyId, , region, service, signedHeaders] = m;
  if (accessKeyId !== credentials.accessKeyId) return false;
  // The signer trusts a present x-amz-content-sha256 header as the payload hash, so the service (and this check)
  // must hold it against the bytes that arrived.
  const payloadHash = r.headers['x-amz-content-sha256'];
  if (payloadHash !== undefined && payloadHash !== createHash('sha256').update(r.body).digest('hex'))
    return false;
  const expected = referenceAuthorization(
    { method: r.method, target: r.url, headers: r.headers, body: r.body },
    { service, region, accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey },
    signedHeaders.split(';'),
  );
  return expected === auth;
}

let upstream: Upstream;
let proxy: SigningProxy;
let lines: string[];
const identity = jest.fn(() =>
  Promise.resolve('arn:aws:sts::123456789012:assumed-role/Dev/alice@example.com'),
);

beforeAll(async () => {
  upstream = await startUpstream();
});

afterAll(async () => {
  await upstream.close();
});

beforeEach(async () => {
  upstream.received.length = 0;
  upstream.reply = okJson;
  lines = [];
  identity.mockClear();
  proxy = await createSigningProxy({
    endpoint: upstream.origin,
    region: REGION,
    port: 0,
    credentials: CREDENTIALS,
    identity,
    log: (line) => lines.push(line),
  });
});

afterEach(async () => {
  await proxy.close();
});

describe('the signature check of the test upstream', () => {
  test('fails when a signed request is tampered with', async () => {
    // GIVEN a request the proxy signed and relayed
    await send(proxy.url, '/logs/_doc', {
      method: 'POST',
      body: '{"a":1}',
      headers: { 'content-type': 'application/json' },
    });
    const [r] = upstream.received;
    expect(signatureIsValid(r)).toBe(true);

    // WHEN / THEN changing the body, the path, the signed content-type or the secret breaks it
    expect(signatureIsValid({ ...r, body: Buffer.from('{"a":2}') })).toBe(false);
    expect(signatureIsValid({ ...r, url: '/other/_doc' })).toBe(false);
    expect(signatureIsValid({ ...r, headers: { ...r.headers, 'content-type': 'text/plain' } })).toBe(false);
    expect(signatureIsValid(r, { ...CREDENTIALS, secretAccessKey: 'other' })).toBe(false);
  });
});

describe('createSigningProxy', () => {
  test('signs a search whose query has spaces, colons and plus signs, and sends what it signed', async () => {
    // WHEN a browser-style query string goes through the proxy
    const answer = await send(proxy.url, '/logs-*/_search?q=level:ERROR+AND+x&size=5&sort=%40timestamp:desc');

    // THEN the upstream got a valid signature over an unambiguous RFC 3986 query that means the same
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toBe('{"ok":true}');
    const [r] = upstream.received;
    expect(r.method).toBe('GET');
    expect(r.url).toBe('/logs-%2A/_search?q=level%3AERROR%20AND%20x&size=5&sort=%40timestamp%3Adesc');
    expect(new URL(`http://x${r.url}`).searchParams.get('q')).toBe('level:ERROR AND x');
    expect(r.headers.host).toBe(upstream.host);
    expect(r.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
    expect(String(r.headers.authorization)).toContain(`/${REGION}/es/aws4_request`);
    expect(signatureIsValid(r)).toBe(true);
  });

  test('signs an escaped path encoded twice, as AWS does for every service but S3, and sends it encoded once', async () => {
    // WHEN a path with a space, a colon, a star and a non-ASCII character goes through the proxy
    const answer = await send(proxy.url, '/my%20index/_doc/a:b*caf%C3%A9');

    // THEN
    expect(answer.status).toBe(200);
    const [r] = upstream.received;
    expect(r.url).toBe('/my%20index/_doc/a%3Ab%2Acaf%C3%A9');
    expect(signatureIsValid(r)).toBe(true);
  });

  test('relays a binary body byte for byte, signed over its exact bytes', async () => {
    // GIVEN bytes that are not UTF-8
    const body = Buffer.from([...Array.from({ length: 256 }, (_, i) => i), 0xff, 0xfe, 0xc3, 0x28]);

    // WHEN
    const answer = await send(proxy.url, '/_snapshot/x?pretty', {
      method: 'PUT',
      body,
      headers: { 'content-type': 'application/octet-stream' },
    });

    // THEN
    expect(answer.status).toBe(200);
    const [r] = upstream.received;
    expect(r.body.equals(body)).toBe(true);
    expect(r.headers['content-length']).toBe(String(body.length));
    expect(r.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(body).digest('hex'));
    expect(signatureIsValid(r)).toBe(true);
  });

  test('signs an empty POST body as the empty payload', async () => {
    await send(proxy.url, '/logs/_refresh', { method: 'POST', headers: { 'osd-xsrf': 'true' } });

    const [r] = upstream.received;
    expect(r.body.length).toBe(0);
    expect(r.headers['content-length']).toBe('0');
    expect(r.headers['x-amz-content-sha256']).toBe(createHash('sha256').update('').digest('hex'));
    expect(signatureIsValid(r)).toBe(true);
  });

  test('relays NDJSON, osd-xsrf and cookies unchanged; drops hop-by-hop headers and the browser authorization', async () => {
    // GIVEN a Dashboards-style request
    const ndjson = '{"index":{"_index":"logs-x"}}\n{"message":"h\u00e9llo"}\n';

    // WHEN
    await send(proxy.url, '/_dashboards/api/console/proxy?path=_bulk&method=POST', {
      method: 'POST',
      body: ndjson,
      headers: {
        'content-type': 'application/x-ndjson',
        'osd-xsrf': 'osd-fetch',
        'osd-version': '2.19.0',
        cookie: 'security_authentication=abc; other=1',
        authorization: 'Basic Zm9vOmJhcg==',
        connection: 'keep-alive, x-drop-me',
        'x-drop-me': 'hop',
        'keep-alive': 'timeout=5',
        'x-amz-date': '20000101T000000Z',
      },
    });

    // THEN
    const [r] = upstream.received;
    expect(r.body.toString('utf8')).toBe(ndjson);
    expect(r.headers['osd-xsrf']).toBe('osd-fetch');
    expect(r.headers['osd-version']).toBe('2.19.0');
    expect(r.headers.cookie).toBe('security_authentication=abc; other=1');
    expect(r.headers['x-drop-me']).toBeUndefined();
    expect(r.headers['keep-alive']).toBeUndefined();
    expect(String(r.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 /);
    expect(r.headers['x-amz-date']).not.toBe('20000101T000000Z');
    expect(signatureIsValid(r)).toBe(true);
  });

  test('relays status, headers and a compressed body without decompressing it', async () => {
    // GIVEN an upstream that answers gzip
    const gz = gzipSync(Buffer.from('{"hits":{"total":1}}'));
    upstream.reply = (_req, res) => {
      res.writeHead(201, {
        'content-type': 'application/json; charset=utf-8',
        'content-encoding': 'gzip',
        'x-opensearch-thing': 'yes',
        'content-length': gz.length,
      });
      res.end(gz);
    };

    // WHEN
    const answer = await send(proxy.url, '/logs/_search', { headers: { 'accept-encoding': 'gzip' } });

    // THEN
    expect(answer.status).toBe(201);
    expect(answer.headers['content-encoding']).toBe('gzip');
    expect(answer.headers['x-opensearch-thing']).toBe('yes');
    expect(answer.body.equals(gz)).toBe(true);
    expect(upstream.received[0].headers['accept-encoding']).toBe('gzip');
  });

  test('rewrites redirects to the domain to the proxy origin and frees cookies from the domain name', async () => {
    // GIVEN Dashboards' redirect from /_dashboards
    upstream.reply = (req, res) => {
      const location =
        req.url === '/_dashboards'
          ? `${upstream.origin}/_dashboards/app/home?x=1#top`
          : req.url === '/relative'
            ? '/_dashboards/app/home'
            : 'https://elsewhere.example.com/login';
      res.writeHead(302, {
        location,
        'set-cookie': [
          `security_authentication=v; Path=/_dashboards; Domain=${upstream.host.split(':')[0]}; HttpOnly`,
        ],
      });
      res.end();
    };

    // WHEN / THEN
    const home = await send(proxy.url, '/_dashboards');
    expect(home.status).toBe(302);
    expect(home.headers.location).toBe(`${proxy.url}/_dashboards/app/home?x=1#top`);
    expect(home.headers['set-cookie']).toEqual(['security_authentication=v; Path=/_dashboards; HttpOnly']);
    expect((await send(proxy.url, '/relative')).headers.location).toBe('/_dashboards/app/home');
    expect((await send(proxy.url, '/foreign')).headers.location).toBe('https://elsewhere.example.com/login');
  });

  test('passes a 403 through and prints the mapping hint once, with the role ARN to map', async () => {
    // GIVEN a domain that does not know the caller
    upstream.reply = (_req, res) => {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end('{"message":"no permissions for [indices:data/read/search]"}');
    };

    // WHEN two requests are refused
    const first = await send(proxy.url, '/logs/_search');
    await send(proxy.url, '/logs/_count');
    await new Promise((resolve) => setImmediate(resolve));

    // THEN
    expect(first.status).toBe(403);
    expect(first.body.toString()).toContain('no permissions');
    expect(identity).toHaveBeenCalledTimes(1);
    expect(lines).toEqual([
      expect.stringContaining(
        'your IAM principal arn:aws:iam::123456789012:role/Dev is not mapped: add it to ' +
          'openSearch.access.adminBackendRoles or readerBackendRoles and redeploy',
      ),
    ]);
  });

  test('names the backend role OpenSearch derived from the signature when its authinfo API answers', async () => {
    // GIVEN a domain whose security plugin authenticates the caller but maps no role (authinfo still answers)
    upstream.reply = (req, res) => {
      if (req.url === '/_plugins/_security/authinfo') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            user_name:
              'arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_Dev_1',
            backend_roles: [
              'arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_Dev_1',
            ],
            roles: [],
          }),
        );
        return;
      }
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end('{"message":"no permissions"}');
    };

    // WHEN
    await send(proxy.url, '/_dashboards/app/home');
    await waitFor(() => lines.length > 0);

    // THEN the hint quotes OpenSearch's own view, and the authinfo request was properly signed
    expect(identity).not.toHaveBeenCalled();
    expect(lines).toEqual([
      expect.stringContaining(
        'OpenSearch sees you as backend role arn:aws:iam::123456789012:role/aws-reserved/sso.amazonaws.com/eu-west-1/AWSReservedSSO_Dev_1',
      ),
    ]);
    const authinfo = upstream.received.find((r) => r.url === '/_plugins/_security/authinfo');
    expect(authinfo).toBeDefined();
    expect(signatureIsValid(authinfo as Received)).toBe(true);
  });

  test('says "mapped but not allowed" instead of "not mapped" when authinfo lists roles', async () => {
    // GIVEN a reader opening an admin page
    upstream.reply = (req, res) => {
      if (req.url === '/_plugins/_security/authinfo') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            backend_roles: ['arn:aws:iam::123456789012:role/Reader'],
            roles: ['kfek_reader', 'opensearch_dashboards_user'],
          }),
        );
        return;
      }
      res.writeHead(403);
      res.end();
    };

    // WHEN
    await send(proxy.url, '/_plugins/_security/api/roles');
    await waitFor(() => lines.length > 0);

    // THEN
    expect(lines).toEqual([
      'kfek proxy: the domain answered 403 to GET /_plugins/_security/api/roles: you (backend role ' +
        'arn:aws:iam::123456789012:role/Reader) are mapped to kfek_reader, opensearch_dashboards_user, which do not ' +
        'allow it; for full access put that backend role in openSearch.access.adminBackendRoles and redeploy.',
    ]);
    expect(identity).not.toHaveBeenCalled();
  });

  test('refuses requests for another Host name (DNS rebinding) and from other sites (CSRF), signing nothing', async () => {
    // GIVEN the proxy's own port
    const port = new URL(proxy.url).port;

    // WHEN a page on another site, or a rebinding host name, reaches the proxy
    const rebound = await send(proxy.url, '/logs/_search', { headers: { host: `evil.example:${port}` } });
    const forged = await send(proxy.url, '/logs/_doc', {
      method: 'POST',
      body: '{"x":1}',
      headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
    });

    // THEN
    expect(rebound.status).toBe(403);
    expect(rebound.body.toString()).toContain(`Host "evil.example:${port}" is not this proxy`);
    expect(forged.status).toBe(403);
    expect(forged.body.toString()).toContain('requests from pages on https://evil.example are refused');
    expect(upstream.received).toHaveLength(0);
  });

  test('accepts Dashboards itself under 127.0.0.1 or localhost, and redirects to the name the browser used', async () => {
    // GIVEN
    const port = new URL(proxy.url).port;
    upstream.reply = (_req, res) => {
      res.writeHead(302, { location: `${upstream.origin}/_dashboards/app/home` });
      res.end();
    };

    // WHEN
    const viaLocalhost = await send(proxy.url, '/_dashboards', {
      headers: { host: `localhost:${port}`, origin: `http://localhost:${port}` },
    });
    const sameOrigin = await send(proxy.url, '/_dashboards', { headers: { origin: proxy.url } });

    // THEN
    expect(viaLocalhost.status).toBe(302);
    expect(viaLocalhost.headers.location).toBe(`http://localhost:${port}/_dashboards/app/home`);
    expect(sameOrigin.headers.location).toBe(`${proxy.url}/_dashboards/app/home`);
    expect(upstream.received).toHaveLength(2);
  });

  test('answers 502 with the reason when the domain cannot be reached', async () => {
    // GIVEN a proxy in front of a port nobody listens on
    const closed = await freeClosedPort();
    const dead = await createSigningProxy({
      endpoint: `http://127.0.0.1:${closed}`,
      region: REGION,
      port: 0,
      credentials: CREDENTIALS,
      log: (line) => lines.push(line),
    });
    try {
      // WHEN
      const answer = await send(dead.url, '/_dashboards');

      // THEN
      expect(answer.status).toBe(502);
      expect(answer.body.toString()).toMatch(
        new RegExp(`cannot reach http://127.0.0.1:${closed}: .*ECONNREFUSED`),
      );
      expect(lines).toEqual([answer.body.toString()]);
    } finally {
      await dead.close();
    }
  });

  test('answers 502 and tells the user to log in when the credential chain fails', async () => {
    // GIVEN a provider that fails as the SDK chain does without credentials
    const noCreds = await createSigningProxy({
      endpoint: upstream.origin,
      region: REGION,
      port: 0,
      credentials: () => Promise.reject(new Error('Could not load credentials from any providers')),
      log: (line) => lines.push(line),
    });
    try {
      // WHEN
      const answer = await send(noCreds.url, '/_dashboards');
      await send(noCreds.url, '/_dashboards/app/home');

      // THEN nothing reached the domain, the browser and the terminal got one clear line
      expect(answer.status).toBe(502);
      expect(answer.body.toString()).toMatch(/Could not load credentials.*aws sso login.*AWS_PROFILE/);
      // A reload is what the browser's reader does next; the terminal line (shared with kfek doctor) says only the fix.
      expect(answer.body.toString()).toMatch(/Then reload the page\.$/);
      expect(upstream.received).toHaveLength(0);
      expect(lines).toHaveLength(1);
      expect(lines[0]).not.toMatch(/reload/);
    } finally {
      await noCreds.close();
    }
  });

  test('answers 502 when the credentials have expired', async () => {
    const expired = await createSigningProxy({
      endpoint: upstream.origin,
      region: REGION,
      port: 0,
      credentials: { ...CREDENTIALS, expiration: new Date(Date.now() - 1000) },
    });
    try {
      const answer = await send(expired.url, '/');
      expect(answer.status).toBe(502);
      expect(answer.body.toString()).toMatch(/expired at .*aws sso login/);
    } finally {
      await expired.close();
    }
  });

  test('asks the credential provider on every request, so refreshed credentials are used', async () => {
    // GIVEN a provider that rotates keys (as an SSO or assumed-role session does when it renews)
    let n = 0;
    const rotating = await createSigningProxy({
      endpoint: upstream.origin,
      region: REGION,
      port: 0,
      credentials: () => Promise.resolve({ ...CREDENTIALS, accessKeyId: `AKID${++n}` }),
    });
    try {
      await send(rotating.url, '/a');
      await send(rotating.url, '/b');
      const keys = upstream.received.map(
        (r) => /Credential=([^/]+)/.exec(String(r.headers.authorization))?.[1],
      );
      expect(keys).toEqual(['AKID1', 'AKID2']);
      expect(signatureIsValid(upstream.received[1], { ...CREDENTIALS, accessKeyId: 'AKID2' })).toBe(true);
    } finally {
      await rotating.close();
    }
  });

  test('answers 413 without contacting the domain when the body exceeds the cap', async () => {
    const small = await createSigningProxy({
      endpoint: upstream.origin,
      region: REGION,
      port: 0,
      credentials: CREDENTIALS,
      maxBodyBytes: 1024,
    });
    try {
      const answer = await send(small.url, '/_bulk', { method: 'POST', body: Buffer.alloc(4096, 'x') });
      expect(answer.status).toBe(413);
      expect(answer.body.toString()).toContain('larger than 1024 bytes');
      expect(upstream.received).toHaveLength(0);
    } finally {
      await small.close();
    }
  });

  test('listens on 127.0.0.1 only', async () => {
    // GIVEN the proxy's port
    const port = Number(new URL(proxy.url).port);
    expect(new URL(proxy.url).hostname).toBe('127.0.0.1');

    // WHEN / THEN no other address of this machine (IPv6 loopback, LAN addresses) accepts connections on it
    const others = [
      '::1',
      ...Object.values(networkInterfaces()).flatMap((list) =>
        (list ?? []).filter((i) => !i.internal).map((i) => i.address),
      ),
    ];
    for (const address of others) {
      await expect(connect(address, port)).rejects.toThrow(/ECONNREFUSED|EADDRNOTAVAIL|ENETUNREACH|EINVAL/);
    }
    await expect(connect('127.0.0.1', port)).resolves.toBeUndefined();
  });

  test('close() frees the port', async () => {
    const port = Number(new URL(proxy.url).port);
    await proxy.close();
    await expect(listenOn(port)).resolves.toBeUndefined();
    // Re-create so afterEach has something to close.
    proxy = await createSigningProxy({
      endpoint: upstream.origin,
      region: REGION,
      port: 0,
      credentials: CREDENTIALS,
    });
  });

  test('fails when the port is in use, with a ProxyPortInUseError', async () => {
    const port = Number(new URL(proxy.url).port);
    await expect(
      createSigningProxy({ endpoint: upstream.origin, region: REGION, port, credentials: CREDENTIALS }),
    ).rejects.toThrow(ProxyPortInUseError);
    await expect(
      createSigningProxy({ endpoint: upstream.origin, region: REGION, port, credentials: CREDENTIALS }),
    ).rejects.toThrow(new RegExp(`Port ${port} on 127.0.0.1 is already in use.*--port`));
  });
});

describe('an https upstream (self-signed certificate made with openssl)', () => {
  let dir: string;
  let secure: Upstream;
  let cert: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kfek-proxy-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    cert = readFileSync(join(dir, 'cert.pem'), 'utf8');
    secure = await startUpstream({ key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert });
  }, 30_000);

  afterAll(async () => {
    await secure?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a bare host:port means https; the host header and signature carry the port', async () => {
    // GIVEN the endpoint written as the Search stack prints it (no scheme)
    const tlsProxy = await createSigningProxy({
      endpoint: secure.host,
      region: REGION,
      port: 0,
      credentials: CREDENTIALS,
      upstreamCa: cert,
    });
    try {
      // WHEN
      const answer = await send(tlsProxy.url, '/_cluster/health?pretty');

      // THEN
      expect(tlsProxy.upstream).toBe(secure.origin);
      expect(answer.status).toBe(200);
      const [r] = secure.received;
      expect(r.headers.host).toBe(secure.host);
      expect(signatureIsValid(r)).toBe(true);
    } finally {
      await tlsProxy.close();
    }
  });

  test('refuses an upstream certificate it cannot verify (502, nothing sent)', async () => {
    secure.received.length = 0;
    const strict = await createSigningProxy({
      endpoint: secure.origin,
      region: REGION,
      port: 0,
      credentials: CREDENTIALS,
    });
    try {
      const answer = await send(strict.url, '/');
      expect(answer.status).toBe(502);
      expect(answer.body.toString()).toMatch(
        /cannot reach https:\/\/127\.0\.0\.1:\d+: .*(self[- ]signed|certificate)/i,
      );
      expect(secure.received).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});

describe('helpers', () => {
  test('mappableArn turns an assumed-role session into its role ARN and leaves users alone', () => {
    expect(mappableArn('arn:aws:sts::123456789012:assumed-role/AWSReservedSSO_Admin_0123/alice')).toBe(
      'arn:aws:iam::123456789012:role/AWSReservedSSO_Admin_0123',
    );
    expect(mappableArn('arn:aws-us-gov:sts::123456789012:assumed-role/R/s')).toBe(
      'arn:aws-us-gov:iam::123456789012:role/R',
    );
    expect(mappableArn('arn:aws:iam::123456789012:user/bob')).toBe('arn:aws:iam::123456789012:user/bob');
  });

  test('rewriteLocation matches the origin, including an explicit default port', () => {
    const up = new URL('https://search-x.eu-west-1.es.amazonaws.com');
    expect(
      rewriteLocation('https://search-x.eu-west-1.es.amazonaws.com:443/a?b=1', up, 'http://127.0.0.1:9200'),
    ).toBe('http://127.0.0.1:9200/a?b=1');
    expect(rewriteLocation('http://search-x.eu-west-1.es.amazonaws.com/a', up, 'http://127.0.0.1:9200')).toBe(
      'http://search-x.eu-west-1.es.amazonaws.com/a',
    );
  });
});

describe('with a real STS (moto server)', () => {
  let moto: MotoServer;
  beforeAll(async () => {
    moto = await startMoto();
  }, 30_000);
  afterAll(async () => {
    await moto.stop();
  });

  test('getCallerIdentity signs GetCallerIdentity and reads the ARN', async () => {
    const arn = await getCallerIdentity({
      region: REGION,
      credentials: CREDENTIALS,
      endpoint: moto.endpoint,
    });
    expect(arn).toMatch(/^arn:aws:(iam|sts)::\d{12}:/);
  });

  test('`kfek proxy` prints where to point the browser and who signs, relays, and stops on the stop signal', async () => {
    // GIVEN credentials in the environment, STS on moto, and the CLI's own process-wide credential chain
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
    });
    delete process.env.AWS_PROFILE;
    const port = await freeClosedPort();
    const out: string[] = [];
    const err: string[] = [];
    const stop = new AbortController();
    try {
      // WHEN
      const exit = run(['proxy', '--endpoint', upstream.origin, '--port', String(port), '--region', REGION], {
        stdout: { write: (s: string) => out.push(s) },
        stderr: { write: (s: string) => err.push(s) },
        env: { AWS_ENDPOINT_URL_STS: moto.endpoint },
        stop: stop.signal,
      });
      // The start asks STS who signs: seconds on a machine busy with other suites, so the bound is generous.
      await waitFor(() => out.join('').includes('Ctrl-C'), 45_000);
      const answer = await send(`http://127.0.0.1:${port}`, '/_dashboards/api/status');
      stop.abort();

      // THEN
      expect(await exit).toBe(0);
      expect(err.join('')).toBe('');
      expect(out.join('')).toMatch(
        new RegExp(
          `^kfek proxy: http://127\\.0\\.0\\.1:${port}/_dashboards -> ${upstream.origin.replace(/\./g, '\\.')} \\(signed as arn:aws:[^)]+\\)\\n`,
        ),
      );
      expect(answer.status).toBe(200);
      expect(signatureIsValid(upstream.received[0])).toBe(true);
      await expect(listenOn(port)).resolves.toBeUndefined();
    } finally {
      stop.abort();
      process.env = saved;
    }
  });
});

describe('`kfek proxy` errors', () => {
  function io(env: Record<string, string> = {}, stop?: AbortSignal) {
    const out: string[] = [];
    const err: string[] = [];
    return {
      out,
      err,
      io: {
        stdout: { write: (t: string) => out.push(t) },
        stderr: { write: (t: string) => err.push(t) },
        env,
        ...(stop !== undefined ? { stop } : {}),
      },
    };
  }

  test('fails when the region of an https endpoint cannot be told', async () => {
    const { err, io: cliIo } = io();
    expect(await run(['proxy', '--endpoint', 'https://logs.example.com'], cliIo)).toBe(2);
    expect(err.join('')).toMatch(/cannot tell the region of logs\.example\.com: pass --region/);
  });

  test('fails when the port is in use, with a one-line message', async () => {
    const { err, io: cliIo } = io();
    const port = new URL(proxy.url).port;
    expect(await run(['proxy', '--endpoint', upstream.origin, '--port', port], cliIo)).toBe(1);
    expect(err.join('')).toBe(
      `kfek: Port ${port} on 127.0.0.1 is already in use (another kfek proxy or a local OpenSearch node?): stop it ` +
        'or pick another port with --port.\n',
    );
  });

  test('fails at start with one line when the port needs root (EACCES), instead of starting at all', async () => {
    // GIVEN a listen that fails as it does for a port below 1024 without root (the tests may run as root)
    const listen = jest.spyOn(http.Server.prototype, 'listen').mockImplementationOnce(function (
      this: http.Server,
    ) {
      const denied = Object.assign(new Error('listen EACCES: permission denied 127.0.0.1:80'), {
        code: 'EACCES',
      });
      process.nextTick(() => this.emit('error', denied));
      return this;
    });
    const { out, err, io: cliIo } = io();
    try {
      // WHEN
      const code = await run(['proxy', '--endpoint', upstream.origin, '--port', '80'], cliIo);
      // THEN
      expect(code).toBe(1);
      expect(out).toEqual([]);
      expect(err.join('')).toBe(
        'kfek: Cannot listen on 127.0.0.1:80: ports below 1024 need root; pick another with --port ' +
          '(the default is 9200)\n',
      );
    } finally {
      listen.mockRestore();
    }
  });

  test('keeps running and says why when STS cannot be asked who signs', async () => {
    // GIVEN credentials but an STS endpoint nobody listens on
    const saved = { ...process.env };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'x' });
    delete process.env.AWS_PROFILE;
    const stop = new AbortController();
    const closed = await freeClosedPort();
    const { out, err, io: cliIo } = io({ AWS_ENDPOINT_URL_STS: `http://127.0.0.1:${closed}` }, stop.signal);
    try {
      // WHEN
      const exit = run(['proxy', '--endpoint', upstream.origin, '--port', '0'], cliIo);
      // The start asks STS who signs: seconds on a machine busy with other suites, so the bound is generous.
      await waitFor(() => out.join('').includes('Ctrl-C'), 45_000);
      stop.abort();

      // THEN
      expect(await exit).toBe(0);
      expect(out.join('')).toContain('(signed as no identity yet)');
      expect(err.join('')).toMatch(
        new RegExp(
          `Cannot ask STS who signs \\(GetCallerIdentity at http://127.0.0.1:${closed}: .*ECONNREFUSED`,
        ),
      );
    } finally {
      stop.abort();
      process.env = saved;
    }
  });
});

function connect(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host, port, path: '/', agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('timeout', () => req.destroy(new Error('ETIMEDOUT')));
    req.on('error', reject);
    req.end();
  });
}

function listenOn(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}
