/**
 * The OpenSearch Serverless conformance stand-in (issue 42, docs/serverless.md): a small HTTP proxy on 127.0.0.1 in
 * front of a real OpenSearch node that answers as a Serverless collection would. No Serverless runs here, so kfek's
 * requests are held to Serverless's documented differences by this proxy instead:
 *
 * - every request must be SigV4-signed for the service `aoss` with a key the stand-in knows, and the signature must
 *   verify (re-signed with core/aws-signing.ts and compared); anything else is 403, as a collection's endpoint
 *   answers an unsigned or wrongly signed request;
 * - the rules of ./rules.ts: refused APIs and settings, `_id` by collection type, no Painless, no `routing`;
 * - when a data access policy is given (core/opensearch/serverless-access.ts, the document the CDK app deploys),
 *   each request needs the permission the API table names, on the index it touches, for the signer's principal.
 *
 * What passes is forwarded to the node unchanged but for the `authorization` header. Start and stop it from test
 * setup: {@link startServerlessStandin} resolves once it listens, `close()` once it has stopped.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { signRequest } from '../../core/aws-signing';
import type { CollectionType } from '../../core/config/serverless';
import {
  type AccessStatement,
  collectionResource,
  indexResource,
  policyAllows,
} from '../../core/opensearch/serverless-access';
import { type Refusal, refusalOf, type StandinRequest } from './rules';

/** A signer the stand-in accepts: its key pair and the IAM principal it stands for in the data access policy. */
export interface StandinIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly principal: string;
}

export interface ServerlessStandinOptions {
  /** The real node, `http://127.0.0.1:<port>`. */
  readonly upstream: string;
  readonly region: string;
  /** @default 'SEARCH' */
  readonly collectionType?: CollectionType;
  /** @default 'kfek-standin' */
  readonly collectionName?: string;
  readonly identities: readonly StandinIdentity[];
  /**
   * The collection's data access policy; requests are judged by it when given.
   * @default - not enforced: every known signer may do everything the rules allow
   */
  readonly accessPolicy?: readonly AccessStatement[];
}

export interface RunningStandin {
  /** `http://127.0.0.1:<port>`, the collection's endpoint. */
  readonly url: string;
  /** Every refusal so far (tests read why a request was refused). */
  readonly refusals: readonly Refusal[];
  close(): Promise<void>;
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

/** Headers the signer adds itself; the others listed in SignedHeaders are passed to it to sign again. */
const SIGNER_HEADERS = new Set(['host', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token']);

/** `20261129T101500Z` as a Date. */
function amzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  return m ? new Date(Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6])) : undefined;
}

/** The principal a request is signed by, or why its signature does not hold for `aoss`. */
async function verifySignature(
  req: IncomingMessage,
  body: string,
  options: ServerlessStandinOptions,
): Promise<StandinIdentity | Refusal> {
  const deny = (reason: string): Refusal => ({
    status: 403,
    reason: `OpenSearch Serverless stand-in: ${reason}`,
  });
  const m = AUTH.exec(req.headers.authorization ?? '');
  if (!m) return deny('the request is not SigV4-signed (Authorization: AWS4-HMAC-SHA256 ...).');
  const [, keyId, , region, service, signedHeaders] = m;
  if (service !== 'aoss') return deny(`the request is signed for "${service}"; a collection takes "aoss".`);
  if (region !== options.region) return deny(`the request is signed for ${region}, not ${options.region}.`);
  const identity = options.identities.find((i) => i.accessKeyId === keyId);
  if (identity === undefined) return deny(`the access key ${keyId} is unknown.`);
  const date = amzDate(String(req.headers['x-amz-date'] ?? ''));
  if (date === undefined) return deny('x-amz-date is missing or malformed.');
  const headers: Record<string, string> = {};
  for (const name of signedHeaders.split(';').filter((h) => !SIGNER_HEADERS.has(h))) {
    headers[name] = String(req.headers[name] ?? '');
  }
  const again = await signRequest(
    { service: 'aoss', region, credentials: identity },
    {
      method: req.method ?? 'GET',
      origin: new URL(`http://${req.headers.host ?? ''}`),
      target: req.url ?? '/',
      headers,
      body,
      signingDate: date,
    },
  );
  return again.headers.authorization === req.headers.authorization
    ? identity
    : deny('the signature does not match the request (SignatureDoesNotMatch).');
}

const READS = /^_(search|msearch|count|mget|field_caps|source|explain|analyze|doc)$/;
const WRITES = /^_(bulk|doc|create|update)$/;

/** The permission a request on one index needs (`op` is the path segment after the index, '' for the index itself). */
function indexPermission(method: string, op: string): string {
  const reading = method === 'GET' || method === 'HEAD';
  if (op === '_doc' || op === '_source') return reading ? 'aoss:ReadDocument' : 'aoss:WriteDocument';
  if (READS.test(op)) return 'aoss:ReadDocument';
  if (WRITES.test(op)) return 'aoss:WriteDocument';
  if (op === '')
    return method === 'PUT'
      ? 'aoss:CreateIndex'
      : method === 'DELETE'
        ? 'aoss:DeleteIndex'
        : 'aoss:DescribeIndex';
  return method === 'PUT' || method === 'POST' ? 'aoss:UpdateIndex' : 'aoss:DescribeIndex';
}

/** The permissions and resources a request needs, as the API table of serverless-genref names them. */
function permissionsOf(
  request: StandinRequest,
  collection: string,
): { permission: string; resource: string }[] {
  const [first, second = ''] = request.path.split('/').filter((p) => p !== '');
  const index = (name: string): string => indexResource(collection, name);
  if (first === '_bulk' || second === '_bulk') {
    const targets = bulkIndices(request.body);
    return (targets.length > 0 ? targets : [first]).map((i) => ({
      permission: 'aoss:WriteDocument',
      resource: index(i),
    }));
  }
  if (first === undefined || first.startsWith('_')) {
    // Root searches and index listings act on every index; templates, aliases and pipelines are collection items.
    if (READS.test(first ?? '')) return [{ permission: 'aoss:ReadDocument', resource: index('*') }];
    if (/^_(cat|mappings?|resolve)$/.test(first ?? '')) {
      // `_cat/indices/<patterns>` and `_resolve/index/<patterns>` describe what the patterns name: a principal needs
      // DescribeIndex on each (a reader of `logs-*` may list `logs-*`); without patterns, on every index.
      const named = request.path.split('/').filter((p) => p !== '')[2];
      const patterns = named === undefined ? ['*'] : named.split(',');
      return patterns.map((pattern) => ({ permission: 'aoss:DescribeIndex', resource: index(pattern) }));
    }
    // serverless-genref.html's API table: DescribeCollectionItems "describe[s] aliases and index templates",
    // UpdateCollectionItems updates them and DeleteCollectionItems deletes them.
    const verb =
      request.method === 'GET' || request.method === 'HEAD'
        ? 'Describe'
        : request.method === 'DELETE'
          ? 'Delete'
          : 'Update';
    return [{ permission: `aoss:${verb}CollectionItems`, resource: collectionResource(collection) }];
  }
  const permission = indexPermission(request.method, second);
  return first.split(',').map((name) => ({ permission, resource: index(name) }));
}

/** The `_index` of each action of a `_bulk` body. */
function bulkIndices(body: string): string[] {
  const out = new Set<string>();
  for (const line of body.split('\n')) {
    const parsed = (() => {
      try {
        return JSON.parse(line) as Record<string, { _index?: string }>;
      } catch {
        return undefined;
      }
    })();
    const [op] = Object.keys(parsed ?? {});
    const target = op === undefined ? undefined : parsed?.[op]?._index;
    if (['index', 'create', 'update', 'delete'].includes(op ?? '') && target !== undefined) out.add(target);
  }
  return [...out];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, refusal: Refusal): void {
  const type = refusal.status === 403 ? 'security_exception' : 'serverless_standin_refusal';
  res.writeHead(refusal.status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: refusal.status, error: { type, reason: refusal.reason } }));
}

function forward(upstream: URL, req: IncomingMessage, body: string, res: ServerResponse): void {
  const headers = { ...req.headers, host: upstream.host };
  delete headers.authorization;
  const out = httpRequest(
    { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
    (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      // A node killed mid-answer: the client sees the connection drop, as from a collection's front end.
      up.on('error', () => res.destroy());
      up.pipe(res);
    },
  );
  // A node that is down answers 502, as a collection's front end answers 5xx when its compute is unreachable; once
  // the answer has begun there is no status left to send, so the connection is cut.
  out.on('error', (error) =>
    res.headersSent ? res.destroy() : answer(res, { status: 502, reason: `upstream node: ${error.message}` }),
  );
  out.end(body);
}

/** Starts the stand-in on a free port of 127.0.0.1. */
export async function startServerlessStandin(options: ServerlessStandinOptions): Promise<RunningStandin> {
  const type = options.collectionType ?? 'SEARCH';
  const collection = options.collectionName ?? 'kfek-standin';
  const upstream = new URL(options.upstream);
  const refusals: Refusal[] = [];
  const refuseWith = (res: ServerResponse, refusal: Refusal): void => {
    refusals.push(refusal);
    answer(res, refusal);
  };
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const signer = await verifySignature(req, body, options);
      if ('status' in signer) return refuseWith(res, signer);
      const url = new URL(req.url ?? '/', 'http://standin');
      const request: StandinRequest = {
        method: req.method ?? 'GET',
        path: decodeURIComponent(url.pathname),
        query: Object.fromEntries(url.searchParams),
        body,
      };
      const refusal = refusalOf(request, type);
      if (refusal) return refuseWith(res, refusal);
      const policy = options.accessPolicy;
      const denied = policy
        ? permissionsOf(request, collection).find(
            (p) => !policyAllows(policy, signer.principal, p.permission, p.resource),
          )
        : undefined;
      if (denied) {
        return refuseWith(res, {
          status: 403,
          reason:
            `OpenSearch Serverless stand-in: ${signer.principal} has no ${denied.permission} on ` +
            `${denied.resource} in the data access policy.`,
        });
      }
      forward(upstream, req, body, res);
    })().catch((error: unknown) => answer(res, { status: 500, reason: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    refusals,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
