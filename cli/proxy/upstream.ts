/**
 * The domain side of the proxy: one keep-alive agent to the domain, the SigV4 signer for its requests, and the
 * security plugin's authinfo call the 403 hint asks.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as tls from 'node:tls';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { type SignedRequest, signRequest } from '../../core/aws-signing';
import { type AuthInfo, parseAuthInfo, resolveCredentials } from './signing';

export interface UpstreamProps {
  /** Origin of the domain (from `upstreamOrigin`). */
  readonly origin: URL;
  readonly region: string;
  readonly service: string;
  /** Extra PEM certificate authority for an https domain. @default - Node's bundled CAs only */
  readonly ca?: string;
}

export class Upstream {
  readonly origin: URL;
  readonly transport: typeof http | typeof https;
  readonly agent: http.Agent;

  constructor(private readonly props: UpstreamProps) {
    this.origin = props.origin;
    this.transport = props.origin.protocol === 'https:' ? https : http;
    // Keep-alive to the domain: Dashboards fires dozens of requests per page, and a TLS handshake each would be slow.
    this.agent =
      props.origin.protocol === 'https:'
        ? new https.Agent({
            keepAlive: true,
            maxSockets: 32,
            ...(props.ca !== undefined ? { ca: [...tls.rootCertificates, props.ca] } : {}),
          })
        : new http.Agent({ keepAlive: true, maxSockets: 32 });
  }

  /** The port to connect to, or undefined for the protocol's default. */
  get port(): number | undefined {
    return this.origin.port === '' ? undefined : Number(this.origin.port);
  }

  /**
   * Signs a request to the domain with the one SigV4 implementation (core/aws-signing.ts): `target` is the
   * browser's path and query, `toSign` the caller's headers to sign (host is added). Send the returned target: it
   * is the canonical form that was signed.
   */
  async sign(
    credentials: AwsCredentialIdentity,
    method: string,
    target: string,
    toSign: Record<string, string>,
    body: Buffer,
  ): Promise<SignedRequest> {
    return signRequest(
      { service: this.props.service, region: this.props.region, credentials },
      { method, origin: this.origin, target, headers: toSign, body },
    );
  }

  /**
   * How the security plugin sees the caller, from its authinfo API, which answers every authenticated caller,
   * mapped or not (Dashboards reads it to show its "missing role" page): the backend roles it derived from the
   * signature (the exact string a role mapping must contain, whatever IAM path the role has) and the OpenSearch
   * roles they are mapped to. Undefined when the domain refuses even that (the access policy, not the security
   * plugin, rejected the request) or answers something else.
   */
  async authInfo(
    credentialSource: AwsCredentialIdentity | AwsCredentialIdentityProvider,
  ): Promise<AuthInfo | undefined> {
    try {
      const credentials = await resolveCredentials(credentialSource);
      const path = '/_plugins/_security/authinfo';
      const { host: _host, ...headers } = (await this.sign(credentials, 'GET', path, {}, Buffer.alloc(0)))
        .headers;
      const response = await new Promise<{ ok: boolean; text: string }>((resolve, reject) => {
        const req = this.transport.request(
          {
            protocol: this.origin.protocol,
            hostname: this.origin.hostname,
            port: this.port,
            path,
            headers,
            agent: this.agent,
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
}
