/**
 * A fake Amazon OpenSearch Service endpoint on 127.0.0.1 that answers only the security plugin's
 * `GET /_plugins/_security/authinfo`, for `kfek doctor`'s mapping check: the local OpenSearch node has no
 * security plugin, so it cannot say how a signed caller is mapped. It records the Authorization header so a test
 * can see that the request was signed with SigV4 for service `es`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeAuthInfoOptions {
  /** HTTP status to answer with. @default 200 */
  readonly status?: number;
  /** The authinfo body (the security plugin's shape: `backend_roles`, `roles`, ...). */
  readonly body: Readonly<Record<string, unknown>>;
}

export interface FakeAuthInfo {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** Authorization headers of the requests received, in order. */
  readonly authorizations: readonly string[];
  stop(): Promise<void>;
}

export async function startFakeAuthInfo(options: FakeAuthInfoOptions): Promise<FakeAuthInfo> {
  const authorizations: string[] = [];
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization ?? '');
    if (req.method !== 'GET' || req.url !== '/_plugins/_security/authinfo') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    res
      .writeHead(options.status ?? 200, { 'content-type': 'application/json' })
      .end(JSON.stringify(options.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
