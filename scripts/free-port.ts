/**
 * Ports for the servers the local runner and the tests start (moto, OpenSearch's HTTP and transport ports).
 *
 * Why not port 0 (ask the OS): the OS answers from the ephemeral range, the same range every outgoing connection
 * takes its local port from. Between the probe and the server's own bind (10-15 s for an OpenSearch node), another
 * process' outgoing connection can take that port: a fresh-clone CI run lost a node that way ("BindHttpException:
 * Failed to bind to 127.0.0.1:45839 ... Address already in use") while a neighbouring suite talked to moto one
 * connection per request. A port below the ephemeral range is only ever taken by a server that binds it on purpose.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Lowest port handed out: above the well-known and most registered service ports in common use. */
const LOWEST_PORT = 10_000;
/** Linux's default `ip_local_port_range` start (macOS and Windows start theirs higher, at 49152). */
const DEFAULT_EPHEMERAL_START = 32_768;

/** The first port of the kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range` on Linux). */
export function ephemeralRangeStart(
  read: () => string = () => readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'),
): number {
  try {
    const start = Number(read().trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 0 && start <= 65_535 ? start : DEFAULT_EPHEMERAL_START;
  } catch {
    return DEFAULT_EPHEMERAL_START;
  }
}

/** True when a server can listen on `port` of 127.0.0.1 right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port the OS picks (the ephemeral range): only when no port below that range is free. */
function anyPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() =>
        port > 0 ? resolve(port) : reject(new Error('could not read a probe socket port')),
      );
    });
  });
}

/**
 * A TCP port on 127.0.0.1 that is free now and lies below the ephemeral range, chosen at random (so parallel test
 * workers rarely try the same one). Falls back to an OS-chosen port if 50 tries find none.
 */
export async function freePort(
  random: () => number = Math.random,
  rangeStart = ephemeralRangeStart(),
): Promise<number> {
  const highest = Math.min(rangeStart, 65_536) - 1;
  if (highest - LOWEST_PORT >= 100) {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const port = LOWEST_PORT + Math.floor(random() * (highest - LOWEST_PORT + 1));
      if (await canListen(port)) return port;
    }
  }
  return anyPort();
}
