/**
 * SigV4 request signing: the one implementation the OpenSearch applier's HTTP client (core/opensearch/http.ts), the
 * `kfek proxy` signing proxy and the AWS calls made without an SDK client ({@link postSigned}) share, on
 * `@smithy/signature-v4` with a native SHA-256.
 *
 * What a caller sends and what it signs must be the same bytes, so {@link signRequest} takes the request target as
 * the caller wrote it, puts it in one canonical form ({@link canonicalTarget}), signs that form and returns it to
 * be sent. The path is sent URI-encoded once; the signer encodes it a second time for the canonical request, the
 * double encoding SigV4 prescribes for every service except S3: `/my index` is sent as `/my%20index` and signed as
 * `/my%2520index`.
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html#create-canonical-request
 */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import type {
  AwsCredentialIdentity,
  AwsCredentialIdentityProvider,
  Checksum,
  SourceData,
} from '@smithy/types';
import { describeNetworkError } from './errors';

/**
 * SHA-256 (and HMAC-SHA-256 when given a secret) for the signer, on Node's native crypto. The signer hashes every
 * request body; the pure-JavaScript `@aws-crypto/sha256-js` took most of a second for a 50 MiB `_bulk` body
 * through the proxy, OpenSSL a fraction of that.
 */
export class NodeSha256 implements Checksum {
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

/**
 * The AWS SDK's default credential chain (environment, SSO, profiles, container and instance roles). Loaded lazily:
 * its module graph is large, and the plain-HTTP local path never needs it.
 */
export async function defaultCredentialProvider(): Promise<AwsCredentialIdentityProvider> {
  const { defaultProvider } = await import('@aws-sdk/credential-provider-node');
  return defaultProvider();
}

/** RFC 3986 percent-encoding, SigV4's `UriEncode` (encodeURIComponent leaves `!'()*` alone). */
export function uriEncode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** One path segment decoded; a `%` that starts no valid escape is taken literally (it is sent as `%25`). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment.replace(/%(?![0-9A-Fa-f]{2})/g, '%25').replace(/%([0-9A-Fa-f]{2})/g, (escape) => {
      try {
        return decodeURIComponent(escape);
      } catch {
        // A byte of an invalid UTF-8 sequence: keep it as written.
        return escape;
      }
    });
  }
}

/** A request target in the form that is both sent and signed. */
export interface CanonicalTarget {
  /**
   * The path, each segment URI-encoded once (RFC 3986), `.` and `..` resolved and empty segments dropped, as the
   * signer normalizes it: what is sent, and what the signer encodes once more.
   */
  readonly path: string;
  /** The decoded query parameters; a repeated key holds its values in order. */
  readonly query: Record<string, string | string[]>;
  /** The query as sent: `?` and every pair RFC 3986-encoded (`%20` for a space), or empty. */
  readonly search: string;
}

/**
 * The canonical form of a request target (`/path?query` as a browser or a caller wrote it).
 *
 * The query is decoded and re-encoded strictly: a browser's `+` or unencoded `:` would otherwise leave the service
 * to guess what was signed. OpenSearch decodes `+` and `%20` alike, so the request means the same. The path is
 * decoded per segment and encoded once, so `/my index`, `/my%20index` and `/my%2520index` mean what they say and
 * `*`, `:`, `'` and non-ASCII characters go out escaped, never in a form the signer would encode differently.
 */
export function canonicalTarget(target: string): CanonicalTarget {
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const segments: string[] = [];
  for (const raw of rawPath.split('/')) {
    const segment = decodeSegment(raw);
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(uriEncode(segment));
  }
  const trailingSlash = segments.length > 0 && rawPath.endsWith('/');
  const path = `/${segments.join('/')}${trailingSlash ? '/' : ''}`;

  // URLSearchParams decodes `+` as a space, as HTML forms (and browsers' query strings) mean it.
  const params = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
  const query: Record<string, string | string[]> = {};
  const pairs: string[] = [];
  for (const [k, v] of params) {
    const prev = query[k];
    query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    pairs.push(`${uriEncode(k)}=${uriEncode(v)}`);
  }
  return { path, query, search: pairs.length === 0 ? '' : `?${pairs.join('&')}` };
}

/** Who signs, for which service and region. */
export interface SigV4Scope {
  /** e.g. `es` for OpenSearch Service domains, `sts`. */
  readonly service: string;
  readonly region: string;
  /** Resolved credentials, or a provider the signer calls (the SDK's chain memoizes and refreshes). */
  readonly credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider;
}

export interface RequestToSign {
  readonly method: string;
  /** Scheme, host and port of the service (any path on it is ignored: the target carries the path). */
  readonly origin: URL;
  /** Path and query as the caller wrote them; see {@link canonicalTarget}. */
  readonly target: string;
  /** Headers to sign besides `host` (the signer adds `x-amz-date`, `x-amz-content-sha256`, the session token). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  /** @default - now; tests pass a fixed date */
  readonly signingDate?: Date;
}

export interface SignedRequest {
  /** The target to send, path and query: exactly what was signed. */
  readonly target: string;
  /** The given headers plus `host`, `authorization` and the `x-amz-*` headers the signature covers. */
  readonly headers: Record<string, string>;
}

/** Signs a request with SigV4; send {@link SignedRequest.target} with {@link SignedRequest.headers}. */
export async function signRequest(scope: SigV4Scope, request: RequestToSign): Promise<SignedRequest> {
  const { path, query, search } = canonicalTarget(request.target);
  const { origin } = request;
  const signer = new SignatureV4({
    service: scope.service,
    region: scope.region,
    credentials: scope.credentials,
    sha256: NodeSha256,
  });
  const hasBody = request.body !== undefined && request.body.length > 0;
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: origin.protocol,
      hostname: origin.hostname,
      ...(origin.port === '' ? {} : { port: Number(origin.port) }),
      path,
      query,
      // The host header is part of the signature; HTTP clients send the same value (`url.host` omits a default port).
      headers: { ...request.headers, host: origin.host },
      ...(hasBody ? { body: request.body } : {}),
    },
    request.signingDate === undefined ? {} : { signingDate: request.signingDate },
  );
  return { target: `${path}${search}`, headers: signed.headers };
}

/**
 * POSTs `body` to `url`, signed for `scope` ({@link signRequest}), and reads the answer; when none comes, says why
 * (`unreachable`: the network error's code and message; fetch itself only says "fetch failed"). The few AWS API
 * calls made without an SDK client (STS GetCallerIdentity, OpenSearch Serverless's control plane,
 * core/opensearch/serverless-control.ts) go through here.
 */
export async function postSigned(
  scope: SigV4Scope,
  url: URL,
  body: string,
  headers: Readonly<Record<string, string>>,
): Promise<
  | { readonly response: Response; readonly text: string }
  | { readonly unreachable: string; readonly error: unknown }
> {
  const signed = await signRequest(scope, {
    method: 'POST',
    origin: url,
    target: url.pathname,
    headers,
    body,
  });
  const { host: _host, ...sent } = signed.headers;
  try {
    const response = await fetch(new URL(signed.target, url.origin), {
      method: 'POST',
      headers: sent,
      body,
      signal: AbortSignal.timeout(10_000),
    });
    return { response, text: await response.text() };
  } catch (error) {
    const cause =
      typeof error === 'object' && error !== null && 'cause' in error && error.cause !== undefined
        ? error.cause
        : error;
    return { unreachable: describeNetworkError(cause), error };
  }
}
