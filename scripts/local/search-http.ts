import { createHttpClient, type HttpMethod, type OpenSearchHttpClient } from '../../core/opensearch/http';
import { SearchRequestError } from './errors';

/** One item of a `_bulk` answer (only the fields the delivery loop reads). */
export interface BulkItemResult {
  readonly status: number;
  /** `created`, or `updated` when a document with the same `_id` was there already. */
  readonly result?: string;
  readonly error?: unknown;
  readonly _index?: string;
  readonly _id?: string;
}

/**
 * The calls the local runner makes to its OpenSearch node, over the shipped HTTP port of core/opensearch
 * (plain HTTP on 127.0.0.1: the integ-test distribution has no security plugin). It adds what the runner needs
 * on top: errors for non-2xx answers, and `_bulk` item parsing.
 */
export class SearchHttp {
  /**
   * True for a Serverless collection (local-collection.ts), which has no `_refresh` and no `_nodes`: counts wait on
   * their condition instead of forcing one (summary.ts), and the run reports no node counters (node-stats.ts).
   */
  readonly onCollection: boolean;

  /**
   * @param client the shipped HTTP client. The delivery loop needs one that does not retry by itself
   *   (`maxAttempts: 1`), because it applies Firehose's retry policy per document; see {@link localSearchHttp}.
   * @param options.collection whether the target is a Serverless collection. @default false
   */
  constructor(
    readonly client: OpenSearchHttpClient,
    options: { readonly collection?: boolean } = {},
  ) {
    this.onCollection = options.collection ?? false;
  }

  get url(): string {
    return this.client.baseUrl;
  }

  /** Sends a JSON request; returns the parsed JSON answer, or throws {@link SearchRequestError} on a status >= 300. */
  async json<T>(method: HttpMethod, path: string, body?: unknown): Promise<T> {
    let response;
    try {
      response = await this.client.request({ method, path, body });
    } catch (error) {
      throw new SearchRequestError(`${method} ${path} got no answer from ${this.url}: ${String(error)}`, 0, {
        cause: error,
      });
    }
    if (response.status >= 300) {
      throw new SearchRequestError(
        `${method} ${path} answered HTTP ${response.status}: ${response.text.slice(0, 1000)}`,
        response.status,
      );
    }
    return (typeof response.body === 'string' ? JSON.parse(response.body) : response.body) as T;
  }

  /**
   * `_bulk` with pre-serialized NDJSON lines. A whole-request failure (no answer, 429, 5xx) throws
   * {@link SearchRequestError} with the status; per-item results come back in request order.
   */
  async bulk(ndjson: string): Promise<readonly BulkItemResult[]> {
    let response;
    try {
      response = await this.client.request({
        method: 'POST',
        path: '/_bulk',
        body: ndjson,
        headers: { 'content-type': 'application/x-ndjson' },
      });
    } catch (error) {
      throw new SearchRequestError(`POST /_bulk got no answer from ${this.url}: ${String(error)}`, 0, {
        cause: error,
      });
    }
    if (response.status >= 300) {
      throw new SearchRequestError(
        `POST /_bulk answered HTTP ${response.status}: ${response.text.slice(0, 1000)}`,
        response.status,
      );
    }
    const answer = (typeof response.body === 'string' ? JSON.parse(response.body) : response.body) as {
      items: Array<Record<string, BulkItemResult>>;
    };
    // Each item is keyed by its action (`index`, `create`, ...); there is exactly one key.
    return answer.items.map((item) => Object.values(item)[0]);
  }
}

/** A client for the local node that leaves retrying to the caller (the delivery loop, the latency probe). */
export function localSearchHttp(url: string): SearchHttp {
  return new SearchHttp(createHttpClient({ baseUrl: url, maxAttempts: 1, timeoutMillis: 30_000 }));
}
