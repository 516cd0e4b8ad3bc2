/**
 * A fault-injecting HTTP proxy in front of the real OpenSearch node, for the faults a single local node will not
 * produce on demand: a whole-request `429 Too Many Requests` from `_bulk` (OpenSearch's answer when its write
 * queue or indexing pressure rejects a bulk as a whole, not per item). Rejected requests are NOT forwarded, so a
 * document of a rejected bulk is truly not indexed. Everything else is forwarded untouched. Binds 127.0.0.1.
 * (Connection refused and hung connections come from the real node itself in the fault tests: killed, stopped.)
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { forward, listenOnLoopback, readBody } from './fault-proxy';

export interface SearchFaultProxyStats {
  bulkCalls: number;
  /** `_bulk` calls answered 429 without being forwarded. */
  rejectedBulkCalls: number;
  /** `METHOD path` of every request, in order (what a client sent, rejected or not). */
  requests: string[];
}

export interface SearchFaultProxyOptions {
  /**
   * Pass the client's `host` header on: for a target that checks a SigV4 signature over it, such as the Serverless
   * stand-in (scripts/serverless/standin.ts), where the proxy stands for the collection's own front end.
   * @default false - the target's host
   */
  readonly keepHost?: boolean;
}

export interface SearchFaultProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly stats: SearchFaultProxyStats;
  /**
   * Answers the next `calls` `_bulk` requests with a whole-request 429 (OpenSearch's rejected-execution shape) or,
   * with `status` 403, a refusal of the signer (a collection whose data access policy does not yet let it write).
   */
  rejectBulk(calls: number, status?: 429 | 403): void;
  /** Removes all faults and zeroes the stats. */
  clear(): void;
  close(): Promise<void>;
}

/** The body OpenSearch sends when a bulk is rejected as a whole (es_rejected_execution_exception). */
const REJECTED_BULK = JSON.stringify({
  error: {
    root_cause: [{ type: 'rejected_execution_exception', reason: 'rejected execution (search fault proxy)' }],
    type: 'rejected_execution_exception',
    reason: 'rejected execution of coordinating operation (search fault proxy)',
  },
  status: 429,
});

/** A collection's answer to a signer its data access policy does not (yet) let write. */
const FORBIDDEN_BULK = JSON.stringify({
  status: 403,
  error: {
    type: 'security_exception',
    reason: 'no permissions for [indices:data/write/bulk] (search fault proxy)',
  },
});

/** Starts a proxy on 127.0.0.1 and a free port, forwarding to `targetUrl` (the node). */
export async function startSearchFaultProxy(
  targetUrl: string,
  options: SearchFaultProxyOptions = {},
): Promise<SearchFaultProxy> {
  const target = new URL(targetUrl);
  const stats: SearchFaultProxyStats = { bulkCalls: 0, rejectedBulkCalls: 0, requests: [] };
  let rejectLeft = 0;
  let rejectStatus: 429 | 403 = 429;
  const sockets = new Set<Socket>();

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    readBody(req)
      .then(async (body) => {
        stats.requests.push(`${req.method ?? 'GET'} ${req.url ?? '/'}`);
        if ((req.url ?? '').split('?')[0].endsWith('/_bulk')) {
          stats.bulkCalls += 1;
          if (rejectLeft > 0) {
            rejectLeft -= 1;
            stats.rejectedBulkCalls += 1;
            res.writeHead(rejectStatus, { 'content-type': 'application/json' });
            res.end(rejectStatus === 403 ? FORBIDDEN_BULK : REJECTED_BULK);
            return;
          }
        }
        const upstream = await forward(target, req, body, options.keepHost);
        res.writeHead(upstream.status, upstream.headers);
        res.end(upstream.body);
      })
      .catch(() => res.destroy());
  });
  const url = await listenOnLoopback(server, sockets);
  return {
    url,
    stats,
    rejectBulk(calls, status = 429) {
      rejectLeft += calls;
      rejectStatus = status;
    },
    clear() {
      rejectLeft = 0;
      stats.bulkCalls = 0;
      stats.rejectedBulkCalls = 0;
      stats.requests = [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
