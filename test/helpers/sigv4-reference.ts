/**
 * An independent SigV4 computation for tests, written from the AWS documentation rather than from the signer the
 * code uses (@smithy/signature-v4): it takes a request as it was received on the wire and computes the
 * Authorization header AWS would expect for it. test/core/aws-signing.test.ts anchors it on AWS's published test
 * vectors (get-vanilla, get-vanilla-query-order-key-case).
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html
 */
import { createHash, createHmac } from 'node:crypto';

export interface ReceivedRequest {
  readonly method: string;
  /** Path and query exactly as received (`req.url` of a Node server). */
  readonly target: string;
  /** Header values as received; names in any case. */
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body?: string | Uint8Array;
}

export interface ReferenceScope {
  readonly service: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** SigV4's UriEncode, byte by byte over UTF-8: unreserved characters stay, every other byte becomes %XX. */
export function referenceUriEncode(text: string): string {
  let out = '';
  for (const char of text) {
    if (UNRESERVED.test(char)) {
      out += char;
      continue;
    }
    for (const byte of Buffer.from(char, 'utf8'))
      out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Percent-decoding without the `+`-means-space rule of HTML forms. */
function percentDecode(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '%' && /^[0-9A-Fa-f]{2}$/.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i], 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/**
 * The canonical URI of a path as received, for a service other than S3: each segment of the (already once-encoded)
 * path is encoded again. `/my%20index` becomes `/my%2520index`.
 */
export function referenceCanonicalUri(receivedPath: string): string {
  return receivedPath
    .split('/')
    .map((segment) => referenceUriEncode(segment))
    .join('/');
}

/** The canonical query string: parameters decoded, encoded with UriEncode, sorted by name and then by value. */
export function referenceCanonicalQuery(receivedQuery: string): string {
  if (receivedQuery === '') return '';
  const pairs = receivedQuery.split('&').map((pair) => {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq);
    const value = eq < 0 ? '' : pair.slice(eq + 1);
    return [referenceUriEncode(percentDecode(name)), referenceUriEncode(percentDecode(value))] as const;
  });
  pairs.sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0));
  return pairs.map(([n, v]) => `${n}=${v}`).join('&');
}

const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();
const sha256Hex = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

/**
 * The Authorization header AWS expects for a received request, signing the headers named in `signedHeaders`
 * (lowercase, as the request's own Authorization lists them) at the request's `x-amz-date`.
 */
export function referenceAuthorization(
  request: ReceivedRequest,
  scope: ReferenceScope,
  signedHeaders: readonly string[],
): string {
  const lower: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    lower[name.toLowerCase()] = (typeof value === 'string' ? [value] : value).join(',');
  }
  const names = [...signedHeaders].sort();
  const amzDate = lower['x-amz-date'];
  if (amzDate === undefined) throw new Error('the request has no x-amz-date header');
  const q = request.target.indexOf('?');
  const canonicalRequest = [
    request.method.toUpperCase(),
    referenceCanonicalUri(q < 0 ? request.target : request.target.slice(0, q)),
    referenceCanonicalQuery(q < 0 ? '' : request.target.slice(q + 1)),
    ...names.map((name) => `${name}:${(lower[name] ?? '').trim().replace(/\s+/g, ' ')}`),
    '',
    names.join(';'),
    sha256Hex(request.body ?? ''),
  ].join('\n');
  const day = amzDate.slice(0, 8);
  const credentialScope = `${day}/${scope.region}/${scope.service}/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, credentialScope, sha256Hex(canonicalRequest)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${scope.secretAccessKey}`, day), scope.region), scope.service),
    'aws4_request',
  );
  const signature = createHmac('sha256', key).update(stringToSign).digest('hex');
  return (
    `AWS4-HMAC-SHA256 Credential=${scope.accessKeyId}/${credentialScope}, ` +
    `SignedHeaders=${names.join(';')}, Signature=${signature}`
  );
}

/** The signed header names an Authorization header lists. */
export function signedHeadersOf(authorization: string): string[] {
  return /SignedHeaders=([^,]+)/.exec(authorization)?.[1].split(';') ?? [];
}
