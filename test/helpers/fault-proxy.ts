/**
 * A small fault-injecting HTTP proxy for integration tests: it sits between an SDK client and moto on 127.0.0.1
 * and can make Kinesis misbehave the ways AWS does and no emulator will (moto never throttles or fails single
 * PutRecords entries).
 *
 * - Per-entry failures: chosen PutRecords entries are NOT forwarded; the proxy answers them as failed
 *   (`ErrorCode`), splicing moto's answers for the other entries back in order. So an entry reported failed is
 *   truly not in the stream, exactly as with Kinesis.
 * - Whole-call throttling (400 `ProvisionedThroughputExceededException`) and 5xx answers, not forwarded.
 * - Down: every connection is destroyed without an answer for a period (a network outage).
 * Everything else passes through untouched.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export class FaultProxyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FaultProxyError';
  }
}

const PUT_RECORDS_TARGET = 'Kinesis_20131202.PutRecords';

interface EntryRule {
  readonly match: (data: string) => boolean;
  readonly errorCode: string;
  /** How many more times a matching entry is failed. */
  remaining: number;
}

export interface FaultProxyStats {
  putRecordsCalls: number;
  /** Entries answered as failed without being forwarded. */
  failedEntries: number;
  throttledCalls: number;
  serverErrors: number;
  droppedConnections: number;
  /** Entries moto acknowledged through this proxy. */
  forwardedEntries: number;
}

export interface FailEntriesOptions {
  /**
   * Per-entry error code.
   * @default 'ProvisionedThroughputExceededException'
   */
  readonly errorCode?: string;
  /**
   * How many matching entries to fail in total.
   * @default Infinity
   */
  readonly times?: number;
}

export interface FaultProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly stats: FaultProxyStats;
  /** Fails PutRecords entries whose data (decoded as UTF-8) matches. */
  failEntries(match: (data: string) => boolean, options?: FailEntriesOptions): void;
  /** Answers the next `calls` PutRecords calls with 400 ProvisionedThroughputExceededException. */
  throttleCalls(calls: number): void;
  /** Answers the next `calls` PutRecords calls with a 5xx. */
  failCalls(calls: number, status?: number): void;
  /**
   * An outage of `ms` milliseconds: `reset` destroys every connection at once (clients see ECONNRESET),
   * `blackhole` accepts requests and never answers (clients hang until they give up). It starts now, or with
   * `startsAt: 'next-request'` at the next request that arrives (which it refuses): so a client is surely in the
   * middle of its work for the whole outage, however long a busy machine takes to get it there.
   */
  goDown(ms: number, mode?: 'reset' | 'blackhole', startsAt?: 'now' | 'next-request'): void;
  /**
   * A short outage counted in requests rather than time: the next `requests` requests have their connection
   * reset, then the proxy forwards again. Deterministic however fast or slow the client retries.
   */
  resetNext(requests: number): void;
  /** Removes all faults and zeroes the stats. */
  clear(): void;
  close(): Promise<void>;
}

interface PutRecordsBody {
  Records: Array<{ Data: string; PartitionKey: string; ExplicitHashKey?: string }>;
  [key: string]: unknown;
}

interface PutRecordsAnswer {
  FailedRecordCount?: number;
  Records: Array<Record<string, unknown>>;
  [key: string]: unknown;
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Forwards a request with its (already read) body to `target`; resolves with the whole answer. `keepHost` passes the
 * client's `host` header on unchanged, for a target that checks a SigV4 signature over it (the Serverless stand-in).
 */
export function forward(
  target: URL,
  req: IncomingMessage,
  body: Buffer,
  keepHost = false,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const host = keepHost ? req.headers.host : target.host;
    const headers = { ...req.headers, host, 'content-length': String(body.length) };
    const upstream = httpRequest(
      { hostname: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (res) => {
        readBody(res)
          .then((data) => resolve({ status: res.statusCode ?? 502, headers: res.headers, body: data }))
          .catch(reject);
      },
    );
    upstream.on('error', reject);
    upstream.end(body);
  });
}

function sendJson(res: ServerResponse, status: number, payload: unknown, errorType?: string): void {
  const body = Buffer.from(JSON.stringify(payload));
  res.writeHead(status, {
    'content-type': 'application/x-amz-json-1.1',
    'content-length': String(body.length),
    'x-amzn-requestid': `fault-proxy-${Date.now()}`,
    ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
  });
  res.end(body);
}

/**
 * Listens on 127.0.0.1 and a free port, tracking open sockets in `sockets` (so an outage or `close()` can destroy
 * them); resolves with `http://127.0.0.1:<port>`.
 */
export async function listenOnLoopback(server: Server, sockets: Set<Socket>): Promise<string> {
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Starts a proxy on 127.0.0.1 and a free port, forwarding to `targetEndpoint` (e.g. moto). */
export async function startFaultProxy(targetEndpoint: string): Promise<FaultProxy> {
  const target = new URL(targetEndpoint);
  const stats: FaultProxyStats = {
    putRecordsCalls: 0,
    failedEntries: 0,
    throttledCalls: 0,
    serverErrors: 0,
    droppedConnections: 0,
    forwardedEntries: 0,
  };
  let entryRules: EntryRule[] = [];
  let throttleLeft = 0;
  let serverErrorsLeft = 0;
  let serverErrorStatus = 500;
  let downUntil = 0;
  let downMode: 'reset' | 'blackhole' = 'reset';
  let resetsLeft = 0;
  /** An outage armed to start at the next request (`goDown(..., 'next-request')`). */
  let outageAtNextRequest: { readonly ms: number; readonly mode: 'reset' | 'blackhole' } | undefined;
  const held = new Set<ServerResponse>();
  const sockets = new Set<Socket>();

  const handlePutRecords = async (req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> => {
    stats.putRecordsCalls += 1;
    if (throttleLeft > 0) {
      throttleLeft -= 1;
      stats.throttledCalls += 1;
      sendJson(
        res,
        400,
        {
          __type: 'ProvisionedThroughputExceededException',
          message: 'Rate exceeded for stream (fault proxy).',
        },
        'ProvisionedThroughputExceededException',
      );
      return;
    }
    if (serverErrorsLeft > 0) {
      serverErrorsLeft -= 1;
      stats.serverErrors += 1;
      sendJson(res, serverErrorStatus, {
        __type: 'InternalFailure',
        message: 'Injected by the fault proxy.',
      });
      return;
    }
    const request = JSON.parse(raw.toString('utf8')) as PutRecordsBody;
    // Decide per entry, in order: undefined = forward, string = fail with that code.
    const decisions = request.Records.map((entry) => {
      const data = Buffer.from(entry.Data, 'base64').toString('utf8');
      const rule = entryRules.find((r) => r.remaining > 0 && r.match(data));
      if (!rule) return undefined;
      rule.remaining -= 1;
      return rule.errorCode;
    });
    const forwarded = request.Records.filter((_, i) => decisions[i] === undefined);
    let answer: PutRecordsAnswer = { FailedRecordCount: 0, Records: [] };
    if (forwarded.length > 0) {
      const upstream = await forward(
        target,
        req,
        Buffer.from(JSON.stringify({ ...request, Records: forwarded })),
      );
      if (upstream.status !== 200) {
        res.writeHead(upstream.status, upstream.headers);
        res.end(upstream.body);
        return;
      }
      answer = JSON.parse(upstream.body.toString('utf8')) as PutRecordsAnswer;
    }
    let next = 0;
    let failed = 0;
    const records = decisions.map((errorCode) => {
      if (errorCode === undefined) {
        const upstreamEntry = answer.Records[next++];
        if (upstreamEntry && upstreamEntry.ErrorCode !== undefined) failed += 1;
        else stats.forwardedEntries += 1;
        return upstreamEntry;
      }
      failed += 1;
      stats.failedEntries += 1;
      return { ErrorCode: errorCode, ErrorMessage: 'Injected by the fault proxy.' };
    });
    sendJson(res, 200, { ...answer, FailedRecordCount: failed, Records: records });
  };

  const server: Server = createServer((req, res) => {
    if (outageAtNextRequest !== undefined) {
      downUntil = Date.now() + outageAtNextRequest.ms;
      downMode = outageAtNextRequest.mode;
      outageAtNextRequest = undefined;
    }
    if (resetsLeft > 0) {
      resetsLeft -= 1;
      stats.droppedConnections += 1;
      req.socket.destroy();
      return;
    }
    if (Date.now() < downUntil) {
      stats.droppedConnections += 1;
      if (downMode === 'reset') req.socket.destroy();
      else held.add(res); // never answered; destroyed by clear() or close()
      return;
    }
    readBody(req)
      .then(async (raw) => {
        if (req.headers['x-amz-target'] === PUT_RECORDS_TARGET) {
          await handlePutRecords(req, res, raw);
          return;
        }
        const upstream = await forward(target, req, raw);
        res.writeHead(upstream.status, upstream.headers);
        res.end(upstream.body);
      })
      .catch((error: unknown) => {
        if (!res.headersSent) sendJson(res, 502, { __type: 'FaultProxyError', message: String(error) });
        else res.destroy();
      });
  });
  const url = await listenOnLoopback(server, sockets);

  return {
    url,
    stats,
    failEntries(match, options = {}) {
      entryRules.push({
        match,
        errorCode: options.errorCode ?? 'ProvisionedThroughputExceededException',
        remaining: options.times ?? Number.POSITIVE_INFINITY,
      });
    },
    throttleCalls(calls) {
      throttleLeft += calls;
    },
    failCalls(calls, status = 500) {
      if (status < 500 || status > 599)
        throw new FaultProxyError(`failCalls needs a 5xx status, got ${status}`);
      serverErrorsLeft += calls;
      serverErrorStatus = status;
    },
    goDown(ms, mode = 'reset', startsAt = 'now') {
      if (startsAt === 'next-request') {
        outageAtNextRequest = { ms, mode };
      } else {
        downUntil = Date.now() + ms;
        downMode = mode;
      }
      // Kill idle keep-alive connections too, as an outage would.
      for (const socket of sockets) socket.destroy();
    },
    resetNext(requests) {
      resetsLeft += requests;
      // Kill idle keep-alive connections too, as an outage would.
      for (const socket of sockets) socket.destroy();
    },
    clear() {
      resetsLeft = 0;
      entryRules = [];
      throttleLeft = 0;
      serverErrorsLeft = 0;
      downUntil = 0;
      outageAtNextRequest = undefined;
      for (const res of held) res.destroy();
      held.clear();
      for (const key of Object.keys(stats) as Array<keyof FaultProxyStats>) stats[key] = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
