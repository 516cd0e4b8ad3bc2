/**
 * A raw HTTP/1.1 client for tests of servers on 127.0.0.1: no fetch, which would normalize the request target and
 * add headers of its own, and one connection per request.
 */
import * as http from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';

export interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

export interface SendOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: Buffer | string;
  /** Written one by one, so the request goes out chunked (no content-length); instead of `body`. */
  readonly chunks?: readonly Buffer[];
}

/**
 * Sends one request and resolves with the answer. A server may answer and close before it has read the whole
 * body (a 413 or 503): the resulting EPIPE or ECONNRESET on the request side is not an error, the answer is.
 */
export function send(base: string, target: string, options: SendOptions = {}): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path: target,
        headers: options.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    if (options.chunks !== undefined) {
      for (const chunk of options.chunks) req.write(chunk);
      req.end();
    } else {
      req.end(options.body);
    }
  });
}

/** Polls `condition` every 20 ms; rejects after `timeoutMillis`. */
export async function waitFor(condition: () => boolean, timeoutMillis = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMillis;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A port on 127.0.0.1 that was free a moment ago and that nothing listens on. */
export function freeClosedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
