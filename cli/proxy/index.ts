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
 * static credentials and a plain-HTTP upstream. Beside it: options.ts holds its options and defaults, upstream.ts
 * the domain side (agent, signer, authinfo), forbidden-hint.ts the 403 hint, guard.ts decides which requests a web
 * page made and are refused, body-budget.ts bounds the request bodies buffered for signing, http-messages.ts holds
 * what crosses the proxy (headers, targets, redirects), signing.ts the SigV4 and STS pieces `kfek doctor` shares,
 * errors.ts the typed errors. This file keeps the names other modules import from `cli/proxy`.
 */
import type * as http from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AwsCredentialIdentity } from '@smithy/types';
import { defaultCredentialProvider } from '../../core/aws-signing';
import { BodyBudget } from './body-budget';
import { ProxyCredentialsError, ProxyError, ProxyPortInUseError } from './errors';
import { forbiddenHint } from './forbidden-hint';
import { foreignRequestReason } from './guard';
import { forwardRequestHeaders, relayResponseHeaders, sendText, upstreamOrigin } from './http-messages';
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
import { describeNetworkError, getCallerIdentity, messageOf, resolveCredentials } from './signing';
import { Upstream } from './upstream';

export { ProxyCredentialsError, ProxyError, ProxyPortInUseError } from './errors';
export { rewriteLocation, upstreamOrigin } from './http-messages';
export type { SigningProxy, SigningProxyOptions } from './options';
export {
  type AuthInfo,
  type CallerIdentityOptions,
  getCallerIdentity,
  mappableArn,
  messageOf,
  parseAuthInfo,
} from './signing';

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
  const target = new Upstream({
    origin: upstream,
    region: options.region,
    service: options.service ?? 'es',
    ...(options.upstreamCa !== undefined ? { ca: options.upstreamCa } : {}),
  });
  const { agent, transport } = target;
  const identity =
    options.identity ?? (() => getCallerIdentity({ region: options.region, credentials: credentialSource }));
  let lastLogged = '';
  let proxyPort = 0;

  /** Logs a line unless it repeats the previous one: a page of failing requests should print one line. */
  const logOnce = (line: string): void => {
    if (line === lastLogged) return;
    lastLogged = line;
    log(line);
  };

  const hintFor403 = forbiddenHint({
    authInfo: () => target.authInfo(credentialSource),
    identity,
    log,
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    // The port as a number: `new URL('http://127.0.0.1:80').port` is '' (the scheme's default).
    const refusal = foreignRequestReason(req.headers, proxyPort);
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
      // The browser reads this answer: there, fixing the credentials ends with a reload (the terminal log and the
      // other commands, such as kfek doctor, that share the error, say only the fix).
      sendText(
        res,
        502,
        error instanceof ProxyCredentialsError ? `${message} Then reload the page.` : message,
      );
      return;
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const headers = forwardRequestHeaders(req.headers);
    // Only host and content-type are signed (plus the x-amz-* headers the signer adds): every other browser
    // header is relayed unsigned, so nothing Node or the browser normalizes can break the signature.
    const toSign: Record<string, string> = {};
    const contentType = req.headers['content-type'];
    if (contentType !== undefined) toSign['content-type'] = contentType;
    const signed = await target.sign(credentials, method, req.url ?? '/', toSign, body);
    const path = signed.target.split('?')[0] ?? '/';
    const outgoing: Record<string, string | string[]> = { ...headers, ...signed.headers };
    if (body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method)) {
      outgoing['content-length'] = String(body.length);
    }

    await new Promise<void>((resolve) => {
      const upstreamReq = transport.request(
        {
          protocol: upstream.protocol,
          hostname: upstream.hostname,
          port: target.port,
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

  const server = createServer(
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
          : error.code === 'EACCES'
            ? new ProxyError(
                `Cannot listen on 127.0.0.1:${options.port ?? DEFAULT_PORT}: ports below 1024 need root; pick ` +
                  `another with --port (the default is ${DEFAULT_PORT})`,
                { cause: error },
              )
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
  proxyPort = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${proxyPort}`,
    upstream: upstream.origin,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error === undefined ? resolve() : reject(error)));
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
