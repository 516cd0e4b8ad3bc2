/**
 * `kfek proxy`: a local SigV4 signing proxy in front of an Amazon OpenSearch Service domain.
 *
 * The domain's access policy admits only requests signed with SigV4 by IAM principals of the account, and a browser
 * cannot sign. This proxy listens on 127.0.0.1, signs every request with the caller's AWS credentials (service
 * `es`) and relays it to the domain, so a person opens OpenSearch Dashboards at http://127.0.0.1:9200/_dashboards.
 * It is the well-known pattern of aws-es-proxy and aws-sigv4-proxy, built on the `@smithy/signature-v4` signer the
 * provisioner already uses (lib/opensearch/http.ts) and the SDK's credential chain, so it adds no dependency.
 *
 * {@link createSigningProxy} is the core: it starts the server and returns a handle; tests use it in-process with
 * static credentials and a plain-HTTP upstream.
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as tls from 'node:tls';
import { SignatureV4 } from '@smithy/signature-v4';
import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  Checksum,
  SourceData,
} from '@smithy/types';
import { defaultCredentialProvider } from '../opensearch/http';
import { CliError } from './errors';

/** Base class of the proxy's own errors (start-up problems; per-request problems become 502 responses). */
export class ProxyError extends CliError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProxyError';
  }
}

/** The port the proxy should listen on is taken. */
export class ProxyPortInUseError extends ProxyError {
  constructor(
    readonly port: number,
    options?: { cause?: unknown },
  ) {
    super(
      `Port ${port} on 127.0.0.1 is already in use (another kfek proxy or a local OpenSearch node?): stop it or ` +
        'pick another port with --port.',
      options,
    );
    this.name = 'ProxyPortInUseError';
  }
}

/** The credential chain gave no usable credentials (none configured, SSO session ended, or expired keys). */
export class ProxyCredentialsError extends ProxyError {
  constructor(detail: string, options?: { cause?: unknown }) {
    super(
      `No valid AWS credentials (${detail}): run \`aws sso login\` (with AWS_PROFILE set to your profile), or set ` +
        'AWS_PROFILE or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, then reload the page.',
      options,
    );
    this.name = 'ProxyCredentialsError';
  }
}

export interface SigningProxyOptions {
  /**
   * The domain: its endpoint host (`search-x-abc.eu-west-1.es.amazonaws.com`, as the Search stack's output prints
   * it) or an http(s) URL. Only the origin is used; plain `http://` is for tests and the local node.
   */
  readonly endpoint: string;
  /** Region the domain lives in; part of the signature. */
  readonly region: string;
  /**
   * Port on 127.0.0.1; 0 picks a free one.
   * @default 9200
   */
  readonly port?: number;
  /**
   * Credentials to sign with. A provider is called for every request, so the SDK's memoizing chain refreshes
   * credentials that are about to expire (SSO, assumed roles) without a restart.
   * @default - the AWS SDK's default credential chain (`@aws-sdk/credential-provider-node`)
   */
  readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /**
   * Signing service name.
   * @default 'es' (OpenSearch Service managed domains; serverless collections would use 'aoss')
   */
  readonly service?: string;
  /**
   * Largest request body buffered for signing (the payload hash needs the whole body); larger requests get a 413.
   * @default 104857600 (100 MiB, the largest HTTP payload of the biggest OpenSearch Service instance types)
   */
  readonly maxBodyBytes?: number;
  /**
   * How long an upstream request may stay silent before the proxy gives up with a 504.
   * @default 300000 (5 minutes: Dashboards' own request timeout is shorter)
   */
  readonly upstreamTimeoutMillis?: number;
  /**
   * Who the credentials belong to, for the 403 hint. Called at most once, on the first 403.
   * @default - STS GetCallerIdentity signed with the same credentials ({@link getCallerIdentity})
   */
  readonly identity?: () => Promise<string>;
  /**
   * Receives one line per operator-facing event (credential problems, unreachable upstream, the 403 hint).
   * @default - lines go nowhere
   */
  readonly log?: (line: string) => void;
  /**
   * Extra certificate authorities (PEM) to trust for an https upstream, besides Node's bundled ones. Tests use it
   * with a self-signed certificate; people behind a TLS-inspecting proxy set NODE_EXTRA_CA_CERTS instead.
   * @default - Node's bundled CAs only
   */
  readonly upstreamCa?: string;
}

export interface SigningProxy {
  /** e.g. `http://127.0.0.1:9200`. */
  readonly url: string;
  /** Origin of the domain, e.g. `https://search-x.eu-west-1.es.amazonaws.com`. */
  readonly upstream: string;
  /** Stops listening, closes open connections and waits until the port is free. */
  close(): Promise<void>;
}

const DEFAULT_PORT = 9200;
const DEFAULT_MAX_BODY_BYTES = 100 * 1024 * 1024;
const DEFAULT_UPSTREAM_TIMEOUT_MILLIS = 300_000;

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

/**
 * SHA-256 (and HMAC-SHA-256 when given a secret) for the signer, on Node's native crypto. The signer hashes every
 * request body; the pure-JavaScript `@aws-crypto/sha256-js` that lib/opensearch/http.ts uses for small JSON took
 * most of a second for a 50 MiB `_bulk` body, OpenSSL a fraction of that.
 */
class NodeSha256 implements Checksum {
  private hash: Hash | Hmac;

  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }

  update(data: Uint8Array): void {
    this.hash.update(data);
  }

  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }

  reset(): void {
    this.hash = this.fresh();
  }

  private fresh(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const key =
      typeof this.secret === 'string'
        ? Buffer.from(this.secret, 'utf8')
        : ArrayBuffer.isView(this.secret)
          ? Buffer.from(this.secret.buffer, this.secret.byteOffset, this.secret.byteLength)
          : Buffer.from(this.secret);
    return createHmac('sha256', key);
  }
}

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

/** RFC 3986 percent-encoding, the form SigV4's canonical query string uses (encodeURIComponent leaves !'()*). */
function rfc3986(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/**
 * Splits the raw request target into the path as sent (signed as is: the signer encodes each segment once more,
 * which is the double encoding SigV4 prescribes for every service but S3) and the query.
 *
 * The query is decoded and re-encoded strictly (RFC 3986, `%20` for a space): the canonical request encodes it
 * that way, and a browser's `+` or unencoded `:` would otherwise leave the domain to guess what was signed.
 * OpenSearch decodes `+` and `%20` alike, so the request means the same.
 */
export function splitTarget(target: string): {
  path: string;
  query: Record<string, string | string[]>;
  search: string;
} {
  const q = target.indexOf('?');
  const path = q < 0 ? target : target.slice(0, q);
  const params = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
  const query: Record<string, string | string[]> = {};
  const pairs: string[] = [];
  for (const [k, v] of params) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    pairs.push(`${rfc3986(k)}=${rfc3986(v)}`);
  }
  return { path: path === '' ? '/' : path, query, search: pairs.length === 0 ? '' : `?${pairs.join('&')}` };
}

/** How the security plugin sees a caller: the answer of `GET _plugins/_security/authinfo`. */
export interface AuthInfo {
  /** Backend roles it derived from the signature: the exact strings a role mapping must contain. */
  readonly backendRoles: readonly string[];
  /** The OpenSearch roles those are mapped to. */
  readonly roles: readonly string[];
}

/** Reads an authinfo response body; undefined when it is not one (no `backend_roles` array). */
export function parseAuthInfo(body: unknown): AuthInfo | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const info = body as { backend_roles?: unknown; roles?: unknown };
  if (!Array.isArray(info.backend_roles)) return undefined;
  return {
    backendRoles: info.backend_roles.map(String),
    roles: Array.isArray(info.roles) ? info.roles.map(String) : [],
  };
}

/** The role ARN to map for an assumed-role session ARN; other ARNs are returned unchanged. */
export function mappableArn(arn: string): string {
  const m = /^arn:(aws[a-z-]*):sts::(\d{12}):assumed-role\/([^/]+)\/.+$/.exec(arn);
  return m === null ? arn : `arn:${m[1]}:iam::${m[2]}:role/${m[3]}`;
}

async function resolveCredentials(
  source: AwsCredentialIdentity | AwsCredentialIdentityProvider,
): Promise<AwsCredentialIdentity> {
  let credentials: AwsCredentialIdentity;
  try {
    credentials = typeof source === 'function' ? await source() : source;
  } catch (error) {
    const detail = messageOf(error).split('\n')[0];
    throw new ProxyCredentialsError(detail, { cause: error });
  }
  if (credentials.expiration !== undefined && credentials.expiration.getTime() <= Date.now()) {
    throw new ProxyCredentialsError(`they expired at ${credentials.expiration.toISOString()}`);
  }
  return credentials;
}

export interface CallerIdentityOptions {
  readonly region: string;
  readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  /**
   * STS endpoint, e.g. a moto server in tests.
   * @default - the regional endpoint https://sts.<region>.amazonaws.com
   */
  readonly endpoint?: string;
}

/**
 * The caller's ARN from STS GetCallerIdentity. @aws-sdk/client-sts is not a dependency of this project and this
 * is one Query API call that needs no IAM permission, so it is signed here with
 * the same signer as the proxied requests instead of adding the client.
 * https://docs.aws.amazon.com/STS/latest/APIReference/API_GetCallerIdentity.html
 */
export async function getCallerIdentity(options: CallerIdentityOptions): Promise<string> {
  const credentials = await resolveCredentials(options.credentials ?? (await defaultCredentialProvider()));
  const url = new URL(options.endpoint ?? `https://sts.${options.region}.amazonaws.com/`);
  const body = 'Action=GetCallerIdentity&Version=2011-06-15';
  const signer = new SignatureV4({ service: 'sts', region: options.region, credentials, sha256: NodeSha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port === '' ? {} : { port: Number(url.port) }),
    path: url.pathname,
    query: {},
    headers: { host: url.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
    body,
  });
  const { host: _host, ...headers } = signed.headers;
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
    text = await response.text();
  } catch (error) {
    // fetch reports every network failure as "fetch failed"; the reason is in its cause.
    const cause =
      typeof error === 'object' && error !== null && 'cause' in error && error.cause !== undefined
        ? error.cause
        : error;
    throw new ProxyError(
      `Cannot ask STS who signs (GetCallerIdentity at ${url.origin}: ${describeNetworkError(cause)}).`,
      { cause: error },
    );
  }
  const arn = /<Arn>([^<]+)<\/Arn>/.exec(text)?.[1];
  if (!response.ok || arn === undefined) {
    const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? `HTTP ${response.status}`;
    throw new ProxyCredentialsError(`STS GetCallerIdentity answered ${code}`);
  }
  return arn;
}

/** Collects the request body, or returns undefined after answering 413 when it exceeds the cap. */
function readBody(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  maxBodyBytes: number,
): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    const tooLarge = (): void => {
      req.removeAllListeners('data');
      req.resume();
      sendText(
        res,
        413,
        `kfek proxy: the request body is larger than ${maxBodyBytes} bytes, the most this proxy buffers to sign ` +
          'it; send smaller batches.',
        true,
      );
      resolve(undefined);
    };
    if (declared > maxBodyBytes) {
      tooLarge();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        tooLarge();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (size <= maxBodyBytes) resolve(Buffer.concat(chunks, size));
    });
    req.on('error', reject);
  });
}

function sendText(res: http.ServerResponse, status: number, text: string, closeConnection = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(closeConnection ? { connection: 'close' } : {}),
  });
  res.end(text);
}

/** Request headers to forward: everything but hop-by-hop headers, those named in `connection`, and replaced ones. */
function forwardRequestHeaders(headers: http.IncomingHttpHeaders): Record<string, string | string[]> {
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
function relayResponseHeaders(
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

/** The message of anything thrown (duck-typed for the reason given below). */
export function messageOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'message' in error
    ? String(error.message)
    : String(error);
}

/**
 * `code: message` of a network error. Duck-typed rather than `instanceof Error`: fetch's errors come from
 * undici's realm, which is not the caller's in some hosts (jest's VM contexts).
 */
function describeNetworkError(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const message = String(error.message);
    const code = 'code' in error && typeof error.code === 'string' ? error.code : undefined;
    return code !== undefined && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(error);
}

/** Starts the proxy on 127.0.0.1 and resolves once it listens. */
export async function createSigningProxy(options: SigningProxyOptions): Promise<SigningProxy> {
  const upstream = upstreamOrigin(options.endpoint);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const upstreamTimeoutMillis = options.upstreamTimeoutMillis ?? DEFAULT_UPSTREAM_TIMEOUT_MILLIS;
  const log = options.log ?? ((): void => undefined);
  const credentialSource = options.credentials ?? (await defaultCredentialProvider());
  const service = options.service ?? 'es';
  const transport = upstream.protocol === 'https:' ? https : http;
  // Keep-alive to the domain: Dashboards fires dozens of requests per page, and a TLS handshake each would be slow.
  const agent =
    upstream.protocol === 'https:'
      ? new https.Agent({
          keepAlive: true,
          maxSockets: 32,
          ...(options.upstreamCa !== undefined ? { ca: [...tls.rootCertificates, options.upstreamCa] } : {}),
        })
      : new http.Agent({ keepAlive: true, maxSockets: 32 });
  const identity =
    options.identity ?? (() => getCallerIdentity({ region: options.region, credentials: credentialSource }));
  let hinted403 = false;
  let lastLogged = '';
  let proxyOrigin = '';

  /** Logs a line unless it repeats the previous one: a page of failing requests should print one line. */
  const logOnce = (line: string): void => {
    if (line === lastLogged) return;
    lastLogged = line;
    log(line);
  };

  /** Signs a request to the domain: `toSign` are the caller's headers to sign; host is added here. */
  async function sign(
    credentials: AwsCredentialIdentity,
    method: string,
    path: string,
    query: Record<string, string | string[]>,
    toSign: Record<string, string>,
    body: Buffer,
  ): Promise<Record<string, string>> {
    const signer = new SignatureV4({ service, region: options.region, credentials, sha256: NodeSha256 });
    const signed = await signer.sign({
      method,
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      ...(upstream.port === '' ? {} : { port: Number(upstream.port) }),
      path,
      query,
      headers: { ...toSign, host: upstream.host },
      ...(body.length > 0 ? { body } : {}),
    });
    return signed.headers;
  }

  /**
   * How the security plugin sees the caller, from its authinfo API, which answers every authenticated caller,
   * mapped or not (Dashboards reads it to show its "missing role" page): the backend roles it derived from the
   * signature (the exact string a role mapping must contain, whatever IAM path the role has) and the OpenSearch
   * roles they are mapped to. Undefined when the domain refuses even that (the access policy, not the security
   * plugin, rejected the request) or answers something else.
   */
  async function authInfo(): Promise<AuthInfo | undefined> {
    try {
      const credentials = await resolveCredentials(credentialSource);
      const path = '/_plugins/_security/authinfo';
      const { host: _host, ...headers } = await sign(credentials, 'GET', path, {}, {}, Buffer.alloc(0));
      const response = await new Promise<{ ok: boolean; text: string }>((resolve, reject) => {
        const req = transport.request(
          {
            protocol: upstream.protocol,
            hostname: upstream.hostname,
            port: upstream.port === '' ? undefined : Number(upstream.port),
            path,
            headers,
            agent,
            timeout: 10_000,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () =>
              resolve({ ok: res.statusCode === 200, text: Buffer.concat(chunks).toString('utf8') }),
            );
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error('authinfo timed out')));
        req.on('error', reject);
        req.end();
      });
      if (!response.ok) return undefined;
      return parseAuthInfo(JSON.parse(response.text) as unknown);
    } catch {
      return undefined;
    }
  }

  const hintFor403 = async (method: string, path: string): Promise<void> => {
    if (hinted403) return;
    hinted403 = true;
    const info = await authInfo();
    if (info !== undefined && info.roles.length > 0) {
      // Mapped, but to roles that do not allow this request (a reader opening the security pages, say).
      log(
        `kfek proxy: the domain answered 403 to ${method} ${path}: you (backend role ` +
          `${info.backendRoles.join(', ')}) are mapped to ${info.roles.join(', ')}, which do not allow it; for ` +
          'full access put that backend role in openSearch.access.adminBackendRoles and redeploy.',
      );
      return;
    }
    let who: string;
    if (info !== undefined && info.backendRoles.length > 0) {
      who = `(OpenSearch sees you as backend role ${info.backendRoles.join(', ')})`;
    } else {
      try {
        who = mappableArn(await identity());
      } catch (error) {
        who = `(unknown: ${messageOf(error)})`;
      }
    }
    log(
      `kfek proxy: the domain answered 403: your IAM principal ${who} is not mapped: add it to ` +
        'openSearch.access.adminBackendRoles or readerBackendRoles and redeploy (an assumed role is mapped by its ' +
        'role ARN, arn:aws:iam::<account>:role/<name>).',
    );
  };

  /**
   * Refuses requests a web page other than Dashboards made the browser send. Listening on 127.0.0.1 keeps other
   * machines out, not other sites: a page on evil.example can post to http://127.0.0.1:9200 (cross-site request
   * forgery) or, after re-pointing its own host name at 127.0.0.1 (DNS rebinding), read the answers, and this
   * proxy would sign both as the user. So the Host must name the proxy itself, and an Origin, which browsers send
   * with every cross-origin and every POST request, must be the proxy's.
   */
  function foreignRequest(req: http.IncomingMessage): string | undefined {
    const port = new URL(proxyOrigin).port;
    const allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
    const host = (req.headers.host ?? '').toLowerCase();
    if (!allowedHosts.has(host)) {
      return `Host ${JSON.stringify(req.headers.host ?? '')} is not this proxy; open http://127.0.0.1:${port}/_dashboards`;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHosts.has(origin.toLowerCase().replace(/^http:\/\//, ''))) {
      return `requests from pages on ${origin} are refused: the proxy signs as you`;
    }
    return undefined;
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const refusal = foreignRequest(req);
    if (refusal !== undefined) {
      logOnce(`kfek proxy: refused ${req.method ?? 'GET'} ${req.url ?? '/'}: ${refusal}`);
      req.resume();
      sendText(res, 403, `kfek proxy: ${refusal}.`, true);
      return;
    }
    const body = await readBody(req, res, maxBodyBytes);
    if (body === undefined) return;
    let credentials: AwsCredentialIdentity;
    try {
      credentials = await resolveCredentials(credentialSource);
    } catch (error) {
      const message = `kfek proxy: ${messageOf(error)}`;
      logOnce(message);
      sendText(res, 502, message);
      return;
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const { path, query, search } = splitTarget(req.url ?? '/');
    const headers = forwardRequestHeaders(req.headers);
    // Only host and content-type are signed (plus the x-amz-* headers the signer adds): every other browser
    // header is relayed unsigned, so nothing Node or the browser normalizes can break the signature.
    const toSign: Record<string, string> = {};
    const contentType = req.headers['content-type'];
    if (contentType !== undefined) toSign['content-type'] = contentType;
    const signedHeaders = await sign(credentials, method, path, query, toSign, body);
    const outgoing: Record<string, string | string[]> = { ...headers, ...signedHeaders };
    if (body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method)) {
      outgoing['content-length'] = String(body.length);
    }

    await new Promise<void>((resolve) => {
      const upstreamReq = transport.request(
        {
          protocol: upstream.protocol,
          hostname: upstream.hostname,
          port: upstream.port === '' ? undefined : Number(upstream.port),
          method,
          path: `${path}${search}`,
          headers: outgoing,
          agent,
          timeout: upstreamTimeoutMillis,
        },
        (upstreamRes) => {
          const status = upstreamRes.statusCode ?? 502;
          if (status === 403) {
            void hintFor403(method, path);
          }
          // foreignRequest checked the Host: redirects go back to the name the browser used (127.0.0.1 or localhost).
          res.writeHead(
            status,
            relayResponseHeaders(upstreamRes.headers, upstream, `http://${String(req.headers.host)}`),
          );
          upstreamRes.pipe(res);
          upstreamRes.on('error', () => res.destroy());
          upstreamRes.on('end', resolve);
          upstreamRes.on('close', resolve);
        },
      );
      upstreamReq.on('timeout', () => {
        upstreamReq.destroy(new Error(`no answer within ${upstreamTimeoutMillis} ms`));
      });
      upstreamReq.on('error', (error) => {
        const message = `kfek proxy: cannot reach ${upstream.origin}: ${describeNetworkError(error)}`;
        logOnce(message);
        sendText(res, /no answer within/.test(message) ? 504 : 502, message);
        resolve();
      });
      // The browser went away: stop the upstream request rather than download a response nobody reads.
      res.on('close', () => {
        if (!res.writableFinished) upstreamReq.destroy();
      });
      upstreamReq.end(body);
    });
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const message = `kfek proxy: ${messageOf(error)}`;
      logOnce(message);
      sendText(res, 502, message);
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      agent.destroy();
      reject(
        error.code === 'EADDRINUSE'
          ? new ProxyPortInUseError(options.port ?? DEFAULT_PORT, { cause: error })
          : new ProxyError(`Cannot listen on 127.0.0.1:${options.port ?? DEFAULT_PORT}: ${error.message}`, {
              cause: error,
            }),
      );
    };
    server.once('error', onError);
    // 127.0.0.1 only: the proxy signs with the user's credentials, so anyone who can reach it acts as the user.
    server.listen(options.port ?? DEFAULT_PORT, '127.0.0.1', () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  proxyOrigin = `http://127.0.0.1:${port}`;

  return {
    url: proxyOrigin,
    upstream: upstream.origin,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
