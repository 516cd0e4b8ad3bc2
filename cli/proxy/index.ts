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
 * static credentials and a plain-HTTP upstream. Beside it: options.ts holds its options and defaults, relay.ts signs
 * and relays one request, upstream.ts the domain side (agent, signer, authinfo), forbidden-hint.ts the 403 hint,
 * guard.ts decides which requests a web page made and are refused, body-budget.ts bounds the request bodies buffered
 * for signing, http-messages.ts holds what crosses the proxy (headers, targets, redirects), signing.ts the SigV4 and
 * STS pieces `kfek doctor` shares, errors.ts the typed errors. This file keeps the names other modules import from
 * `cli/proxy`.
 */
import { type Agent, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultCredentialProvider } from '../../core/aws-signing';
import { BodyBudget } from './body-budget';
import { ProxyError, ProxyPortInUseError } from './errors';
import { forbiddenHint } from './forbidden-hint';
import { upstreamOrigin } from './http-messages';
import {
  DEFAULT_HEADERS_TIMEOUT_MILLIS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_BUFFERED_BYTES,
  DEFAULT_MAX_CONCURRENT_BODIES,
  DEFAULT_PORT,
  DEFAULT_REQUEST_TIMEOUT_MILLIS,
  DEFAULT_UPSTREAM_TIMEOUT_MILLIS,
  type SigningProxy,
  type SigningProxyOptions,
} from './options';
import { Relay } from './relay';
import { getCallerIdentity } from './signing';
import { Upstream } from './upstream';

export { ProxyCredentialsError, ProxyError, ProxyPortInUseError } from './errors';
export { rewriteLocation, upstreamOrigin } from './http-messages';
export type { SigningProxy, SigningProxyOptions } from './options';
export {
  type AuthInfo,
  type CallerIdentityOptions,
  getCallerIdentity,
  mappableArn,
  parseAuthInfo,
} from './signing';

/** Starts the proxy on 127.0.0.1 and resolves once it listens. */
export async function createSigningProxy(options: SigningProxyOptions): Promise<SigningProxy> {
  const limits = limitsOf(options);
  const log = options.log ?? ((): void => undefined);
  const credentials = options.credentials ?? (await defaultCredentialProvider());
  const target = new Upstream({
    origin: upstreamOrigin(options.endpoint),
    region: options.region,
    service: options.service ?? 'es',
    ...(options.upstreamCa !== undefined ? { ca: options.upstreamCa } : {}),
  });
  const identity = options.identity ?? (() => getCallerIdentity({ region: options.region, credentials }));
  const relay = new Relay({
    target,
    bodies: new BodyBudget({
      maxBodyBytes: limits.maxBodyBytes,
      maxBufferedBytes: limits.maxBufferedBytes,
      maxConcurrentBodies: options.maxConcurrentBodies ?? DEFAULT_MAX_CONCURRENT_BODIES,
      ...(options.onBufferedBytes !== undefined ? { onBufferedBytes: options.onBufferedBytes } : {}),
    }),
    credentials,
    upstreamTimeoutMillis: options.upstreamTimeoutMillis ?? DEFAULT_UPSTREAM_TIMEOUT_MILLIS,
    hintFor403: forbiddenHint({ authInfo: () => target.authInfo(credentials), identity, log }),
    log,
  });
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMillis,
      requestTimeout: limits.requestTimeoutMillis,
      // Node checks both timeouts only every 30 s by default, which would let a slow client hold a connection
      // half a minute past its limit.
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(limits.headersTimeoutMillis / 4))),
    },
    (req, res) => void relay.handle(req, res),
  );
  // The port as a number: `new URL('http://127.0.0.1:80').port` is '' (the scheme's default).
  relay.port = await listen(server, options.port ?? DEFAULT_PORT, target.agent);
  return {
    url: `http://127.0.0.1:${relay.port}`,
    upstream: target.origin.origin,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
        target.agent.destroy();
      }),
  };
}

/** The size and time limits with their defaults, refused when they contradict each other. */
function limitsOf(options: SigningProxyOptions): {
  readonly maxBodyBytes: number;
  readonly maxBufferedBytes: number;
  readonly headersTimeoutMillis: number;
  readonly requestTimeoutMillis: number;
} {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxBufferedBytes = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
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
  return { maxBodyBytes, maxBufferedBytes, headersTimeoutMillis, requestTimeoutMillis };
}

/** Listens on 127.0.0.1:`port` and resolves with the port bound; a refusal says why in the operator's terms. */
function listen(server: Server, port: number, agent: Agent): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      agent.destroy();
      reject(
        error.code === 'EADDRINUSE'
          ? new ProxyPortInUseError(port, { cause: error })
          : new ProxyError(
              error.code === 'EACCES'
                ? `Cannot listen on 127.0.0.1:${port}: ports below 1024 need root; pick another with --port (the ` +
                    `default is ${DEFAULT_PORT})`
                : `Cannot listen on 127.0.0.1:${port}: ${error.message}`,
              { cause: error },
            ),
      );
    };
    server.once('error', onError);
    // 127.0.0.1 only: the proxy signs with the user's credentials, so anyone who can reach it acts as the user.
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
