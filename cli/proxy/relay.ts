/**
 * One proxy's request path: refuse what a web page made, admit the body within its budget, sign with fresh
 * credentials, and stream the domain's answer back. createSigningProxy (index.ts) builds one and hands it every
 * request; the server and its listening stay there.
 */
import type * as http from 'node:http';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import type { BodyBudget } from './body-budget';
import { ProxyCredentialsError } from './errors';
import { foreignRequestReason } from './guard';
import { forwardRequestHeaders, relayResponseHeaders, sendText } from './http-messages';
import { describeNetworkError, messageOf } from '../../core/errors';
import { resolveCredentials } from './signing';
import type { Upstream } from './upstream';

export interface RelayProps {
  readonly target: Upstream;
  readonly bodies: BodyBudget;
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
  readonly upstreamTimeoutMillis: number;
  /** Explains a 403 once (forbidden-hint.ts). */
  readonly hintFor403: (method: string, path: string) => Promise<void>;
  readonly log: (line: string) => void;
}

export class Relay {
  /** The port the proxy listens on, set once it listens: the guard compares the browser's Origin with it. */
  port = 0;
  private lastLogged = '';

  constructor(private readonly props: RelayProps) {}

  /** Logs a line unless it repeats the previous one: a page of failing requests should print one line. */
  logOnce(line: string): void {
    if (line === this.lastLogged) return;
    this.lastLogged = line;
    this.props.log(line);
  }

  /** Answers one request; never rejects (a failure becomes a 502 with the reason). */
  async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      const refusal = foreignRequestReason(req.headers, this.port);
      if (refusal !== undefined) {
        this.logOnce(`kfek proxy: refused ${req.method ?? 'GET'} ${req.url ?? '/'}: ${refusal}`);
        req.resume();
        sendText(res, 403, `kfek proxy: ${refusal}.`, true);
        return;
      }
      const admitted = await this.props.bodies.read(req, res);
      if (admitted === undefined) return;
      try {
        await this.relay(req, res, admitted.body);
      } finally {
        admitted.release();
      }
    } catch (error) {
      const message = `kfek proxy: ${messageOf(error)}`;
      this.logOnce(message);
      sendText(res, 502, message);
    }
  }

  /** Signs one admitted request and streams the domain's answer back. */
  private async relay(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> {
    let credentials: AwsCredentialIdentity;
    try {
      credentials = await resolveCredentials(this.props.credentials);
    } catch (error) {
      const message = `kfek proxy: ${messageOf(error)}`;
      this.logOnce(message);
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
    // Only host and content-type are signed (plus the x-amz-* headers the signer adds): every other browser
    // header is relayed unsigned, so nothing Node or the browser normalizes can break the signature.
    const contentType = req.headers['content-type'];
    const toSign: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
    const signed = await this.props.target.sign(credentials, method, req.url ?? '/', toSign, body);
    const outgoing: Record<string, string | string[]> = {
      ...forwardRequestHeaders(req.headers),
      ...signed.headers,
    };
    if (body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(method)) {
      outgoing['content-length'] = String(body.length);
    }
    await this.exchange(req, res, { method, path: signed.target, headers: outgoing }, body);
  }

  /** Sends the signed request upstream and pipes the answer to the browser; resolves when it is done either way. */
  private exchange(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    request: { readonly method: string; readonly path: string; readonly headers: http.OutgoingHttpHeaders },
    body: Buffer,
  ): Promise<void> {
    const { target, upstreamTimeoutMillis } = this.props;
    const upstream = target.origin;
    return new Promise<void>((resolve) => {
      const upstreamReq = target.transport.request(
        {
          ...request,
          protocol: upstream.protocol,
          hostname: upstream.hostname,
          port: target.port,
          agent: target.agent,
          timeout: upstreamTimeoutMillis,
        },
        (upstreamRes) => {
          const status = upstreamRes.statusCode ?? 502;
          if (status === 403) void this.props.hintFor403(request.method, request.path.split('?')[0] ?? '/');
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
        this.logOnce(message);
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
}
