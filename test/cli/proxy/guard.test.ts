/**
 * `kfek proxy`'s guards against web pages and against clients that hold memory or connections: Fetch Metadata
 * refusals, the bound on buffered request bodies, and the header, request and upstream timeouts. A real upstream
 * HTTP server on 127.0.0.1 counts what reaches it; raw sockets play the slow clients. Nothing of the proxy is mocked.
 *
 * The timeout tests use Node's own server timers, which run on the wall clock and cannot take an injected one; they
 * use timeouts of a few hundred milliseconds and bound each test to a few seconds.
 */
import * as http from 'node:http';
import {
  connect as connectSocket,
  createServer as createNetServer,
  type AddressInfo,
  type Socket,
} from 'node:net';
import type { AwsCredentialIdentity } from '@smithy/types';
import { run } from '../../../cli/main';
import { createSigningProxy, type SigningProxy, type SigningProxyOptions } from '../../../cli/proxy';
import { freeClosedPort, send, waitFor } from '../../helpers/raw-http';

const CREDENTIALS: AwsCredentialIdentity = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };
const MIB = 1024 * 1024;

interface Upstream {
  readonly origin: string;
  /** `METHOD target` of every request that arrived, in order. */
  readonly received: string[];
  /** While set, answers wait for it: the proxy keeps each admitted body buffered until the upstream answers. */
  hold: Promise<void> | undefined;
  close(): Promise<void>;
}

async function startUpstream(): Promise<Upstream> {
  const state: { hold: Promise<void> | undefined } = { hold: undefined };
  const received: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(`${req.method ?? ''} ${req.url ?? ''}`);
      void (state.hold ?? Promise.resolve()).then(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true}');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    get hold() {
      return state.hold;
    },
    set hold(h: Promise<void> | undefined) {
      state.hold = h;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let upstream: Upstream;
const proxies: SigningProxy[] = [];

async function startProxy(options: Partial<SigningProxyOptions> = {}): Promise<SigningProxy> {
  const proxy = await createSigningProxy({
    endpoint: upstream.origin,
    region: 'eu-west-1',
    port: 0,
    credentials: CREDENTIALS,
    ...options,
  });
  proxies.push(proxy);
  return proxy;
}

beforeEach(async () => {
  upstream = await startUpstream();
});

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await upstream.close();
});

describe('Fetch Metadata', () => {
  test('fails when a page on another site makes the browser send a GET without Origin (an <img>, a link)', async () => {
    // GIVEN a proxy
    const proxy = await startProxy();

    // WHEN a cross-site page embeds <img src="http://127.0.0.1:PORT/_refresh"> and links to the same URL
    const image = await send(proxy.url, '/_refresh', {
      headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
    });
    const navigation = await send(proxy.url, '/_refresh', {
      headers: {
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'navigate',
        'sec-fetch-dest': 'document',
        'sec-fetch-user': '?1',
      },
    });

    // THEN both are refused with a reason, and nothing was signed or sent upstream
    for (const answer of [image, navigation]) {
      expect(answer.status).toBe(403);
      expect(answer.body.toString()).toMatch(/Sec-Fetch-Site: cross-site.*refused.*signs as you/);
    }
    expect(upstream.received).toEqual([]);
  });

  test('fails when a page on the same site but another origin (another local port) sends a request', async () => {
    // GIVEN a proxy, and a dev server on http://127.0.0.1:3000 (same site, another origin)
    const proxy = await startProxy();

    // WHEN that page posts to the proxy with a form (no CORS preflight, no Origin check possible for navigations)
    const answer = await send(proxy.url, '/logs/_doc', {
      method: 'POST',
      body: Buffer.from('{"x":1}'),
      headers: { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', 'content-type': 'text/plain' },
    });

    // THEN
    expect(answer.status).toBe(403);
    expect(answer.body.toString()).toContain('Sec-Fetch-Site: same-site');
    expect(upstream.received).toEqual([]);
  });

  test('fails when Sec-Fetch-Site has a value the spec does not define', async () => {
    const proxy = await startProxy();

    const answer = await send(proxy.url, '/', { headers: { 'sec-fetch-site': 'cross-origin' } });

    expect(answer.status).toBe(403);
    expect(answer.body.toString()).toContain('Sec-Fetch-Site: cross-origin');
    expect(upstream.received).toEqual([]);
  });

  test('relays Dashboards itself (same-origin), a typed URL or bookmark (none), and clients that send none (curl)', async () => {
    // GIVEN
    const proxy = await startProxy();

    // WHEN
    const sameOrigin = await send(proxy.url, '/_dashboards/api/status', {
      headers: { 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' },
    });
    const typed = await send(proxy.url, '/_dashboards', {
      headers: { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' },
    });
    const curl = await send(proxy.url, '/_cat/indices');

    // THEN
    expect([sameOrigin.status, typed.status, curl.status]).toEqual([200, 200, 200]);
    expect(upstream.received).toEqual([
      'GET /_dashboards/api/status',
      'GET /_dashboards',
      'GET /_cat/indices',
    ]);
  });
});

describe('on port 80', () => {
  test("accepts what a browser sends there: Host and Origin without the port (http's default)", async () => {
    // GIVEN a proxy told it listens on port 80 (binding 80 needs root): it listens on a free port, whose number
    // the test keeps to reach it
    const realAddress = http.Server.prototype.address;
    let realPort = 0;
    const address = jest.spyOn(http.Server.prototype, 'address').mockImplementationOnce(function (
      this: http.Server,
    ) {
      realPort = (realAddress.call(this) as AddressInfo).port;
      return { address: '127.0.0.1', family: 'IPv4', port: 80 };
    });
    const proxy = await startProxy();
    address.mockRestore();
    expect(proxy.url).toBe('http://127.0.0.1:80');
    // WHEN a browser opens http://127.0.0.1/_dashboards, and Dashboards posts from http://localhost
    const opened = await send(`http://127.0.0.1:${realPort}`, '/_dashboards', {
      headers: { host: '127.0.0.1', 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' },
    });
    const posted = await send(`http://127.0.0.1:${realPort}`, '/_dashboards/api/x', {
      method: 'POST',
      body: '{}',
      headers: { host: 'localhost', origin: 'http://localhost', 'sec-fetch-site': 'same-origin' },
    });
    // THEN both reach the domain
    expect([opened.status, posted.status]).toEqual([200, 200]);
    expect(upstream.received).toEqual(['GET /_dashboards', 'POST /_dashboards/api/x']);
  });

  test('still refuses a Host without the port on any other port', async () => {
    const proxy = await startProxy();
    const answer = await send(proxy.url, '/_dashboards', { headers: { host: '127.0.0.1' } });
    expect(answer.status).toBe(403);
    expect(upstream.received).toEqual([]);
  });
});

describe('buffered request bodies', () => {
  test('fails when concurrent large bodies would exceed the total buffer: 503 with Retry-After, cap never exceeded', async () => {
    // GIVEN a proxy that buffers at most 2.5 MiB in total, an upstream that holds its answers (so every admitted
    // body stays buffered), and a hook that sees every change of the buffered total
    let release = (): void => undefined;
    upstream.hold = new Promise<void>((resolve) => (release = resolve));
    const buffered: number[] = [];
    const proxy = await startProxy({
      maxBodyBytes: MIB,
      maxBufferedBytes: 2.5 * MIB,
      maxConcurrentBodies: 10,
      onBufferedBytes: (bytes) => buffered.push(bytes),
    });

    // WHEN four 1 MiB bodies arrive at once, two with a content-length and two chunked
    const body = Buffer.alloc(MIB, 'x');
    const half = body.subarray(0, MIB / 2);
    const answers = Promise.all([
      send(proxy.url, '/_bulk', { method: 'POST', body }),
      send(proxy.url, '/_bulk', { method: 'POST', body }),
      send(proxy.url, '/_bulk', { method: 'POST', chunks: [half, half] }),
      send(proxy.url, '/_bulk', { method: 'POST', chunks: [half, half] }),
    ]);
    await waitFor(() => upstream.received.length === 2);
    release();
    const statuses = await answers;

    // THEN two got through, two were refused with a clear 503, and the total never passed the cap
    const refused = statuses.filter((a) => a.status === 503);
    expect(statuses.filter((a) => a.status === 200)).toHaveLength(2);
    expect(refused).toHaveLength(2);
    for (const answer of refused) {
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.body.toString()).toMatch(
        /already buffers .* of request bodies.*at most 2621440 bytes.*retry/i,
      );
    }
    expect(Math.max(...buffered)).toBeGreaterThanOrEqual(2 * MIB);
    expect(Math.max(...buffered)).toBeLessThanOrEqual(2.5 * MIB);
    expect(buffered[buffered.length - 1]).toBe(0);
  });

  test('fails when more bodies than allowed are in flight at once: 503, bodyless requests still pass', async () => {
    // GIVEN a proxy that handles at most two requests with bodies at a time, and an upstream that holds answers
    let release = (): void => undefined;
    upstream.hold = new Promise<void>((resolve) => (release = resolve));
    const proxy = await startProxy({ maxConcurrentBodies: 2 });

    // WHEN three small bodies arrive at once, and a GET while they wait
    const posts = [1, 2, 3].map((n) =>
      send(proxy.url, `/logs/_doc/${n}`, { method: 'PUT', body: Buffer.from('{"a":1}') }),
    );
    await waitFor(() => upstream.received.length === 2);
    const refused = await Promise.race(posts);
    const get = send(proxy.url, '/_cluster/health');
    await waitFor(() => upstream.received.length === 3);
    release();
    const answers = await Promise.all([...posts, get]);

    // THEN
    expect(refused.status).toBe(503);
    expect(refused.body.toString()).toMatch(/2 requests with bodies are in flight.*at most 2.*retry/i);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 503]);
  });

  test('a client that goes away mid-body gives its bytes and its slot back', async () => {
    // GIVEN a proxy with room for one body at a time
    const buffered: number[] = [];
    const proxy = await startProxy({
      maxBodyBytes: MIB,
      maxBufferedBytes: MIB,
      maxConcurrentBodies: 1,
      onBufferedBytes: (bytes) => buffered.push(bytes),
    });

    // WHEN a client announces 1 MiB, sends half and disconnects
    const socket = await openSocket(proxy.url);
    socket.write(
      `POST /_bulk HTTP/1.1\r\nHost: ${new URL(proxy.url).host}\r\nContent-Length: ${MIB}\r\n\r\n`,
    );
    socket.write(Buffer.alloc(MIB / 2, 'x'));
    await waitFor(() => buffered.length > 0);
    socket.destroy();
    await waitFor(() => buffered[buffered.length - 1] === 0);

    // THEN the next full-size body is admitted
    const next = await send(proxy.url, '/_bulk', { method: 'POST', body: Buffer.alloc(MIB, 'x') });
    expect(next.status).toBe(200);
    await waitFor(() => buffered.length === 4);
    expect(buffered).toEqual([MIB, 0, MIB, 0]);
  });

  test('fails when a chunked body grows past the per-request cap: 413, nothing sent', async () => {
    const proxy = await startProxy({ maxBodyBytes: 1024 });

    const answer = await send(proxy.url, '/_bulk', {
      method: 'POST',
      chunks: [Buffer.alloc(800, 'x'), Buffer.alloc(800, 'x')],
    });

    expect(answer.status).toBe(413);
    expect(answer.body.toString()).toContain('larger than 1024 bytes');
    expect(upstream.received).toEqual([]);
  });

  test('fails to start when the total buffer cannot hold one largest body', async () => {
    await expect(startProxy({ maxBodyBytes: 2 * MIB, maxBufferedBytes: MIB })).rejects.toThrow(
      /maxBufferedBytes \(1048576\) must be at least maxBodyBytes \(2097152\)/,
    );
  });
});

describe('timeouts', () => {
  test('fails when a client trickles its headers (slowloris): the connection is closed after the header timeout', async () => {
    // GIVEN a proxy that allows 300 ms for a request's headers
    const proxy = await startProxy({ headersTimeoutMillis: 300, requestTimeoutMillis: 1000 });
    const socket = await openSocket(proxy.url);

    // WHEN a client sends one header line every 100 ms, never finishing
    const started = performance.now();
    socket.write(`GET /_refresh HTTP/1.1\r\nHost: ${new URL(proxy.url).host}\r\n`);
    const trickle = setInterval(() => socket.write(`X-Slow-${Math.random()}: 1\r\n`), 100);
    try {
      const { answer, elapsedMillis } = await closedWithin(socket, 3000, started);

      // THEN the proxy answered 408 and closed the connection well before the test's bound
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(elapsedMillis).toBeLessThan(2500);
      expect(upstream.received).toEqual([]);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  test('fails when a client trickles its body: the connection is closed after the request timeout', async () => {
    // GIVEN a proxy that allows 600 ms for a whole request
    const proxy = await startProxy({ headersTimeoutMillis: 300, requestTimeoutMillis: 600 });
    const socket = await openSocket(proxy.url);

    // WHEN a client announces 1000 bytes and sends one every 100 ms
    const started = performance.now();
    socket.write(`POST /_bulk HTTP/1.1\r\nHost: ${new URL(proxy.url).host}\r\nContent-Length: 1000\r\n\r\n`);
    const trickle = setInterval(() => socket.write('x'), 100);
    try {
      const { elapsedMillis } = await closedWithin(socket, 4000, started);

      // THEN
      expect(elapsedMillis).toBeLessThan(3000);
      expect(upstream.received).toEqual([]);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  });

  test('answers 504 with the reason when the domain accepts the connection and never answers', async () => {
    // GIVEN an upstream that accepts connections and stays silent
    const sockets: Socket[] = [];
    const silent = createNetServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    try {
      const proxy = await startProxy({ endpoint: `http://127.0.0.1:${port}`, upstreamTimeoutMillis: 300 });

      // WHEN
      const started = performance.now();
      const answer = await send(proxy.url, '/_search');

      // THEN
      expect(answer.status).toBe(504);
      expect(answer.body.toString()).toMatch(
        /cannot reach http:\/\/127\.0\.0\.1:\d+: .*no answer within 300 ms/,
      );
      expect(performance.now() - started).toBeLessThan(2500);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  test('a slow answer from the domain is not cut by the request timeout (it bounds only receiving the request)', async () => {
    // GIVEN a proxy with a short request timeout, and an upstream that answers after it
    let release = (): void => undefined;
    upstream.hold = new Promise<void>((resolve) => (release = resolve));
    const proxy = await startProxy({ headersTimeoutMillis: 200, requestTimeoutMillis: 300 });

    // WHEN
    const answer = send(proxy.url, '/_search');
    await waitFor(() => upstream.received.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    release();

    // THEN
    expect((await answer).status).toBe(200);
  });
});

describe('`kfek proxy` options', () => {
  test('--headers-timeout and --max-bodies reach the proxy', async () => {
    // GIVEN the CLI with credentials in the environment, an STS nobody answers (not fatal), and tight limits
    const saved = { ...process.env };
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' });
    delete process.env.AWS_PROFILE;
    const stsPort = await freeClosedPort();
    const port = await freeClosedPort();
    const out: string[] = [];
    const stop = new AbortController();
    let release = (): void => undefined;
    upstream.hold = new Promise<void>((resolve) => (release = resolve));
    const argv = ['proxy', '--endpoint', upstream.origin, '--port', String(port)];
    const limits = ['--headers-timeout', '300ms', '--request-timeout', '1s', '--max-bodies', '1'];
    try {
      const exit = run([...argv, ...limits], {
        stdout: { write: (t: string) => out.push(t) },
        stderr: { write: () => undefined },
        env: { AWS_ENDPOINT_URL_STS: `http://127.0.0.1:${stsPort}` },
        stop: stop.signal,
      });
      await waitFor(() => out.join('').includes('Ctrl-C'));
      const base = `http://127.0.0.1:${port}`;

      // WHEN one body is in flight and a second arrives, and a client trickles its headers
      const first = send(base, '/a/_doc', { method: 'POST', body: '{}' });
      await waitFor(() => upstream.received.length === 1);
      const second = await send(base, '/b/_doc', { method: 'POST', body: '{}' });
      release();
      const socket = await openSocket(base);
      const started = performance.now();
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
      const trickle = setInterval(() => socket.write('X-Slow: 1\r\n'), 100);
      const slow = await closedWithin(socket, 3000, started).finally(() => clearInterval(trickle));
      stop.abort();

      // THEN
      expect((await first).status).toBe(200);
      expect(second.status).toBe(503);
      expect(slow.answer).toMatch(/^HTTP\/1\.1 408/);
      expect(await exit).toBe(0);
    } finally {
      stop.abort();
      release();
      process.env = saved;
    }
  });
});

function openSocket(base: string): Promise<Socket> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connectSocket(Number(url.port), url.hostname, () => resolve(socket));
    socket.on('error', reject);
  });
}

/** Resolves with what the server wrote once it closes the connection; rejects after `boundMillis`. */
function closedWithin(
  socket: Socket,
  boundMillis: number,
  started: number,
): Promise<{ answer: string; elapsedMillis: number }> {
  return new Promise((resolve, reject) => {
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    const timer = setTimeout(
      () => reject(new Error(`the proxy kept the connection open for ${boundMillis} ms`)),
      boundMillis,
    );
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ answer, elapsedMillis: performance.now() - started });
    });
  });
}
