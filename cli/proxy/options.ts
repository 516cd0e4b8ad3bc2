/** What `createSigningProxy` takes and returns, and its defaults. */
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';

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

export const DEFAULT_PORT = 9200;
export const DEFAULT_MAX_BODY_BYTES = 100 * 1024 * 1024;
export const DEFAULT_MAX_BUFFERED_BYTES = 256 * 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT_BODIES = 8;
export const DEFAULT_UPSTREAM_TIMEOUT_MILLIS = 300_000;
export const DEFAULT_HEADERS_TIMEOUT_MILLIS = 20_000;
export const DEFAULT_REQUEST_TIMEOUT_MILLIS = 120_000;
