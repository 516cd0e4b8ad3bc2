import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { OpenSearchProvisioningError } from './errors';

/**
 * The small HTTP port the provisioner talks through. Two implementations come from {@link createHttpClient}:
 * plain HTTP to the local node of `npm start`, and SigV4-signed (or basic-auth) HTTPS to an Amazon OpenSearch
 * Service domain. Tests pass fakes.
 */
export type HttpMethod = 'GET' | 'HEAD' | 'PUT' | 'POST' | 'DELETE';

export interface HttpRequest {
  readonly method: HttpMethod;
  /** Path below the base URL, starting with `/`; may carry a query string. */
  readonly path: string;
  /** Serialized as JSON (or sent as is when already a string, e.g. NDJSON for `_bulk`). */
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface HttpResponse {
  readonly status: number;
  /** Parsed JSON when the response was JSON, otherwise the text. */
  readonly body: unknown;
  readonly text: string;
}

export interface OpenSearchHttpClient {
  /** Base URL of OpenSearch itself, for messages. */
  readonly baseUrl: string;
  request(request: HttpRequest): Promise<HttpResponse>;
}

export type HttpAuth =
  | { readonly kind: 'none' }
  | {
      readonly kind: 'sigv4';
      readonly region: string;
      /** @default - the Node.js default credential chain (Lambda's role credentials) */
      readonly credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider;
      /** @default 'es' (OpenSearch Service managed domains) */
      readonly service?: string;
    }
  | { readonly kind: 'basic'; readonly username: string; readonly password: string };

export interface HttpClientOptions {
  /** e.g. `http://127.0.0.1:9200` or `https://search-x.eu-west-1.es.amazonaws.com`. */
  readonly baseUrl: string;
  /** @default { kind: 'none' } */
  readonly auth?: HttpAuth;
  /**
   * Attempts per request when the target answers 429/502/503/504 or the connection fails (a domain that has just
   * become active sometimes does for a minute).
   * @default 5
   */
  readonly maxAttempts?: number;
  /** @default 1000 */
  readonly initialBackoffMillis?: number;
  /** @default 30000 */
  readonly timeoutMillis?: number;
  /** Injected for tests. @default globalThis.fetch */
  readonly fetchImpl?: typeof fetch;
}

/** The request could not be completed (network error or timeout after all attempts). */
export class OpenSearchConnectionError extends OpenSearchProvisioningError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OpenSearchConnectionError';
  }
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The AWS SDK's default credential chain (environment, SSO, profiles, container and instance roles). Loaded lazily:
 * its module graph is large, and the plain-HTTP local path never needs it.
 */
export async function defaultCredentialProvider(): Promise<AwsCredentialIdentityProvider> {
  const { defaultProvider } = await import('@aws-sdk/credential-provider-node');
  return defaultProvider();
}

/** Creates an {@link OpenSearchHttpClient} over `fetch`. */
export function createHttpClient(options: HttpClientOptions): OpenSearchHttpClient {
  const base = new URL(options.baseUrl);
  const auth = options.auth ?? { kind: 'none' };
  const maxAttempts = options.maxAttempts ?? 5;
  const initialBackoffMillis = options.initialBackoffMillis ?? 1000;
  const timeoutMillis = options.timeoutMillis ?? 30_000;
  const fetchImpl = options.fetchImpl ?? globalThis.fetch;
  let signer: SignatureV4 | undefined;

  async function headersFor(
    method: HttpMethod,
    url: URL,
    body: string | undefined,
    extra: Readonly<Record<string, string>>,
  ): Promise<Record<string, string>> {
    const headers: Record<string, string> = { ...extra };
    if (body !== undefined && headers['content-type'] === undefined) {
      headers['content-type'] = 'application/json';
    }
    if (auth.kind === 'basic') {
      headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
      return headers;
    }
    if (auth.kind === 'none') {
      return headers;
    }
    signer ??= new SignatureV4({
      service: auth.service ?? 'es',
      region: auth.region,
      credentials: auth.credentials ?? (await defaultCredentialProvider()),
      sha256: Sha256,
    });
    const query: Record<string, string | string[]> = {};
    for (const [k, v] of url.searchParams) {
      const prev = query[k];
      query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
    const signed = await signer.sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === '' ? {} : { port: Number(url.port) }),
      path: decodeURIComponent(url.pathname),
      query,
      // The host header is part of the signature; fetch sends the same value.
      headers: { ...headers, host: url.host },
      ...(body === undefined ? {} : { body }),
    });
    const { host: _host, ...rest } = signed.headers;
    return rest;
  }

  async function once(request: HttpRequest): Promise<HttpResponse> {
    const basePath = base.pathname.replace(/\/$/, '');
    const url = new URL(`${base.origin}${basePath}${request.path}`);
    const body =
      request.body === undefined
        ? undefined
        : typeof request.body === 'string'
          ? request.body
          : JSON.stringify(request.body);
    const headers = await headersFor(request.method, url, body, request.headers ?? {});
    const response = await fetchImpl(url, {
      method: request.method,
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(timeoutMillis),
    });
    const text = await response.text();
    let parsed: unknown = text;
    if (text.length > 0 && (response.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text) as unknown;
      } catch {
        parsed = text;
      }
    }
    return { status: response.status, body: parsed, text };
  }

  return {
    baseUrl: options.baseUrl,
    async request(request: HttpRequest): Promise<HttpResponse> {
      let lastError: unknown;
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        try {
          const response = await once(request);
          if (!RETRYABLE_STATUS.has(response.status) || attempt === maxAttempts) {
            return response;
          }
        } catch (error) {
          lastError = error;
          if (attempt === maxAttempts) {
            break;
          }
        }
        await sleep(initialBackoffMillis * 2 ** (attempt - 1));
      }
      throw new OpenSearchConnectionError(
        `${request.method} ${options.baseUrl}${request.path} failed after ${maxAttempts} attempts: ${String(lastError)}`,
        { cause: lastError },
      );
    },
  };
}
