/**
 * A `fetch` that trusts one CA, for the secured local node whose certificates kfek generates (tls-material.ts).
 * Node's global fetch takes no CA per call (only the whole process's `NODE_EXTRA_CA_CERTS`, read at start-up), so
 * this one sends the request with `node:https` and answers a standard `Response`: core/opensearch/http.ts takes it
 * as its `fetchImpl`, and the node's readiness probes as `probeFetch`. It verifies the server's certificate against
 * the CA and its name (127.0.0.1 is in the node certificate's subject alternative names); it never turns checks off.
 */
import { request as httpsRequest } from 'node:https';

/** What the secured node's clients present and trust. */
export interface TlsTrust {
  /** PEM of the CA that signed the node's certificate. */
  readonly caPem: string;
  /**
   * A client certificate and its key (PEM), for the admin certificate's access.
   * @default - none: the node asks for none (clientauth_mode OPTIONAL), users authenticate with basic auth
   */
  readonly clientCertificate?: { readonly certPem: string; readonly keyPem: string };
}

/** Statuses whose response has no body: `new Response` refuses one for them. */
const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

function headerRecord(headers: RequestInit['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, key) => {
    out[key] = value;
  });
  return out;
}

/** Returns a `fetch` for `https://` URLs that trusts `trust.caPem` (string bodies only: what kfek's clients send). */
export function fetchTrusting(trust: TlsTrust): typeof fetch {
  const fetchImpl = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    if (input instanceof Request) {
      return Promise.reject(new TypeError('fetchTrusting takes a URL, not a Request'));
    }
    if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
      return Promise.reject(new TypeError('fetchTrusting sends string bodies only'));
    }
    const body = init.body ?? undefined;
    const url = new URL(input);
    const signal = init.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      if (signal?.aborted === true) {
        reject(signal.reason as Error);
        return;
      }
      const request = httpsRequest(
        url,
        {
          method: init.method ?? 'GET',
          headers: headerRecord(init.headers),
          ca: trust.caPem,
          ...(trust.clientCertificate === undefined
            ? {}
            : { cert: trust.clientCertificate.certPem, key: trust.clientCertificate.keyPem }),
          ...(signal === undefined ? {} : { signal }),
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            const headers = new Headers();
            for (const [key, value] of Object.entries(response.headers)) {
              if (value === undefined) continue;
              for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
            }
            const content = NULL_BODY_STATUS.has(status) ? null : Buffer.concat(chunks);
            resolve(new Response(content, { status, statusText: response.statusMessage ?? '', headers }));
          });
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  };
  return fetchImpl;
}

/** Wraps a `fetch` to send HTTP basic credentials with every request (the readiness probes' admin). */
export function withBasicAuth(fetchImpl: typeof fetch, username: string, password: string): typeof fetch {
  const authorization = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const wrapped = (input: string | URL | Request, init: RequestInit = {}): Promise<Response> =>
    fetchImpl(input, { ...init, headers: { ...headerRecord(init.headers), authorization } });
  return wrapped;
}
