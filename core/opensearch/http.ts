import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { defaultCredentialProvider, signRequest } from '../aws-signing';
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

/** The request's body as sent: a string as it is, anything else as JSON; none without one. */
function serializedBody(request: HttpRequest): string | undefined {
  if (request.body === undefined) return undefined;
  return typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
}

/** The answer's status and text, and its body parsed when it says it is JSON (the text when it does not parse). */
async function readResponse(response: Response): Promise<HttpResponse> {
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

/** Creates an {@link OpenSearchHttpClient} over `fetch`. */
export function createHttpClient(options: HttpClientOptions): OpenSearchHttpClient {
  const base = new URL(options.baseUrl);
  const auth = options.auth ?? { kind: 'none' };
  const maxAttempts = options.maxAttempts ?? 5;
  const initialBackoffMillis = options.initialBackoffMillis ?? 1000;
  const timeoutMillis = options.timeoutMillis ?? 30_000;
  const fetchImpl = options.fetchImpl ?? globalThis.fetch;
  let credentials: AwsCredentialIdentity | AwsCredentialIdentityProvider | undefined;

  /** The URL to fetch and its headers: signed (target in the form signed, see core/aws-signing.ts) or not. */
  async function prepare(
    method: HttpMethod,
    target: string,
    body: string | undefined,
    extra: Readonly<Record<string, string>>,
  ): Promise<{ url: URL; headers: Record<string, string> }> {
    const headers: Record<string, string> = { ...extra };
    if (body !== undefined && headers['content-type'] === undefined) {
      headers['content-type'] = 'application/json';
    }
    if (auth.kind === 'basic') {
      headers.authorization = `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    }
    if (auth.kind !== 'sigv4') {
      return { url: new URL(`${base.origin}${target}`), headers };
    }
    credentials ??= auth.credentials ?? (await defaultCredentialProvider());
    const signed = await signRequest(
      { service: auth.service ?? 'es', region: auth.region, credentials },
      { method, origin: base, target, headers, ...(body === undefined ? {} : { body }) },
    );
    // fetch sets host itself, from the URL: the same value that was signed.
    const { host: _host, ...rest } = signed.headers;
    return { url: new URL(`${base.origin}${signed.target}`), headers: rest };
  }

  async function once(request: HttpRequest): Promise<HttpResponse> {
    const basePath = base.pathname.replace(/\/$/, '');
    const body = serializedBody(request);
    const { url, headers } = await prepare(
      request.method,
      `${basePath}${request.path}`,
      body,
      request.headers ?? {},
    );
    const response = await fetchImpl(url, {
      method: request.method,
      headers,
      ...(body === undefined ? {} : { body }),
      signal: AbortSignal.timeout(timeoutMillis),
    });
    return readResponse(response);
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
