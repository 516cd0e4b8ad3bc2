/**
 * The HTTP side of relaying: which headers cross the proxy in each direction, how the domain's redirects and
 * cookies are made to work on 127.0.0.1, and the proxy's own plain-text answers. (The request target's canonical
 * form for signing is core/aws-signing.ts's.)
 */
import type * as http from 'node:http';
import { ProxyError } from './errors';

/**
 * Hop-by-hop headers (RFC 9110 section 7.6.1) belong to one connection and are never forwarded, in either
 * direction. `proxy-connection` is a non-standard one some clients still send.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Request headers the proxy replaces: `host` becomes the domain's, `authorization` and the `x-amz-*` signing
 * headers come from the signer (a browser's own would clash), `content-length` is recomputed from the buffered
 * body, and `expect` is answered by this proxy, not the domain.
 */
const REPLACED_REQUEST_HEADERS = new Set([
  'host',
  'authorization',
  'content-length',
  'expect',
  'x-amz-date',
  'x-amz-security-token',
  'x-amz-content-sha256',
]);

/** Normalizes `--endpoint` to an origin; a bare host means HTTPS, as every OpenSearch Service domain is. */
export function upstreamOrigin(endpoint: string): URL {
  const text = endpoint.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`);
  } catch (error) {
    throw new ProxyError(
      `--endpoint ${JSON.stringify(endpoint)} is neither a host name nor an http(s) URL: pass the domain ` +
        'endpoint the Search stack prints (search-<name>-<id>.<region>.es.amazonaws.com).',
      { cause: error },
    );
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') {
    throw new ProxyError(`--endpoint ${JSON.stringify(endpoint)} must be an http(s) URL or a host name.`);
  }
  return new URL(url.origin);
}

export function sendText(
  res: http.ServerResponse,
  status: number,
  text: string,
  closeConnection = false,
  extraHeaders: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(closeConnection ? { connection: 'close' } : {}),
    ...extraHeaders,
  });
  res.end(text);
}

/** Request headers to forward: everything but hop-by-hop headers, those named in `connection`, and replaced ones. */
export function forwardRequestHeaders(headers: http.IncomingHttpHeaders): Record<string, string | string[]> {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter((h) => h !== ''),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (
      value === undefined ||
      HOP_BY_HOP.has(name) ||
      named.has(name) ||
      REPLACED_REQUEST_HEADERS.has(name)
    ) {
      continue;
    }
    out[name] = value;
  }
  return out;
}

/**
 * Response headers to relay. A `Location` on the domain's origin is rewritten to the proxy's (Dashboards
 * redirects `/_dashboards` to `/_dashboards/app/home` with an absolute URL in some versions), and a `Domain`
 * attribute naming the domain's host is dropped from cookies, which the browser would otherwise reject on
 * 127.0.0.1. `content-encoding` and the body stay as they are: the proxy does not decompress.
 */
export function relayResponseHeaders(
  headers: http.IncomingHttpHeaders,
  upstream: URL,
  proxyOrigin: string,
): Record<string, string | string[]> {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    if (name === 'location' && typeof value === 'string') {
      out[name] = rewriteLocation(value, upstream, proxyOrigin);
    } else if (name === 'set-cookie' && Array.isArray(value)) {
      out[name] = value.map((cookie) => cookie.replace(/;\s*domain=[^;]*/gi, ''));
    } else {
      out[name] = value;
    }
  }
  return out;
}

/** `https://<domain>/x` (also with an explicit default port) becomes `http://127.0.0.1:<port>/x`. */
export function rewriteLocation(location: string, upstream: URL, proxyOrigin: string): string {
  let target: URL;
  try {
    target = new URL(location);
  } catch {
    return location; // relative: already resolves against the proxy's origin in the browser
  }
  if (target.origin !== upstream.origin) return location;
  return `${proxyOrigin}${target.pathname}${target.search}${target.hash}`;
}
