/**
 * A fake OpenSearch HTTP endpoint on 127.0.0.1 for `kfek verify` tests: it serves `_search` with scroll,
 * `_search/scroll` and clear-scroll over an in-memory document list, and can make documents appear only from a
 * given search on (to measure latency) or demand basic auth.
 *
 * It matches `match_phrase` on `message` as a substring, not with OpenSearch's analyser: the real node, with the
 * real index template, is issue 4's end-to-end job.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeDocument {
  readonly source: Record<string, unknown>;
  /** The first search (1-based count of initial `_search` calls) that can see this document. @default 1 */
  readonly visibleFromSearch?: number;
}

export interface FakeRequest {
  readonly method: string;
  readonly url: string;
  readonly authorization?: string;
  readonly body: unknown;
}

export interface FakeOpenSearch {
  readonly url: string;
  readonly requests: readonly FakeRequest[];
  /** Scroll contexts opened and not cleared. */
  readonly openScrolls: number;
  stop(): Promise<void>;
}

export interface FakeOpenSearchOptions {
  /** Answer 401 unless this exact Authorization header is sent. */
  readonly requireAuthorization?: string;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? undefined : (JSON.parse(text) as unknown);
}

export async function startFakeOpenSearch(
  documents: readonly FakeDocument[],
  options: FakeOpenSearchOptions = {},
): Promise<FakeOpenSearch> {
  const requests: FakeRequest[] = [];
  const scrolls = new Map<string, { readonly hits: unknown[]; offset: number; readonly size: number }>();
  let searches = 0;
  let nextScroll = 0;

  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      });
      const reply = (status: number, payload: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
        res.end(JSON.stringify(payload));
      };
      if (
        options.requireAuthorization !== undefined &&
        req.headers.authorization !== options.requireAuthorization
      ) {
        reply(401, { error: 'Unauthorized' });
        return;
      }
      const url = new URL(req.url ?? '/', 'http://fake');
      const page = (id: string): unknown => {
        const scroll = scrolls.get(id);
        if (scroll === undefined) return { error: 'no such scroll' };
        const hits = scroll.hits.slice(scroll.offset, scroll.offset + scroll.size);
        scroll.offset += hits.length;
        return { _scroll_id: id, hits: { total: { value: scroll.hits.length }, hits } };
      };
      if (req.method === 'POST' && url.pathname === '/_search/scroll') {
        reply(200, page((body as { scroll_id: string }).scroll_id));
        return;
      }
      if (req.method === 'DELETE' && url.pathname === '/_search/scroll') {
        for (const id of (body as { scroll_id: string[] }).scroll_id) scrolls.delete(id);
        reply(200, { succeeded: true });
        return;
      }
      if (req.method === 'POST' && url.pathname.endsWith('/_search')) {
        searches += 1;
        const request = body as { size: number; query: { match_phrase: { message: string } } };
        const phrase = request.query.match_phrase.message;
        const hits = documents
          .filter((d) => (d.visibleFromSearch ?? 1) <= searches)
          .filter((d) => typeof d.source.message === 'string' && d.source.message.includes(phrase))
          .map((d, i) => ({ _index: 'logs-2026.11.23', _id: String(i), _source: d.source }));
        const id = `scroll-${nextScroll++}`;
        scrolls.set(id, { hits, offset: 0, size: request.size });
        reply(200, page(id));
        return;
      }
      reply(404, { error: `fake OpenSearch does not serve ${req.method} ${url.pathname}` });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get openScrolls() {
      return scrolls.size;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
