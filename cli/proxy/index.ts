/**
 * `kfek proxy`: a local SigV4 signing proxy in front of an Amazon OpenSearch Service domain.
 *
 * The domain's access policy admits only requests signed with SigV4 by IAM principals of the account, and a browser
 * cannot sign. This proxy listens on 127.0.0.1, signs every request with the caller's AWS credentials (service
 * `es`) and relays it to the domain, so a person opens OpenSearch Dashboards at http://127.0.0.1:9200/_dashboards.
 * It is the well-known pattern of aws-es-proxy and aws-sigv4-proxy, built on the SigV4 signing the provisioner
 * also uses (core/aws-signing.ts) and the SDK's credential chain, so it adds no dependency.
 *
 * {@link createSigningProxy} is the core: it starts the server and returns a handle; tests use it in-process with
 * static credentials and a plain-HTTP upstream. Beside it: guard.ts decides which requests a web page made and
 * are refused, body-budget.ts bounds the request bodies buffered for signing, http-messages.ts holds what crosses
 * the proxy (headers, redirects), signing.ts the credential and STS pieces `kfek doctor` shares, errors.ts the
 * typed errors. This file keeps the names other modules import from `cli/proxy`.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as tls from 'node:tls';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { defaultCredentialProvider, type SignedRequest, signRequest } from '../../core/aws-signing';
import { BodyBudget } from './body-budget';
import { ProxyError, ProxyPortInUseError } from './errors';
import { foreignRequestReason } from './guard';
import { forwardRequestHeaders, relayResponseHeaders, sendText, upstreamOrigin } from './http-messages';
import {
  type AuthInfo,
  describeNetworkError,
  getCallerIdentity,
  mappableArn,
  messageOf,
  parseAuthInfo,
  resolveCredentials,
} from './signing';

export { ProxyCredentialsError, ProxyError, ProxyPortInUseError } from './errors';
export { rewriteLocation, upstreamOrigin } from './http-messages';
export {
  type AuthInfo,
  type CallerIdentityOptions,
  getCallerIdentity,
  mappableArn,
  messageOf,
  parseAuthInfo,
} from './signing';

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
   * Most request-body bytes buffered by all requests together; a request that would pass it gets a 503 with
   * `Retry-After: 1`. Must be at least `maxBodyBytes`.
   * @default 268435456 (256 MiB: two largest bodies at once)
   */
  readonly maxBufferedBytes?: number;
  /**
   * Most requests with a body (buffering, or waiting for the domain) in flight at once; more get a 503 with
   * `Retry-After: 1`. Requests without a body are not limited.
   * @default 8
   */
  readonly maxConcurrentBodies?: number;
  /**
   * Called with the new total each time the buffered request-body bytes change.
   * @default - nothing is called
   */
  readonly onBufferedBytes?: (bytes: number) => void;
  /**
   * How long a client may take to send a request's headers; a slower one (slowloris) gets a 408 and is
   * disconnected. Node's `server.headersTimeout`.
   * @default 20000 (20 s: a browser on 127.0.0.1 sends its headers in well under a millisecond)
   */
  readonly headersTimeoutMillis?: number;
  /**
   * How long a client may take to send a whole request, body included; a slower one gets a 408 and is
   * disconnected. It does not bound the domain's answer (that is `upstreamTimeoutMillis`). Node's
   * `server.requestTimeout`.
   * @default 120000 (2 minutes: a 100 MiB body over loopback takes well under a second)
   */
  readonly requestTimeoutMillis?: number;
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
const DEFAULT_MAX_BUFFERED_BYTES = 256 * 1024 * 1024;
const DEFAULT_MAX_CONCURRENT_BODIES = 8;
const DEFAULT_UPSTREAM_TIMEOUT_MILLIS = 300_000;
const DEFAULT_HEADERS_TIMEOUT_MILLIS = 20_000;
const DEFAULT_REQUEST_TIMEOUT_MILLIS = 120_000;

/** Starts the proxy on 127.0.0.1 and resolves once it listens. */
export async function createSigningProxy(options: SigningProxyOptions): Promise<SigningProxy> {
  const upstream = upstreamOrigin(options.endpoint);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const upstreamTimeoutMillis = options.upstreamTimeoutMillis ?? DEFAULT_UPSTREAM_TIMEOUT_MILLIS;
  const headersTimeoutMillis = options.headersTimeoutMillis ?? DEFAULT_HEADERS_TIMEOUT_MILLIS;
  const requestTimeoutMillis = options.requestTimeoutMillis ?? DEFAULT_REQUEST_TIMEOUT_MILLIS;
  if (maxBufferedBytes < maxBodyBytes) {
    throw new ProxyError(
      `maxBufferedBytes (${maxBufferedBytes}) must be at least maxBodyBytes (${maxBodyBytes}), or the largest ` +
        'allowed body could never be signed: raise --max-buffered-mib.',
    );
  }
  if (headersTimeoutMillis > requestTimeoutMillis) {
    throw new ProxyError(
      `headersTimeoutMillis (${headersTimeoutMillis}) must not exceed requestTimeoutMillis ` +
        `(${requestTimeoutMillis}): the headers are part of the request (--headers-timeout, --request-timeout).`,
    );
  }
  const bodies = new BodyBudget({
    maxBodyBytes,
    maxBufferedBytes,
    maxConcurrentBodies: options.maxConcurrentBodies ?? DEFAULT_MAX_CONCURRENT_BODIES,
    ...(options.onBufferedBytes !== undefined ? { onBufferedBytes: options.onBufferedBytes } : {}),
  });
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

  /**
   * Signs a request to the domain: `target` is the browser's path and query, `toSign` the caller's headers to sign
   * (host is added). Send the returned target: it is the canonical form that was signed.
   */
  async function sign(
    credentials: AwsCredentialIdentity,
    method: string,
    target: string,
    toSign: Record<string, string>,
    body: Buffer,
  ): Promise<SignedRequest> {
    return signRequest(
      { service, region: options.region, credentials },
      { method, origin: upstream, target, headers: toSign, body },
    );
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
      const { host: _host, ...headers } = (await sign(credentials, 'GET', path, {}, Buffer.alloc(0))).headers;
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

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const refusal = foreignRequestReason(req.headers, new URL(proxyOrigin).port);
    if (refusal !== undefined) {
      logOnce(`kfek proxy: refused ${req.method ?? 'GET'} ${req.url ?? '/'}: ${refusal}`);
      req.resume();
      sendText(res, 403, `kfek proxy: ${refusal}.`, true);
      return;
    }
    const admitted = await bodies.read(req, res);
    if (admitted === undefined) return;
    try {
      await relay(req, res, admitted.body);
    } finally {
      admitted.release();
    }
  }

  /** Signs one admitted request and streams the domain's answer back. */
  async function relay(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> {
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
    const headers = forwardRequestHeaders(req.headers);
    // Only host and content-type are signed (plus the x-amz-* headers the signer adds): every other browser
    // header is relayed unsigned, so nothing Node or the browser normalizes can break the signature.
    const toSign: Record<string, string> = {};
    const contentType = req.headers['content-type'];
    if (contentType !== undefined) toSign['content-type'] = contentType;
    const signed = await sign(credentials, method, req.url ?? '/', toSign, body);
    const path = signed.target.split('?')[0];
    const outgoing: Record<string, string | string[]> = { ...headers, ...signed.headers };
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
          path: signed.target,
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

  const server = http.createServer(
    {
      headersTimeout: headersTimeoutMillis,
      requestTimeout: requestTimeoutMillis,
      // Node checks both timeouts only every 30 s by default, which would let a slow client hold a connection
      // half a minute past its limit.
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(headersTimeoutMillis / 4))),
    },
    (req, res) => {
      handle(req, res).catch((error: unknown) => {
        const message = `kfek proxy: ${messageOf(error)}`;
        logOnce(message);
        sendText(res, 502, message);
      });
    },
  );

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
