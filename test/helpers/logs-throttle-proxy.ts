/**
 * A tiny HTTP proxy on 127.0.0.1 in front of moto that answers the first N CloudWatch Logs calls of one
 * operation with a throttling error, as AWS does under load and moto never does. Everything else is forwarded.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LogsThrottleProxy {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  /** Calls of the operation answered with the error so far. */
  readonly throttled: number;
  /** Calls of the operation forwarded so far. */
  readonly forwarded: number;
  stop(): Promise<void>;
}

export interface ThrottleOptions {
  /** e.g. `PutLogEvents` (the `X-Amz-Target` is `Logs_20140328.<operation>`). */
  readonly operation: string;
  /** How many calls to refuse before forwarding. */
  readonly times: number;
  /** @default 'ThrottlingException' */
  readonly errorType?: string;
}

export async function startLogsThrottleProxy(
  target: string,
  options: ThrottleOptions,
): Promise<LogsThrottleProxy> {
  const upstream = new URL(target);
  const state = { throttled: 0, forwarded: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const isTarget = req.headers['x-amz-target'] === `Logs_20140328.${options.operation}`;
      if (isTarget && state.throttled < options.times) {
        state.throttled += 1;
        const type = options.errorType ?? 'ThrottlingException';
        // The awsJson1_1 error shape: the type in a header and in `__type`.
        res.writeHead(400, { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': type });
        res.end(JSON.stringify({ __type: type, message: 'Rate exceeded' }));
        return;
      }
      if (isTarget) state.forwarded += 1;
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: { ...req.headers, host: upstream.host },
        },
        (upstreamRes) => {
          res.writeHead(upstreamRes.statusCode ?? 502, upstreamRes.headers);
          upstreamRes.pipe(res);
        },
      );
      forward.on('error', (error) => {
        res.writeHead(502);
        res.end(String(error));
      });
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get throttled() {
      return state.throttled;
    },
    get forwarded() {
      return state.forwarded;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
